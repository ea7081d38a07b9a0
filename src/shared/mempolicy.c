/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mempolicy.h"

#define BITS_PER_WORD (8 * sizeof(unsigned long))
#define MAX_NODES (MEMPOLICY_NODEMASK_WORDS * BITS_PER_WORD)

int mempolicy_parse_nodes(const char *s, unsigned long *mask) {
        bool any = false;

        memset(mask, 0, sizeof(unsigned long) * MEMPOLICY_NODEMASK_WORDS);
        while (*s) {
                char *end;
                unsigned long a, b;

                if (!isdigit((unsigned char) *s))
                        return -EINVAL;
                a = strtoul(s, &end, 10);
                b = a;
                if (*end == '-') {
                        if (!isdigit((unsigned char) end[1]))
                                return -EINVAL;
                        b = strtoul(end + 1, &end, 10);
                }
                if (b < a || b >= MAX_NODES)
                        return -ERANGE;
                for (unsigned long n = a; n <= b; n++)
                        mask[n / BITS_PER_WORD] |= 1UL << (n % BITS_PER_WORD);
                any = true;
                if (*end == ',') {
                        end++;
                        if (!isdigit((unsigned char) *end))
                                return -EINVAL;
                } else if (*end != '\0')
                        return -EINVAL;
                s = end;
        }
        return any ? 0 : -EINVAL;
}

static const struct {
        const char *name;       /* ours */
        const char *numa_maps;  /* mpol_to_str's */
        int mode;
        bool takes_nodes;
} mempolicy_modes[] = {
        { "default", "default", MPOL_DEFAULT, false },
        { "local", "local", MPOL_LOCAL, false },
        { "preferred", "prefer", MPOL_PREFERRED, true },
        { "bind", "bind", MPOL_BIND, true },
        { "interleave", "interleave", MPOL_INTERLEAVE, true },
        { "preferred-many", "prefer (many)", MPOL_PREFERRED_MANY, true },
        { "weighted-interleave", "weighted interleave", MPOL_WEIGHTED_INTERLEAVE, true },
};

int mempolicy_parse(const char *s, Mempolicy *ret) {
        Mempolicy p = {};
        const char *colon = strchr(s, ':');
        size_t nlen = colon ? (size_t) (colon - s) : strlen(s);

        for (size_t i = 0; i < sizeof(mempolicy_modes) / sizeof(mempolicy_modes[0]); i++) {
                if (strlen(mempolicy_modes[i].name) != nlen || strncmp(s, mempolicy_modes[i].name, nlen) != 0)
                        continue;
                if (mempolicy_modes[i].takes_nodes != !!colon)
                        return -EINVAL;
                p.mode = mempolicy_modes[i].mode;
                if (colon) {
                        int r = mempolicy_parse_nodes(colon + 1, p.nodemask);
                        if (r < 0)
                                return r;
                        /* MPOL_PREFERRED takes one node (the kernel uses the first). */
                        if (p.mode == MPOL_PREFERRED) {
                                size_t bits = 0;
                                for (size_t w = 0; w < MEMPOLICY_NODEMASK_WORDS; w++)
                                        bits += (size_t) __builtin_popcountl(p.nodemask[w]);
                                if (bits != 1)
                                        return -EINVAL;
                        }
                }
                *ret = p;
                return 0;
        }
        return -EINVAL;
}

int mempolicy_format_nodes(const unsigned long *mask, char *buf, size_t size) {
        size_t off = 0;
        bool first = true;

        buf[0] = '\0';
        for (size_t n = 0; n < MAX_NODES; n++) {
                size_t m;
                int k;

                if (!(mask[n / BITS_PER_WORD] & (1UL << (n % BITS_PER_WORD))))
                        continue;
                for (m = n; m + 1 < MAX_NODES && (mask[(m + 1) / BITS_PER_WORD] & (1UL << ((m + 1) % BITS_PER_WORD))); m++)
                        ;
                if (m == n)
                        k = snprintf(buf + off, size - off, "%s%zu", first ? "" : ",", n);
                else
                        k = snprintf(buf + off, size - off, "%s%zu-%zu", first ? "" : ",", n, m);
                if (k < 0 || (size_t) k >= size - off)
                        return -ENOBUFS;
                off += (size_t) k;
                first = false;
                n = m;
        }
        return 0;
}

static int mempolicy_format_spelling(const Mempolicy *p, bool numa_maps, char *buf, size_t size) {
        /* Room for every other node of MAX_NODES: "0,2,...,1022". */
        char nodes[MAX_NODES / 2 * 5 + 1];
        int flags = MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING;
        int mode = p->mode & ~flags;
        const char *name = NULL;
        bool takes_nodes = false;
        int r, k;

        /* Flags have a spelling in numa_maps, and none in a SPEC. */
        if (!numa_maps && (p->mode & flags))
                return -EINVAL;
        for (size_t i = 0; i < sizeof(mempolicy_modes) / sizeof(mempolicy_modes[0]); i++)
                if (mempolicy_modes[i].mode == mode) {
                        name = numa_maps ? mempolicy_modes[i].numa_maps : mempolicy_modes[i].name;
                        takes_nodes = mempolicy_modes[i].takes_nodes;
                }
        if (!name)
                return -EINVAL;
        if (!takes_nodes)
                k = snprintf(buf, size, "%s", name);
        else {
                r = mempolicy_format_nodes(p->nodemask, nodes, sizeof(nodes));
                if (r < 0)
                        return r;
                k = snprintf(buf, size, "%s%s%s:%s", name,
                             p->mode & MPOL_F_STATIC_NODES ? "=static" : "",
                             p->mode & MPOL_F_RELATIVE_NODES ? "=relative" : "",
                             nodes);
        }
        if (k < 0 || (size_t) k >= size)
                return -ENOBUFS;
        return 0;
}

int mempolicy_format_numa_maps(const Mempolicy *p, char *buf, size_t size) {
        return mempolicy_format_spelling(p, true, buf, size);
}

int mempolicy_format(const Mempolicy *p, char *buf, size_t size) {
        return mempolicy_format_spelling(p, false, buf, size);
}

bool mempolicy_equal(const Mempolicy *a, const Mempolicy *b) {
        return a->mode == b->mode && memcmp(a->nodemask, b->nodemask, sizeof(a->nodemask)) == 0;
}

unsigned long mempolicy_maxnode(const Mempolicy *p, size_t *ret_words) {
        size_t words = 0;

        for (size_t w = 0; w < MEMPOLICY_NODEMASK_WORDS; w++)
                if (p->nodemask[w])
                        words = w + 1;
        *ret_words = words;
        return words == 0 ? 0 : words * BITS_PER_WORD + 1;
}
