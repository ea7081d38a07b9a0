#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Differential: which unit files and drop-ins count, against systemd 257
# (issue 7). Every file of every layout below carries, in [Unit],
#     Documentation=man:pgdd-gK(1)
#     X-PolicyGroup=pgdd-gK
# with K distinct per file. systemd's Documentation list then shows which
# files' assignments survive, and so which groups the unit names. The
# project must name the same groups, through the generator (systemd's own run
# of it at daemon-reload, and a run by hand) and through policyd (explain on
# the running unit). The project reports groups as a set, sorted by name, so
# the sets are compared; systemd's order is printed beside them.
#
# One daemon-reload for all layouts. Everything created goes at the end, and
# policyd must not have crashed.
set -uo pipefail
. "$SCENARIO_DIR/lib.sh"
. "$SCENARIO_DIR/policyd-lib.sh"
. "$SCENARIO_DIR/differential/lib.sh"

usr=/usr/lib/systemd/system
ulocal=/usr/local/lib/systemd/system
etc=/etc/systemd/system
run=/run/systemd/system
gen_manual=/tmp/pgdd-gen
generator=/usr/lib/systemd/system-generators/policyd-generator
created=()     # every file and directory made here, for the cleanup
work=          # the answers, once gathered
k=0            # the last K used
since=$(date '+%Y-%m-%d %H:%M:%S')

cleanup() {
        local p c
        # shellcheck disable=SC2046 # unit names, one word each
        systemctl stop $(systemctl list-units --all --plain --no-legend 'pgdd*' | awk '{ print $1 }') \
                policyd.service 2>/dev/null
        for ((i = ${#created[@]} - 1; i >= 0; i--)); do
                p=${created[i]}
                if [[ -d $p && ! -L $p ]]; then rmdir "$p" 2>/dev/null; else rm -f "$p"; fi
        done
        rm -rf /etc/policy.d/pgdd-g*.policy "$gen_manual" /run/systemd/system.control/pgdd* /run/policyd/* \
                ${work:+"$work"}
        systemctl daemon-reload
        systemctl reset-failed
        # The type drop-in put every service in a group for a while: drop
        # the tags policyd left on them.
        for c in /sys/fs/cgroup/system.slice/*/; do
                [[ $(getfattr --only-values --absolute-names -n user.policy.group "$c" 2>/dev/null) == *pgdd-* ]] &&
                        setfattr -x user.policy.group "$c" 2>/dev/null
        done
        return 0
}
trap cleanup EXIT
trap 'exit 143' TERM # the runner's time limit: clean up all the same

# ---- writing layouts ----
echo "-- writing layouts (at $SECONDS s)"

# mk PATH: records PATH and the directories it needs, outermost first.
mk() {
        local d=$1 dirs=()
        while d=${d%/*}; [[ ! -e $d ]]; do dirs=("$d" "${dirs[@]}"); done
        for d in "${dirs[@]}"; do mkdir "$d" && created+=("$d"); done
        created+=("$1")
        files_of[$current]+=" $1"
}

# The two marker lines of a new K.
marker() {
        k=$((k + 1))
        printf 'Documentation=man:pgdd-g%d(1)\nX-PolicyGroup=pgdd-g%d\n' "$k" "$k"
}

unit() { # PATH: a service with its own marker
        mk "$1"
        { printf '[Unit]\n'; marker; printf '[Service]\nExecStart=/bin/sleep infinity\n'; } >"$1"
}
template() { # PATH
        mk "$1"
        { printf '[Unit]\n'; marker; printf '[Service]\nExecStart=/bin/sleep infinity\n'; } >"$1"
}
dropin() { # PATH
        mk "$1"
        { printf '[Unit]\n'; marker; } >"$1"
}
reset() { # PATH: empty assignments reset both lists
        mk "$1"
        printf '[Unit]\nDocumentation=\nX-PolicyGroup=\n' >"$1"
}
link() { # TARGET PATH
        mk "$2"
        ln -s "$1" "$2"
}

# Units checked, and the ones to start. An alias is checked and started
# under the name given; systemd's Id is what policyd knows it by.
checked=()
declare -A layout     # unit → what it shows, for the report
declare -A files_of   # unit → the files of its layout, for the report
current=all           # the unit the files written now belong to
case_() { checked+=("$1"); layout[$1]=$2; current=$1; }
also() { files_of[$current]+=" $1"; } # a file written for an earlier unit counts here too

# Leftovers of an interrupted run.
rm -rf "$usr"/pgdd* "$ulocal"/pgdd* "$etc"/pgdd* "$run"/pgdd* "$etc/service.d/00-pgdd-type.conf" \
        /etc/policy.d/pgdd-g*.policy "$gen_manual" /opt/pgdd
systemctl stop policyd.service 2>/dev/null

# The type drop-in: every service gets it, so every expected list below
# starts with it, unless a reset takes it away.
dropin "$etc/service.d/00-pgdd-type.conf"

case_ pgdd-override.service "a unit in /usr/lib, overridden by one in /etc"
unit "$usr/pgdd-override.service"
unit "$etc/pgdd-override.service"

case_ pgdd-samename.service "drop-ins in /usr/lib, /run and /etc; /run's 10-a.conf hides /usr/lib's"
unit "$usr/pgdd-samename.service"
dropin "$usr/pgdd-samename.service.d/10-a.conf"
dropin "$run/pgdd-samename.service.d/10-a.conf"
dropin "$etc/pgdd-samename.service.d/20-b.conf"
dropin "$run/pgdd-samename.service.d/30-c.conf"
dropin "$ulocal/pgdd-samename.service.d/40-d.conf"

case_ pgdd-etc-over-run.service "same-named drop-ins in /etc and /run: /etc's wins"
unit "$run/pgdd-etc-over-run.service"
dropin "$run/pgdd-etc-over-run.service.d/10-z.conf"
dropin "$etc/pgdd-etc-over-run.service.d/10-z.conf"
dropin "$usr/pgdd-etc-over-run.service.d/10-z.conf"

case_ pgdd-masked-dropin.service "a /usr/lib drop-in masked by /dev/null in /etc"
unit "$etc/pgdd-masked-dropin.service"
dropin "$usr/pgdd-masked-dropin.service.d/10-x.conf"
link /dev/null "$etc/pgdd-masked-dropin.service.d/10-x.conf"
dropin "$run/pgdd-masked-dropin.service.d/20-y.conf"

case_ pgdd-empty-dropin.service "a /usr/lib drop-in hidden by an empty file of its name in /etc"
unit "$usr/pgdd-empty-dropin.service"
dropin "$usr/pgdd-empty-dropin.service.d/10-e.conf"
mk "$etc/pgdd-empty-dropin.service.d/10-e.conf"
: >"$etc/pgdd-empty-dropin.service.d/10-e.conf"

case_ pgdd-masked-unit.service "a unit masked by /dev/null in /etc, with a drop-in"
unit "$usr/pgdd-masked-unit.service"
link /dev/null "$etc/pgdd-masked-unit.service"
dropin "$etc/pgdd-masked-unit.service.d/10-m.conf"

case_ pgdd-reset.service "an empty assignment in a drop-in resets the fragment's and the type drop-in's"
unit "$usr/pgdd-reset.service"
dropin "$usr/pgdd-reset.service.d/05-before.conf"
reset "$etc/pgdd-reset.service.d/10-reset.conf"
dropin "$run/pgdd-reset.service.d/20-after.conf"

case_ pgdd-reset-hidden.service "a reset in /usr/lib hidden by a same-named drop-in in /etc"
unit "$usr/pgdd-reset-hidden.service"
reset "$usr/pgdd-reset-hidden.service.d/10-reset.conf"
dropin "$etc/pgdd-reset-hidden.service.d/10-reset.conf"

case_ pgdd-ignored-files.service "a .txt and a hidden .conf in the drop-in directory are not drop-ins"
unit "$etc/pgdd-ignored-files.service"
dropin "$etc/pgdd-ignored-files.service.d/10-not-a-dropin.txt"
dropin "$etc/pgdd-ignored-files.service.d/.20-hidden.conf"
dropin "$etc/pgdd-ignored-files.service.d/30-real.conf"

case_ pgdd-symlinked-dropin.service "a drop-in that is a symlink to a file outside the search path"
unit "$etc/pgdd-symlinked-dropin.service"
dropin /opt/pgdd/shared.conf
link /opt/pgdd/shared.conf "$etc/pgdd-symlinked-dropin.service.d/10-shared.conf"

case_ pgdd-linked.service "a unit file linked from outside the search path (systemctl link), with a drop-in"
unit /opt/pgdd/pgdd-linked.service
link /opt/pgdd/pgdd-linked.service "$etc/pgdd-linked.service"
dropin "$etc/pgdd-linked.service.d/10-l.conf"

case_ pgdd-bad-dropin.service "a drop-in systemd refuses (bad section header): the unit does not load"
unit "$etc/pgdd-bad-dropin.service"
dropin "$etc/pgdd-bad-dropin.service.d/10-good.conf"
mk "$etc/pgdd-bad-dropin.service.d/20-bad.conf"
{ printf '[Unit]\n'; marker; printf '[Broken\n'; } >"$etc/pgdd-bad-dropin.service.d/20-bad.conf"

case_ pgdd-bad-section.service "a drop-in whose section is '[Unit ]' (with a space): systemd ignores it"
unit "$etc/pgdd-bad-section.service"
mk "$etc/pgdd-bad-section.service.d/10-space.conf"
{ printf '[Unit ]\n'; marker; } >"$etc/pgdd-bad-section.service.d/10-space.conf"
mk "$etc/pgdd-bad-section.service.d/20-service-space.conf"
# Only X-PolicyGroup here, in '[Service ]': no Documentation can show it,
# and systemd ignores the whole section, so no group may come of it.
k=$((k + 1))
printf '[Service ]\nX-PolicyGroup=pgdd-g%d\n' "$k" >"$etc/pgdd-bad-section.service.d/20-service-space.conf"

# Prefix drop-ins: foo-bar-baz.service reads foo-.service.d and foo-bar-.service.d.
case_ pgddp-x-y.service "prefix drop-ins at two depths and the unit's own, in three directories"
unit "$usr/pgddp-x-y.service"
dropin "$usr/pgddp-.service.d/10-q.conf"
dropin "$etc/pgddp-x-.service.d/20-r.conf"
dropin "$run/pgddp-x-y.service.d/10-q.conf"
dropin "$usr/pgddp-.service.d/30-s.conf"

case_ pgddq-a-b.service "same-named drop-in: /usr/lib's own directory against /etc's prefix directory"
unit "$usr/pgddq-a-b.service"
dropin "$usr/pgddq-a-b.service.d/10-same.conf"
dropin "$etc/pgddq-.service.d/10-same.conf"

case_ pgddq-a-c.service "same-named drop-in: two prefix directories of one directory, the longer prefix wins"
also "$etc/pgddq-.service.d/10-same.conf"
unit "$usr/pgddq-a-c.service"
dropin "$etc/pgddq-a-.service.d/20-same.conf"
dropin "$etc/pgddq-.service.d/20-same.conf"

# Templates and instances.
case_ pgddt@a.service "template and instance drop-ins in /etc"
template "$usr/pgddt@.service"
dropin "$etc/pgddt@.service.d/10-t.conf"
dropin "$etc/pgddt@a.service.d/20-i.conf"

case_ pgddt@b.service "same-named drop-in: a /usr/lib instance directory against an /etc template directory"
also "$usr/pgddt@.service"
also "$etc/pgddt@.service.d/10-t.conf"
dropin "$usr/pgddt@b.service.d/30-s.conf"
dropin "$etc/pgddt@.service.d/30-s.conf"

case_ pgddt@c.service "an instance drop-in in /run hides the template's of its name in /usr/lib"
also "$usr/pgddt@.service"
also "$etc/pgddt@.service.d/10-t.conf"
also "$etc/pgddt@.service.d/30-s.conf"
dropin "$usr/pgddt@.service.d/40-c.conf"
dropin "$run/pgddt@c.service.d/40-c.conf"

case_ pgddi-x@a.service "instance prefix drop-ins: pgddi-@.service.d and pgddi-@a.service.d"
template "$usr/pgddi-x@.service"
dropin "$etc/pgddi-@.service.d/10-ip.conf"
dropin "$etc/pgddi-@a.service.d/20-ipa.conf"
dropin "$etc/pgddi-.service.d/30-p.conf"
dropin "$etc/pgddi-x@a.service.d/40-own.conf"

case_ pgddi-x@b.service "same-named drop-in: /usr/lib instance prefix directory against /etc template directory"
also "$usr/pgddi-x@.service"
also "$etc/pgddi-@.service.d/10-ip.conf"
also "$etc/pgddi-.service.d/30-p.conf"
dropin "$usr/pgddi-@b.service.d/50-same.conf"
dropin "$etc/pgddi-x@.service.d/50-same.conf"

# Aliases: a symlink to a unit, and the alias's own .d.
case_ pgdda-real.service "an alias in /etc with its own drop-in directory, started by the real name"
unit "$etc/pgdda-real.service"
link pgdda-real.service "$etc/pgdda-alias.service"
dropin "$etc/pgdda-alias.service.d/10-al.conf"
dropin "$etc/pgdda-real.service.d/20-r.conf"

case_ pgddb-alias.service "an alias started by its alias name; same-named drop-ins of the alias (/etc) and the unit (/usr/lib)"
unit "$usr/pgddb-real.service"
link pgddb-real.service "$usr/pgddb-alias.service"
dropin "$etc/pgddb-alias.service.d/10-s.conf"
dropin "$usr/pgddb-real.service.d/10-s.conf"
dropin "$usr/pgddb-real.service.d/20-t.conf"

# Transient units (systemd-run), with drop-ins from the usual directories.
case_ pgddr-one.service "a transient unit with drop-ins in /etc and /run"
dropin "$etc/pgddr-one.service.d/10-tr.conf"
dropin "$run/pgddr-one.service.d/20-tr.conf"
case_ pgddr-two.service "a transient unit with Documentation= as a property and a reset drop-in"
reset "$etc/pgddr-two.service.d/10-reset.conf"
dropin "$etc/pgddr-two.service.d/20-after.conf"

echo "${#checked[@]} units, $k markers"
((${#checked[@]} >= 20)) || fail "only ${#checked[@]} units"

# The groups: one per K, with a setting the generator writes
# (MemorySwapMax=infinity, systemd's default) so that it has a reason to
# write a drop-in, and an xattr policyd writes.
mkdir -p /etc/policy.d
for ((i = 1; i <= k; i++)); do
        printf '[PolicyGroup]\nDescription=differential group %d\n[Swap]\nSwapMax=infinity\n[Attributes]\nXAttr=user.pgd.g%d=1\n' \
                "$i" "$i" >"/etc/policy.d/pgdd-g$i.policy"
done
chmod 0644 /etc/policy.d/pgdd-g*.policy

# ---- systemd: one daemon-reload, then every unit started ----
echo "-- systemd: one daemon-reload, then every unit started (at $SECONDS s)"
systemd-run --quiet --unit=pgddr-one.service /bin/sleep infinity || echo "systemd-run pgddr-one failed"
systemd-run --quiet --unit=pgddr-two.service -p Documentation=man:pgdd-transient-property\(1\) /bin/sleep infinity ||
        echo "systemd-run pgddr-two failed"
systemctl daemon-reload
# One call: a unit that cannot start (masked) does not stop the others.
systemctl start --no-block "${checked[@]}" 2>/dev/null
for i in $(seq 1 60); do
        systemctl list-units --plain --no-legend 'pgdd*' | grep -q activating || break
        sleep 0.5
done

work=$(mktemp -d /tmp/pgdd.XXXXXX)
mkdir -p "$work/sd" "$work/explain"
# Four at a time: one busctl took 0.6 s in a loaded TCG guest.
for u in "${checked[@]}"; do
        printf '%s %s\n' "$u" "$(bus_unit_path "$u")"
done | xargs -P 4 -n 2 sh -c 'busctl --json=short call org.freedesktop.systemd1 "$2" \
        org.freedesktop.DBus.Properties GetAll s org.freedesktop.systemd1.Unit >"$0/$1.json" ||
        echo "busctl GetAll failed for $1"' "$work/sd"

# The generator by hand, with the arguments systemd gives it.
rm -rf "$gen_manual"
mkdir -p "$gen_manual"/{normal,early,late}
"$generator" "$gen_manual/normal" "$gen_manual/early" "$gen_manual/late" 2>"$work/generator.err" ||
        echo "the generator exited with $? (it never should)"

# ---- policyd ----
echo "-- policyd (at $SECONDS s)"
start_policyd
# Every unit by systemd's Id, again while policyd does not manage a running
# one yet, for 30 s at most; an alias also by its own name, as systemctl
# takes it.
declare -A unit_id
pending=()
for u in "${checked[@]}"; do
        unit_id[$u]=$(sed -n 's/.*"Id":{"type":"s","data":"\([^"]*\)".*/\1/p' "$work/sd/$u.json")
        pending+=("$u")
done
deadline=$((SECONDS + 30))
while ((${#pending[@]} > 0)); do
        next=()
        for u in "${pending[@]}"; do
                id=${unit_id[$u]:-$u}
                policyctl explain "$id" --json >"$work/explain/$u.json" 2>"$work/explain/$u.err" && continue
                rm -f "$work/explain/$u.json"
                [[ $(systemctl show -P ActiveState "$id") == active ]] && next+=("$u")
        done
        pending=("${next[@]}")
        ((${#pending[@]} > 0 && SECONDS < deadline)) || break
        sleep 0.5
done
for u in "${checked[@]}"; do
        id=${unit_id[$u]}
        if [[ -n $id && $id != "$u" ]]; then
                policyctl explain "$u" --json >"$work/explain/$u.alias.json" 2>"$work/explain/$u.alias.err" ||
                        rm -f "$work/explain/$u.alias.json"
        fi
done

# ---- policyd did not crash, up to and including its stop ----
echo "-- policyd did not crash, up to and including its stop (at $SECONDS s)"
active=$(systemctl show -P ActiveState policyd.service)
# The units go first, as a user stops them; then policyd.
# shellcheck disable=SC2046 # unit names, one word each
systemctl stop $(systemctl list-units --all --plain --no-legend 'pgdd*' | awk '{ print $1 }')
systemctl stop policyd.service
result=$(systemctl show -P Result policyd.service)
journalctl --sync
# -u takes PID 1's lines about the unit too; the kernel's are apart.
crashed=$({
        journalctl -b --since "$since" --no-pager -o cat -u policyd.service
        journalctl -b --since "$since" --no-pager -o cat -k | grep -E 'policyd\[[0-9]+\]: segfault'
} | grep -E 'dumped core|status=11/SEGV|code=dumped|segfault' | head -n 1)
[[ $result == signal || $result == core-dump ]] || result="not signal or core-dump ($result)"
{
        printf 'policyd.service is active before its stop\tactive\t%s\n' "$active"
        printf 'Result of policyd.service after its stop\tnot signal or core-dump\t%s\n' "${result% (*}"
        printf 'policyd crashed (its journal)\tno\t%s\n' "${crashed:-no}"
} >"$work/extra.txt"
if [[ -s $work/generator.err ]]; then
        echo "the generator, run by hand, said:"
        sed 's/^/  /' "$work/generator.err"
fi

# ---- compare: one process, a fork costs more than a check under TCG ----
echo "-- compare (at $SECONDS s)"
for u in "${checked[@]}"; do
        printf '%s\t%s\t%s\n' "$u" "${layout[$u]}" "$etc/service.d/00-pgdd-type.conf ${files_of[$u]}"
done >"$work/units.txt"
perl "$diff_dir/compare-dropins.pl" "$work" "$gen_manual"
