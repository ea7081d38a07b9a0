#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The system benchmark, in the VM (bench/run-system ships it there with
# floor-apply and bench-scopes, and the build installed). Issue 8, section 3.
#
# The workload: N transient scopes in pgbench.slice, and one group that
# matches them by Slice= with SwapMax, SwapHigh and ZSwapWriteback: per unit,
# one SetUnitProperties of two properties, one write of memory.swap.high and
# one attribute (the group tag). Each way of applying it starts from the same
# state ("clean": what a scope has when it starts) and is timed from outside,
# until the kernel shows the group's values on every unit ("applied"):
#
#   floor       floor-apply: pipelined calls and the writes, units known
#   coldfloor   floor-apply --cold: ListUnits, a Get of Slice each, then that
#   setprop     a shell loop: systemctl set-property --runtime, echo, setfattr
#               (over the first --setprop-units units: it is per unit anyway)
#   cold        policyd started with the group in place
#   undo        policyctl reload with the group removed, back to clean
#   reload      policyctl reload with the group added
#
# The ways take turns within a repetition, in an order that rotates. Then,
# once: the calls policyd makes to systemd (dbus-monitor), reaction latency
# against one bare apply, churn, idle wakeups, and RSS.
#
# Output: lines that start with "@ " carry the figures as key=value pairs,
# for bench/system-report; the rest is progress. Any failure stops the run
# with "bench: FAILED:" and status 1.
set -euo pipefail
# A failure in $(...) fails the assignment it is in, and so the run.
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")" && pwd)
floor=$here/floor-apply
scopes=$here/bench-scopes

sizes=100,300
reps=3
reps_large=1          # repetitions for N > 300
setprop_units=100
latency_n=200
bare_n=100
churn=100:10,10:30    # RATE:SECONDS, ...
idle_sec=60
only=                 # "process": the process layer's phase alone; "system": all but it
pmoves=200            # moves each way (policyd, and each floor)
pfork=100:30          # fork+exec RATE:SECONDS
pscopes=10:30         # scope starts RATE:SECONDS, outside any group
pidle=60
pchurn=500:60         # churn: a move every MS, for SECONDS
pmany=20:3            # N processes moved at once, ROUNDS of it
for a in "$@"; do
        case $a in
        --sizes=*)         sizes=${a#*=} ;;
        --reps=*)          reps=${a#*=} ;;
        --reps-large=*)    reps_large=${a#*=} ;;
        --setprop-units=*) setprop_units=${a#*=} ;;
        --latency=*)       latency_n=${a#*=} ;;
        --bare=*)          bare_n=${a#*=} ;;
        --churn=*)         churn=${a#*=} ;;
        --idle=*)          idle_sec=${a#*=} ;;
        --only=process|--only=system) only=${a#*=} ;;
        --process-moves=*) pmoves=${a#*=} ;;
        --process-forkexec=*) pfork=${a#*=} ;;
        --process-scopes=*) pscopes=${a#*=} ;;
        --process-idle=*)  pidle=${a#*=} ;;
        --process-churn=*) pchurn=${a#*=} ;;
        --process-many=*)  pmany=${a#*=} ;;
        *) echo "system-guest: unknown option $a" >&2; exit 2 ;;
        esac
done
IFS=, read -r -a size_list <<<"$sizes"
[[ $pfork =~ ^[0-9]+:[0-9]+$ && $pscopes =~ ^[0-9]+:[0-9]+$ ]] ||
        { echo "system-guest: --process-forkexec and --process-scopes take RATE:SECONDS" >&2; exit 2; }
pfork_rate=${pfork%:*} pfork_sec=${pfork#*:} pscope_rate=${pscopes%:*} pscope_sec=${pscopes#*:}
[[ $pchurn =~ ^[0-9]+:[0-9]+$ && $pmany =~ ^[0-9]+:[0-9]+$ ]] ||
        { echo "system-guest: --process-churn takes MS:SECONDS, --process-many N:ROUNDS" >&2; exit 2; }
pchurn_ms=${pchurn%:*} pchurn_sec=${pchurn#*:} pmany_n=${pmany%:*} pmany_rounds=${pmany#*:}

group=pgbench
slice=pgbench.slice
prefix=pgbench
bare_slice=pgbare.slice
swap_max=50331648     # 48M
swap_high=25165824    # 24M
applied=(--swap-max="$swap_max" --swap-high="$swap_high" --zswap-writeback=no --xattr=user.policy.group="$group")
clean=(--swap-max=max --swap-high=max --zswap-writeback=yes --xattr=user.policy.group)
policy=/etc/policy.d/$group.policy
cg=/sys/fs/cgroup
begin=$SECONDS

say() { echo "bench: [$((SECONDS - begin)) s] $*"; }
emit() { echo "@ $*"; }

die() {
        trap - ERR
        echo "bench: FAILED: $*" >&2
        # Once, from the script itself, not from each $(...) it is in.
        if (( BASH_SUBSHELL == 0 )); then
                echo "bench: policyd's journal, the end:" >&2
                journalctl -b -u policyd.service --no-pager -n 30 -o short-monotonic >&2 || true
        fi
        exit 1
}

# Whatever fails says so, in functions and $(...) too.
set -E
trap 'die "line $LINENO: $BASH_COMMAND (status $?)"' ERR

# The key=value pairs of a tool's line "VERB: k=v ...", prefixed by $2.
fields() { sed -n "s/^$1: //p" | sed "s/\([a-z_0-9]*\)=/$2\1=/g" | tr '\n' ' '; }

policyd_pid() { systemctl show -P MainPID policyd.service; }
policy_install() {
        mkdir -p /etc/policy.d
        printf '[PolicyGroup]\nDescription=system benchmark\n[Match]\nSlice=%s\n[Swap]\nSwapMax=48M\nSwapHigh=24M\nZSwapWriteback=no\n' \
                "$slice" > "$policy"
        chmod 0644 "$policy"
}
policy_remove() { rm -f "$policy"; }

settle() {
        local out
        out=$("$scopes" settle --timeout=600) || die "the machine did not quieten down"
        echo "$out" | fields settle settle_
}

dbus_cgroup=$(systemctl show -P ControlGroup dbus.service)
cpu_opts=(--cpu=policyd=system.slice/policyd.service --cpu=systemd=init.scope
          --cpu=dbus="${dbus_cgroup#/}" --cpu=journald=system.slice/systemd-journald.service)

# converge COUNT STATE-NAME [-- COMMAND...]: prints the fields.
converge() {
        local count=$1 name=$2 out
        local -n state=$2
        shift 2
        [[ ${1:-} == -- ]] && shift
        out=$("$scopes" converge --slice=$slice --prefix=$prefix --count="$count" "${state[@]}" \
                --timeout=$((120 + count)) "${cpu_opts[@]}" ${1:+--} "$@") ||
                die "$count units did not reach the state '$name'${1:+ after: $*}"
        { echo "$out" | fields converge ""; echo "$out" | sed '/^converge: /d' | fields '[a-z-]*' tool_; }
}

# Stopping policyd, forgetting its records and the floor's undo: no
# process, record or value of a previous way left.
reset_clean() {
        local n=$1
        systemctl stop policyd.service
        policy_remove
        rm -rf /run/policyd/*
        "$floor" --slice=$slice "${clean[@]}" "${units[@]:0:$n}" >/dev/null || die "floor-apply could not reset"
        converge "$n" clean >/dev/null
}

rss_fields() {
        local pid
        pid=$(policyd_pid)
        [[ $pid != 0 ]] || die "policyd is not running"
        awk '/^(VmRSS|VmHWM|RssAnon|RssFile):/ { printf "%s_kib=%s ", tolower($1), $2 }' "/proc/$pid/status" | tr -d :
}

way_floor() {
        local out
        settle >/dev/null
        out=$(converge "$n" applied -- "$floor" --slice=$slice "${applied[@]}" "${units[@]}")
        emit kind=way way=floor n="$n" rep="$rep" "$out"
        reset_clean "$n"
}

way_coldfloor() {
        local out
        settle >/dev/null
        out=$(converge "$n" applied -- "$floor" --cold --slice=$slice "${applied[@]}")
        emit kind=way way=coldfloor n="$n" rep="$rep" "$out"
        reset_clean "$n"
}

way_setprop() {
        local m=$((n < setprop_units ? n : setprop_units)) out
        settle >/dev/null
        # shellcheck disable=SC2016 # for the inner shell
        out=$(converge "$m" applied -- bash -ec '
                for u in "${@:4}"; do
                        systemctl set-property --runtime "$u" MemorySwapMax="$1" MemoryZSwapWriteback=no
                        echo "$2" > "'"$cg/$slice"'/$u/memory.swap.high"
                        setfattr -n user.policy.group -v "$3" "'"$cg/$slice"'/$u"
                done' loop $swap_max $swap_high $group "${units[@]:0:$m}")
        emit kind=way way=setprop n="$n" rep="$rep" units_timed="$m" "$out"
        reset_clean "$n"
}

# policyd: started with the group (cold), the group removed (undo) and
# added again (reload), in one process.
way_policyd() {
        local out
        policy_install
        settle >/dev/null
        out=$(converge "$n" applied -- systemctl start policyd.service)
        emit kind=way way=cold n="$n" rep="$rep" "$out"
        settle >/dev/null
        out=$(rss_fields)
        emit kind=rss n="$n" rep="$rep" after=cold "$out"
        policy_remove
        out=$(converge "$n" clean -- policyctl reload)
        emit kind=way way=undo n="$n" rep="$rep" "$out"
        policy_install
        settle >/dev/null
        out=$(converge "$n" applied -- policyctl reload)
        emit kind=way way=reload n="$n" rep="$rep" "$out"
        settle >/dev/null
        out=$(rss_fields)
        emit kind=rss n="$n" rep="$rep" after=reload "$out"
        if [[ $n == "${size_list[-1]}" && $rep == "$n_reps" ]]; then
                idle
        fi
        reset_clean "$n"
}

# Wakeups of policyd over a quiet time: context switches of all its threads.
switches() {
        cat /proc/"$1"/task/*/status | awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s }'
}
idle() {
        local pid s0 s1 c0 c1
        pid=$(policyd_pid)
        settle >/dev/null
        say "idle: $idle_sec s with $n units"
        s0=$(switches "$pid"); c0=$(usage_usec system.slice/policyd.service)
        sleep "$idle_sec"
        s1=$(switches "$pid"); c1=$(usage_usec system.slice/policyd.service)
        [[ $(policyd_pid) == "$pid" ]] || die "policyd restarted during the idle minute"
        emit kind=idle n="$n" seconds="$idle_sec" wakeups=$((s1 - s0)) cpu_ms=$(((c1 - c0) / 1000)) \
                watchdog_usec="$(systemctl show -P WatchdogUSec policyd.service)"
}

# The calls policyd makes to systemd while COMMAND runs, from dbus-monitor:
# calls_phase PHASE COMMAND...
calls_phase() {
        local phase=$1 log=/tmp/pgbench-calls.log mon owner out
        shift
        dbus-monitor --system "type='method_call',destination='org.freedesktop.systemd1'" > "$log" 2>&1 &
        mon=$!
        for _ in $(seq 1 100); do [[ -s $log ]] && break; sleep 0.1; done
        [[ -s $log ]] || die "dbus-monitor did not start"
        "$@" >/dev/null
        settle >/dev/null
        owner=$(busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner \
                s org.policygroups.PolicyGroups1 | awk '{ gsub(/"/, "", $2); print $2 }')
        [[ -n $owner ]] || die "policyd has no name on the bus"
        kill "$mon"; wait "$mon" 2>/dev/null || true
        # One line: calls by member, and for SetUnitProperties the units and
        # the properties each call carried.
        out=$(awk -v me="$owner" '
                /^method call / {
                        sender = ""; member = ""
                        for (i = 1; i <= NF; i++) {
                                if ($i ~ /^sender=/) sender = substr($i, 8)
                                if ($i ~ /^member=/) member = substr($i, 8)
                        }
                        mine = sender == me
                        if (mine) calls[member]++
                        first = 1; set = member == "SetUnitProperties"; getall = member == "GetAll"
                        next
                }
                mine && set && /^   string "/ && first { u = $2; units[u]++; first = 0; next }
                mine && set && /^         string "/ { props++ }
                mine && getall && /^   string "/ { gsub(/"|org\.freedesktop\.systemd1\./, "", $2); ifaces[$2]++ }
                END {
                        for (m in calls) printf "%s=%d ", m, calls[m]
                        n = 0; twice = 0
                        for (u in units) { n++; if (units[u] > 1) twice++ }
                        printf "set_units=%d set_units_twice=%d set_props=%d", n, twice, props
                        for (i in ifaces) printf " getall_%s=%d", i, ifaces[i]
                }' "$log")
        emit kind=calls n="$n" phase="$phase" "$out"
}

counting() {
        say "calls: policyd's calls to systemd at N=$n (dbus-monitor)"
        policy_install
        calls_phase cold converge "$n" applied -- systemctl start policyd.service
        calls_phase reload-unchanged policyctl reload
        calls_phase restart-applied systemctl restart policyd.service
        policy_remove
        calls_phase undo converge "$n" clean -- policyctl reload
        policy_install
        calls_phase reload converge "$n" applied -- policyctl reload
        # The size of what a GetAll returns for a scope.
        local path out="" i
        path=$(busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager \
                GetUnit s "${units[0]}" | awk '{ gsub(/"/, "", $2); print $2 }')
        for i in Unit Scope; do
                out+="props_$i=$(busctl introspect org.freedesktop.systemd1 "$path" org.freedesktop.systemd1.$i |
                        grep -c ' property ' || true) "
        done
        emit kind=properties n="$n" "$out"
        reset_clean "$n"
}

latency() {
        local b half_bare=$((bare_n / 2)) half=$((latency_n / 2))
        say "latency: $latency_n starts applied by policyd, $bare_n bare applies, in two rounds"
        systemctl stop policyd.service
        rm -rf /run/policyd/*
        policy_install
        systemctl start $slice $bare_slice
        for b in 1 2; do
                settle >/dev/null
                "$scopes" latency --mode=bare --slice=$bare_slice --prefix=pgbare-r$b --count=$half_bare \
                        "${applied[@]}" --timeout=60 | sed -n 's/^latency-sample: /@ kind=latency-sample round='$b' /p' ||
                        die "bare latency"
                systemctl start policyd.service
                settle >/dev/null
                "$scopes" latency --mode=policyd --slice=$slice --prefix=pglat-r$b --count=$half \
                        "${applied[@]}" --timeout=60 | sed -n 's/^latency-sample: /@ kind=latency-sample round='$b' /p' ||
                        die "latency with policyd"
                systemctl stop policyd.service
        done
}

usage_usec() { awk '/^usage_usec/ { print $2 }' "$cg/$1/cpu.stat" 2>/dev/null || echo 0; }

# Scope cgroups that outlived their stop in a churn: what systemd says of
# their units, one line each, then away with them, so that the next phase
# starts clean.
churn_left() {
        local name unit_state dir
        while read -r name; do
                unit_state=$(systemctl show -P LoadState,ActiveState,SubState,Result "$name" | paste -sd/)
                dir=$cg/$slice/$name
                [[ -d $dir ]] || continue
                echo "bench: WARNING: $name outlived its stop: unit $unit_state, cgroup $(paste -sd' ' < "$dir/cgroup.events")"
                emit kind=churn-left mode="$mode" rate="$churn_rate" unit="$name" unit_state="$unit_state" \
                        procs="$(wc -l < "$dir/cgroup.procs")"
                [[ $unit_state == not-found/* ]] || systemctl stop "$name" || true
                [[ -d $dir ]] && rmdir "$dir"
                [[ ! -d $dir ]] || die "$dir cannot be removed"
        done < <(sed -n 's/^churn: left: \([^,]*\),.*/\1/p' /tmp/pgbench-churn.err)
        if [[ -s /tmp/pgbench-churn.err ]]; then
                journalctl -b --no-pager -o short-monotonic -n 30 _PID=1 | sed 's/^/bench: systemd: /'
        fi
}

# churn_run systemd-only|policyd RATE SECONDS: the same churn without
# policyd, to see what systemd alone manages under TCG, and with it.
# systemd runs its jobs only when its bus is quiet (the run queue is an
# idle event source): asked faster than it answers, no scope gets its
# cgroup before its stop.
churn_run() {
        local mode=$1 churn_rate=$2 churn_sec=$3 pid=0 c0 c1 c2 s0 s1 out settled rss=""
        say "churn ($mode): $churn_rate starts and stops a second for $churn_sec s"
        rm -rf /run/policyd/*
        policy_install
        [[ $mode == policyd ]] && systemctl start policyd.service && pid=$(policyd_pid)
        settle >/dev/null
        c0=$(usage_usec system.slice/policyd.service)
        s0=$(usage_usec init.scope)
        out=$("$scopes" churn --slice=$slice --prefix=pgchurn-"$mode-$churn_rate" --rate="$churn_rate" --duration="$churn_sec" \
                --lifetime-ms=1000 --drain=60 "${applied[@]}" --timeout=$((churn_sec * 10 + 120)) 2>/tmp/pgbench-churn.err) ||
                die "churn at $churn_rate/s ($mode): $(cat /tmp/pgbench-churn.err)"
        c1=$(usage_usec system.slice/policyd.service)
        s1=$(usage_usec init.scope)
        settled=$(settle)
        c2=$(usage_usec system.slice/policyd.service)
        if [[ $mode == policyd ]]; then
                [[ $(policyd_pid) == "$pid" ]] || die "policyd restarted during churn"
                rss=$(rss_fields)
        fi
        churn_left
        out=$(echo "$out" | fields churn "")
        emit kind=churn mode="$mode" seconds="$churn_sec" "$out" policyd_cpu_ms=$(((c1 - c0) / 1000)) \
                systemd_cpu_ms=$(((s1 - s0) / 1000)) policyd_cpu_after_ms=$(((c2 - c1) / 1000)) "$settled" "$rss"
        systemctl stop policyd.service
}

# ---- the process layer (issue 9, "Cost") ----
#
# policyd's process layer sets KSM and a mempolicy inside running processes
# of member cgroups (ApplyToRunning=yes), through policyd-inject.socket. It
# notices a move by IN_MODIFY on the cgroup.procs of every running unit's
# cgroup, while some loaded group sets KSM= or NUMAPolicy= ("on"). Measured:
#   move      a quiet process moved into a member cgroup by a write to
#             cgroup.procs, and back: write to applied (and to undone), seen
#             from outside; interleaved with the same change made by one
#             bare request on the helper's socket, and by the helper's
#             command line (the floors);
#   passes    a process already right is not injected again: a rescan of
#             its cgroup, a move to another member cgroup of its group, a
#             restart of policyd;
#   forkexec  fork+exec at a rate in a member cgroup, layer on and off;
#   scopes    scope starts at a rate in a slice no group matches, layer on
#             (the shipped groups set KSM=) and off (they are masked);
#   idle      injected processes in place, nothing moving;
#   churn     a quiet process moved in and out of a member cgroup at a
#             period, its state sampled from outside meanwhile: whether it
#             followed each move, how far behind it was (issue 26);
#   many      quiet processes moved into a member cgroup all at once and
#             out again, each timed until it shows the change; against the
#             same done by sequential calls of the helper's command line.

pbench=$here/bench-process
pgroup=pgproc
pslice=pgproc.slice       # the group's members
phome_slice=pghome.slice  # where the quiet processes live, no group's
pnon_slice=pgnon.slice    # the scopes of the always-watching phase
ppolicy=/etc/policy.d/$pgroup.policy
shipped=(batch background foreground)
helpers_cg='system.slice/system-policyd\x2dinject.slice'
pcpu=(--cpu=policyd=system.slice/policyd.service --cpu=helpers="$helpers_cg" --cpu=systemd=init.scope)
injector=/usr/libexec/policyd-inject

# process_layer on|off: the group with the process knobs (and the shipped
# groups, which set KSM= too), or the same members with a cgroup knob only
# and the shipped groups masked.
process_layer() {
        local name
        mkdir -p /etc/policy.d
        if [[ $1 == on ]]; then
                printf '[PolicyGroup]\nDescription=process benchmark\nApplyToRunning=yes\n[Match]\nSlice=%s\n[Memory]\nKSM=yes\nNUMANodes=0-1\nNUMAPolicy=interleave\n' \
                        "$pslice" > "$ppolicy"
                for name in "${shipped[@]}"; do rm -f "/etc/policy.d/$name.policy"; done
        else
                printf '[PolicyGroup]\nDescription=process benchmark, no process knobs\n[Match]\nSlice=%s\n[Swap]\nSwapMax=48M\n' \
                        "$pslice" > "$ppolicy"
                for name in "${shipped[@]}"; do ln -sf /dev/null "/etc/policy.d/$name.policy"; done
        fi
        chmod 0644 "$ppolicy"
}
process_layer_clean() {
        local name
        rm -f "$ppolicy"
        for name in "${shipped[@]}"; do rm -f "/etc/policy.d/$name.policy"; done
}

processes_property() {
        busctl get-property org.policygroups.PolicyGroups1 /org/policygroups/PolicyGroups1 \
                org.policygroups.PolicyGroups1.Manager Processes | sed 's/^s "//; s/"$//; s/ /_/g'
}

# policyd's CPU ticks (utime + stime, /proc/PID/stat fields 14 and 15),
# context switches of all its threads, and its cgroup's usage_usec.
policyd_counters() {
        local pid=$1
        echo "$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")" \
                "$(cat /proc/"$pid"/task/*/status | awk '/^voluntary_ctxt_switches:/ { v += $2 }
                        /^nonvoluntary_ctxt_switches:/ { n += $2 } END { print v + 0, n + 0 }')" \
                "$(usage_usec system.slice/policyd.service)" "$(usage_usec "$helpers_cg")" "$(usage_usec init.scope)"
}
# counters_delta "BEFORE" "AFTER": the fields of the difference.
counters_delta() {
        local -a a b
        read -r -a a <<<"$1"
        read -r -a b <<<"$2"
        echo "policyd_ticks=$((b[0] - a[0])) policyd_voluntary=$((b[1] - a[1])) policyd_involuntary=$((b[2] - a[2]))" \
                "cpu_policyd_ms=$(((b[3] - a[3]) / 1000)) cpu_helpers_ms=$(((b[4] - a[4]) / 1000))" \
                "cpu_systemd_ms=$(((b[5] - a[5]) / 1000))"
}

# --sync first: what the helper wrote before is in the journal, on the
# right side of the cursor.
journal_cursor() {
        timeout 30 journalctl --sync
        timeout 30 journalctl -b -n 1 --show-cursor -q -o cat | sed -n 's/^-- cursor: //p'
}
# helper_calls CURSOR [PID]: the requests the helper answered since CURSOR,
# from policyd (the helper logs "peer pid P uid U: REPLY"), in all or for
# PID, by outcome.
helper_calls() {
        local cursor=$1 target=${2:-} me
        me=$(policyd_pid)
        timeout 30 journalctl --sync
        # short-unix: "TIME HOST policyd-inject[HELPER]: peer pid POLICYD uid 0: pid=... outcome=..."
        { timeout 60 journalctl -b -q -o short-unix -t policyd-inject --after-cursor="$cursor" || true; } |
                awk -v me="$me" -v target="$target" '
                $4 == "peer" && $6 == me {
                        pid = ""; outcome = ""
                        for (i = 7; i <= NF; i++) {
                                if ($i ~ /^pid=/) pid = substr($i, 5)
                                if ($i ~ /^outcome=/) outcome = substr($i, 9)
                        }
                        if (target == "" || pid == target) { n[outcome]++; helpers[$3] = 1 }
                }
                END { h = 0; for (k in helpers) h++
                        printf "queried=%d applied=%d other=%d helpers=%d", n["queried"], n["applied"],
                        n["refused"] + n["failed"] + n["vanished"] + n["error"], h }'
}

# A quiet process in its own service in pghome.slice: prints its PID.
quiet_start() {
        local unit=$1 mib=${2:-32} pid
        systemd-run --quiet --unit="$unit" --slice=$phome_slice "$pbench" quiet --mib="$mib" --threads=3
        for _ in $(seq 1 100); do
                pid=$(systemctl show -P MainPID "$unit")
                [[ $pid != 0 && $(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l || true) -ge 3 ]] && break
                sleep 0.1
        done
        [[ $pid != 0 ]] || die "$unit did not start"
        echo "$pid"
}

# A member scope with a sleep in it, started by systemd-run --scope.
member_scope() {
        systemd-run --quiet --scope --unit="$1" --slice=$pslice sleep infinity </dev/null >/dev/null 2>&1 &
        for _ in $(seq 1 100); do systemctl is-active --quiet "$1.scope" && return 0; sleep 0.1; done
        die "the scope $1 did not start"
}

process_wait() { "$pbench" wait --pid="$1" --want="$2" --timeout=120 >/dev/null || die "$1 did not turn $2"; }

# Until the helper has answered policyd about PID since CURSOR, and policyd
# is quiet again.
wait_helper_answered() {
        local cursor=$1 target=$2
        for _ in $(seq 1 300); do
                [[ $(helper_calls "$cursor" "$target") != "queried=0 applied=0 other=0 helpers=0" ]] && break
                sleep 0.2
        done
        settle >/dev/null
}

process_move() {
        local home m1 q out
        say "process: move-to-applied, $pmoves moves by policyd, $(((pmoves + 1) / 2)) by each floor (socket, command line)"
        process_layer on
        systemctl restart policyd.service
        member_scope pgproc-m1
        member_scope pgproc-m2
        q=$(quiet_start pgproc-quiet)
        home=$(systemctl show -P ControlGroup pgproc-quiet.service)
        m1=$(systemctl show -P ControlGroup pgproc-m1.scope)
        settle >/dev/null
        emit kind=process-status phase=move "processes=$(processes_property)"
        local cursor
        cursor=$(journal_cursor)
        "$pbench" move --pid="$q" --to="${m1#/}" --home="${home#/}" --count="$pmoves" --floor-every=2 --injector="$injector" \
                --timeout=120 "${pcpu[@]}" |
                sed -u 's/^move-sample: /@ kind=process-move /; s/^move: /@ kind=process-move-config /' ||
                die "the move phase failed"
        settle >/dev/null
        emit kind=process-calls phase=move moves="$pmoves" "$(helper_calls "$cursor" "$q")"
        process_passes "$q" "$m1"
}

# A process that is already right is not injected again.
process_passes() {
        local q=$1 m1=$2 q2 m2 cursor
        m2=$(systemctl show -P ControlGroup pgproc-m2.scope)
        say "process: second passes over a process already right"
        echo "$q" > "$cg$m1/cgroup.procs"
        process_wait "$q" on
        settle >/dev/null

        # 1. Its cgroup is read again: another process moves in.
        q2=$(quiet_start pgproc-quiet2)
        cursor=$(journal_cursor)
        echo "$q2" > "$cg$m1/cgroup.procs"
        process_wait "$q2" on
        settle >/dev/null
        emit kind=process-pass pass=rescan "$(helper_calls "$cursor" "$q")" \
                "$(helper_calls "$cursor" "$q2" | sed 's/\([a-z]*\)=/newcomer_\1=/g')"

        # 2. It moves to another member cgroup of the same group.
        cursor=$(journal_cursor)
        echo "$q" > "$cg$m2/cgroup.procs"
        wait_helper_answered "$cursor" "$q"
        emit kind=process-pass pass=member-to-member "$(helper_calls "$cursor" "$q")" \
                "state=$("$pbench" wait --pid="$q" --want=on --timeout=1 >/dev/null 2>&1 && echo on || echo off)"

        # 3. policyd restarts.
        cursor=$(journal_cursor)
        systemctl restart policyd.service
        wait_helper_answered "$cursor" "$q"
        emit kind=process-pass pass=restart "$(helper_calls "$cursor" "$q")" \
                "state=$("$pbench" wait --pid="$q" --want=on --timeout=1 >/dev/null 2>&1 && echo on || echo off)"
}

# In and out of a member cgroup every $pchurn_ms ms: does the state follow?
# The moves are root's, into a root-owned cgroup: policyd's per-owner
# rate limit of moves does not apply.
process_churn() {
        local c home m1 out cursor
        say "process: churn, a process moved in and out of a member cgroup every $pchurn_ms ms for $pchurn_sec s"
        m1=$(systemctl show -P ControlGroup pgproc-m1.scope)
        c=$(quiet_start pgproc-churn)
        home=$(systemctl show -P ControlGroup pgproc-churn.service)
        settle >/dev/null
        cursor=$(journal_cursor)
        out=$("$pbench" churn --pid="$c" --to="${m1#/}" --home="${home#/}" --period-ms="$pchurn_ms" \
                --duration="$pchurn_sec" --sample-ms=25 --stable-ms=2000 --timeout=120 "${pcpu[@]}" \
                2>/tmp/pgbench-churn-move.err) || die "churn: $(cat /tmp/pgbench-churn-move.err)"
        echo "$out" | sed -n 's/^churn-move: /@ kind=process-churn-move /p'
        settle >/dev/null
        emit kind=process-churn "$(echo "$out" | fields churn "")" \
                "$(helper_calls "$cursor" "$c" | sed 's/\([a-z]*\)=/helper_\1=/g')"
        systemctl stop pgproc-churn.service
}

# $pmany_n processes moved into a member cgroup at once, and out.
process_many() {
        local i m1 out cursor pids=() units=()
        say "process: $pmany_n processes moved at once into a member cgroup and out, $pmany_rounds rounds," \
                "against $pmany_n sequential command lines"
        m1=$(systemctl show -P ControlGroup pgproc-m1.scope)
        for i in $(seq 1 "$pmany_n"); do
                pids+=("$(quiet_start pgproc-many-"$i" 8)")
                units+=(pgproc-many-"$i".service)
        done
        settle >/dev/null
        cursor=$(journal_cursor)
        out=$("$pbench" many --pids="$(IFS=,; echo "${pids[*]}")" --to="${m1#/}" --count="$pmany_rounds" \
                --modes=policyd,cli --injector="$injector" --timeout=120 "${pcpu[@]}" 2>/tmp/pgbench-many.err) ||
                die "many: $(cat /tmp/pgbench-many.err)"
        echo "$out" | sed -n 's/^many-sample: /@ kind=process-many /p'
        settle >/dev/null
        emit kind=process-many-calls processes="$pmany_n" rounds="$pmany_rounds" "$(helper_calls "$cursor")"
        systemctl stop "${units[@]}"
}

# Nothing moves, the injected processes stay: policyd's wakeups.
process_idle() {
        local pid before after held
        pid=$(policyd_pid)
        settle >/dev/null
        held=$(wc -l < /run/policyd/processes 2>/dev/null || echo 0)
        say "process: idle for $pidle s, $held processes holding what policyd injected"
        emit kind=process-status phase=idle "processes=$(processes_property)"
        # The tail of the last requests first: policyd keeps its links to the
        # injector 10 s (inject-client.c), then closes them, and the helpers'
        # units stop. Counted apart, then the idle time proper.
        before=$(policyd_counters "$pid")
        sleep 12
        after=$(policyd_counters "$pid")
        emit kind=process-linger seconds=12 "$(counters_delta "$before" "$after")"
        before=$(policyd_counters "$pid")
        sleep "$pidle"
        after=$(policyd_counters "$pid")
        [[ $(policyd_pid) == "$pid" ]] || die "policyd restarted during the idle time"
        emit kind=process-idle seconds="$pidle" held="$held" "$(counters_delta "$before" "$after")" \
                watchdog_usec="$(systemctl show -P WatchdogUSec policyd.service)"
}

# forkexec_run on|off: fork+exec at the rate in a member scope.
process_forkexec_run() {
        local layer=$1 pid out wait=0 cursor
        say "process: fork+exec at $pfork_rate/s for $pfork_sec s in a member scope, layer $layer"
        process_layer "$layer"
        systemctl restart policyd.service
        settle >/dev/null
        pid=$(policyd_pid)
        emit kind=process-status phase=forkexec-"$layer" "processes=$(processes_property)"
        [[ $layer == on ]] && wait=120
        cursor=$(journal_cursor)
        out=$(systemd-run --quiet --scope --unit=pgproc-fork-"$layer" --slice=$pslice \
                "$pbench" forkexec --rate="$pfork_rate" --duration="$pfork_sec" --hold-ms=50 --wait-applied=$wait \
                --policyd="$pid" "${pcpu[@]}" 2>/tmp/pgbench-fork.err) ||
                die "forkexec ($layer): $(cat /tmp/pgbench-fork.err)"
        [[ $(policyd_pid) == "$pid" ]] || die "policyd restarted during fork+exec"
        # The helper's requests: in all, and those for the driver itself
        # (its own move into the group, before the load).
        emit kind=process-forkexec layer="$layer" "$(echo "$out" | fields forkexec "")" \
                "$(helper_calls "$cursor" | sed 's/\([a-z]*\)=/helper_\1=/g')" \
                "$(helper_calls "$cursor" "$(echo "$out" | sed -n 's/.* driver_pid=\([0-9]*\).*/\1/p')" |
                        sed 's/\([a-z]*\)=/helper_driver_\1=/g')"
}

# scopes_run on|off: scope starts and stops at a rate where no group reaches.
process_scopes_run() {
        local layer=$1 pid before after out cursor
        say "process: $pscope_rate scope starts a second for $pscope_sec s in $pnon_slice, layer $layer"
        process_layer "$layer"
        rm -f "$ppolicy" # no member anywhere: only the shipped groups, or nothing
        systemctl restart policyd.service
        settle >/dev/null
        pid=$(policyd_pid)
        emit kind=process-status phase=scopes-"$layer" "processes=$(processes_property)"
        cursor=$(journal_cursor)
        before=$(policyd_counters "$pid")
        out=$("$scopes" churn --slice=$pnon_slice --prefix=pgnon-"$layer" --rate="$pscope_rate" --duration="$pscope_sec" \
                --lifetime-ms=1000 --drain=60 "${applied[@]}" --timeout=$((pscope_sec * 10 + 120)) 2>/tmp/pgbench-churn.err) ||
                die "scopes at $pscope_rate/s ($layer): $(cat /tmp/pgbench-churn.err)"
        settle >/dev/null
        after=$(policyd_counters "$pid")
        [[ $(policyd_pid) == "$pid" ]] || die "policyd restarted during the scope starts"
        emit kind=process-scopes layer="$layer" "$(echo "$out" | fields churn "")" "$(counters_delta "$before" "$after")" \
                "$(helper_calls "$cursor" | sed 's/\([a-z]*\)=/helper_\1=/g')"
}

process_phase() {
        local layer
        [[ -x $pbench ]] || die "bench-process is not in $here"
        [[ -x $injector ]] || die "$injector is not installed"
        [[ -d /sys/devices/system/node/node1 ]] || die "one NUMA node: interleave over 0-1 cannot be seen"
        emit kind=process-config moves="$pmoves" forkexec="$pfork_rate:$pfork_sec" scopes="$pscope_rate:$pscope_sec" \
                idle_sec="$pidle" churn="$pchurn_ms:$pchurn_sec" many="$pmany_n:$pmany_rounds"
        systemctl stop policyd.service
        rm -rf /run/policyd/*
        systemctl start policyd-inject.socket
        process_move
        process_idle
        process_churn
        process_many
        systemctl stop pgproc-quiet.service pgproc-quiet2.service pgproc-m1.scope pgproc-m2.scope
        for layer in on off; do process_forkexec_run "$layer"; done
        for layer in off on; do process_scopes_run "$layer"; done
        systemctl stop policyd.service
        process_layer_clean
}

# ---- the run ----

[[ -x $floor && -x $scopes ]] || die "floor-apply and bench-scopes are not in $here"
command -v policyctl >/dev/null || die "policyctl is not installed: no build in the guest?"
[[ -f /usr/lib/systemd/system/policyd.service ]] || die "policyd.service is not installed"
systemctl stop policyd.service
rm -rf /run/policyd/* /etc/policy.d/$group.policy*

emit kind=machine "kernel=$(uname -r)" "cpus=$(nproc)" \
        "mem_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" \
        "systemd=$(systemctl --version | awk 'NR == 1 { print $2 }')" \
        "dbus=$(basename "$(systemctl show -P ExecStart dbus.service | sed 's/.*path=\([^ ;]*\).*/\1/')")" \
        "units_loaded=$(systemctl list-units --all --no-legend | wc -l)" \
        "cpu_model=$(awk -F': ' '/^model name/ { gsub(/ /, "_", $2); print $2; exit }' /proc/cpuinfo)"
emit kind=config sizes="$sizes" reps="$reps" reps_large="$reps_large" setprop_units="$setprop_units" \
        latency="$latency_n" bare="$bare_n" churn="$churn" idle_sec="$idle_sec" only="${only:-all}"

if [[ $only != process ]]; then
        ways=(floor coldfloor setprop policyd)
        for n in "${size_list[@]}"; do
                mapfile -t units < <(seq -f "$prefix-%g.scope" 1 "$n")
                say "N=$n: starting $n scopes"
                out=$("$scopes" start --slice=$slice --prefix=$prefix --count="$n" | fields start "")
                emit kind=setup n="$n" "$out"
                converge "$n" clean >/dev/null
                n_reps=$reps
                (( n <= 300 )) || n_reps=$reps_large
                for rep in $(seq 1 "$n_reps"); do
                        for k in "${!ways[@]}"; do
                                way=${ways[$(((k + rep - 1) % ${#ways[@]}))]}
                                say "N=$n rep $rep/$n_reps: $way"
                                "way_$way"
                        done
                done
                [[ $n == "${size_list[0]}" ]] && counting
                say "N=$n: stopping the scopes"
                systemctl stop "${units[@]}"
        done

        latency
        IFS=, read -r -a churns <<<"$churn"
        for c in "${churns[@]}"; do
                [[ $c =~ ^[0-9]+:[0-9]+$ ]] || die "--churn takes RATE:SECONDS,..., not $c"
                churn_run systemd-only "${c%:*}" "${c#*:}"
                churn_run policyd "${c%:*}" "${c#*:}"
        done
fi
[[ $only == system ]] || process_phase

restarts=$(systemctl show -P NRestarts policyd.service)
crashes=$(journalctl -b --no-pager -o cat _PID=1 | grep -cE "policyd\.service: (Main process exited, code=(killed|dumped)|Watchdog timeout)" || true)
emit kind=health restarts="$restarts" crashes="$crashes"
(( restarts == 0 && crashes == 0 )) || die "policyd restarted $restarts times, was killed or dumped core $crashes times"
say "done"
emit kind=done seconds=$((SECONDS - begin))
