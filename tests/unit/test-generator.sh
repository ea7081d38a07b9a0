#!/usr/bin/env bash
# shellcheck disable=SC2015 # ok and not_ok always succeed, so "A && ok || not_ok" is safe
# policyd-generator on temporary root trees, golden style. Each directory in
# generator/ is one case:
#   root/               the input tree: policies, unit files, /proc/swaps, /sys facts
#   expected/           the drop-ins the generator must write, byte for byte
#   expected-warnings   what it must print on stderr
#   chmod               optional "MODE PATH" lines applied to the copied tree
# POLICYGROUPS_UPDATE_GOLDEN=1 rewrites expected/ and expected-warnings from
# what the generator does now; review the diff before committing it.
# POLICYD_GENERATOR_WRAPPER runs the generator under a wrapper, e.g.
#   POLICYD_GENERATOR_WRAPPER="valgrind -q --error-exitcode=99 --leak-check=full"
# TAP output.
set -uo pipefail

generator=$1
cases=$2
read -r -a wrapper <<< "${POLICYD_GENERATOR_WRAPPER:-}"
n=0
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
gen() { "${wrapper[@]}" "$generator" "$@"; }

# Copies a case's tree as systemd would find it on a real system: files not
# writable by group or others (the loader refuses those), symlinks kept.
prepare() { # case → prints the root
        local c=$1 root=$tmp/$1/root
        mkdir -p "$tmp/$c"
        cp -a "$cases/$c/root" "$root"
        chmod -R go-w "$root"
        if [ -f "$cases/$c/chmod" ]; then
                while read -r mode path; do chmod "$mode" "$root/$path"; done < "$cases/$c/chmod"
        fi
        echo "$root"
}

for dir in "$cases"/*/; do
        c=$(basename "$dir")
        root=$(prepare "$c")
        out=$tmp/$c/out
        gen --root="$root" "$out" "$tmp/$c/early" "$tmp/$c/late" 2> "$tmp/$c/warnings"
        rc=$?
        mkdir -p "$out"

        if [ "${POLICYGROUPS_UPDATE_GOLDEN:-}" = 1 ]; then
                rm -rf "$cases/$c/expected"
                cp -r "$out" "$cases/$c/expected"
                cp "$tmp/$c/warnings" "$cases/$c/expected-warnings"
        fi

        [ $rc = 0 ] && ok "$c: exits 0" || not_ok "$c: exits 0" "exit $rc" "$(cat "$tmp/$c/warnings")"

        diff=$(diff -ruN "$cases/$c/expected" "$out" 2>&1)
        [ -z "$diff" ] && ok "$c: writes the drop-ins in expected/" \
                || not_ok "$c: writes the drop-ins in expected/" "diff expected actual:" "$diff"

        diff=$(diff -u "$cases/$c/expected-warnings" "$tmp/$c/warnings" 2>&1)
        [ -z "$diff" ] && ok "$c: prints the warnings in expected-warnings" \
                || not_ok "$c: prints the warnings in expected-warnings" "diff expected actual:" "$diff"

        # systemd empties the output directories before each run, but a run
        # by hand may reuse one: the result must be the same.
        gen --root="$root" "$out" 2> /dev/null
        diff=$(diff -ruN "$cases/$c/expected" "$out" 2>&1)
        [ -z "$diff" ] && ok "$c: a second run into the same directory writes the same" \
                || not_ok "$c: a second run into the same directory writes the same" "$diff"
done

# --- invocation: never fails, whatever it is given
r=$(prepare basic)

out=$(gen 2>&1); rc=$?
[ $rc = 0 ] && grep -q '^Usage:' <<< "$out" && ok "no arguments: usage, exit 0" \
        || not_ok "no arguments: usage, exit 0" "exit $rc" "$out"

out=$(gen --help 2>&1); rc=$?
[ $rc = 0 ] && grep -q '^Usage:' <<< "$out" && ok "--help: usage, exit 0" || not_ok "--help: usage, exit 0" "$out"

gen --root="$r" "$tmp/one" 2> /dev/null; rc=$?
[ $rc = 0 ] && [ -f "$tmp/one/app.service.d/50-policy-groups.conf" ] && ok "one directory: writes there, exit 0" \
        || not_ok "one directory: writes there, exit 0" "exit $rc"

out=$(gen --root="$r" "$tmp/two" "$tmp/two-early" 2>&1); rc=$?
[ $rc = 0 ] && [ -f "$tmp/two/app.service.d/50-policy-groups.conf" ] && grep -q 'Expected 1 or 3' <<< "$out" \
        && ok "two directories: a warning, writes to the first, exit 0" \
        || not_ok "two directories: a warning, writes to the first, exit 0" "exit $rc" "$out"

gen --root "$r" "$tmp/spaced" a b 2> /dev/null; rc=$?
[ $rc = 0 ] && [ -f "$tmp/spaced/app.service.d/50-policy-groups.conf" ] && ok "--root DIR as two words" \
        || not_ok "--root DIR as two words" "exit $rc"

out=$(gen --root="$tmp/no-such-root" "$tmp/none" a b 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$out" ] && [ -z "$(find "$tmp/none" -type f 2>/dev/null)" ] \
        && ok "a root without policies: nothing written, nothing said, exit 0" \
        || not_ok "a root without policies: nothing written, nothing said, exit 0" "exit $rc" "$out"

touch "$tmp/a-file"
out=$(gen --root="$r" "$tmp/a-file" a b 2>&1); rc=$?
[ $rc = 0 ] && grep -q 'cannot create' <<< "$out" && ok "an output directory that cannot be made: warnings, exit 0" \
        || not_ok "an output directory that cannot be made: warnings, exit 0" "exit $rc" "$out"

out=$(SYSTEMD_SCOPE=user gen --root="$r" "$tmp/user" a b 2>&1); rc=$?
[ $rc = 0 ] && [ ! -e "$tmp/user" ] && ok "in a user manager: does nothing" \
        || not_ok "in a user manager: does nothing" "exit $rc" "$out"

out=$(SYSTEMD_LOG_LEVEL=debug gen --root="$r" "$tmp/debug" a b 2>&1)
grep -q 'wrote .*/app.service.d/50-policy-groups.conf' <<< "$out" && ok "SYSTEMD_LOG_LEVEL=debug says what it wrote" \
        || not_ok "SYSTEMD_LOG_LEVEL=debug says what it wrote" "$out"

# --- under systemd: stderr is /dev/null there, so messages go to /dev/kmsg.
# A private mount namespace puts a file over /dev/kmsg, when we may.
kmsg=$tmp/kmsg
: > "$kmsg"
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null && [ -e /dev/kmsg ]; then
        # shellcheck disable=SC2016 # expanded by the inner shell
        unshare -m sh -c 'mount --bind "$1" /dev/kmsg && shift && SYSTEMD_EXEC_PID=$$ exec "$@"' sh "$kmsg" \
                "${wrapper[@]}" "$generator" --root="$r" "$tmp/kmsg-out" a b 2> "$tmp/kmsg-stderr"
        grep -q "^<4>policyd-generator\[[0-9]*\]: unknown.service: /usr/lib/systemd/system/unknown.service:2: unknown policy group 'nosuch'" "$kmsg" \
                && [ ! -s "$tmp/kmsg-stderr" ] \
                && ok "invoked by systemd: warnings go to /dev/kmsg, one record a line, with level and name" \
                || not_ok "invoked by systemd: warnings go to /dev/kmsg, one record a line, with level and name" \
                        "kmsg:" "$(cat "$kmsg")" "stderr:" "$(cat "$tmp/kmsg-stderr")"
else
        ok "invoked by systemd: warnings go to /dev/kmsg # SKIP needs root and unshare -m"
fi

echo "1..$n"
[ $failures = 0 ]
