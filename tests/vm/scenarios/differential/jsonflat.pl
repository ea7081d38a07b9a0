#!/usr/bin/perl
# SPDX-License-Identifier: LGPL-2.1-or-later
# jsonflat.pl < JSON: one line per leaf, "PATH<TAB>VALUE", for the
# differential scenarios (the guest has perl-base, but no jq, python3 or
# JSON::PP).
#
#   {"a":[1,"x\ty"]}  →  .a[0]<TAB>1
#                        .a[1]<TAB>"x\ty"
#
# Strings are decoded and written again in one canonical form, so two
# producers that escape differently (busctl, policyctl) compare equal byte for
# byte: " and \ escaped, control characters and DEL as \n, \r, \t or \u00XX,
# valid UTF-8 as it is, any byte that is not valid UTF-8 as \xNN (not JSON,
# but it shows the byte). An empty array or object is a leaf: [] or {}.
use strict;
use warnings;

binmode STDIN;
binmode STDOUT;
local $/;
my $s = <STDIN>;
my $pos = 0;

sub fail { die "jsonflat: $_[0] at byte $pos\n"; }
sub ws { $pos++ while $pos < length($s) && substr($s, $pos, 1) =~ /[ \t\r\n]/; }

sub utf8_bytes {
        my ($c) = @_;
        return chr($c) if $c < 0x80;
        return chr(0xc0 | ($c >> 6)) . chr(0x80 | ($c & 0x3f)) if $c < 0x800;
        return chr(0xe0 | ($c >> 12)) . chr(0x80 | (($c >> 6) & 0x3f)) . chr(0x80 | ($c & 0x3f)) if $c < 0x10000;
        return chr(0xf0 | ($c >> 18)) . chr(0x80 | (($c >> 12) & 0x3f)) . chr(0x80 | (($c >> 6) & 0x3f))
            . chr(0x80 | ($c & 0x3f));
}

# A JSON string at $pos, as raw bytes.
sub string {
        my $out = '';
        $pos++;    # the opening quote
        while (1) {
                fail('unterminated string') if $pos >= length($s);
                # A run without quotes or escapes at once.
                pos($s) = $pos;
                if ($s =~ /\G([^"\\]+)/gc) {
                        $out .= $1;
                        $pos = pos($s);
                        next;
                }
                my $c = substr($s, $pos++, 1);
                return $out if $c eq '"';
                if ($c ne '\\') {
                        $out .= $c;
                        next;
                }
                my $e = substr($s, $pos++, 1);
                if    ($e eq 'n') { $out .= "\n"; }
                elsif ($e eq 't') { $out .= "\t"; }
                elsif ($e eq 'r') { $out .= "\r"; }
                elsif ($e eq 'b') { $out .= "\b"; }
                elsif ($e eq 'f') { $out .= "\f"; }
                elsif ($e eq 'u') {
                        my $h = substr($s, $pos, 4);
                        fail('bad \\u escape') unless $h =~ /^[0-9a-fA-F]{4}$/;
                        $pos += 4;
                        my $cp = hex($h);
                        if ($cp >= 0xd800 && $cp < 0xdc00 && substr($s, $pos, 2) eq '\\u') {
                                my $lo = hex(substr($s, $pos + 2, 4));
                                if ($lo >= 0xdc00 && $lo < 0xe000) {
                                        $pos += 6;
                                        $cp = 0x10000 + (($cp - 0xd800) << 10) + ($lo - 0xdc00);
                                }
                        }
                        $out .= utf8_bytes($cp);
                } else {
                        $out .= $e;    # \" \\ \/
                }
        }
}

# Bytes → the canonical one-line form.
sub canonical {
        my ($b) = @_;
        my $out = '"';
        # Runs of what stays as it is (printable ASCII but " and \, and valid
        # UTF-8 sequences) in one match: 1 MiB values are common here.
        while ($b =~ /\G(?:((?:[\x20\x21\x23-\x5b\x5d-\x7e]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]
                           |[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}
                           |[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}){1,30000})|(.))/gsx) {
                if (defined $1) {
                        $out .= $1;
                        next;
                }
                my $c = $2;
                my $o = ord($c);
                if    ($c eq '"')  { $out .= '\\"'; }
                elsif ($c eq '\\') { $out .= '\\\\'; }
                elsif ($c eq "\n") { $out .= '\\n'; }
                elsif ($c eq "\r") { $out .= '\\r'; }
                elsif ($c eq "\t") { $out .= '\\t'; }
                elsif ($o < 0x20 || $o == 0x7f) { $out .= sprintf('\\u%04x', $o); }
                elsif ($o >= 0x80) { $out .= sprintf('\\x%02x', $o); }
                else               { $out .= $c; }
        }
        return $out . '"';
}

sub value {
        my ($path) = @_;
        ws();
        my $c = substr($s, $pos, 1);
        if ($c eq '{') {
                $pos++;
                ws();
                if (substr($s, $pos, 1) eq '}') {
                        $pos++;
                        print "$path\t{}\n";
                        return;
                }
                while (1) {
                        ws();
                        fail('expected a key') unless substr($s, $pos, 1) eq '"';
                        my $k = string();
                        ws();
                        fail("expected ':'") unless substr($s, $pos++, 1) eq ':';
                        value("$path.$k");
                        ws();
                        my $d = substr($s, $pos++, 1);
                        last if $d eq '}';
                        fail("expected ',' or '}'") unless $d eq ',';
                }
        } elsif ($c eq '[') {
                $pos++;
                ws();
                if (substr($s, $pos, 1) eq ']') {
                        $pos++;
                        print "$path\t[]\n";
                        return;
                }
                my $i = 0;
                while (1) {
                        value($path . '[' . $i++ . ']');
                        ws();
                        my $d = substr($s, $pos++, 1);
                        last if $d eq ']';
                        fail("expected ',' or ']'") unless $d eq ',';
                }
        } elsif ($c eq '"') {
                print "$path\t" . canonical(string()) . "\n";
        } elsif (substr($s, $pos) =~ /^(true|false|null|-?[0-9][0-9.eE+-]*)/) {
                $pos += length($1);
                print "$path\t$1\n";
        } else {
                fail('unexpected input');
        }
}

# Several documents may follow each other (one per line, say): the first is
# at the top, the next ones are #1, #2, ...
my $n = 0;
ws();
while ($pos < length($s)) {
        value($n ? "#$n" : '');
        $n++;
        ws();
}
