#!/usr/bin/perl
# SPDX-License-Identifier: LGPL-2.1-or-later
# compare-parser.pl WORK UNITS_DIR: the comparisons of scenario
# 85, in one process (under TCG a fork costs more than the whole check).
#
# WORK holds what 85-differential-parser.sh gathered:
#   cases/NN-name.unit   the input bytes
#   sd/NN.json           busctl GetAll org.freedesktop.systemd1.Unit of pgd-NN.target
#   journal.txt          PID 1's messages since the cases were written
#   list.json verify.json parse.json list.err   policyctl's answers
#   intended.txt         "NN<TAB>reason" of the intended differences
# Prints every check, every disagreement with both answers and the input
# bytes, and a summary; exits 1 when anything disagreed.
use strict;
use warnings;
use File::Basename ();

require(File::Basename::dirname(__FILE__) . '/json.pl');

my ($work, $units) = @ARGV;
die "usage: compare-parser.pl WORK UNITS_DIR\n" unless defined $units;

sub slurp {
        my ($path) = @_;
        open(my $f, '<:raw', $path) or return undef;
        local $/;
        my $data = <$f>;
        return $data // '';
}

sub decode_file {
        my ($path) = @_;
        my $text = slurp($path);
        return undef unless defined $text && $text =~ /\S/;
        my @docs = eval { json_decode($text) };
        if ($@) {
                print "cannot read $path as JSON: $@";
                return undef;
        }
        return $docs[0];
}

my (@disagreements, @intended);

sub shorten {
        my ($v) = @_;
        return $v if length($v) <= 160;
        return substr($v, 0, 100) . '…(' . length($v) . ' bytes)…' . substr($v, -40);
}

# disagree CASE WHAT SYSTEMD PROJECT WHO
sub disagree {
        my ($case, $what, $sd, $ours, $who) = @_;
        push @disagreements, "$case: $what: systemd " . shorten($sd) . ", $who " . shorten($ours);
        print "DISAGREE $case: $what\n  systemd: " . shorten($sd) . "\n  $who: " . shorten($ours) . "\n";
}

sub compare {
        my ($case, $what, $sd, $ours, $who) = @_;
        if ($sd eq $ours) {
                print "ok $case: $what = " . shorten($sd) . "\n";
                return 1;
        }
        disagree(@_);
        return 0;
}

sub show_bytes {
        my ($path) = @_;
        my $data = slurp($path) // '';
        my $n = length($data);
        print "  input $path ($n bytes):\n";
        my $dump = sub {
                my ($bytes, $offset) = @_;
                for (my $i = 0; $i < length($bytes); $i += 16) {
                        my $chunk = substr($bytes, $i, 16);
                        printf "    %07o %s\n", $offset + $i, join(' ', map {
                                my $o = ord($_);
                                $_ eq "\n" ? ' \n' : $_ eq "\r" ? ' \r' : $_ eq "\t" ? ' \t' : $o == 0 ? ' \0'
                                    : ($o < 0x20 || $o >= 0x7f) ? sprintf('%03o', $o) : "  $_"
                        } split(//, $chunk));
                }
        };
        $dump->(substr($data, 0, 256), 0);
        if ($n > 256) {
                print "  … its last 64 bytes:\n";
                $dump->(substr($data, -64), $n - 64);
        }
}

sub lines_list { my %h = map { $_ => 1 } @_; return join(',', sort { $a <=> $b } keys %h) || 'none'; }

# ---- the answers ----
opendir(my $d, "$work/cases") or die "no $work/cases: $!";
my @cases = sort grep { /^[0-9]+-.*\.unit$/ } readdir($d);
closedir($d);

my %intended_reason;
for (split /\n/, slurp("$work/intended.txt") // '') {
        my ($id, $why) = split /\t/, $_, 2;
        $intended_reason{$id} = $why;
}

my $journal = slurp("$work/journal.txt") // '';
my %sd_lines;    # id → [lines]
while ($journal =~ /^\Q$units\E\/pgd-([0-9]+)\.target:([0-9]+):/mg) {
        push @{ $sd_lines{$1} }, $2;
}
my @journal_lines = split /\n/, $journal;

my $list = decode_file("$work/list.json");
print "policyctl list --json gave no JSON\n" unless $list;
my %group;    # id → the group's object
for my $g (@{ $list // [] }) {
        $group{$1} = $g if ($g->{name} // '') =~ /^pgd([0-9]+)$/;
}
my $have_doc = grep { exists $_->{documentation} } values %group;
disagree('all', 'Documentation', 'a list per unit',
         'policyctl list --json has no "documentation"; the Documentation checks of ' . scalar(@cases) . ' cases did not run',
         'policyctl') unless $have_doc;

my $verify = decode_file("$work/verify.json");
print "policyctl verify --json gave no JSON\n" unless $verify;
my %our_lines;    # id → [lines]
for my $diag (@{ $verify // [] }) {
        next unless ($diag->{file} // '') =~ /\/pgd([0-9]+)\.policy$/;
        my $id = $1;
        next unless defined $diag->{line};
        # Without Documentation= in the project (reported once above), its
        # "Unknown key" warnings would fail every case a second time.
        next if !$have_doc && ($diag->{message} // '') =~ /^Unknown key .Documentation. /;
        push @{ $our_lines{$id} }, ${ $diag->{line} };
}
my @list_err = split /\n/, slurp("$work/list.err") // '';

my $parse = decode_file("$work/parse.json");
my %parsed;    # id → the file's object
for my $p (@{ $parse // [] }) {
        $parsed{$1} = $p if ($p->{file} // '') =~ /\/pgd-([0-9]+)\.target$/;
}
unless ($parse) {
        my $err = (split /\n/, slurp("$work/parse.err") // '')[0] // '';
        disagree('all', 'policyctl parse', 'answers',
                 "'policyctl parse --json' failed: $err; the parse checks of " . scalar(@cases) . ' cases did not run',
                 'policyctl');
}

# ---- case by case ----
for my $file (@cases) {
        my ($id) = $file =~ /^([0-9]+)-/;
        (my $name = $file) =~ s/\.unit$//;
        my $unit = "pgd-$id.target";
        my $before = @disagreements;

        my $props = decode_file("$work/sd/$id.json");
        my $p = $props ? $props->{data}[0] : {};
        my $load_state = $p->{LoadState}{data} // '(no answer)';
        my $loaded = $load_state eq 'loaded';
        my $sd_desc = $p->{Description}{data} // '';
        my $sd_doc = json_canonical_list($p->{Documentation}{data});
        my $sd_lines = lines_list(@{ $sd_lines{$id} // [] });

        if (my $why = $intended_reason{$id}) {
                # Undo systemd's expansion: % was %%, the unit name was %n.
                $sd_desc =~ s/%/%%/g;
                $sd_desc =~ s/\Q$unit\E/%n/g;
                push @intended, "$name: $why";
        } elsif ($sd_desc eq $unit) {
                # Without a description systemd shows the unit's name.
                $sd_desc = '';
        }
        my $error = $loaded ? '' : ' (' . ($p->{LoadError}{data}[1] // '') . ')';
        print "== $name: systemd $load_state$error, lines $sd_lines\n";

        # 1. policyctl list: the group exists exactly when systemd loaded the unit.
        my $g = $group{$id};
        compare($name, 'loaded (policyctl list)', $loaded ? 'yes' : 'no', $g ? 'yes' : 'no', 'policyctl');
        if ($loaded && $g) {
                compare($name, 'Description (policyctl list)', json_canonical($sd_desc),
                        json_canonical($g->{description} // ''), 'policyctl');
                compare($name, 'Documentation (policyctl list)', $sd_doc, json_canonical_list($g->{documentation}),
                        'policyctl')
                    if $have_doc;
        }

        # 2. policyctl verify: the lines of its diagnostics for the policy file.
        my $our_lines = lines_list(@{ $our_lines{$id} // [] });
        if (!$loaded && $sd_lines eq 'none') {
                print "note $name: systemd names no line for this file; verify says: $our_lines\n";
        } else {
                compare($name, 'lines with diagnostics (policyctl verify)', $sd_lines, $our_lines, 'policyctl');
        }

        # 3. policyctl parse on the unit file itself.
        if ($parse) {
                my $r = $parsed{$id};
                if (!$r) {
                        disagree($name, 'policyctl parse', 'an answer', "no object for $unit", 'policyctl parse');
                } else {
                        my $refused = ${ $r->{refused} // \'(none)' };
                        # A masked (empty) unit file is not a refusal.
                        my $want = ($loaded || $load_state eq 'masked') ? 'false' : 'true';
                        compare($name, 'refused (policyctl parse)', $want, $refused, 'policyctl parse');
                        if ($refused eq 'true' && $sd_lines ne 'none') {
                                my $line = $r->{error} && defined $r->{error}{line} ? ${ $r->{error}{line} } : 'none';
                                disagree($name, 'line of the refusal (policyctl parse)', $sd_lines, $line, 'policyctl parse')
                                    unless grep { $_ eq $line } split(/,/, $sd_lines);
                        }
                        if ($loaded) {
                                my $last = '';
                                for my $a (@{ $r->{assignments} // [] }) {
                                        $last = $a->{value} // ''
                                            if ($a->{section} // '') eq 'Unit' && ($a->{key} // '') eq 'Description';
                                }
                                compare($name, 'last Description= in [Unit] (policyctl parse)', json_canonical($sd_desc),
                                        json_canonical($last), 'policyctl parse');
                        }
                }
        }

        if (@disagreements > $before) {
                print "  systemd's journal for $unit:\n";
                my %seen;
                print map { '    ' . substr($_, 0, 200) . "\n" }
                    grep { index($_, "$units/$unit:") == 0 && !$seen{$_}++ } @journal_lines;
                print "  policyctl's diagnostics for pgd$id.policy:\n";
                print map { '    ' . substr($_, 0, 200) . "\n" } grep { index($_, "/pgd$id.policy:") >= 0 } @list_err;
                show_bytes("$work/cases/$file");
        }
}

# ---- summary ----
print "\n";
if (@intended) {
        print "Intended differences (documented, still checked):\n";
        print "  $_\n" for @intended;
}
if (!@disagreements) {
        print "No disagreements with systemd in " . scalar(@cases) . " cases.\n";
        exit 0;
}
print scalar(@disagreements) . " disagreements with systemd in " . scalar(@cases) . " cases:\n";
print "  $_\n" for @disagreements;
exit 1;
