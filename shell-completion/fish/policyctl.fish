# SPDX-License-Identifier: LGPL-2.1-or-later
# fish completion for policyctl(1).
#
# Group names come from the running policyd (policyctl --json status) for the
# commands that ask it, and otherwise from the policy files (policyctl --json
# list, which reads them as policyd does). $POLICYCTL_COMPLETION_ROOT, or
# --root=DIR on the command line, reads the files below that directory
# instead and never asks policyd. Every command run here is bounded in time,
# so a missing or hung policyd, systemd or bus cannot hang the shell.

function __policyctl_bounded
    if command -q timeout
        timeout 2 $argv 2>/dev/null
    else
        $argv 2>/dev/null
    end
end

# The command and its arguments so far, one a line, without the options
# (up to the command exec, whose arguments are all its own).
function __policyctl_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l words
    set -l skip 0
    for t in $tokens
        if test "$words[1]" = exec
            set -a words $t
        else if test $skip -eq 1
            set skip 0
        else if test "$t" = --root
            set skip 1
        else if not string match -q -- '-*' $t
            set -a words $t
        end
    end
    string join \n -- $words
end

# The words before "exec", or all of them.
function __policyctl_option_words
    set -l tokens (commandline -opc)
    if set -l i (contains -i -- exec $tokens)
        set tokens $tokens[1..$i]
    end
    string join \n -- $tokens
end

function __policyctl_root
    set -l tokens (__policyctl_option_words)
    set -l root $POLICYCTL_COMPLETION_ROOT
    for i in (seq (count $tokens))
        switch $tokens[$i]
            case '--root=*'
                set root (string replace -- --root= '' $tokens[$i])
            case --root
                set -q tokens[(math $i + 1)]; and set root $tokens[(math $i + 1)]
        end
    end
    string replace -r -- '^~' $HOME "$root"
end

function __policyctl_needs_verb
    test (count (__policyctl_words)) -eq 0
end

# True when the command is one of $argv[2..] and has $argv[1] arguments so
# far; "*" for any number.
function __policyctl_argument
    set -l words (__policyctl_words)
    set -q words[1]; or return 1
    contains -- $words[1] $argv[2..-1]; or return 1
    test "$argv[1]" = '*'; or test (math (count $words) - 1) -eq $argv[1]
end

function __policyctl_after_exec
    set -l words (__policyctl_words)
    test "$words[1]" = exec
end

# $argv[1]: "online" to ask policyd first.
function __policyctl_groups
    set -l root (__policyctl_root)
    set -l out
    if test -z "$root"; and test "$argv[1]" = online
        set out (__policyctl_bounded env SYSTEMD_BUS_TIMEOUT=1s policyctl --json status)
    end
    if test -z "$out"
        if test -n "$root"
            set out (__policyctl_bounded policyctl --root=$root --json list)
        else
            set out (__policyctl_bounded policyctl --json list)
        end
    end
    if test -n "$out"
        # Group names are [A-Za-z0-9_.-]+ and hold no comma, and JSON escapes
        # any quote in a description.
        string split , -- $out | string replace -rf '^.*"name"\s*:\s*"([A-Za-z0-9_.-]+)".*$' '$1'
        return
    end
    # No policyctl that answers: the files themselves, the first of a name
    # winning, and an empty one or a link to /dev/null masking it.
    set -l seen
    for d in /etc/policy.d /run/policy.d /usr/local/lib/policy.d /usr/lib/policy.d
        for f in $root$d/*.policy
            set -l name (string replace -r '\.policy$' '' (basename $f))
            contains -- $name $seen; and continue
            set -a seen $name
            if test -s $f; and not test -c $f
                echo $name
            end
        end
    end
end

# $argv[1]: the unit types.
function __policyctl_units
    set -l user
    contains -- --user (__policyctl_option_words); and set user --user
    __policyctl_bounded systemctl $user --full --no-legend --no-pager --plain --type=$argv[1] --all list-units |
        string replace -r '^●\s*' '' | string replace -rf '^(\S+\.\S+)\s.*$' '$1'
end

# A TARGET: a unit, a cgroup path or a PID (see TARGETS in policyctl(1)).
function __policyctl_targets
    set -l token (commandline -ct)
    if string match -qr '^[0-9]' -- $token
        for p in (string match -r '^/proc/[0-9]+$' /proc/*)
            set -l comm
            read -l comm <$p/comm 2>/dev/null
            printf '%s\t%s\n' (string replace /proc/ '' $p) "$comm"
        end
    else if string match -q '/*' -- $token
        # Cgroup paths, below the cgroup2 mount point.
        set -l dirs /sys/fs/cgroup$token*/
        string replace /sys/fs/cgroup '' -- $dirs
    else
        __policyctl_units service,scope,slice,socket,mount,swap
    end
end

complete -c policyctl -f

# Commands
complete -c policyctl -n __policyctl_needs_verb -a verify -d 'Check policy files'
complete -c policyctl -n __policyctl_needs_verb -a cat-config -d "Show a group's file and its drop-ins"
complete -c policyctl -n __policyctl_needs_verb -a list -d 'List the groups'
complete -c policyctl -n __policyctl_needs_verb -a parse -d "Show how systemd's parser reads a file"
complete -c policyctl -n __policyctl_needs_verb -a swap-tiers -d 'Compare or apply the swap tiers of policyd.conf'
complete -c policyctl -n __policyctl_needs_verb -a status -d "Show policyd's state and the groups"
complete -c policyctl -n __policyctl_needs_verb -a show -d "Show a group's settings and members"
complete -c policyctl -n __policyctl_needs_verb -a explain -d "Show a cgroup's groups and knobs"
complete -c policyctl -n __policyctl_needs_verb -a assign -d 'Put a unit, cgroup or PID in a group'
complete -c policyctl -n __policyctl_needs_verb -a unassign -d 'Take a unit, cgroup or PID out of a group'
complete -c policyctl -n __policyctl_needs_verb -a reload -d 'Make policyd re-read the policy files'
complete -c policyctl -n __policyctl_needs_verb -a exec -d 'Run a command in a new scope in a group'

# Options, before or after the command but not after exec
complete -c policyctl -n 'not __policyctl_after_exec' -s h -l help -d 'Show the help'
complete -c policyctl -n 'not __policyctl_after_exec' -l version -d 'Show the version'
complete -c policyctl -n 'not __policyctl_after_exec' -l root -x -a '(__fish_complete_directories (commandline -ct))' \
    -d 'Read configuration below DIR (offline commands only)'
complete -c policyctl -n 'not __policyctl_after_exec' -l json -d 'Print JSON'
complete -c policyctl -n 'not __policyctl_after_exec; and string match -q -- "--json=*" (commandline -ct)' \
    -a '--json=pretty --json=short --json=off'
complete -c policyctl -n 'not __policyctl_after_exec' -l no-pager -d 'Do not pipe the output into a pager'
complete -c policyctl -n 'not __policyctl_after_exec' -l no-legend -d 'Do not print column headers and footers'
complete -c policyctl -n 'not __policyctl_after_exec' -l daemon-reload -d 'With reload: have systemd reload too'
complete -c policyctl -n 'not __policyctl_after_exec' -l user -d 'With assign, unassign and explain: a unit of your own user manager'

# Arguments
complete -c policyctl -n "__policyctl_argument '*' verify parse" -F
complete -c policyctl -n "__policyctl_argument '*' cat-config" -a '(__policyctl_groups offline)'
complete -c policyctl -n '__policyctl_argument 0 show' -a '(__policyctl_groups online)'
complete -c policyctl -n '__policyctl_argument 0 swap-tiers' -a 'plan apply'
complete -c policyctl -n '__policyctl_argument 0 explain assign unassign' -a '(__policyctl_targets)'
complete -c policyctl -n '__policyctl_argument 1 assign unassign' -a '(__policyctl_groups online)'

# exec: its own options, then the command, after "--" or not.
# The words after exec, up to the command (or up to the end without one).
function __policyctl_exec_options_before
    set -l tokens $argv
    set -l skip 0
    while set -q tokens[1]
        if test $skip -eq 1
            set skip 0
        else if test "$tokens[1]" = --
            set -e tokens[1]
            break
        else if string match -qr -- '^--(group|unit|slice|description)$' $tokens[1]
            set skip 1
        else if not string match -q -- '-*' $tokens[1]
            break
        end
        set -e tokens[1]
    end
    # What is left: the command and its arguments.
    string join \n -- $tokens
end

function __policyctl_exec_command_position
    __policyctl_after_exec; or return 1
    set -l tokens (commandline -opc)
    set -l i (contains -i -- exec $tokens)
    set -e tokens[1..$i]
    set -l current (commandline -ct)
    # Past the command: its arguments.
    set -l rest (__policyctl_exec_options_before $tokens)
    set -q rest[1]; and return 0
    test "$tokens[-1]" = --; and return 0
    # An option of exec's, or the value the option before wants.
    string match -q -- '-*' "$current"; and return 1
    string match -qr -- '^--(group|unit|slice|description)$' "$tokens[-1]"; and return 1
    return 0
end

function __policyctl_exec_command
    set -l tokens (commandline -opc)
    set -l i (contains -i -- exec $tokens)
    set -e tokens[1..$i]
    set -l command (__policyctl_exec_options_before $tokens)
    set -l current (commandline -ct)
    if set -q command[1]
        complete -C (string join ' ' -- (string escape -- $command))" $current"
    else
        complete -C "$current"
    end
end

set -l exec_options '__policyctl_after_exec; and not __policyctl_exec_command_position'
complete -c policyctl -n $exec_options -s h -l help -d "Show exec's help"
complete -c policyctl -n $exec_options -s q -l quiet -d 'Print nothing of its own'
complete -c policyctl -n $exec_options -l group -x -a '(__policyctl_groups online)' -d 'The group to run the command in'
complete -c policyctl -n $exec_options -l unit -x -d 'The name of the scope'
complete -c policyctl -n $exec_options -l slice -x -a '(__policyctl_units slice)' -d 'The slice to put the scope in'
complete -c policyctl -n $exec_options -l description -x -d 'The description of the scope'
complete -c policyctl -n __policyctl_exec_command_position -a '(__policyctl_exec_command)'
