/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which processes a change that a user's input asks for may reach
 * (process-trust.c), and whose input a change acts for
 * (process_acting_uid() in process-plan.c), as tables. The injector reads
 * /proc after it has stopped the target, and policyd the subject's
 * sources; these are the rules themselves. */
#include <errno.h>
#include <glib.h>

#include "process-plan.h"
#include "process-trust.h"
#include "util.h"

#define ME 1000
#define OTHER 1001
#define NONE PROCESS_TRUST_UID_NONE

/* ---- process_trust_check ---- */

typedef struct CredsCase {
        const char *name;
        uid_t acting;
        uid_t uid[4];
        gid_t gid[4];
        uint64_t prm, eff, amb;
        bool dumpable;
        ProcessTrustVerdict want;
} CredsCase;

static void test_check(void) {
        static const CredsCase cases[] = {
                /* Root's input: today's rules, whatever the process. */
                { "root's, a setuid-root process", 0, { ME, 0, 0, 0 }, { ME, ME, ME, ME }, ~0ULL, ~0ULL, 0, false,
                  PROCESS_TRUST_ALLOWED },
                { "root's, another user's", 0, { OTHER, OTHER, OTHER, OTHER }, { OTHER, OTHER, OTHER, OTHER }, 0, 0,
                  0, true, PROCESS_TRUST_ALLOWED },
                /* The user's own. */
                { "the user's own", ME, { ME, ME, ME, ME }, { ME, ME, ME, ME }, 0, 0, 0, true,
                  PROCESS_TRUST_ALLOWED },
                { "the user's own, after newgrp (one gid, not the primary one)", ME, { ME, ME, ME, ME },
                  { 27, 27, 27, 27 }, 0, 0, 0, true, PROCESS_TRUST_ALLOWED },
                /* Not theirs. */
                { "no user known", NONE, { ME, ME, ME, ME }, { ME, ME, ME, ME }, 0, 0, 0, true,
                  PROCESS_TRUST_NO_USER },
                { "another user's (after su)", ME, { OTHER, OTHER, OTHER, OTHER }, { OTHER, OTHER, OTHER, OTHER }, 0,
                  0, 0, true, PROCESS_TRUST_OTHER_UID },
                { "setuid root, as exec'd (real uid the user's)", ME, { ME, 0, 0, 0 }, { ME, ME, ME, ME }, ~0ULL,
                  ~0ULL, 0, false, PROCESS_TRUST_OTHER_UID },
                { "setuid root that set its real uid too", ME, { 0, 0, 0, 0 }, { ME, ME, ME, ME }, 0, 0, 0, true,
                  PROCESS_TRUST_OTHER_UID },
                { "setuid root that dropped back, saved uid still root", ME, { ME, ME, 0, ME }, { ME, ME, ME, ME },
                  0, 0, 0, true, PROCESS_TRUST_OTHER_UID },
                { "filesystem uid only differs", ME, { ME, ME, ME, 0 }, { ME, ME, ME, ME }, 0, 0, 0, true,
                  PROCESS_TRUST_OTHER_UID },
                { "setgid program (effective and saved gid)", ME, { ME, ME, ME, ME }, { ME, 42, 42, 42 }, 0, 0, 0,
                  false, PROCESS_TRUST_SETGID },
                { "setgid, saved gid left", ME, { ME, ME, ME, ME }, { ME, ME, 42, ME }, 0, 0, 0, true,
                  PROCESS_TRUST_SETGID },
                { "file capabilities (ping's cap_net_raw)", ME, { ME, ME, ME, ME }, { ME, ME, ME, ME }, 1ULL << 13,
                  1ULL << 13, 0, false, PROCESS_TRUST_CAPABILITIES },
                { "permitted but not effective", ME, { ME, ME, ME, ME }, { ME, ME, ME, ME }, 1ULL << 21, 0, 0, true,
                  PROCESS_TRUST_CAPABILITIES },
                { "ambient", ME, { ME, ME, ME, ME }, { ME, ME, ME, ME }, 0, 0, 1ULL << 12, true,
                  PROCESS_TRUST_CAPABILITIES },
                { "PR_SET_DUMPABLE 0 (ssh-agent)", ME, { ME, ME, ME, ME }, { ME, ME, ME, ME }, 0, 0, 0, false,
                  PROCESS_TRUST_NOT_DUMPABLE },
                /* The order of the checks: the uid first. */
                { "everything differs: the uid says it", ME, { OTHER, 0, 0, 0 }, { 1, 2, 3, 4 }, 1, 1, 1, false,
                  PROCESS_TRUST_OTHER_UID },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const CredsCase *c = &cases[i];
                ProcessCreds creds = { .cap_permitted = c->prm, .cap_effective = c->eff, .cap_ambient = c->amb,
                                       .dumpable = c->dumpable };
                for (size_t k = 0; k < 4; k++) {
                        creds.uid[k] = c->uid[k];
                        creds.gid[k] = c->gid[k];
                }
                ProcessTrustVerdict v = process_trust_check(c->acting, &creds);
                g_test_message("%s: %d", c->name, v);
                g_assert_cmpint(v, ==, c->want);
                g_assert_true((v == PROCESS_TRUST_ALLOWED) == (process_trust_verdict_to_string(v) == NULL));
        }
}

/* ---- process_creds_parse_status ---- */

static void test_parse(void) {
        static const char *const status =
                "Name:\tsudo\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t812\nPid:\t812\n"
                "Uid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\nFDSize:\t64\n"
                "Groups:\t24 27 1000 \nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
                "CapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n"
                "NoNewPrivs:\t0\nSeccomp:\t0\n";
        ProcessCreds c;

        g_assert_cmpint(process_creds_parse_status(status, &c), ==, 0);
        g_assert_cmpuint(c.uid[0], ==, 1000);
        g_assert_cmpuint(c.uid[1], ==, 0);
        g_assert_cmpuint(c.uid[3], ==, 0);
        g_assert_cmpuint(c.gid[2], ==, 1000);
        g_assert_cmpuint(c.cap_permitted, ==, 0x1ffffffffffULL);
        g_assert_cmpuint(c.cap_effective, ==, 0x1ffffffffffULL);
        g_assert_cmpuint(c.cap_ambient, ==, 0);
        g_assert_false(c.dumpable);

        /* No CapAmb: (before 4.3): none. */
        g_assert_cmpint(process_creds_parse_status("Uid:\t5 5 5 5\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\n", &c), ==, 0);
        g_assert_cmpuint(c.uid[2], ==, 5);
        g_assert_cmpuint(c.gid[1], ==, 6);

        static const char *const bad[] = {
                "",
                "Gid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\n",                    /* no Uid: */
                "Uid:\t5 5 5 5\nCapPrm:\t0\nCapEff:\t0\n",                    /* no Gid: */
                "Uid:\t5 5 5 5\nGid:\t6 6 6 6\nCapEff:\t0\n",                 /* no CapPrm: */
                "Uid:\t5 5 5 5\nGid:\t6 6 6 6\nCapPrm:\t0\n",                 /* no CapEff: */
                "Uid:\t5 5 5\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\n",       /* three uids */
                "Uid:\t5 5 5 5 5\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\n",   /* five */
                "Uid:\t5 5 -5 5\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\n",
                "Uid:\t5 5 5 4294967296\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\n",
                "Uid:\t5 5 5 5\nGid:\t6 6 6 6\nCapPrm:\tzz\nCapEff:\t0\n",
                "Uid:\t5 5 5 5\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0 1\n",
                "Uid:\t5 5 5 5\nGid:\t6 6 6 6\nCapPrm:\t0\nCapEff:\t0\nCapAmb:\t-\n",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_test_message("bad %zu", i);
                g_assert_cmpint(process_creds_parse_status(bad[i], &c), ==, -EINVAL);
        }
}

/* ---- process_acting_uid ---- */

typedef struct ActingCase {
        const char *name;
        /* the group */
        const char *match_unit;
        const char *match_xattr;
        bool reads_focus;
        /* the candidate */
        const char *unit;
        bool user_manager;
        uid_t manager_uid;
        bool owner_known;
        uid_t owner;
        const char *xattr;      /* on the cgroup */
        bool in_unit_file;
        bool root_assigned;
        uid_t want;
} ActingCase;

static void test_acting(void) {
        static const ActingCase cases[] = {
                /* A cgroup a user owns holds what they put there: the change acts for them, whoever
                 * put the cgroup in the group (issue 23: a setuid program there stays untouched). */
                { "root assigned a user's app", NULL, NULL, false, "app-x.scope", true, ME, true, ME, NULL, false,
                  true, ME },
                { "root assigned a cgroup a user owns", NULL, NULL, false, NULL, false, 0, true, ME, NULL, false,
                  true, ME },
                { "root's cgroup: its name, xattrs and request are root's", NULL, NULL, false, NULL, false, 0, true,
                  0, NULL, false, false, 0 },
                { "root's system unit, by [Match]", "db.service", NULL, false, "db.service", false, 0, true, 0, NULL,
                  false, false, 0 },
                { "a delegated system unit, PolicyGroup= in its file", NULL, NULL, false, "build.service", false, 0,
                  true, ME, NULL, true, false, ME },
                { "a delegated system unit, [Match] Unit=", "build.service", NULL, false, "build.service", false, 0,
                  true, ME, NULL, false, false, ME },
                /* A user's. */
                { "a delegated system unit, [Match] XAttr= its user wrote", NULL, "user.slo=bg", false,
                  "build.service", false, 0, true, ME, "user.slo=bg", false, false, ME },
                { "a delegated system unit, [Match] Unit= and focus", "build.service", NULL, true, "build.service",
                  false, 0, true, ME, "user.xdg.inactive-since=-1", false, false, ME },
                { "a delegated system unit, self-assigned (no root source)", NULL, NULL, false, "build.service",
                  false, 0, true, ME, NULL, false, false, ME },
                { "a user's app, by [Match] Unit= (a name the user chose)", "app-*.scope", NULL, false, "app-x.scope",
                  true, ME, true, ME, NULL, false, false, ME },
                { "a user's app, self-assigned", NULL, NULL, false, "app-x.scope", true, ME, true, ME, NULL, false,
                  false, ME },
                { "a user's app, PolicyGroup= in a unit file (the user's own)", NULL, NULL, false, "app-x.scope",
                  true, ME, true, ME, NULL, true, false, ME },
                { "a cgroup a user owns, by path", NULL, NULL, false, NULL, false, 0, true, OTHER, NULL, false,
                  false, OTHER },
                { "a cgroup whose owner is not known", NULL, NULL, false, NULL, false, 0, false, 0, NULL, false,
                  false, NONE },
                { "owner not known, root assigned it", NULL, NULL, false, NULL, false, 0, false, 0, NULL, false,
                  true, 0 },
                { "owner not known, PolicyGroup= of a PID 1 unit", NULL, NULL, false, "db.service", false, 0, false,
                  0, NULL, true, false, 0 },
                { "owner not known, [Match] Unit= of a PID 1 unit", "db.service", NULL, false, "db.service", false, 0,
                  false, 0, NULL, false, false, 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const ActingCase *c = &cases[i];
                g_autoptr(PolicyGroup) g = policy_group_new("pgt");
                const char *const xattrs[] = { c->xattr, NULL };
                const char *const unit_groups[] = { "pgt", NULL };
                const char *const slices[] = { "system.slice", NULL };

                g->allow_self_assign = true;
                if (c->match_unit)
                        g_ptr_array_add(g->match_units, g_strdup(c->match_unit));
                if (c->match_xattr)
                        g_ptr_array_add(g->match_xattrs, g_strdup(c->match_xattr));
                if (c->reads_focus)
                        g->match_focused = 1;
                Candidate cand = {
                        .unit = c->unit,
                        .slices = slices,
                        .cgroup = "/system.slice/x",
                        .owner_known = c->owner_known,
                        .owner_uid = c->owner,
                        .user_manager = c->user_manager,
                        .manager_uid = c->manager_uid,
                        .xattrs = c->xattr ? xattrs : NULL,
                        .xattrs_untrusted = c->owner_known && c->owner != 0,
                        .unit_groups = c->in_unit_file ? unit_groups : NULL,
                };
                uid_t got = process_acting_uid(g, &cand, c->root_assigned);
                g_test_message("%s: %u", c->name, (unsigned) got);
                g_assert_cmpuint(got, ==, c->want);
        }
}

static void test_merge(void) {
        g_assert_cmpuint(process_acting_uid_merge(0, 0), ==, 0);
        g_assert_cmpuint(process_acting_uid_merge(0, ME), ==, ME);
        g_assert_cmpuint(process_acting_uid_merge(ME, 0), ==, ME);
        g_assert_cmpuint(process_acting_uid_merge(ME, ME), ==, ME);
        g_assert_cmpuint(process_acting_uid_merge(ME, OTHER), ==, NONE);
        g_assert_cmpuint(process_acting_uid_merge(NONE, 0), ==, NONE);
        g_assert_cmpuint(process_acting_uid_merge(ME, NONE), ==, NONE);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/process-trust/check", test_check);
        g_test_add_func("/process-trust/parse", test_parse);
        g_test_add_func("/process-trust/acting-uid", test_acting);
        g_test_add_func("/process-trust/merge", test_merge);
        return g_test_run();
}
