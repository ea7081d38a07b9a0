#!/usr/bin/perl
# SPDX-License-Identifier: LGPL-2.1-or-later
# compare-dropins.pl WORK GEN_MANUAL: the comparisons of scenario 86, in one
# process (under TCG a fork costs more than the whole check).
#
# WORK holds what 86-differential-dropins.sh gathered:
#   units.txt            "UNIT<TAB>what the layout shows<TAB>its files, space-separated"
#   sd/UNIT.json         busctl GetAll org.freedesktop.systemd1.Unit
#   explain/UNIT.json    policyctl explain --json (absent when it failed;
#   explain/UNIT.err     then its error)
#   extra.txt            "WHAT<TAB>EXPECTED<TAB>GOT" found by the script itself
# GEN_MANUAL/normal is the generator's output when run by hand.
#
# The expected groups of a unit are the pgdd-gK of systemd's Documentation
# (man:pgdd-gK(1)), when systemd loaded the unit, else none. The project
# reports groups as a set sorted by name, so sets are compared; systemd's
# order is printed beside them.
use strict;
use warnings;
use File::Basename ();

require(File::Basename::dirname(__FILE__) . '/json.pl');

my ($work, $gen_manual) = @ARGV;
die "usage: compare-dropins.pl WORK GEN_MANUAL\n" unless defined $gen_manual;
# Where systemd's run of the generator wrote; another place for selftest.sh.
my $generator_dir = $ENV{PGDD_GENERATOR_DIR} // '/run/systemd/generator';

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

my @disagreements;

sub compare {
        my ($case, $what, $sd, $ours, $who) = @_;
        if ($sd eq $ours) {
                print "ok $case: $what = $sd\n";
                return 1;
        }
        push @disagreements, "$case: $what: systemd $sd, $who $ours";
        print "DISAGREE $case: $what\n  systemd: $sd\n  $who: $ours\n";
        return 0;
}

sub set_of { my %h = map { $_ => 1 } @_; return join(',', sort keys %h) || 'none'; }

# The groups a generated drop-in names: "# Policy groups: a b" (see
# append_groups_header() in src/generator).
sub generated_groups {
        my ($path) = @_;
        my $text = slurp($path);
        return 'none' unless defined $text;
        return set_of(map { split ' ' } $text =~ /^# Policy groups:(.*)$/mg);
}

sub show_file {
        my ($path) = @_;
        if (-l $path) {
                print "    $path -> " . readlink($path) . "\n";
        } elsif (-f $path) {
                my $text = slurp($path) // '';
                $text =~ s/\n/|/g;
                print "    $path: $text\n";
        }
}

for my $line (split /\n/, slurp("$work/units.txt") // '') {
        my ($unit, $layout, $files) = split /\t/, $line, 3;
        my $before = @disagreements;

        my $props = decode_file("$work/sd/$unit.json");
        my $p = $props ? $props->{data}[0] : {};
        my $load_state = $p->{LoadState}{data} // '(no answer)';
        my @docs = @{ $p->{Documentation}{data} // [] };
        my @dropins = @{ $p->{DropInPaths}{data} // [] };

        # systemd applies nothing of a unit it did not load.
        my $expected = $load_state eq 'loaded' ? set_of(map { /^man:(pgdd-g[0-9]+)\(1\)$/ ? $1 : () } @docs) : 'none';

        # The generator's drop-in that applies to the unit: systemd lists it
        # (the most specific of that name in /run/systemd/generator wins).
        my ($generated) = grep { m{^/run/systemd/generator/.*/50-policy-groups\.conf$} } @dropins;
        my ($gen_sd, $gen_hand) = ('none', 'none');
        if ($generated) {
                (my $rel = $generated) =~ s{^/run/systemd/generator/}{};
                $generated = "$generator_dir/$rel";
                $gen_sd = generated_groups($generated);
                $gen_hand = generated_groups("$gen_manual/normal/$rel");
        }

        # policyctl explain, asked by systemd's Id, and by the alias name
        # where the unit was started by one.
        my $explained = sub {
                my ($base) = @_;
                my $explain = decode_file("$base.json");
                return set_of(map { $_->{group} } @{ $explain->{groups} // [] }) if $explain;
                return 'none' if $load_state ne 'loaded';
                my $err = (split /\n/, slurp("$base.err") // '')[0] // '';
                return "(not managed: $err)";
        };
        my $policyd = $explained->("$work/explain/$unit");

        print "== $unit: $layout\n";
        print "   systemd: LoadState=$load_state FragmentPath=" . ($p->{FragmentPath}{data} // '') . "\n";
        print "   systemd: Documentation=" . json_canonical_list(\@docs) . "\n";
        print "   systemd: DropInPaths=" . json_canonical_list(\@dropins) . "\n";
        compare($unit, 'groups (policyd-generator, run by systemd)', $expected, $gen_sd, 'policyd-generator');
        compare($unit, 'groups (policyd-generator, run by hand)', $expected, $gen_hand, 'policyd-generator by hand');
        compare($unit, 'groups (policyd)', $expected, $policyd, 'policyctl explain');
        compare($unit, 'groups (policyd, asked by the alias name)', $expected,
                $explained->("$work/explain/$unit.alias"), 'policyctl explain')
            if -e "$work/explain/$unit.alias.err";

        if (@disagreements > $before) {
                if ($generated && -f $generated) {
                        print "  generated $generated:\n";
                        print map { "    $_\n" } split /\n/, slurp($generated);
                }
                print "  input files:\n";
                show_file($_) for split ' ', $files;
        }
}

for my $line (split /\n/, slurp("$work/extra.txt") // '') {
        my ($what, $want, $got) = split /\t/, $line, 3;
        compare('policyd', $what, $want, $got, 'policyd');
}

print "\n";
if (!@disagreements) {
        print "No disagreements with systemd.\n";
        exit 0;
}
print scalar(@disagreements) . " disagreements with systemd:\n";
print "  $_\n" for @disagreements;
exit 1;
