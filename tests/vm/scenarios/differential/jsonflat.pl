#!/usr/bin/perl
# SPDX-License-Identifier: LGPL-2.1-or-later
# jsonflat.pl < JSON: one line per leaf, "PATH<TAB>VALUE", strings in
# json_canonical() form (see json.pl), an empty array or object as [] or {}.
# Several documents one after the other: the first at the top, then #1, #2...
#
#   {"a":[1,"x\ty"]}  →  .a[0]<TAB>1
#                        .a[1]<TAB>"x\ty"
use strict;
use warnings;
use File::Basename ();

require(File::Basename::dirname(__FILE__) . '/json.pl');

sub flat {
        my ($path, $v) = @_;
        if (ref $v eq 'HASH') {
                return print "$path\t{}\n" unless %$v;
                flat("$path.$_", $v->{$_}) for sort keys %$v;
        } elsif (ref $v eq 'ARRAY') {
                return print "$path\t[]\n" unless @$v;
                flat($path . '[' . $_ . ']', $v->[$_]) for 0 .. $#$v;
        } elsif (!defined $v) {
                print "$path\tnull\n";
        } elsif (ref $v eq 'SCALAR') {
                print "$path\t$$v\n";    # a number, true or false
        } else {
                print "$path\t" . json_canonical($v) . "\n";
        }
}

binmode STDIN;
binmode STDOUT;
local $/;
my $text = <STDIN>;
my @docs = json_decode($text);
flat($_ ? "#$_" : '', $docs[$_]) for 0 .. $#docs;
