# SPDX-License-Identifier: LGPL-2.1-or-later
# A small JSON reader for the differential scenarios: the guest has
# perl-base, but no JSON::PP, jq or python3. Loaded with "require".
#
#   json_decode(TEXT)      the documents in TEXT (one or more, one after the
#                          other) as a list of Perl values: hashes, arrays,
#                          byte strings (\uXXXX as UTF-8), numbers, true and
#                          false as references to their text, null as undef
#   json_canonical(BYTES)  one canonical, one-line, quoted form of a string:
#                          " and \ escaped, control characters and DEL as \n,
#                          \r, \t or \u00XX, valid UTF-8 as it is, any byte
#                          that is not valid UTF-8 as \xNN (not JSON, but it
#                          shows the byte). Two producers that escape
#                          differently give the same form for the same bytes.
use strict;
use warnings;

my ($s, $pos);

sub json_fail { die "json: $_[0] at byte $pos\n"; }
sub json_ws { $pos++ while $pos < length($s) && substr($s, $pos, 1) =~ /[ \t\r\n]/; }

sub json_utf8 {
        my ($c) = @_;
        return chr($c) if $c < 0x80;
        return chr(0xc0 | ($c >> 6)) . chr(0x80 | ($c & 0x3f)) if $c < 0x800;
        return chr(0xe0 | ($c >> 12)) . chr(0x80 | (($c >> 6) & 0x3f)) . chr(0x80 | ($c & 0x3f)) if $c < 0x10000;
        return chr(0xf0 | ($c >> 18)) . chr(0x80 | (($c >> 12) & 0x3f)) . chr(0x80 | (($c >> 6) & 0x3f))
            . chr(0x80 | ($c & 0x3f));
}

sub json_string {
        my $out = '';
        $pos++;    # the opening quote
        while (1) {
                json_fail('unterminated string') if $pos >= length($s);
                # A run without quotes or escapes at once: values of 1 MiB are common here.
                pos($s) = $pos;
                if ($s =~ /\G([^"\\]+)/gc) {
                        $out .= $1;
                        $pos = pos($s);
                        next;
                }
                my $c = substr($s, $pos++, 1);
                return $out if $c eq '"';
                my $e = substr($s, $pos++, 1);
                if    ($e eq 'n') { $out .= "\n"; }
                elsif ($e eq 't') { $out .= "\t"; }
                elsif ($e eq 'r') { $out .= "\r"; }
                elsif ($e eq 'b') { $out .= "\b"; }
                elsif ($e eq 'f') { $out .= "\f"; }
                elsif ($e eq 'u') {
                        my $h = substr($s, $pos, 4);
                        json_fail('bad \\u escape') unless $h =~ /^[0-9a-fA-F]{4}$/;
                        $pos += 4;
                        my $cp = hex($h);
                        if ($cp >= 0xd800 && $cp < 0xdc00 && substr($s, $pos, 2) eq '\\u') {
                                my $lo = hex(substr($s, $pos + 2, 4));
                                if ($lo >= 0xdc00 && $lo < 0xe000) {
                                        $pos += 6;
                                        $cp = 0x10000 + (($cp - 0xd800) << 10) + ($lo - 0xdc00);
                                }
                        }
                        $out .= json_utf8($cp);
                } else {
                        $out .= $e;    # \" \\ \/
                }
        }
}

sub json_value {
        json_ws();
        my $c = substr($s, $pos, 1);
        if ($c eq '{') {
                my %h;
                $pos++;
                json_ws();
                if (substr($s, $pos, 1) eq '}') { $pos++; return \%h; }
                while (1) {
                        json_ws();
                        json_fail('expected a key') unless substr($s, $pos, 1) eq '"';
                        my $k = json_string();
                        json_ws();
                        json_fail("expected ':'") unless substr($s, $pos++, 1) eq ':';
                        $h{$k} = json_value();
                        json_ws();
                        my $d = substr($s, $pos++, 1);
                        return \%h if $d eq '}';
                        json_fail("expected ',' or '}'") unless $d eq ',';
                }
        }
        if ($c eq '[') {
                my @a;
                $pos++;
                json_ws();
                if (substr($s, $pos, 1) eq ']') { $pos++; return \@a; }
                while (1) {
                        push @a, json_value();
                        json_ws();
                        my $d = substr($s, $pos++, 1);
                        return \@a if $d eq ']';
                        json_fail("expected ',' or ']'") unless $d eq ',';
                }
        }
        return json_string() if $c eq '"';
        pos($s) = $pos;
        if ($s =~ /\G(true|false|null|-?[0-9][0-9.eE+-]*)/gc) {
                $pos = pos($s);
                my $literal = $1;
                return $literal eq 'null' ? undef : \$literal;
        }
        json_fail('unexpected input');
}

sub json_decode {
        ($s, $pos) = ($_[0], 0);
        my @docs;
        json_ws();
        while ($pos < length($s)) {
                push @docs, json_value();
                json_ws();
        }
        return @docs;
}

sub json_canonical {
        my ($b) = @_;
        return 'null' unless defined $b;
        my $out = '"';
        # Runs of what stays as it is (printable ASCII but " and \, and valid
        # UTF-8 sequences) in one match.
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

# A list of strings, canonical: ["a","b"].
sub json_canonical_list {
        return '[' . join(',', map { json_canonical($_) } @{ $_[0] // [] }) . ']';
}

1;
