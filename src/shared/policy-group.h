/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The model: a PolicyGroup as loaded from NAME.policy plus its drop-ins, and
 * the PolicySet that owns every group of one load. Pure data, no I/O. */

#include <glib.h>
#include <stdbool.h>

#include "policy-values.h"

typedef enum Knob {
        KNOB_SWAP_MAX,
        KNOB_SWAP_HIGH,
        KNOB_ZSWAP_MAX,
        KNOB_ZSWAP_WRITEBACK,
        KNOB_SWAP_TIERS,
        KNOB_KSM,
        KNOB_NUMA_POLICY,
        KNOB_NUMA_NODES,
        _KNOB_MAX,
} Knob;

typedef enum KnobType {
        KNOB_TYPE_MEMORY_LIMIT,
        KNOB_TYPE_BOOLEAN,
        KNOB_TYPE_TIERS,
        KNOB_TYPE_NUMA_POLICY,
        KNOB_TYPE_NUMA_NODES,
} KnobType;

typedef struct KnobValue {
        MemoryLimit limit;  /* KNOB_TYPE_MEMORY_LIMIT */
        bool boolean;       /* KNOB_TYPE_BOOLEAN */
        char **tiers;       /* KNOB_TYPE_TIERS: NULL-terminated, owned; may be empty */
        NumaPolicy numa_policy;
        NumaNodeMask numa_nodes;
} KnobValue;

/* Where a value came from, for explain. */
typedef struct Provenance {
        char *file;
        unsigned line;
} Provenance;

typedef struct KnobSetting {
        bool set;
        KnobValue value;
        Provenance source;
} KnobSetting;

typedef struct AttributeSetting {
        char *name;   /* user.… */
        char *value;  /* "" for a bare NAME */
        Provenance source;
} AttributeSetting;

typedef enum MatchManager {
        MATCH_MANAGER_SYSTEM, /* PID 1's units and cgroups no unit owns: the default */
        MATCH_MANAGER_USER,   /* units of users' managers (user@UID.service) */
        MATCH_MANAGER_ANY,
        _MATCH_MANAGER_MAX,
} MatchManager;

const char *match_manager_to_string(MatchManager m);
int match_manager_from_string(const char *s); /* -EINVAL when unknown */

typedef struct PolicyGroup {
        char *name;
        char *description;
        GPtrArray *documentation; /* char* URLs, as systemd's Documentation= */
        unsigned priority;
        bool allow_self_assign;
        bool apply_to_running;

        char *file;        /* the winning NAME.policy */
        GPtrArray *dropins; /* char*, in the order they were applied */

        /* [Match]: OR within one key, AND across keys. Each a char* list. */
        GPtrArray *match_units;
        GPtrArray *match_slices;
        GPtrArray *match_cgroups;
        GPtrArray *match_users;
        GPtrArray *match_xattrs;       /* NAME or NAME=VALUE */
        GPtrArray *match_executables;  /* process level only */
        /* Desktop focus, from the xattr user.xdg.inactive-since (FOCUS_XATTR):
         * Focused= -1 unset, 0 no, 1 yes; InactiveFor= in µs, FOCUS_UNSET
         * when unset. */
        int match_focused;
        uint64_t match_inactive_usec;
        /* Manager=: whose units the keys above reach. Not a key that
         * selects on its own. */
        MatchManager match_manager;

        KnobSetting knobs[_KNOB_MAX];
        GPtrArray *attributes; /* AttributeSetting*, in assignment order */
} PolicyGroup;

#define FOCUS_XATTR "user.xdg.inactive-since"
#define FOCUS_UNSET UINT64_MAX

typedef struct PolicySet {
        GHashTable *groups; /* name → PolicyGroup*, owns both */
        GPtrArray *masked;  /* char* names masked by /dev/null or an empty file */
} PolicySet;

const char *knob_to_string(Knob k);     /* the policy-file key: "SwapMax" */
Knob knob_from_string(const char *s);   /* -1 when unknown */
KnobType knob_type(Knob k);
const char *knob_section(Knob k);       /* "Swap" or "Memory" */

void knob_value_clear(KnobValue *v);
void knob_value_copy(KnobValue *dst, const KnobValue *src);
bool knob_value_equal(Knob k, const KnobValue *a, const KnobValue *b);
/* The value as a policy file spells it: "2G", "yes", "fast slow", "0-1". */
char *knob_value_format(Knob k, const KnobValue *v);

void provenance_set(Provenance *p, const char *file, unsigned line);
void provenance_clear(Provenance *p);

PolicyGroup *policy_group_new(const char *name);
PolicyGroup *policy_group_free(PolicyGroup *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PolicyGroup, policy_group_free)

/* The group as a normalised policy file, each value under a comment naming
 * the file:line it came from. For golden tests and "policyctl show". */
char *policy_group_format(const PolicyGroup *g);

PolicySet *policy_set_new(void);
PolicySet *policy_set_free(PolicySet *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PolicySet, policy_set_free)

/* Takes ownership of g. */
void policy_set_add(PolicySet *s, PolicyGroup *g);
const PolicyGroup *policy_set_get(const PolicySet *s, const char *name);
/* Group names in lexical order; free the array (not the names) with g_ptr_array_unref. */
GPtrArray *policy_set_sorted_names(const PolicySet *s);
guint policy_set_size(const PolicySet *s);
