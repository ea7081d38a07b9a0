#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# gen-cases.sh OUTDIR: writes the parser cases whose bytes a text file in git
# would not keep exactly (CR, NUL, BOM, invalid UTF-8, no final newline) or
# that are too big to keep (1 MiB lines), as OUTDIR/NN-name.unit. The readable
# cases are the *.unit files beside this script.
set -euo pipefail
out=${1:?usage: gen-cases.sh OUTDIR}

w() { printf '%b' "$2" >"$out/$1.unit"; }

# n x's, without a newline.
xs() { head -c "$1" /dev/zero | tr '\0' x; }

# A line of exactly $2 bytes (without its line end) that starts with $1.
long_line() { printf '%s' "$1"; xs $(($2 - ${#1})); }

w 40-continuation-last-line-no-newline '[Unit]\nDescription=last\\'
# Line ends: systemd's read_line() ends a line at \n, \r, \r\n, \n\r and NUL.
w 42-cr-only '[Unit]\rDescription=cr only\rNoEquals\rDocumentation=man:a(1)\r'
w 43-crlf '[Unit]\r\nDescription=crlf\r\nNoEquals\r\nDocumentation=man:a(1) man:b(1)\r\n'
w 44-lfcr '[Unit]\n\rDescription=lfcr\n\rNoEquals\n\rDocumentation=man:a(1)\n\r'
w 45-lone-cr-in-value '[Unit]\nDescription=a\rb\nDocumentation=man:a(1)\n'
w 46-crlf-continuation '[Unit]\r\nDescription=a\\\r\nb\r\nNoEquals\r\n'
w 47-nul-in-value '[Unit]\nDescription=a\0b=c\nDocumentation=man:a(1)\n'
w 48-nul-then-assignment '[Unit]\nDescription=before\0Description=after\nNoEquals\n'
w 49-nul-at-eof '[Unit]\nDescription=nul at the end\0'
w 50-no-final-newline '[Unit]\nDocumentation=man:a(1)\nDescription=no final newline'
w 51-bom '\xef\xbb\xbf[Unit]\nDescription=after a BOM\nNoEquals\n'
w 52-bom-second-line '[Unit]\n\xef\xbb\xbfDescription=BOM on line 2\nDocumentation=man:a(1)\n'
w 63-continuation-cr-only '[Unit]\rDescription=a\\\rb\rNoEquals\r'
w 64-nul-in-continuation '[Unit]\nDescription=a\\\0b\nNoEquals\n'

# Line length: systemd's limit is LONG_LINE_MAX (1 MiB); which side of it
# loads is the oracle's answer.
{ printf '[Unit]\n'; long_line 'Description=' $((1024 * 1024 - 1)); printf '\nNoEquals\n'; } >"$out/53-line-1MiB-minus-1.unit"
{ printf '[Unit]\n'; long_line 'Description=' $((1024 * 1024)); printf '\nNoEquals\n'; } >"$out/54-line-1MiB.unit"
# Two halves that fit alone, joined by a continuation: over 1 MiB together.
{
        printf '[Unit]\nDocumentation=man:a(1)\n'
        long_line 'Description=' $((600 * 1024)); printf '\\\n'
        xs $((600 * 1024)); printf '\nNoEquals\n'
} >"$out/55-continued-over-1MiB.unit"
{ printf '[Unit]\n'; long_line 'Description=' $((64 * 1024)); printf '\nNoEquals\n'; } >"$out/56-line-64KiB.unit"
{ printf '[Unit]\n# '; xs $((1024 * 1024)); printf '\nDescription=after a long comment\n'; } >"$out/65-comment-1MiB.unit"

# UTF-8.
w 57-invalid-utf8-value '[Unit]\nDocumentation=man:a(1)\nDescription=bad \xff\xfe byte\n'
w 58-invalid-utf8-comment '[Unit]\n# bad \xff byte in a comment\nDescription=after the comment\n'
w 59-invalid-utf8-x-key '[Unit]\nX-Foo=bad \xff byte\nDescription=after the X- key\n'
w 60-overlong-utf8 '[Unit]\nDescription=overlong \xc0\xaf slash\n'
w 61-utf8-surrogate '[Unit]\nDescription=surrogate \xed\xa0\x80 half\n'
w 62-empty-file ''
w 66-invalid-utf8-unknown-key '[Unit]\nFoo=bad \xff byte\nDescription=after the unknown key\n'
w 67-invalid-utf8-section '[Unit]\n[X-\xff]\nDescription=in a bad section\n'
# Only the first byte-order mark is dropped (seen: a BOM on line 2 alone is).
w 78-bom-twice '\xef\xbb\xbf[Unit]\n\xef\xbb\xbfDescription=second BOM\nDocumentation=man:a(1)\n'
w 79-nul-in-section-header '[Un\0it]\nDescription=after a NUL in the header\n'
w 80-cr-in-key '[Unit]\nDesc\rription=cr in the key\n'
w 81-control-char-value '[Unit]\nDescription=bell \a escape \x1b[0m del \x7f\n'
