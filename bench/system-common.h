/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What floor-apply and bench-scopes share: the state of one unit that the
 * system benchmark sets and waits for, how to write the part of it that
 * systemd does not own, how to check all of it in the kernel, and where a
 * unit's cgroup is. Self-contained on purpose: the benchmark measures
 * policyd from outside and does not link its code. */

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#define CGROUP_ROOT "/sys/fs/cgroup"
#define VALUE_MAX UINT64_MAX /* "max" in the kernel, infinity in systemd */

/* The state the benchmark's group gives a unit (SwapMax, SwapHigh,
 * ZSwapWriteback and the group tag), or the state before it. */
typedef struct UnitState {
        uint64_t swap_max;        /* MemorySwapMax=, memory.swap.max */
        uint64_t swap_high;       /* memory.swap.high, written directly */
        bool zswap_writeback;     /* MemoryZSwapWriteback=, memory.zswap.writeback */
        const char *xattr_name;   /* e.g. user.policy.group */
        const char *xattr_value;  /* NULL: the attribute is absent */
        unsigned given;           /* which of the above were given */
        bool set;                 /* all of them */
} UnitState;

#define STATE_OPTIONS_HELP                                                              \
        "  --swap-max=BYTES|max         MemorySwapMax= (memory.swap.max)\n"            \
        "  --swap-high=BYTES|max        memory.swap.high\n"                            \
        "  --zswap-writeback=yes|no     MemoryZSwapWriteback= (memory.zswap.writeback)\n" \
        "  --xattr=NAME=VALUE|NAME      the attribute, or NAME alone for none\n"

/* Takes one of the options above; returns 1 if OPTION was one of them, 0
 * if not, and dies on a bad value. */
int unit_state_option(UnitState *state, const char *option, const char *value);
void unit_state_require(const UnitState *state, const char *program);

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *format, ...);
uint64_t now_usec(void);

/* "/a.slice/a-b.slice" for "a-b.slice"; "" for "-.slice". */
int slice_cgroup_path(const char *slice, char **ret);
/* Whether unit_slice is slice or below it. */
bool slice_is_within(const char *unit_slice, const char *slice);
/* CGROUP_ROOT + the cgroup of UNIT in SLICE, as systemd places it. */
int unit_cgroup_dir(const char *slice, const char *unit, char **ret);

/* The writes systemd leaves to us: memory.swap.high and the attribute. */
int unit_state_write_direct(int dir_fd, const UnitState *state);
/* 1 when the kernel shows all of STATE on the cgroup, 0 when not yet,
 * negative errno when it cannot be read (-ENOENT: the cgroup is gone). */
int unit_state_check(int dir_fd, const UnitState *state);
/* What differs, for a message that says why a wait timed out. */
void unit_state_describe(int dir_fd, char *buf, size_t size);

/* A SetUnitProperties(UNIT, runtime=true, MemorySwapMax, MemoryZSwapWriteback)
 * call, ready to send. */
int unit_state_set_properties_message(sd_bus *bus, const char *unit, const UnitState *state,
                                      sd_bus_message **ret);
