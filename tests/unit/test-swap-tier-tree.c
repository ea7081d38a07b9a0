/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Faster or slower than the parent: what each memory.swap.tiers.max must
 * allow, for trees of requests written as tables. */

#include <glib.h>

#include "swap-tier-tree.h"
#include "util.h"

typedef struct Req {
        const char *cgroup;
        const char *tiers; /* comma list; "" for none */
        bool from_user;
} Req;

static TierTree *tree_of(const Req *reqs) {
        TierTree *t = tier_tree_new();

        for (const Req *r = reqs; r->cgroup; r++) {
                g_auto(GStrv) v = *r->tiers ? g_strsplit(r->tiers, ",", -1) : NULL;
                tier_tree_add(t, r->cgroup, v, r->from_user);
        }
        return t;
}

static char *joined(char **v) {
        return v ? g_strjoinv(",", v) : g_strdup("-");
}

/* The seed's case and its reverse, nested requests, a user's own request,
 * siblings: the widening of each request and the files of the others. */
static void test_widening_and_children(void) {
        static const Req faster[] = {
                { "/batch.slice", "slow" },
                { "/batch.slice/db.service", "fast" },
                {},
        };
        static const Req slower[] = {
                { "/fast.slice", "fast" },
                { "/fast.slice/backup.service", "slow" },
                {},
        };
        static const Req nested[] = {
                { "/a.slice", "slow" },
                { "/a.slice/b.slice", "mid" },
                { "/a.slice/b.slice/c.service", "fast" },
                { "/a.slice/d.slice/e.service", "mid" },
                {},
        };
        static const Req user[] = {
                { "/user.slice", "slow" },
                { "/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope", "fast", true },
                {},
        };
        static const Req within[] = {
                { "/a.slice", "fast,slow" },
                { "/a.slice/b.service", "fast" },
                {},
        };
        static const struct {
                const Req *reqs;
                const char *cgroup;
                const char *widening;   /* "-": none */
        } widen[] = {
                { faster, "/batch.slice", "fast" },
                { faster, "/batch.slice/db.service", "-" },
                { slower, "/fast.slice", "slow" },
                { nested, "/a.slice", "fast,mid" },
                { nested, "/a.slice/b.slice", "fast" },
                { nested, "/a.slice/b.slice/c.service", "-" },
                { user, "/user.slice", "-" },          /* a user's request widens nothing */
                { within, "/a.slice", "-" },           /* already allowed */
                { faster, "/other.slice", "-" },       /* no request */
        };
        for (size_t i = 0; i < G_N_ELEMENTS(widen); i++) {
                g_autoptr(TierTree) t = tree_of(widen[i].reqs);
                g_auto(GStrv) w = tier_tree_widening(t, widen[i].cgroup);
                g_autofree char *got = joined(w);
                g_assert_cmpstr(got, ==, widen[i].widening);
        }

        static const struct {
                const Req *reqs;
                const char *parent, *child;
                const char *file; /* "-": no write */
        } children[] = {
                /* The widened slice's other children get its own request. */
                { faster, "/batch.slice", "/batch.slice/cron.service", "slow" },
                { slower, "/fast.slice", "/fast.slice/web.service", "fast" },
                /* On the way down to a request: what it needs, with the slice's. */
                { nested, "/a.slice", "/a.slice/d.slice", "mid,slow" },
                { nested, "/a.slice/d.slice", "/a.slice/d.slice/f.service", "slow" },
                { nested, "/a.slice/b.slice", "/a.slice/b.slice/g.service", "mid" },
                /* Nothing to narrow where the parent is not widened. */
                { within, "/a.slice", "/a.slice/c.service", "-" },
                /* No request above: nothing to restrict. */
                { faster, "/", "/other.slice", "-" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(children); i++) {
                g_autoptr(TierTree) t = tree_of(children[i].reqs);
                bool write;
                g_auto(GStrv) file = NULL;
                tier_tree_child_file(t, children[i].parent, children[i].child, &write, &file);
                g_autofree char *got = write ? joined(file) : g_strdup("-");
                g_assert_cmpstr(got, ==, children[i].file);
        }

        g_autoptr(TierTree) t = tree_of(nested);
        g_assert_true(tier_tree_has_admin_below(t, "/a.slice/d.slice"));
        g_assert_false(tier_tree_has_admin_below(t, "/a.slice/d.slice/e.service"));
        g_autoptr(TierTree) u = tree_of(user);
        g_assert_false(tier_tree_has_admin_below(u, "/user.slice"));
        /* "/a.slice" is not above "/a.slice2". */
        static const Req prefix[] = { { "/a", "slow" }, { "/a2/x", "fast" }, {} };
        g_autoptr(TierTree) p = tree_of(prefix);
        g_auto(GStrv) none = tier_tree_widening(p, "/a");
        g_assert_null(none);
}

static void test_files(void) {
        static const char *const defined[] = { "fast", "none", "slow", NULL };
        static const char *const allowed[] = { "fast", "none", NULL };
        g_autofree char *c = tier_file_content((char **) defined, (char **) allowed);
        /* A tier named like a keyword is never allowed. */
        g_assert_cmpstr(c, ==, "fast max\nnone 0\nslow 0");

        g_auto(GStrv) a = tier_file_allowed("fast max\nslow 0\nmid  max\n");
        g_autofree char *aj = joined(a);
        g_assert_cmpstr(aj, ==, "fast,mid");
        g_assert_true(tier_file_unrestricted("fast max\nslow max"));
        g_assert_false(tier_file_unrestricted("fast max\nslow 0"));

        static const struct {
                const char *current, *ours;
                bool holds;
        } holds[] = {
                { "fast 0\nslow max", "fast 0\nslow max", true },
                { "fast max\nslow max", "fast 0\nslow max", false },   /* fast made again */
                { "fast 0\nslow max\nmid max", "fast 0\nslow max", true }, /* a tier made since */
                { "fast 0\nslow max\nmid 0", "fast 0\nslow max", false },
                { "fast 0", "fast 0\nslow max", false },                /* slow removed */
        };
        for (size_t i = 0; i < G_N_ELEMENTS(holds); i++)
                g_assert_cmpint(tier_file_holds(holds[i].current, holds[i].ours), ==, holds[i].holds);

        static const struct {
                const char *current, *ours;
                bool within;
        } within[] = {
                { "fast 0\nslow max", "fast 0\nslow max", true },
                { "fast max\nslow max", "fast 0\nslow max", true },  /* fast made again */
                { "fast 0\nslow 0", "fast 0\nslow max", false },     /* someone denied slow */
                { "fast 0\nslow max\nmid 0", "fast 0\nslow max", false },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(within); i++)
                g_assert_cmpint(tier_file_within(within[i].current, within[i].ours), ==, within[i].within);
}

static void test_sets(void) {
        static const char *const a[] = { "slow", "fast", NULL }, *const b[] = { "fast", "mid", NULL };
        g_auto(GStrv) u = tier_set_union((char **) a, (char **) b);
        g_auto(GStrv) m = tier_set_minus((char **) a, (char **) b);
        g_autofree char *uj = joined(u), *mj = joined(m);
        g_assert_cmpstr(uj, ==, "fast,mid,slow");
        g_assert_cmpstr(mj, ==, "slow");
        g_assert_true(tier_set_equal(NULL, NULL));
        g_assert_false(tier_set_equal(u, NULL));
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/swap-tier-tree/widening-and-children", test_widening_and_children);
        g_test_add_func("/swap-tier-tree/files", test_files);
        g_test_add_func("/swap-tier-tree/sets", test_sets);
        return g_test_run();
}
