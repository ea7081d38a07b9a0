# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the scenarios: small assertions that say what differed.

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# The runner takes the last line of output as the reason.
skip() {
        # The runner takes the reason from this line: systemd-run's summary
        # comes after it in the log.
        echo "skip: $*"
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

# has GREP-ARGS...: grep -q that reads all of its input. grep -q leaves at
# its first match; a writer still writing (policyctl's process table,
# journalctl) then dies of SIGPIPE, and under pipefail the pipeline fails:
# a match read as none (95-trust-procs-mkdir failed so once).
has() { grep "$@" >/dev/null; }

# wait_long SECONDS DESCRIPTION CMD...: polls CMD until it succeeds; fails
# with CMD's last output after SECONDS.
wait_long() {
        local limit=$1 what=$2 start=$SECONDS out
        shift 2
        until out=$("$@" 2>&1); do
                (( SECONDS - start < limit )) || fail "timed out after $limit s waiting for: $what${out:+ ($out)}"
                sleep 0.5
        done
        echo "ok: $what (after $((SECONDS - start)) s)"
}

# wait_quiet LIMIT CMD...: as wait_long, but returns 1 on timeout and says nothing.
wait_quiet() {
        local limit=$1 start=$SECONDS
        shift
        until "$@" >/dev/null 2>&1; do
                (( SECONDS - start < limit )) || return 1
                sleep 0.5
        done
}

# quiet_minute PID: counts PID's wakeups (the context switches of all its
# threads) over a minute in which no systemd manager logged anything. The
# image's own timers start units now and then (systemd-tmpfiles-clean.timer
# 15 min after boot, wherever the suite has got to by then), and a daemon
# that follows units rightly wakes for them: such a minute is measured once
# more. Sets quiet_wakeups, and quiet_cursor (the journal's cursor where the
# counted minute began, for journalctl --after-cursor).
quiet_minute() {
        local pid=$1 attempt w0 w1 busy
        thread_switches() {
                cat /proc/"$1"/task/*/status | awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s }'
        }
        for attempt in 1 2; do
                quiet_cursor=$(journalctl -n 1 --show-cursor --no-pager -q -o cat | sed -n 's/^-- cursor: //p')
                [[ -n $quiet_cursor ]] || fail "the journal gave no cursor to count a quiet minute from"
                w0=$(thread_switches "$pid")
                sleep 60
                w1=$(thread_switches "$pid")
                quiet_wakeups=$((w1 - w0))
                busy=$(journalctl -q --after-cursor "$quiet_cursor" _COMM=systemd --no-pager -o short-monotonic)
                [[ -n $busy ]] || return 0
                echo "note: $pid woke $quiet_wakeups times in a minute in which systemd did not sit still$( \
                        (( attempt == 1 )) && echo "; once more")":
                head -n 5 <<<"$busy" | sed 's/^/    /'
        done
}

# A test user with their own systemd, user@UID.service, as on a desktop
# (issue 10). Linger starts the manager without a login session; the image
# has libpam-systemd, without which user@UID.service fails ("$XDG_RUNTIME_DIR
# is not set"). The scenario removes the user on exit, whatever happened,
# so the trap comes first:
#
#       trap test_user_cleanup EXIT     (with policyd-lib.sh: trap 'test_user_cleanup; pgt_cleanup' EXIT)
#       test_user_setup pgdesk
#       test_user_scope app-pgdesk-sleep.scope sleep infinity
#
# test_user_setup NAME: creates NAME (useradd's next free uid, 1000 in a
# fresh guest), enables linger and waits until user@UID.service is active
# and its private socket exists. Sets test_user, test_uid,
# test_user_runtime (/run/user/UID), test_user_socket (the manager's
# private socket) and test_user_cgroup (user@UID.service's cgroup
# directory).
test_user_setup() {
        test_user=$1
        # A user left by an earlier run that was killed before its cleanup.
        if id -u "$test_user" >/dev/null 2>&1; then
                echo "removing $test_user, left by an earlier run"
                test_user_cleanup
                test_user=$1
        fi
        useradd --create-home --user-group --shell /bin/bash "$test_user" ||
                fail "useradd $test_user failed"
        test_uid=$(id -u "$test_user")
        test_user_runtime=/run/user/$test_uid
        test_user_socket=$test_user_runtime/systemd/private
        echo "created $test_user, uid $test_uid"
        loginctl enable-linger "$test_user" || fail "loginctl enable-linger $test_user failed"
        # logind may still hold the last scenario's user of this uid as
        # "closing" (systemd#33488); enable-linger then starts nothing, so
        # after a while the manager is started as linger would at boot.
        if ! wait_quiet 20 test_user_manager_is active; then
                echo "note: user@$test_uid.service not started by linger in 20 s ($(loginctl show-user -P State "$test_uid" 2>&1)); starting it"
                systemctl start --no-block user@"$test_uid".service
        fi
        wait_long 60 "user@$test_uid.service is active" test_user_manager_is active
        # shellcheck disable=SC2034 # used by the scenarios that source this
        test_user_cgroup=/sys/fs/cgroup$(systemctl show -P ControlGroup user@"$test_uid".service)
        wait_long 30 "$test_user_socket exists" test -S "$test_user_socket"
}

# test_user_manager_is STATE: user@UID.service's ActiveState is STATE; says
# what it is otherwise, with the manager's last words when it failed.
test_user_manager_is() {
        local state
        state=$(systemctl show -P ActiveState user@"$test_uid".service)
        [[ $state == "$1" ]] && return 0
        echo "user@$test_uid.service is $state"
        if [[ $state == failed ]]; then
                journalctl -b -q --no-pager -o cat -n 5 _SYSTEMD_UNIT=user@"$test_uid".service + UNIT=user@"$test_uid".service
        fi
        return 1
}

# test_user_run CMD...: runs CMD as the test user, with what their session
# would have in its environment to reach their manager and bus. runuser
# without -l opens no login session (its PAM stack has no pam_systemd).
test_user_run() {
        runuser -u "$test_user" -- env XDG_RUNTIME_DIR="$test_user_runtime" \
                DBUS_SESSION_BUS_ADDRESS="unix:path=$test_user_runtime/bus" "$@"
}

# test_user_scope UNIT CMD...: starts CMD as the test user in scope UNIT
# under their app.slice, as a desktop starts an app, and waits until their
# manager has it running. A scope runs CMD in the caller, so it goes to
# the background. ("systemd-run --machine=USER@.host --user --scope" from
# root fails: the user manager cannot move a root process into its scope.)
test_user_scope() {
        local unit=$1
        shift
        test_user_run systemd-run --user --scope --slice=app.slice --unit="$unit" --quiet "$@" \
                </dev/null >/dev/null 2>&1 &
        wait_long 60 "$unit is running in user@$test_uid.service" \
                test_user_unit_is "$unit" running
}

# test_user_unit_is UNIT SUBSTATE: as the user's own systemctl sees it.
test_user_unit_is() {
        local state
        state=$(test_user_run systemctl --user show -P SubState "$1")
        [[ $state == "$2" ]] && return 0
        echo "$1 is ${state:-unknown}"
        return 1
}

# test_user_end_session: linger off; with no login session left, logind
# stops user@UID.service. Waits until the manager, the user's slice and
# their runtime directory are gone; returns 1 if they are not in 60 s.
test_user_end_session() {
        local i state
        loginctl disable-linger "$test_user" 2>/dev/null || true
        for i in $(seq 1 120); do
                state=$(systemctl show -P ActiveState user@"$test_uid".service)
                if [[ ($state == inactive || $state == failed) &&
                        ! -e /sys/fs/cgroup/user.slice/user-$test_uid.slice && ! -e $test_user_runtime ]]; then
                        echo "ok: user@$test_uid.service stopped (after ~$((i / 2)) s)"
                        return 0
                fi
                sleep 0.5
        done
        echo "user@$test_uid.service still $state 60 s after linger went off" >&2
        return 1
}

# test_user_cleanup: ends the session and removes the user and their
# home, leaving no trace. Safe to call twice, and after a partial setup.
test_user_cleanup() {
        [[ -n ${test_user:-} ]] || return 0
        if id -u "$test_user" >/dev/null 2>&1; then
                test_uid=$(id -u "$test_user")
                test_user_runtime=/run/user/$test_uid
                if ! test_user_end_session; then
                        loginctl terminate-user "$test_user" 2>/dev/null || true
                        test_user_end_session || true
                fi
                userdel --remove "$test_user" 2>/dev/null ||
                        echo "userdel $test_user failed; processes: $(pgrep -u "$test_user" -a)" >&2
                systemctl reset-failed user@"$test_uid".service user-runtime-dir@"$test_uid".service 2>/dev/null || true
        fi
        test_user=
}
