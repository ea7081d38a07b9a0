#!/usr/bin/env bash
# shellcheck disable=SC2015 # ok and not_ok always succeed, so "A && ok || not_ok" is safe
# The bash completion of policyctl, driven through bash-completion as bash
# drives it: COMP_WORDS split as bash splits them (at blanks, and "=" and ":"
# words of their own), then COMPREPLY checked. Group names come from a policy
# tree below $POLICYCTL_COMPLETION_ROOT, units from a fake systemctl, PIDs
# from /proc. The zsh and fish files are checked to parse, where those
# shells are installed. TAP output.
set -o pipefail

policyctl=$1
completions=$2
n=0
failures=0

bash_completion=
for f in /usr/share/bash-completion/bash_completion /etc/bash_completion; do
        if bash --norc --noprofile -c 'source "$1" && declare -F _init_completion' _ "$f" > /dev/null 2>&1; then
                bash_completion=$f
                break
        fi
done
if [ -z "$bash_completion" ]; then
        echo "1..0 # SKIP bash-completion is not installed"
        exit 0
fi

tmp=$(mktemp -d)
children=()
cleanup() {
        for p in "${children[@]}"; do kill "$p" 2>/dev/null; done
        rm -rf "$tmp"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# policyctl and a fake systemctl first in PATH. The fake lists other units
# with --user, only slices with --type=slice, and a not-found unit with the
# bullet older systemctl prints even with --plain.
mkdir -p "$tmp/bin"
ln -s "$(realpath "$policyctl")" "$tmp/bin/policyctl"
cat > "$tmp/bin/systemctl" <<'EOF'
#!/bin/sh
case " $* " in
*" --user "*)
        echo "app-editor.scope loaded active running Editor"
        echo "dbus.socket loaded active running D-Bus User Message Bus Socket" ;;
*)
        case " $* " in *" --type=slice "*) ;; *)
        echo "nightly-build.service loaded active running Nightly build"
        echo "dev-disk-by\\x2duuid-1234.swap loaded active active Swap"
        echo "● broken.service not-found inactive dead broken.service" ;; esac
        echo "build.slice loaded active active Build Slice"
        echo "system.slice loaded active active System Slice" ;;
esac
EOF
chmod +x "$tmp/bin/systemctl"
export PATH="$tmp/bin:$PATH"

# A policy tree: alpha in /etc, beta and gamma in /usr/lib, gamma masked in
# /etc, and delta masked by an empty file in /run.
root=$tmp/root
mkdir -p "$root/etc/policy.d" "$root/run/policy.d" "$root/usr/lib/policy.d"
printf '[PolicyGroup]\nDescription=Alpha "quoted"\n' > "$root/etc/policy.d/alpha.policy"
printf '[PolicyGroup]\nDescription=Beta\n' > "$root/usr/lib/policy.d/beta.policy"
printf '[PolicyGroup]\nDescription=Gamma\n' > "$root/usr/lib/policy.d/gamma.policy"
printf '[PolicyGroup]\nDescription=Delta\n' > "$root/usr/lib/policy.d/delta.policy"
ln -s /dev/null "$root/etc/policy.d/gamma.policy"
: > "$root/run/policy.d/delta.policy"

# Completes LINE (the cursor at its end) in a fresh shell and prints
# COMPREPLY sorted, one a line, then "nospace" if the completion asked for it.
complete_line() {
        local line=$1
        bash --norc --noprofile -c '
                source "$1" || exit 1
                source "$2/bash/policyctl" || exit 1
                line=$3
                nospace=
                compopt() { [[ " $* " == *" -o nospace "* ]] && nospace=1; return 0; }
                words=()
                read -ra tokens <<< "$line"
                for t in "${tokens[@]}"; do
                        while [[ $t == *[=:]* ]]; do
                                pre=${t%%[=:]*}
                                [[ -n $pre ]] && words+=("$pre")
                                words+=("${t:${#pre}:1}")
                                t=${t:${#pre}+1}
                        done
                        [[ -n $t ]] && words+=("$t")
                done
                [[ $line == *" " ]] && words+=("")
                COMP_WORDS=("${words[@]}")
                COMP_CWORD=$((${#words[@]} - 1))
                COMP_LINE=$line
                COMP_POINT=${#line}
                COMPREPLY=()
                _policyctl policyctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
                [ ${#COMPREPLY[@]} -gt 0 ] && printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort
                [ -n "$nospace" ] && echo nospace
                exit 0
        ' complete_line "$bash_completion" "$completions" "$line"
}

lines() { printf '%s\n' "$@"; }
flat() { tr '\n' ' ' <<< "$1"; }

expect() { # name, line, expected COMPREPLY lines…
        local name=$1 line=$2 got want
        shift 2
        got=$(complete_line "$line" 2>&1)
        want=$(lines "$@")
        [ "$got" = "$want" ] && ok "$name" || not_ok "$name" "line: '$line'" "wanted: $(flat "$want")" "got:    $(flat "$got")"
}

expect_has() { # name, line, words that must be among the replies…
        local name=$1 line=$2 got w missing=
        shift 2
        got=$(complete_line "$line" 2>&1)
        for w in "$@"; do
                grep -qxF -- "$w" <<< "$got" || missing+=" $w"
        done
        [ -z "$missing" ] && ok "$name" || not_ok "$name" "line: '$line'" "missing:$missing" "got: $(flat "$got")"
}

verbs=(assign cat-config exec explain list parse reload show status swap-tiers unassign verify)

# --- verbs
expect "verbs at position 1" "policyctl " "${verbs[@]}"
expect "a verb from its prefix" "policyctl una" unassign
expect "verbs after an option" "policyctl --json " "${verbs[@]}"
expect "verbs after --root DIR" "policyctl --root $root " "${verbs[@]}"
expect "swap-tiers: plan or apply" "policyctl swap-tiers " apply plan
expect "no second verb" "policyctl status "

# --- options
expect_has "options after -" "policyctl -" -h --help --version --root= --json --json= \
        --no-pager --no-legend --daemon-reload --user
expect "options after a verb" "policyctl list --no-" --no-legend --no-pager
expect "--root= completes without a space" "policyctl --ro" --root= nospace
expect "--json= values" "policyctl --json=" off pretty short
expect "--json= values from a prefix" "policyctl status --json=p" pretty

# --- group names, from the files below the root
export POLICYCTL_COMPLETION_ROOT=$root
expect "group names for assign UNIT" "policyctl assign nightly-build.service " alpha beta
expect "group names for unassign from a prefix" "policyctl unassign 1 b" beta
expect "group names for show" "policyctl show " alpha beta
expect "show takes one group" "policyctl show alpha "
expect "group names for every cat-config argument" "policyctl cat-config alpha " alpha beta
expect "group names for exec --group=" "policyctl exec --group=" alpha beta
expect "no group after assign's two arguments" "policyctl assign 1 alpha "
unset POLICYCTL_COMPLETION_ROOT
expect "group names below --root=DIR on the line" "policyctl --root=$root cat-config " alpha beta

# Without a policyctl that answers, the files themselves, masks included, and
# within the time limit.
mkdir -p "$tmp/hung"
printf '#!/bin/sh\nexec sleep 30\n' > "$tmp/hung/policyctl"
chmod +x "$tmp/hung/policyctl"
start=$(date +%s)
got=$(PATH="$tmp/hung:$PATH" POLICYCTL_COMPLETION_ROOT=$root complete_line "policyctl assign x.service ")
took=$(($(date +%s) - start))
[ "$got" = "$(lines alpha beta)" ] && [ "$took" -le 8 ] \
        && ok "a policyctl that hangs: the files, masks honoured, in ${took}s" \
        || not_ok "a policyctl that hangs: the files, masks honoured" "took ${took}s" "got: $(flat "$got")"

# No policyd (no system bus at that address): the files on disk, quickly.
start=$(date +%s)
got=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus complete_line "policyctl show ")
took=$(($(date +%s) - start))
want=$("$policyctl" --json list 2>/dev/null | grep -oE '"name":"[^"]+"' | cut -d'"' -f4 | LC_ALL=C sort)
[ "$got" = "$want" ] && [ "$took" -le 3 ] \
        && ok "no policyd: the groups policyctl list finds, in ${took}s" \
        || not_ok "no policyd: the groups policyctl list finds" "took ${took}s" "wanted: $(flat "$want")" "got: $(flat "$got")"

# A running policyd: its groups for the commands that ask it, the files for
# the others. The fake answers status as policyctl --json status does, with
# a description that quotes a "name" of its own.
mkdir -p "$tmp/online"
cat > "$tmp/online/policyctl" <<EOF
#!/bin/sh
case " \$* " in
*" status "*) printf '%s\\n' '{"version":"0.1","n_groups":2,"groups":[{"name":"running-1","priority":1,"description":"a \\"name\\":\\"fake\\""},{"name":"running.2","priority":2}]}' ;;
*) exec "$tmp/bin/policyctl" "\$@" ;;
esac
EOF
chmod +x "$tmp/online/policyctl"
online() { PATH="$tmp/online:$PATH" complete_line "$1"; }
got=$(online "policyctl assign x.service ")
[ "$got" = "$(lines running-1 running.2)" ] && ok "a running policyd's groups for assign" \
        || not_ok "a running policyd's groups for assign" "got: $(flat "$got")"
got=$(online "policyctl exec --group=")
[ "$got" = "$(lines running-1 running.2)" ] && ok "a running policyd's groups for exec --group=" \
        || not_ok "a running policyd's groups for exec --group=" "got: $(flat "$got")"
got=$(PATH="$tmp/online:$PATH" POLICYCTL_COMPLETION_ROOT=$root complete_line "policyctl show ")
[ "$got" = "$(lines alpha beta)" ] && ok "the files below a root, even with policyd running" \
        || not_ok "the files below a root, even with policyd running" "got: $(flat "$got")"
got=$(online "policyctl --root=$root cat-config ")
[ "$got" = "$(lines alpha beta)" ] && ok "the files for cat-config, even with policyd running" \
        || not_ok "the files for cat-config, even with policyd running" "got: $(flat "$got")"

# --- units, PIDs and cgroups for a TARGET
expect "units for explain" "policyctl explain " broken.service build.slice 'dev-disk-by\x2duuid-1234.swap' \
        nightly-build.service system.slice
expect "units for assign from a prefix" "policyctl assign ni" nightly-build.service
expect "user units with --user" "policyctl --user assign " app-editor.scope dbus.socket
expect "exec --slice= completes slices" "policyctl exec --slice=" build.slice system.slice

sleep 60 &
sleeper=$!
children+=("$sleeper")
expect_has "PIDs for explain" "policyctl explain ${sleeper:0:1}" "$sleeper"
expect_has "PIDs for assign" "policyctl assign ${sleeper:0:${#sleeper}-1}" "$sleeper"
got=$(complete_line "policyctl explain 1")
bad=$(grep -vxE '1[0-9]*' <<< "$got")
[ -n "$got" ] && [ -z "$bad" ] && grep -qx 1 <<< "$got" \
        && ok "PIDs are the numeric entries of /proc, PID 1 included" \
        || not_ok "PIDs are the numeric entries of /proc" "got: $(flat "$got")"
expect "no PID for a verb that takes none" "policyctl show 1"

if [ -d /sys/fs/cgroup ] && [ -n "$(find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d -print -quit)" ]; then
        first=$(find /sys/fs/cgroup -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort | head -n 1)
        expect_has "cgroup paths for a TARGET starting with /" "policyctl explain /" "${first#/sys/fs/cgroup}/" nospace
else
        ok "cgroup paths for a TARGET starting with / # SKIP no cgroup directories here"
fi

# --- exec: its own options, then a command
expect_has "exec's options" "policyctl exec --" --group= --unit= --slice= --description= --quiet --help --
expect "no policyctl option after exec" "policyctl exec --no-"
expect_has "a command after exec ... --" "policyctl exec --group=alpha -- bas" bash
expect_has "a command after exec's options" "policyctl exec --group alpha bas" bash

# --- the zsh and fish files parse
completion_files=("$completions/zsh/_policyctl" "$completions/fish/policyctl.fish")
if command -v zsh > /dev/null; then
        out=$(zsh -n "${completion_files[0]}" 2>&1) && ok "zsh -n _policyctl" || not_ok "zsh -n _policyctl" "$out"
else
        ok "zsh -n _policyctl # SKIP zsh is not installed"
fi
if command -v fish > /dev/null; then
        out=$(fish --no-execute "${completion_files[1]}" 2>&1) && ok "fish --no-execute policyctl.fish" \
                || not_ok "fish --no-execute policyctl.fish" "$out"
        # And a few completions, as fish's own "complete -C" finds them.
        fish_complete() {
                XDG_CONFIG_HOME=$tmp/xdg XDG_DATA_HOME=$tmp/xdg XDG_CACHE_HOME=$tmp/xdg \
                        POLICYCTL_COMPLETION_ROOT=$root fish -c 'source $argv[1]; complete -C $argv[2]' \
                        "${completion_files[1]}" "$1" 2>&1 | cut -f1 | LC_ALL=C sort
        }
        fish_expect() { # name, line, expected…
                local got
                got=$(fish_complete "$2")
                [ "$got" = "$(lines "${@:3}")" ] && ok "fish: $1" || not_ok "fish: $1" "got: $(flat "$got")"
        }
        fish_expect "verbs" "policyctl " "${verbs[@]}"
        fish_expect "--json= values" "policyctl --json=" --json=off --json=pretty --json=short
        fish_expect "group names for assign UNIT" "policyctl assign x.service " alpha beta
        fish_expect "units for explain" "policyctl explain " broken.service build.slice 'dev-disk-by\x2duuid-1234.swap' \
        nightly-build.service system.slice
        got=$(fish_complete "policyctl explain $sleeper")
        grep -qx "$sleeper" <<< "$got" && ok "fish: PIDs for explain" || not_ok "fish: PIDs for explain" "got: $(flat "$got")"
else
        ok "fish --no-execute policyctl.fish # SKIP fish is not installed"
fi

echo "1..$n"
[ "$failures" -eq 0 ]
