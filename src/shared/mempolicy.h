/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A NUMA memory policy as set_mempolicy() takes it, its parser and its
 * numa_maps spelling. Pure and without glib: the injector (src/inject),
 * which keeps to libc, links it as well as policyctl. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/prctl.h>

#ifndef MPOL_DEFAULT
#include <linux/mempolicy.h>
#endif
/* Debian 12's kernel headers predate these (6.9 and 6.4). */
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67
#define PR_GET_MEMORY_MERGE 68
#endif

/* Enough for 1024 NUMA nodes, the largest MAX_NUMNODES of common configs
 * (and NUMA_NODES_MAX of policy files). */
#define MEMPOLICY_NODEMASK_WORDS 16

typedef struct Mempolicy {
        int mode;             /* MPOL_*, with MPOL_F_* flags or'ed in */
        unsigned long nodemask[MEMPOLICY_NODEMASK_WORDS];
} Mempolicy;

/* "default", "local", "preferred:N", "interleave:LIST", "bind:LIST",
 * "preferred-many:LIST", "weighted-interleave:LIST"; LIST is "0-1,3". */
int mempolicy_parse(const char *s, Mempolicy *ret);
/* A node list ("0-1,3") into a mask of MEMPOLICY_NODEMASK_WORDS words, and
 * back in canonical form (ranges merged). The injector's migrate= request
 * takes the same list. */
int mempolicy_parse_nodes(const char *s, unsigned long *mask);
int mempolicy_format_nodes(const unsigned long *mask, char *buf, size_t size);
/* The spelling numa_maps uses for it (mm/mempolicy.c mpol_to_str). */
int mempolicy_format_numa_maps(const Mempolicy *p, char *buf, size_t size);
/* A SPEC that mempolicy_parse() reads back as the same policy, in canonical
 * form: node ranges merged ("interleave:0-2,5"). -EINVAL with flags. */
int mempolicy_format(const Mempolicy *p, char *buf, size_t size);
bool mempolicy_equal(const Mempolicy *a, const Mempolicy *b);
/* set_mempolicy's maxnode for this mask: one more than the bits passed,
 * because the kernel reads maxnode - 1 bits. */
unsigned long mempolicy_maxnode(const Mempolicy *p, size_t *ret_words);
