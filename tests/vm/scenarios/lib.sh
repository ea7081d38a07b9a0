# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the scenarios: small assertions that say what differed.

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# The runner takes the last line of output as the reason.
skip() {
        echo "$*"
        exit 77
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
        [[ $2 == "$3" ]] || fail "$1: expected '$2', got '$3'"
        echo "ok: $1 = '$3'"
}

# assert_file_eq FILE EXPECTED: the first line of FILE
assert_file_eq() {
        local actual
        actual=$(head -n 1 "$1") || fail "cannot read $1"
        assert_eq "$1" "$2" "$actual"
}

# assert_xattr PATH NAME EXPECTED
assert_xattr() {
        local actual
        actual=$(getfattr --only-values --absolute-names -n "$2" "$1" 2>&1) ||
                fail "getfattr -n $2 $1: $actual"
        assert_eq "xattr $2 on $1" "$3" "$actual"
}

# assert_no_xattr PATH NAME
assert_no_xattr() {
        if getfattr --absolute-names -n "$2" "$1" >/dev/null 2>&1; then
                fail "xattr $2 on $1 is still there: $(getfattr --only-values --absolute-names -n "$2" "$1")"
        fi
        echo "ok: no xattr $2 on $1"
}
