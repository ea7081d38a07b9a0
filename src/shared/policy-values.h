/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Value parsers, matching systemd's spellings. Each returns 0 or a negative
 * errno, and on failure sets *ret_why (when given) to a static string naming
 * what is wrong, so the caller can say "Invalid SwapMax= value '2Q': unknown
 * size suffix". Outputs are left untouched on failure. */

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#define NUMA_NODES_MAX 1024U /* the kernel's MAX_NUMNODES with NODES_SHIFT=10 */
#define PRIORITY_MAX 1000U
#define PERMYRIAD_MAX 10000U

typedef enum MemoryLimitKind {
        MEMORY_LIMIT_BYTES,
        MEMORY_LIMIT_PERCENT, /* of total swap, resolved when applied */
        MEMORY_LIMIT_INFINITY,
} MemoryLimitKind;

typedef struct MemoryLimit {
        MemoryLimitKind kind;
        uint64_t bytes;      /* MEMORY_LIMIT_BYTES */
        unsigned permyriad;  /* MEMORY_LIMIT_PERCENT: 0..10000 */
} MemoryLimit;

typedef enum NumaPolicy {
        NUMA_POLICY_DEFAULT,
        NUMA_POLICY_PREFERRED,
        NUMA_POLICY_BIND,
        NUMA_POLICY_INTERLEAVE,
        NUMA_POLICY_WEIGHTED_INTERLEAVE,
        NUMA_POLICY_LOCAL,
        _NUMA_POLICY_MAX,
} NumaPolicy;

typedef struct NumaNodeMask {
        uint64_t bits[NUMA_NODES_MAX / 64];
} NumaNodeMask;

int parse_boolean(const char *s, bool *ret, const char **ret_why);
int parse_size(const char *s, uint64_t *ret, const char **ret_why);
/* "50%", "12.5%", "125‰", "1250‱" → permyriad */
int parse_permyriad(const char *s, unsigned *ret, const char **ret_why);
/* size, percent of total swap, or "infinity" */
int parse_memory_limit(const char *s, MemoryLimit *ret, const char **ret_why);
int parse_priority(const char *s, unsigned *ret, const char **ret_why);
/* A time span as systemd's parse_sec() reads it ("30s", "5min", "1h 30min",
 * "1.5s"; a bare number is seconds), in microseconds. "infinity" is
 * refused: no key takes it. */
int parse_timespan(const char *s, uint64_t *ret_usec, const char **ret_why);
int parse_numa_policy(const char *s, NumaPolicy *ret, const char **ret_why);
/* "0-1,3", also space separated, as systemd's NUMAMask= */
int parse_numa_nodes(const char *s, NumaNodeMask *ret, const char **ret_why);
/* A glob must be non-empty, printable and have balanced brackets. */
int validate_glob(const char *s, const char **ret_why);
/* user.NAME or user.NAME=VALUE; the user.policy. namespace is ours. */
int parse_xattr_assignment(const char *s, char **ret_name, char **ret_value, const char **ret_why);
int validate_group_name(const char *s, const char **ret_why);
/* A swap tier's name as the kernel takes it (swap tiers v10): 1 to
 * SWAP_TIER_NAME_MAX characters from A-Z a-z 0-9 _. */
#define SWAP_TIER_NAME_MAX 15
int validate_tier_name(const char *s, const char **ret_why);
int parse_uid(const char *s, uint32_t *ret);

/* Formatting, for explain, the generator and the appliers. All return newly
 * allocated strings. */
char *format_size(uint64_t bytes);              /* "2G", "1536M", "123" */
char *format_memory_limit(const MemoryLimit *l); /* "2G", "50%", "infinity" */
char *format_timespan(uint64_t usec);           /* "1h 30min", "1.5s" → "1s 500ms", "0" */

/* The one conversion of a limit to bytes, shared by policyd-generator and
 * policyd so that both hand systemd the same number: when they differ,
 * policyd overrides the generator's drop-in at runtime. UINT64_MAX stands
 * for infinity. A percentage is of swap_total, rounded down to a multiple of
 * page_size: the kernel keeps swap limits in pages and reads back a page
 * multiple, and systemd passes our number through to memory.swap.max, so
 * what it shows is then what the kernel holds. A share smaller than a page
 * is 0. Bytes stay as written, as systemd keeps them. -EINVAL for a page
 * size of 0, -ERANGE when a percentage would come out as UINT64_MAX. */
int memory_limit_to_bytes(const MemoryLimit *l, uint64_t swap_total, uint64_t page_size, uint64_t *ret);
/* This system's page size, for the above. */
uint64_t page_size(void);
/* systemd's value for MemorySwapMax= and MemoryZSwapMax= as it reports it
 * on the bus: "infinity" or decimal bytes. */
int format_memory_limit_for_systemd(const MemoryLimit *l, uint64_t swap_total, uint64_t page_size, char **ret);
const char *numa_policy_to_string(NumaPolicy p);
char *format_numa_nodes(const NumaNodeMask *m);  /* "0-1,3"; "" when empty */

static inline void numa_node_mask_set(NumaNodeMask *m, unsigned n) {
        assert(n < NUMA_NODES_MAX);
        m->bits[n / 64] |= UINT64_C(1) << (n % 64);
}
static inline bool numa_node_mask_test(const NumaNodeMask *m, unsigned n) {
        return n < NUMA_NODES_MAX && (m->bits[n / 64] >> (n % 64)) & 1;
}
bool numa_node_mask_is_empty(const NumaNodeMask *m);
bool numa_node_mask_equal(const NumaNodeMask *a, const NumaNodeMask *b);
bool memory_limit_equal(const MemoryLimit *a, const MemoryLimit *b);
