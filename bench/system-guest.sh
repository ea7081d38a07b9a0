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
        *) echo "system-guest: unknown option $a" >&2; exit 2 ;;
        esac
done
IFS=, read -r -a size_list <<<"$sizes"

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
        latency="$latency_n" bare="$bare_n" churn="$churn" idle_sec="$idle_sec"

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

restarts=$(systemctl show -P NRestarts policyd.service)
crashes=$(journalctl -b --no-pager -o cat _PID=1 | grep -cE "policyd\.service: (Main process exited, code=(killed|dumped)|Watchdog timeout)" || true)
emit kind=health restarts="$restarts" crashes="$crashes"
(( restarts == 0 && crashes == 0 )) || die "policyd restarted $restarts times, was killed or dumped core $crashes times"
say "done"
emit kind=done seconds=$((SECONDS - begin))
