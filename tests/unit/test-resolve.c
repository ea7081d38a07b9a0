/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The resolver: candidates x groups -> membership, knobs and attributes with
 * provenance. Groups are built in code; results are compared as short
 * strings so that a failure prints what differed. */

#include <errno.h>

#include <glib.h>

#include "resolve.h"
#include "util.h"

#define STRV(...) ((const char *const[]) { __VA_ARGS__, NULL })

/* ---- building groups ---- */

static PolicyGroup *group(PolicySet *s, const char *name, unsigned priority) {
        PolicyGroup *g = policy_group_new(name);
        g->priority = priority;
        g->file = g_strdup_printf("/etc/policy.d/%s.policy", name);
        policy_set_add(s, g);
        return g;
}

/* "file:line" -> a Provenance */
static void set_where(Provenance *p, const char *where) {
        const char *colon = strrchr(where, ':');
        g_assert_nonnull(colon);
        g_autofree char *file = g_strndup(where, (gsize) (colon - where));
        provenance_set(p, file, (unsigned) g_ascii_strtoull(colon + 1, NULL, 10));
}

/* Sets a knob from its policy-file spelling, as the loader would. */
static void knob(PolicyGroup *g, Knob k, const char *value, const char *where) {
        KnobSetting *s = &g->knobs[k];
        int r = 0;

        knob_value_clear(&s->value);
        switch (knob_type(k)) {
        case KNOB_TYPE_MEMORY_LIMIT:
                r = parse_memory_limit(value, &s->value.limit, NULL);
                break;
        case KNOB_TYPE_BOOLEAN:
                r = parse_boolean(value, &s->value.boolean, NULL);
                break;
        case KNOB_TYPE_TIERS:
                s->value.tiers = g_strsplit(value, " ", -1);
                break;
        case KNOB_TYPE_NUMA_POLICY:
                r = parse_numa_policy(value, &s->value.numa_policy, NULL);
                break;
        case KNOB_TYPE_NUMA_NODES:
                r = parse_numa_nodes(value, &s->value.numa_nodes, NULL);
                break;
        }
        g_assert_cmpint(r, ==, 0);
        s->set = true;
        set_where(&s->source, where);
}

/* [Attributes] XAttr=NAME=VALUE, appended in assignment order. Built by hand
 * (not through the loader's checks) so that reserved names can be tried. */
static void attr(PolicyGroup *g, const char *assignment, const char *where) {
        AttributeSetting *a = g_new0(AttributeSetting, 1);
        const char *eq = strchr(assignment, '=');

        a->name = eq ? g_strndup(assignment, (gsize) (eq - assignment)) : g_strdup(assignment);
        a->value = g_strdup(eq ? eq + 1 : "");
        set_where(&a->source, where);
        g_ptr_array_add(g->attributes, a);
}

/* A [Match] key: space-separated words, added to the list. */
static void words(GPtrArray *list, const char *spaced) {
        g_auto(GStrv) w = g_strsplit(spaced, " ", -1);
        for (char **p = w; *p; p++)
                if (**p)
                        g_ptr_array_add(list, g_strdup(*p));
}

/* ---- describing results ---- */

static Resolution *resolve(const PolicySet *s, const Candidate *c) {
        Resolution *r = NULL;
        g_assert_cmpint(resolve_candidate(s, c, &r), ==, 0);
        g_assert_nonnull(r);
        return r;
}

/* "a:runtime b:match", or "(none)" */
static char *describe_memberships(const Resolution *r) {
        GString *out = g_string_new(NULL);
        for (guint i = 0; i < r->memberships->len; i++) {
                const Membership *m = g_ptr_array_index(r->memberships, i);
                g_string_append_printf(out, "%s%s:%s", i > 0 ? " " : "", m->group,
                                       membership_source_to_string(m->source));
        }
        if (out->len == 0)
                g_string_append(out, "(none)");
        return g_string_free(out, FALSE);
}

/* "2G by a at /etc/policy.d/a.policy:7, over b c", or "unset" */
static char *describe_knob(const Resolution *r, Knob k) {
        const ResolvedKnob *rk = &r->knobs[k];
        g_assert_nonnull(rk->overridden);
        if (!rk->set) {
                g_assert_cmpuint(rk->overridden->len, ==, 0);
                return g_strdup("unset");
        }
        g_autofree char *v = knob_value_format(k, &rk->value);
        GString *out = g_string_new(NULL);
        g_string_append_printf(out, "%s by %s at %s:%u", v, rk->group, strempty(rk->source.file), rk->source.line);
        for (guint i = 0; i < rk->overridden->len; i++)
                g_string_append_printf(out, "%s%s", i == 0 ? ", over " : " ",
                                       (const char *) g_ptr_array_index(rk->overridden, i));
        return g_string_free(out, FALSE);
}

/* "user.a=1 by g at f:3; user.b=2 by h at f:4", or "(none)" */
static char *describe_attributes(const Resolution *r) {
        GString *out = g_string_new(NULL);
        for (guint i = 0; i < r->attributes->len; i++) {
                const ResolvedAttribute *a = g_ptr_array_index(r->attributes, i);
                g_string_append_printf(out, "%s%s=%s by %s at %s:%u", i > 0 ? "; " : "", a->name, a->value, a->group,
                                       strempty(a->source.file), a->source.line);
        }
        if (out->len == 0)
                g_string_append(out, "(none)");
        return g_string_free(out, FALSE);
}

static const char *note_kind_to_string(ResolveNoteKind k) {
        switch (k) {
        case RESOLVE_NOTE_UNKNOWN_GROUP:
                return "unknown";
        case RESOLVE_NOTE_MASKED_GROUP:
                return "masked";
        case RESOLVE_NOTE_SELF_REQUEST_REFUSED:
                return "refused";
        case RESOLVE_NOTE_DELEGATION_ROOT:
                return "delegation-root";
        }
        return "?";
}

/* "unknown(unit-file) nosuch; masked(runtime) old", or "(none)" */
static char *describe_notes(const Resolution *r) {
        GString *out = g_string_new(NULL);
        for (guint i = 0; i < r->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(r->notes, i);
                g_string_append_printf(out, "%s%s(%s) %s", i > 0 ? "; " : "", note_kind_to_string(n->kind),
                                       membership_source_to_string(n->source), n->group);
        }
        if (out->len == 0)
                g_string_append(out, "(none)");
        return g_string_free(out, FALSE);
}

/* "members: …; notes: …", prefixed with the row being checked */
static char *describe_outcome(const char *what, const Resolution *r) {
        g_autofree char *m = describe_memberships(r);
        g_autofree char *n = describe_notes(r);
        return g_strdup_printf("%s -> members: %s; notes: %s", what, m, n);
}

/* ---- [Match] tables ---- */

typedef struct MatchRow {
        const char *what;
        Candidate c;
        bool matches;
} MatchRow;

static void check_match_rows(const PolicyGroup *g, const MatchRow *rows, size_t n) {
        for (size_t i = 0; i < n; i++) {
                bool got = policy_group_matches(g, &rows[i].c);
                g_autofree char *want_s = g_strdup_printf("%s: %s", rows[i].what, rows[i].matches ? "matches" : "no match");
                g_autofree char *got_s = g_strdup_printf("%s: %s", rows[i].what, got ? "matches" : "no match");
                g_assert_cmpstr(got_s, ==, want_s);
        }
}

static void test_match_unit(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        /* The last word is a systemd-escaped name: it must match as written. */
        words(g->match_units, "app-*.scope *.service foo\\x2dbar.socket");
        const MatchRow rows[] = {
                { "service by *.service", { .unit = "a.service", .cgroup = "/system.slice/a.service" }, true },
                { "scope by app-*.scope", { .unit = "app-x-1.scope", .cgroup = "/user.slice/app-x-1.scope" }, true },
                { "escaped name as written", { .unit = "foo\\x2dbar.socket", .cgroup = "/system.slice/x" }, true },
                { "socket", { .unit = "a.socket", .cgroup = "/system.slice/a.socket" }, false },
                { "slice named app-", { .unit = "app-x.slice", .cgroup = "/app-x.slice" }, false },
                { "no unit owns the cgroup", { .cgroup = "/system.slice/a.service" }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_slice_and_ancestors(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_slices, "user.slice batch-*.slice");
        const MatchRow rows[] = {
                { "own slice", { .unit = "a.service", .slices = STRV("user.slice"), .cgroup = "/user.slice/a.service" },
                  true },
                { "ancestor slice",
                  { .unit = "a.scope", .slices = STRV("user-1000.slice", "user.slice"), .cgroup = "/x/a.scope" },
                  true },
                { "slice glob",
                  { .unit = "a.service", .slices = STRV("batch-nightly.slice", "batch.slice"), .cgroup = "/x" },
                  true },
                { "other slice", { .unit = "a.service", .slices = STRV("system.slice"), .cgroup = "/x" }, false },
                { "a slice below, not above",
                  { .unit = "a.service", .slices = STRV("system.slice"), .cgroup = "/system.slice/user.slice/a" },
                  false },
                { "no slice chain, even under /user.slice", { .unit = "a.service", .cgroup = "/user.slice/a.service" },
                  false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_cgroup_glob_crosses_slashes(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_cgroups, "/user.slice/* /init.scope");
        const MatchRow rows[] = {
                { "deep below", { .cgroup = "/user.slice/user-1000.slice/session-2.scope" }, true },
                { "one below", { .cgroup = "/user.slice/user-1000.slice" }, true },
                { "exact path", { .cgroup = "/init.scope" }, true },
                { "the slice itself", { .cgroup = "/user.slice" }, false },
                { "same prefix, other name", { .cgroup = "/user.slice.d/x" }, false },
                { "whole path, not a suffix", { .cgroup = "/system.slice/init.scope" }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_user_name_or_uid(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_users, "alice 1001");
        const MatchRow rows[] = {
                { "unit User=alice", { .cgroup = "/a", .user = "alice" }, true },
                { "owner name alice", { .cgroup = "/a", .owner_known = true, .owner_uid = 1000, .owner_name = "alice" },
                  true },
                { "owner uid 1001", { .cgroup = "/a", .owner_known = true, .owner_uid = 1001 }, true },
                { "numeric User=1001", { .cgroup = "/a", .user = "1001" }, true },
                { "uid 1001 but owner unknown", { .cgroup = "/a", .owner_uid = 1001 }, false },
                { "someone else",
                  { .cgroup = "/a", .user = "bob", .owner_known = true, .owner_uid = 1002, .owner_name = "bob" },
                  false },
                { "uid 0 is not 1001", { .cgroup = "/a", .owner_known = true, .owner_uid = 0 }, false },
                { "nothing known", { .cgroup = "/a" }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

/* Manager= narrows where the other keys reach; it selects nothing alone. */
static void test_match_manager(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *def = group(s, "default", 0), *user = group(s, "user", 0), *any = group(s, "any", 0);
        PolicyGroup *alone = group(s, "alone", 0);
        words(def->match_units, "app-*.scope");
        words(user->match_units, "app-*.scope");
        words(any->match_units, "app-*.scope");
        user->match_manager = MATCH_MANAGER_USER;
        any->match_manager = MATCH_MANAGER_ANY;
        alone->match_manager = MATCH_MANAGER_USER;
        const Candidate pid1 = { .cgroup = "/app.slice/app-a.scope", .unit = "app-a.scope" };
        const Candidate users = { .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-a.scope",
                                  .unit = "app-a.scope", .user_manager = true, .manager_uid = 1000 };
        const Candidate bare = { .cgroup = "/x/app-a.scope" };

        const MatchRow def_rows[] = {
                { "default: PID 1's unit", pid1, true },
                { "default: not a user's unit of the same name", users, false },
        };
        check_match_rows(def, def_rows, ELEMENTSOF(def_rows));
        const MatchRow user_rows[] = {
                { "user: a user's unit", users, true },
                { "user: not PID 1's", pid1, false },
                { "user: not a cgroup no unit owns", bare, false },
        };
        check_match_rows(user, user_rows, ELEMENTSOF(user_rows));
        const MatchRow any_rows[] = {
                { "any: PID 1's", pid1, true },
                { "any: a user's", users, true },
        };
        check_match_rows(any, any_rows, ELEMENTSOF(any_rows));
        const MatchRow alone_rows[] = {
                { "Manager= alone selects nothing", users, false },
        };
        check_match_rows(alone, alone_rows, ELEMENTSOF(alone_rows));
}

/* User= of a user's unit: the manager's user, by uid too. */
static void test_match_user_of_user_manager(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_users, "1000");
        g->match_manager = MATCH_MANAGER_USER;
        const MatchRow rows[] = {
                { "manager uid 1000, owner unknown", { .cgroup = "/a", .user_manager = true, .manager_uid = 1000 }, true },
                { "manager uid 1001", { .cgroup = "/a", .user_manager = true, .manager_uid = 1001 }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_xattr_name_or_value(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_xattrs, "user.xdg.inactive-since user.slo.class=batch");
        const MatchRow rows[] = {
                { "name, any value", { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=123") }, true },
                { "name with empty value", { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=") }, true },
                { "exact value", { .cgroup = "/a", .xattrs = STRV("user.x=1", "user.slo.class=batch") }, true },
                { "other value", { .cgroup = "/a", .xattrs = STRV("user.slo.class=latency") }, false },
                { "value prefix", { .cgroup = "/a", .xattrs = STRV("user.slo.class=batchy") }, false },
                { "name prefix", { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since-x=1") }, false },
                { "shorter name", { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive=1") }, false },
                { "no xattrs", { .cgroup = "/a" }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

/* The owner's own attributes select only groups that let it join them. */
static void test_match_xattr_untrusted_only_self_assign(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *closed = group(s, "closed", 0), *open = group(s, "open", 0);
        words(closed->match_xattrs, "user.slo.class=batch");
        words(open->match_xattrs, "user.slo.class=batch");
        open->allow_self_assign = true;
        const char *const *batch = STRV("user.slo.class=batch");
        const MatchRow closed_rows[] = {
                { "root's cgroup", { .cgroup = "/a", .xattrs = batch }, true },
                { "the owner's cgroup", { .cgroup = "/a", .xattrs = batch, .xattrs_untrusted = true }, false },
        };
        const MatchRow open_rows[] = {
                { "root's cgroup", { .cgroup = "/a", .xattrs = batch }, true },
                { "the owner's cgroup", { .cgroup = "/a", .xattrs = batch, .xattrs_untrusted = true }, true },
        };
        check_match_rows(closed, closed_rows, ELEMENTSOF(closed_rows));
        check_match_rows(open, open_rows, ELEMENTSOF(open_rows));
}

#define SEC UINT64_C(1000000)

/* user.xdg.inactive-since as Mutter writes it: -1 with focus, else the
 * CLOCK_MONOTONIC µs at which the app lost it. */
static void test_match_focus(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *fg = group(s, "fg", 0), *bg = group(s, "bg", 0), *idle = group(s, "idle", 0);
        fg->match_focused = 1;
        bg->match_focused = 0;
        idle->match_inactive_usec = 30 * SEC;
        idle->allow_self_assign = true;
        const char *const *focused = STRV("user.xdg.inactive-since=-1");
        const char *const *lost_10s_ago = STRV("user.xdg.inactive-since=90000000");
        const char *const *lost_40s_ago = STRV("user.xdg.inactive-since=60000000");
        const char *const *lost_30s_ago = STRV("user.xdg.inactive-since=70000000");
        const char *const *ahead = STRV("user.xdg.inactive-since=200000000");
        const char *const *garbage = STRV("user.xdg.inactive-since=soon");
        const char *const *negative = STRV("user.xdg.inactive-since=-5");
        const uint64_t now = 100 * SEC;
        const MatchRow fg_rows[] = {
                { "focused", { .cgroup = "/a", .xattrs = focused, .now_usec = now }, true },
                { "unfocused", { .cgroup = "/a", .xattrs = lost_10s_ago, .now_usec = now }, false },
                { "no xattr: not a windowed app", { .cgroup = "/a", .now_usec = now }, false },
                { "not a value Mutter writes", { .cgroup = "/a", .xattrs = garbage, .now_usec = now }, false },
                { "the owner's, and fg does not allow it",
                  { .cgroup = "/a", .xattrs = focused, .xattrs_untrusted = true, .now_usec = now }, false },
        };
        const MatchRow bg_rows[] = {
                { "focused", { .cgroup = "/a", .xattrs = focused, .now_usec = now }, false },
                { "unfocused", { .cgroup = "/a", .xattrs = lost_10s_ago, .now_usec = now }, true },
                { "no xattr", { .cgroup = "/a", .now_usec = now }, false },
                { "garbage", { .cgroup = "/a", .xattrs = garbage, .now_usec = now }, false },
                { "negative other than -1", { .cgroup = "/a", .xattrs = negative, .now_usec = now }, false },
        };
        const MatchRow idle_rows[] = {
                { "focused", { .cgroup = "/a", .xattrs = focused, .now_usec = now }, false },
                { "unfocused for 10 s", { .cgroup = "/a", .xattrs = lost_10s_ago, .now_usec = now }, false },
                { "unfocused for exactly 30 s", { .cgroup = "/a", .xattrs = lost_30s_ago, .now_usec = now }, true },
                { "unfocused for 40 s", { .cgroup = "/a", .xattrs = lost_40s_ago, .now_usec = now }, true },
                { "a time ahead of ours", { .cgroup = "/a", .xattrs = ahead, .now_usec = now }, false },
                { "no xattr", { .cgroup = "/a", .now_usec = now }, false },
                { "the owner's, and idle allows it",
                  { .cgroup = "/a", .xattrs = lost_40s_ago, .xattrs_untrusted = true, .now_usec = now }, true },
        };
        check_match_rows(fg, fg_rows, ELEMENTSOF(fg_rows));
        check_match_rows(bg, bg_rows, ELEMENTSOF(bg_rows));
        check_match_rows(idle, idle_rows, ELEMENTSOF(idle_rows));
}

/* Focused= and InactiveFor= are two keys: both must hold. */
static void test_match_focus_and_other_keys(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_units, "app-*.scope");
        g->match_focused = 0;
        g->match_inactive_usec = 5 * SEC;
        const char *const *lost = STRV("user.xdg.inactive-since=1000000");
        const MatchRow rows[] = {
                { "app, unfocused long enough", { .unit = "app-a.scope", .cgroup = "/a", .xattrs = lost, .now_usec = 10 * SEC }, true },
                { "not an app", { .unit = "a.service", .cgroup = "/a", .xattrs = lost, .now_usec = 10 * SEC }, false },
                { "app, not long enough", { .unit = "app-a.scope", .cgroup = "/a", .xattrs = lost, .now_usec = 3 * SEC }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

/* When InactiveFor= will start to hold: the earliest of the groups the
 * attributes may select, and none once it holds or cannot. */
static void test_focus_deadline(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *soon = group(s, "soon", 0), *later = group(s, "later", 0), *closed = group(s, "closed", 0);
        soon->match_inactive_usec = 30 * SEC;
        soon->allow_self_assign = true;
        later->match_inactive_usec = 300 * SEC;
        later->allow_self_assign = true;
        closed->match_inactive_usec = 10 * SEC;
        /* Would come first, but its Unit= never matches these. */
        PolicyGroup *elsewhere = group(s, "elsewhere", 0);
        elsewhere->match_inactive_usec = 2 * SEC;
        elsewhere->allow_self_assign = true;
        words(elsewhere->match_units, "app-*.scope");
        const struct {
                const char *name;
                Candidate c;
                uint64_t deadline;
        } rows[] = {
                { "root's cgroup: closed's comes first",
                  { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=100000000"), .now_usec = 101 * SEC },
                  110 * SEC },
                { "the owner's: closed takes no part",
                  { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=100000000"), .xattrs_untrusted = true,
                    .now_usec = 101 * SEC },
                  130 * SEC },
                { "soon holds already: later's",
                  { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=100000000"), .now_usec = 200 * SEC },
                  400 * SEC },
                { "all hold", { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=100000000"), .now_usec = 500 * SEC },
                  FOCUS_UNSET },
                { "focused", { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=-1"), .now_usec = 1 * SEC },
                  FOCUS_UNSET },
                { "no xattr", { .cgroup = "/a", .now_usec = 1 * SEC }, FOCUS_UNSET },
                { "near the end of time",
                  { .cgroup = "/a", .xattrs = STRV("user.xdg.inactive-since=18446744073709551000"), .now_usec = 1 * SEC },
                  FOCUS_UNSET },
        };
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                g_autoptr(Resolution) r = NULL;
                g_assert_cmpint(resolve_candidate(s, &rows[i].c, &r), ==, 0);
                if (r->focus_deadline_usec != rows[i].deadline)
                        g_error("%s: deadline %" G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT, rows[i].name,
                                r->focus_deadline_usec, rows[i].deadline);
        }
}

static void test_match_reserved_xattrs_never_match(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        /* Our own tag (membership would stick) and the self-request (it would
         * bypass AllowSelfAssign=). */
        words(g->match_xattrs, "user.policy.group=g user.policy.request");
        const MatchRow rows[] = {
                { "our group tag", { .cgroup = "/a", .xattrs = STRV("user.policy.group=g") }, false },
                { "a self-request", { .cgroup = "/a", .xattrs = STRV("user.policy.request=g") }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_or_within_and_across_keys(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_units, "*.service *.scope");
        words(g->match_slices, "user.slice");
        words(g->match_xattrs, "user.slo.class=latency");
        const char *const *in_user = STRV("user-1000.slice", "user.slice");
        const char *const *latency = STRV("user.slo.class=latency");
        const MatchRow rows[] = {
                { "service, slice, xattr",
                  { .unit = "a.service", .slices = in_user, .cgroup = "/u/a.service", .xattrs = latency }, true },
                { "scope (other word of Unit=), slice, xattr",
                  { .unit = "a.scope", .slices = in_user, .cgroup = "/u/a.scope", .xattrs = latency }, true },
                { "wrong slice",
                  { .unit = "a.service", .slices = STRV("system.slice"), .cgroup = "/s/a.service", .xattrs = latency },
                  false },
                { "no xattr", { .unit = "a.service", .slices = in_user, .cgroup = "/u/a.service" }, false },
                { "wrong unit type",
                  { .unit = "a.socket", .slices = in_user, .cgroup = "/u/a.socket", .xattrs = latency }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_emptied_key_takes_no_part(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        /* Unit=… then Unit= : the list is empty, only Slice= counts. */
        words(g->match_units, "nothing.service");
        g_ptr_array_set_size(g->match_units, 0);
        words(g->match_slices, "batch.slice");
        const MatchRow rows[] = {
                { "in batch.slice", { .unit = "a.service", .slices = STRV("batch.slice"), .cgroup = "/b/a.service" },
                  true },
                { "elsewhere", { .unit = "a.service", .slices = STRV("system.slice"), .cgroup = "/s/a.service" }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

/* The candidate every cgroup-level key could see. */
#define EVERYTHING_CANDIDATE                                                                                   \
        {                                                                                                      \
                .unit = "firefox.service", .slices = STRV("app.slice"), .cgroup = "/app.slice/firefox.service", \
                .owner_known = true, .owner_uid = 1000, .owner_name = "alice", .user = "alice",                \
                .xattrs = STRV("user.slo.class=latency"),                                                      \
        }

static void test_match_executable_only_matches_no_cgroup(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_executables, "/usr/bin/firefox* *");
        const MatchRow rows[] = {
                { "a cgroup running firefox", EVERYTHING_CANDIDATE, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_executable_does_not_narrow_cgroup_keys(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        words(g->match_units, "firefox.service");
        words(g->match_executables, "/usr/bin/nothing-like-it");
        const MatchRow rows[] = {
                { "Unit= matches, Executable= is per process", EVERYTHING_CANDIDATE, true },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));
}

static void test_match_empty_section_matches_nothing(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 0);
        const MatchRow rows[] = {
                { "no [Match] keys at all", EVERYTHING_CANDIDATE, false },
                { "the root cgroup", { .cgroup = "/" }, false },
        };
        check_match_rows(g, rows, ELEMENTSOF(rows));

        /* …and resolving agrees: no member without another source. */
        const Candidate c = EVERYTHING_CANDIDATE;
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *got = describe_memberships(r);
        g_assert_cmpstr(got, ==, "(none)");
}

/* ---- sources of membership ---- */

typedef struct SourceRow {
        const char *what;
        const char *const *runtime;
        const char *const *unit;
        const char *const *self;
        bool matched; /* carries the xattr g's [Match] selects */
        const char *members;
} SourceRow;

static void test_source_strongest_is_reported(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 10);
        g->allow_self_assign = true;
        words(g->match_xattrs, "user.m");
        const SourceRow rows[] = {
                { "all four", STRV("g"), STRV("g"), STRV("g"), true, "g:runtime" },
                { "unit file, self-request, match", NULL, STRV("g"), STRV("g"), true, "g:unit-file" },
                { "self-request, match", NULL, NULL, STRV("g"), true, "g:self-request" },
                { "match only", NULL, NULL, NULL, true, "g:match" },
                { "runtime, match", STRV("g"), NULL, NULL, true, "g:runtime" },
                { "runtime, unit file", STRV("g"), STRV("g"), NULL, false, "g:runtime" },
                { "named twice by the unit file", NULL, STRV("g", "g"), NULL, false, "g:unit-file" },
                { "none", NULL, NULL, NULL, false, "(none)" },
        };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                /* Root's cgroup: the request and xattrs are root's (a
                 * user's, on a unit's own cgroup, are refused: below). */
                const Candidate c = {
                        .unit = "a.service",
                        .cgroup = "/system.slice/a.service",
                        .owner_known = true,
                        .owner_uid = 0,
                        .xattrs = rows[i].matched ? STRV("user.m=1") : NULL,
                        .runtime_groups = rows[i].runtime,
                        .unit_groups = rows[i].unit,
                        .self_requests = rows[i].self,
                        .self_request_trusted = true,
                };
                g_autoptr(Resolution) r = resolve(s, &c);
                g_autofree char *members = describe_memberships(r);
                g_autofree char *got = g_strdup_printf("%s -> %s", rows[i].what, members);
                g_autofree char *want = g_strdup_printf("%s -> %s", rows[i].what, rows[i].members);
                g_assert_cmpstr(got, ==, want);
        }
}

static void test_source_runtime_exclusion_beats_everything(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *g = group(s, "g", 10);
        PolicyGroup *h = group(s, "h", 0);
        g->allow_self_assign = true;
        words(g->match_units, "a.service");
        knob(g, KNOB_SWAP_MAX, "1G", "/etc/policy.d/g.policy:9");
        attr(g, "user.slo.class=latency", "/etc/policy.d/g.policy:12");
        knob(h, KNOB_KSM, "yes", "/etc/policy.d/h.policy:4");
        const Candidate c = {
                .unit = "a.service",
                .cgroup = "/system.slice/a.service",
                .runtime_groups = STRV("g"),
                .unit_groups = STRV("g", "h"),
                .self_requests = STRV("g"),
                .self_request_trusted = true,
                .runtime_excluded = STRV("g"),
        };
        g_autoptr(Resolution) r = resolve(s, &c);

        g_autofree char *members = describe_memberships(r);
        g_assert_cmpstr(members, ==, "h:unit-file");
        /* An excluded group contributes nothing. */
        g_autofree char *swap = describe_knob(r, KNOB_SWAP_MAX);
        g_assert_cmpstr(swap, ==, "unset");
        g_autofree char *attrs = describe_attributes(r);
        g_assert_cmpstr(attrs, ==, "(none)");
        g_autofree char *ksm = describe_knob(r, KNOB_KSM);
        g_assert_cmpstr(ksm, ==, "yes by h at /etc/policy.d/h.policy:4");
}

static void test_notes_unknown_group(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        group(s, "known", 0);
        const Candidate c = {
                .unit = "a.service",
                .cgroup = "/system.slice/a.service",
                .runtime_groups = STRV("ghost"),
                .unit_groups = STRV("known", "nosuch"),
        };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *got = describe_outcome("unknown names", r);
        g_assert_cmpstr(got, ==,
                        "unknown names -> members: known:unit-file; notes: unknown(runtime) ghost; "
                        "unknown(unit-file) nosuch");
}

static void test_notes_masked_group(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        g_ptr_array_add(s->masked, g_strdup("old"));
        const Candidate c = {
                .unit = "a.service",
                .cgroup = "/system.slice/a.service",
                .unit_groups = STRV("old"),
                .runtime_groups = STRV("old"),
        };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *got = describe_outcome("masked name", r);
        g_assert_cmpstr(got, ==, "masked name -> members: (none); notes: masked(runtime) old; masked(unit-file) old");
}

static void test_notes_once_per_source_and_group(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        const Candidate c = {
                .unit = "a.service",
                .cgroup = "/system.slice/a.service",
                .unit_groups = STRV("nosuch", "nosuch"),
                .self_requests = STRV("nosuch", "nosuch"),
        };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *got = describe_notes(r);
        g_assert_cmpstr(got, ==, "unknown(unit-file) nosuch; refused(self-request) nosuch");
}

/* A delegation root: PID 1's unit whose cgroup systemd handed to a user
 * (user@UID.service, a Delegate=yes service with User=). The user's input
 * there (self-request, xattrs, focus) makes nothing a member; what PID 1
 * says of the unit, and root's, still does. */
typedef struct DelegationRow {
        const char *what;
        const char *unit;        /* NULL: a cgroup no unit owns */
        bool user_manager;       /* the unit is one of a user's manager */
        bool owner_known;
        uint32_t owner;
        const char *const *self; /* user.policy.request */
        const char *const *xattrs;
        const char *const *unit_groups;
        const char *outcome;
} DelegationRow;

static void test_delegation_root_refuses_user_input(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *lift = group(s, "lift", 0);
        lift->allow_self_assign = true;
        knob(lift, KNOB_SWAP_MAX, "4G", "/etc/policy.d/lift.policy:4");
        attr(lift, "user.lift=yes", "/etc/policy.d/lift.policy:6");
        PolicyGroup *mark = group(s, "mark", 0);
        mark->allow_self_assign = true;
        words(mark->match_xattrs, "user.mark=1");
        knob(mark, KNOB_SWAP_MAX, "4G", "/etc/policy.d/mark.policy:4");
        PolicyGroup *focus = group(s, "focus", 0);
        focus->allow_self_assign = true;
        focus->match_focused = 1;
        focus->match_manager = MATCH_MANAGER_ANY;
        lift->match_manager = MATCH_MANAGER_ANY;
        mark->match_manager = MATCH_MANAGER_ANY;
        knob(focus, KNOB_SWAP_MAX, "4G", "/etc/policy.d/focus.policy:4");
        const char *root = "/user.slice/user-1000.slice/user@1000.service";
        const char *const *focused = STRV("user.xdg.inactive-since=-1");
        const DelegationRow rows[] = {
                { "self-request, user@1000.service's own cgroup", "user@1000.service", false, true, 1000, STRV("lift"),
                  NULL, NULL, "members: (none); notes: delegation-root(self-request) lift" },
                { "self-request, owner unknown", "user@1000.service", false, false, 0, STRV("lift"), NULL, NULL,
                  "members: (none); notes: delegation-root(self-request) lift" },
                { "self-request, a unit's cgroup root owns", "d.service", false, true, 0, STRV("lift"), NULL, NULL,
                  "members: lift:self-request; notes: (none)" },
                { "self-request, a unit of the user's manager", "app.scope", true, true, 1000, STRV("lift"), NULL,
                  NULL, "members: lift:self-request; notes: (none)" },
                { "self-request, a cgroup below the unit", NULL, false, true, 1000, STRV("lift"), NULL, NULL,
                  "members: lift:self-request; notes: (none)" },
                { "the owner's xattr, delegation root", "user@1000.service", false, true, 1000, NULL,
                  STRV("user.mark=1"), NULL, "members: (none); notes: delegation-root(match) mark" },
                { "the owner's xattr, a cgroup below", NULL, false, true, 1000, NULL, STRV("user.mark=1"), NULL,
                  "members: mark:match; notes: (none)" },
                { "the owner's xattr, root's cgroup", "d.service", false, true, 0, NULL, STRV("user.mark=1"), NULL,
                  "members: mark:match; notes: (none)" },
                { "focus, delegation root", "user@1000.service", false, true, 1000, NULL, focused, NULL,
                  "members: (none); notes: delegation-root(match) focus" },
                { "focus, a unit of the user's manager", "app.scope", true, true, 1000, NULL, focused, NULL,
                  "members: focus:match; notes: (none)" },
                { "the unit file names it, with a self-request", "user@1000.service", false, true, 1000, STRV("lift"),
                  NULL, STRV("lift"), "members: lift:unit-file; notes: delegation-root(self-request) lift" },
        };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const Candidate c = {
                        .unit = rows[i].unit,
                        .cgroup = rows[i].unit ? root : "/user.slice/user-1000.slice/user@1000.service/app.slice/x",
                        .user_manager = rows[i].user_manager,
                        .manager_uid = rows[i].user_manager ? 1000 : 0,
                        .owner_known = rows[i].owner_known,
                        .owner_uid = rows[i].owner,
                        .xattrs = rows[i].xattrs,
                        .xattrs_untrusted = rows[i].owner_known && rows[i].owner != 0,
                        .self_requests = rows[i].self,
                        .self_request_trusted = true,
                        .unit_groups = rows[i].unit_groups,
                };
                g_autoptr(Resolution) r = resolve(s, &c);
                g_autofree char *got = describe_outcome(rows[i].what, r);
                g_autofree char *want = g_strdup_printf("%s -> %s", rows[i].what, rows[i].outcome);
                g_assert_cmpstr(got, ==, want);
                /* Nothing of a refused group reaches a knob or an attribute. */
                if (!strstr(rows[i].outcome, "members: (none)"))
                        continue;
                g_autofree char *swap = describe_knob(r, KNOB_SWAP_MAX);
                g_assert_cmpstr(swap, ==, "unset");
                g_autofree char *attrs = describe_attributes(r);
                g_assert_cmpstr(attrs, ==, "(none)");
                g_assert_cmpuint(r->focus_deadline_usec, ==, FOCUS_UNSET);
        }

        /* A [Match] of PID 1's facts (the owner) and the owner's xattr
         * together: without the xattr it would not select, so it is the
         * user's input. Without the XAttr=, it is root's. */
        g_autoptr(PolicySet) s2 = policy_set_new();
        PolicyGroup *users = group(s2, "users", 0);
        users->allow_self_assign = true;
        words(users->match_users, "1000");
        PolicyGroup *users_marked = group(s2, "users-marked", 0);
        users_marked->allow_self_assign = true;
        words(users_marked->match_users, "1000");
        words(users_marked->match_xattrs, "user.mark=1");
        const Candidate both = {
                .unit = "user@1000.service",
                .cgroup = root,
                .owner_known = true,
                .owner_uid = 1000,
                .xattrs = STRV("user.mark=1"),
                .xattrs_untrusted = true,
        };
        g_assert_true(candidate_is_delegation_root(&both));
        g_assert_true(policy_group_matches(users_marked, &both));
        g_assert_false(policy_group_matches_on_facts(users_marked, &both));
        g_assert_true(delegation_root_refuses(users_marked, MEMBERSHIP_MATCH, &both));
        g_assert_false(delegation_root_refuses(users_marked, MEMBERSHIP_UNIT_FILE, &both));
        g_assert_false(delegation_root_refuses(users_marked, MEMBERSHIP_RUNTIME, &both));
        g_assert_true(policy_group_matches_on_facts(users, &both));
        g_assert_false(delegation_root_refuses(users, MEMBERSHIP_MATCH, &both));
        g_autoptr(Resolution) r = resolve(s2, &both);
        g_autofree char *got = describe_outcome("facts and the owner's xattr", r);
        g_assert_cmpstr(got, ==,
                        "facts and the owner's xattr -> members: users:match; notes: delegation-root(match) "
                        "users-marked");
}

typedef struct SelfRow {
        const char *what;
        const char *request;
        bool trusted;
        const char *outcome;
} SelfRow;

static void test_self_request_needs_trust_and_allow_self_assign(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        group(s, "open", 0)->allow_self_assign = true;
        group(s, "closed", 0)->allow_self_assign = false;
        g_ptr_array_add(s->masked, g_strdup("old"));
        const SelfRow rows[] = {
                { "trusted, allowed", "open", true, "members: open:self-request; notes: (none)" },
                { "untrusted, allowed", "open", false, "members: (none); notes: refused(self-request) open" },
                { "trusted, not allowed", "closed", true, "members: (none); notes: refused(self-request) closed" },
                { "untrusted, not allowed", "closed", false, "members: (none); notes: refused(self-request) closed" },
                { "trusted, unknown group", "nosuch", true, "members: (none); notes: refused(self-request) nosuch" },
                { "trusted, masked group", "old", true, "members: (none); notes: refused(self-request) old" },
        };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const char *const requests[] = { rows[i].request, NULL };
                const Candidate c = {
                        .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope",
                        .self_requests = requests,
                        .self_request_trusted = rows[i].trusted,
                };
                g_autoptr(Resolution) r = resolve(s, &c);
                g_autofree char *got = describe_outcome(rows[i].what, r);
                g_autofree char *want = g_strdup_printf("%s -> %s", rows[i].what, rows[i].outcome);
                g_assert_cmpstr(got, ==, want);
        }
}

static void test_membership_sorted_and_once_each(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        group(s, "charlie", 0);
        words(group(s, "alpha", 0)->match_units, "a.service");
        group(s, "bravo", 0);
        const Candidate c = {
                .unit = "a.service",
                .cgroup = "/system.slice/a.service",
                .runtime_groups = STRV("charlie", "bravo"),
                .unit_groups = STRV("bravo", "alpha", "charlie"),
        };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *got = describe_memberships(r);
        g_assert_cmpstr(got, ==, "alpha:unit-file bravo:runtime charlie:runtime");
}

/* ---- no inheritance ---- */

static void test_no_inheritance_of_parent_match(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        words(group(s, "by-path", 0)->match_cgroups, "/a.slice");
        words(group(s, "by-unit", 0)->match_units, "a.slice");
        const Candidate parent = { .unit = "a.slice", .slices = STRV("-.slice"), .cgroup = "/a.slice" };
        const Candidate child = { .unit = "b.service", .slices = STRV("a.slice"), .cgroup = "/a.slice/b.service" };

        g_autoptr(Resolution) rp = resolve(s, &parent);
        g_autofree char *p = describe_memberships(rp);
        g_assert_cmpstr(p, ==, "by-path:match by-unit:match");

        g_autoptr(Resolution) rc = resolve(s, &child);
        g_autofree char *ch = describe_memberships(rc);
        g_assert_cmpstr(ch, ==, "(none)");
}

static void test_no_inheritance_of_parent_runtime_assignment(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        knob(group(s, "g", 0), KNOB_SWAP_MAX, "0", "/etc/policy.d/g.policy:3");
        /* policyctl assign a.slice g: the caller hands runtime_groups to
         * /a.slice only; the child's own data names nothing. */
        const Candidate parent = { .unit = "a.slice", .cgroup = "/a.slice", .runtime_groups = STRV("g") };
        const Candidate child = { .unit = "b.service", .slices = STRV("a.slice"), .cgroup = "/a.slice/b.service" };

        g_autoptr(Resolution) rp = resolve(s, &parent);
        g_autofree char *p = describe_memberships(rp);
        g_assert_cmpstr(p, ==, "g:runtime");

        g_autoptr(Resolution) rc = resolve(s, &child);
        g_autofree char *ch = describe_memberships(rc);
        g_assert_cmpstr(ch, ==, "(none)");
        g_autofree char *swap = describe_knob(rc, KNOB_SWAP_MAX);
        g_assert_cmpstr(swap, ==, "unset");
}

/* ---- knob merge ---- */

/* Every group is a member through the unit file. */
static const Candidate member_of_all = {
        .unit = "a.service",
        .cgroup = "/system.slice/a.service",
        .unit_groups = STRV("alpha", "bravo", "charlie", "delta"),
};

static void test_merge_highest_priority_wins(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        /* The winner sorts first, so neither name order nor the tie rule can pick it. */
        knob(group(s, "alpha", 20), KNOB_SWAP_MAX, "2G", "/etc/policy.d/alpha.policy:7");
        knob(group(s, "bravo", 10), KNOB_SWAP_MAX, "1G", "/etc/policy.d/bravo.policy:7");
        knob(group(s, "charlie", 5), KNOB_SWAP_MAX, "512M", "/etc/policy.d/charlie.policy:7");
        group(s, "delta", 900); /* the strongest group, but it does not set the knob */
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_knob(r, KNOB_SWAP_MAX);
        g_assert_cmpstr(got, ==, "2G by alpha at /etc/policy.d/alpha.policy:7, over bravo charlie");
}

static void test_merge_tie_goes_to_last_name(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        knob(group(s, "alpha", 10), KNOB_NUMA_POLICY, "bind", "/etc/policy.d/alpha.policy:20");
        knob(group(s, "charlie", 10), KNOB_NUMA_POLICY, "interleave", "/etc/policy.d/charlie.policy:21");
        knob(group(s, "bravo", 10), KNOB_NUMA_POLICY, "local", "/etc/policy.d/bravo.policy:22");
        knob(group(s, "delta", 9), KNOB_NUMA_POLICY, "preferred", "/etc/policy.d/delta.policy:23");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_knob(r, KNOB_NUMA_POLICY);
        g_assert_cmpstr(got, ==, "interleave by charlie at /etc/policy.d/charlie.policy:21, over alpha bravo delta");
}

static void test_merge_provenance_per_knob(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *alpha = group(s, "alpha", 50);
        PolicyGroup *bravo = group(s, "bravo", 100);
        PolicyGroup *charlie = group(s, "charlie", 10);
        knob(alpha, KNOB_SWAP_MAX, "1G", "/etc/policy.d/alpha.policy:7");
        knob(alpha, KNOB_KSM, "no", "/etc/policy.d/alpha.policy.d/50-ksm.conf:2");
        knob(bravo, KNOB_SWAP_MAX, "4G", "/usr/lib/policy.d/bravo.policy:11");
        knob(charlie, KNOB_SWAP_MAX, "infinity", "/run/policy.d/charlie.policy:3");
        knob(charlie, KNOB_KSM, "yes", "/run/policy.d/charlie.policy:4");
        knob(charlie, KNOB_NUMA_NODES, "0-1,3", "/run/policy.d/charlie.policy:5");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);

        g_autofree char *swap = describe_knob(r, KNOB_SWAP_MAX);
        g_assert_cmpstr(swap, ==, "4G by bravo at /usr/lib/policy.d/bravo.policy:11, over alpha charlie");
        g_autofree char *ksm = describe_knob(r, KNOB_KSM);
        g_assert_cmpstr(ksm, ==, "no by alpha at /etc/policy.d/alpha.policy.d/50-ksm.conf:2, over charlie");
        g_autofree char *nodes = describe_knob(r, KNOB_NUMA_NODES);
        g_assert_cmpstr(nodes, ==, "0-1,3 by charlie at /run/policy.d/charlie.policy:5");
        g_autofree char *high = describe_knob(r, KNOB_SWAP_HIGH);
        g_assert_cmpstr(high, ==, "unset");
}

static void test_merge_value_outlives_policy_set(void) {
        PolicySet *s = policy_set_new();
        knob(group(s, "alpha", 0), KNOB_SWAP_TIERS, "fast slow", "/etc/policy.d/alpha.policy:8");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        /* A reload frees the old set while the last resolution is kept. */
        s = policy_set_free(s);
        g_autofree char *got = describe_knob(r, KNOB_SWAP_TIERS);
        g_assert_cmpstr(got, ==, "fast slow by alpha at /etc/policy.d/alpha.policy:8");
}

/* ---- attributes ---- */

static void test_attributes_later_assignment_wins_within_group(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *alpha = group(s, "alpha", 0);
        attr(alpha, "user.slo.class=batch", "/usr/lib/policy.d/alpha.policy:12");
        attr(alpha, "user.slo.class=latency", "/etc/policy.d/alpha.policy.d/50-local.conf:3");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_attributes(r);
        g_assert_cmpstr(got, ==, "user.slo.class=latency by alpha at /etc/policy.d/alpha.policy.d/50-local.conf:3");
}

static void test_attributes_priority_across_groups(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *alpha = group(s, "alpha", 20);
        PolicyGroup *bravo = group(s, "bravo", 10);
        attr(alpha, "user.slo.class=latency", "/etc/policy.d/alpha.policy:5");
        attr(alpha, "user.slo.class=interactive", "/etc/policy.d/alpha.policy:6");
        attr(bravo, "user.slo.class=batch", "/etc/policy.d/bravo.policy:5");
        attr(bravo, "user.slo.class=bulk", "/etc/policy.d/bravo.policy:6");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_attributes(r);
        g_assert_cmpstr(got, ==, "user.slo.class=interactive by alpha at /etc/policy.d/alpha.policy:6");
}

static void test_attributes_tie_goes_to_last_name(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        attr(group(s, "bravo", 10), "user.tier=b", "/etc/policy.d/bravo.policy:5");
        attr(group(s, "charlie", 10), "user.tier=c", "/etc/policy.d/charlie.policy:5");
        attr(group(s, "alpha", 10), "user.tier=a", "/etc/policy.d/alpha.policy:5");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_attributes(r);
        g_assert_cmpstr(got, ==, "user.tier=c by charlie at /etc/policy.d/charlie.policy:5");
}

static void test_attributes_merged_per_name_and_sorted(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *alpha = group(s, "alpha", 20);
        PolicyGroup *bravo = group(s, "bravo", 10);
        attr(bravo, "user.zone=z", "/etc/policy.d/bravo.policy:5");
        attr(bravo, "user.mark", "/etc/policy.d/bravo.policy:6");
        attr(alpha, "user.zone=a", "/etc/policy.d/alpha.policy:5");
        attr(alpha, "user.app=x", "/etc/policy.d/alpha.policy:6");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_attributes(r);
        g_assert_cmpstr(got, ==,
                        "user.app=x by alpha at /etc/policy.d/alpha.policy:6; "
                        "user.mark= by bravo at /etc/policy.d/bravo.policy:6; "
                        "user.zone=a by alpha at /etc/policy.d/alpha.policy:5");
}

static void test_attributes_reserved_namespace_never_comes_through(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        PolicyGroup *alpha = group(s, "alpha", 0);
        attr(alpha, "user.policy.group=evil", "/etc/policy.d/alpha.policy:5");
        attr(alpha, "user.policy.request=evil", "/etc/policy.d/alpha.policy:6");
        attr(alpha, "user.ok=1", "/etc/policy.d/alpha.policy:7");
        g_autoptr(Resolution) r = resolve(s, &member_of_all);
        g_autofree char *got = describe_attributes(r);
        g_assert_cmpstr(got, ==, "user.ok=1 by alpha at /etc/policy.d/alpha.policy:7");
}

/* ---- the group tag and small API ---- */

static void test_tag_sorted_comma_joined(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        group(s, "foreground", 0);
        group(s, "batch", 0);
        words(group(s, "background", 0)->match_xattrs, "user.xdg.inactive-since");
        const Candidate c = {
                .unit = "a.service",
                .cgroup = "/system.slice/a.service",
                .xattrs = STRV("user.xdg.inactive-since=1"),
                .unit_groups = STRV("foreground"),
                .runtime_groups = STRV("batch"),
        };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *tag = resolution_group_tag(r);
        g_assert_cmpstr(tag, ==, "background,batch,foreground");
}

static void test_tag_empty_without_members(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        group(s, "foreground", 0);
        const Candidate c = { .cgroup = "/system.slice/a.service" };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *tag = resolution_group_tag(r);
        g_assert_cmpstr(tag, ==, "");
}

static void test_has_group(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        group(s, "batch", 0);
        group(s, "batch2", 0);
        const Candidate c = { .cgroup = "/a", .unit_groups = STRV("batch2") };
        g_autoptr(Resolution) r = resolve(s, &c);
        g_autofree char *got = g_strdup_printf("batch2=%d batch=%d none=%d null-resolution=%d",
                                               resolution_has_group(r, "batch2"), resolution_has_group(r, "batch"),
                                               resolution_has_group(r, "none"), resolution_has_group(NULL, "batch2"));
        g_assert_cmpstr(got, ==, "batch2=1 batch=0 none=0 null-resolution=0");
}

static void test_source_names(void) {
        GString *got = g_string_new(NULL);
        for (int i = 0; i < _MEMBERSHIP_SOURCE_MAX; i++)
                g_string_append_printf(got, "%s%s", i > 0 ? " " : "",
                                       membership_source_to_string((MembershipSource) i));
        g_assert_cmpstr(got->str, ==, "runtime unit-file self-request match");
        g_assert_null(membership_source_to_string(_MEMBERSHIP_SOURCE_MAX));
        g_string_free(got, TRUE);
}

static void test_candidate_needs_absolute_cgroup(void) {
        g_autoptr(PolicySet) s = policy_set_new();
        Resolution sentinel = {};
        const struct {
                const char *what;
                const char *cgroup;
        } rows[] = {
                { "no cgroup", NULL },
                { "empty cgroup", "" },
                { "relative cgroup", "system.slice/a.service" },
        };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                Resolution *r = &sentinel;
                const Candidate c = { .unit = "a.service", .cgroup = rows[i].cgroup };
                int k = resolve_candidate(s, &c, &r);
                g_autofree char *got = g_strdup_printf("%s: %d, output %s", rows[i].what, k,
                                                       r == &sentinel ? "untouched" : "changed");
                g_autofree char *want = g_strdup_printf("%s: %d, output untouched", rows[i].what, -EINVAL);
                g_assert_cmpstr(got, ==, want);
        }
}

static void test_set_reads_attributes(void) {
        g_autoptr(PolicySet) set = policy_set_new();
        PolicyGroup *g = group(set, "plain", 100);

        words(g->match_units, "a.service");
        g_assert_false(policy_set_reads_attributes(set));
        /* Writing attributes is not reading them. */
        attr(g, "user.slo.class=batch", "/etc/policy.d/plain.policy:9");
        g_assert_false(policy_set_reads_attributes(set));

        PolicyGroup *self = group(set, "self", 100);
        self->allow_self_assign = true;
        g_assert_true(policy_set_reads_attributes(set));
        self->allow_self_assign = false;
        g_assert_false(policy_set_reads_attributes(set));

        /* An emptied key takes no part. */
        g_ptr_array_add(g->match_xattrs, g_strdup(""));
        g_assert_false(policy_set_reads_attributes(set));
        words(g->match_xattrs, "user.xdg.inactive-since");
        g_assert_true(policy_set_reads_attributes(set));

        /* By name, whether the word has a value or not; once each, sorted. */
        words(g->match_xattrs, "user.slo.class=batch");
        g_ptr_array_add(self->match_xattrs, g_strdup("user.slo.class"));
        g_auto(GStrv) names = policy_set_xattr_names(set);
        g_autofree char *joined = g_strjoinv(",", names);
        g_assert_cmpstr(joined, ==, "user.slo.class,user.xdg.inactive-since");

        /* Focused= and InactiveFor= read user.xdg.inactive-since. */
        g_autoptr(PolicySet) focus = policy_set_new();
        PolicyGroup *f = group(focus, "f", 0);
        g_assert_false(policy_set_reads_attributes(focus));
        g_auto(GStrv) none = policy_set_xattr_names(focus);
        g_assert_cmpuint(g_strv_length(none), ==, 0);
        f->match_focused = 0;
        g_assert_true(policy_set_reads_attributes(focus));
        g_auto(GStrv) focused = policy_set_xattr_names(focus);
        g_autofree char *focused_joined = g_strjoinv(",", focused);
        g_assert_cmpstr(focused_joined, ==, FOCUS_XATTR);
        f->match_focused = -1;
        f->match_inactive_usec = 0;
        g_auto(GStrv) inactive = policy_set_xattr_names(focus);
        g_autofree char *inactive_joined = g_strjoinv(",", inactive);
        g_assert_cmpstr(inactive_joined, ==, FOCUS_XATTR);
}

static void test_free_accepts_null(void) {
        g_assert_null(resolution_free(NULL));
}

int main(int argc, char *argv[]) {
        g_test_init(&argc, &argv, NULL);

        g_test_add_func("/resolve/source/strongest-is-reported", test_source_strongest_is_reported);
        g_test_add_func("/resolve/source/runtime-exclusion-beats-everything",
                        test_source_runtime_exclusion_beats_everything);
        g_test_add_func("/resolve/source/membership-sorted-and-once-each", test_membership_sorted_and_once_each);
        g_test_add_func("/resolve/source/names", test_source_names);
        g_test_add_func("/resolve/notes/unknown-group", test_notes_unknown_group);
        g_test_add_func("/resolve/notes/masked-group", test_notes_masked_group);
        g_test_add_func("/resolve/notes/once-per-source-and-group", test_notes_once_per_source_and_group);
        g_test_add_func("/resolve/self-request/needs-trust-and-allow-self-assign",
                        test_self_request_needs_trust_and_allow_self_assign);

        g_test_add_func("/resolve/merge/highest-priority-wins", test_merge_highest_priority_wins);
        g_test_add_func("/resolve/merge/tie-goes-to-last-name", test_merge_tie_goes_to_last_name);
        g_test_add_func("/resolve/merge/provenance-per-knob", test_merge_provenance_per_knob);
        g_test_add_func("/resolve/merge/value-outlives-policy-set", test_merge_value_outlives_policy_set);

        g_test_add_func("/resolve/attributes/later-assignment-wins-within-group",
                        test_attributes_later_assignment_wins_within_group);
        g_test_add_func("/resolve/attributes/priority-across-groups", test_attributes_priority_across_groups);
        g_test_add_func("/resolve/attributes/tie-goes-to-last-name", test_attributes_tie_goes_to_last_name);
        g_test_add_func("/resolve/attributes/merged-per-name-and-sorted", test_attributes_merged_per_name_and_sorted);
        g_test_add_func("/resolve/attributes/reserved-namespace-never-comes-through",
                        test_attributes_reserved_namespace_never_comes_through);

        g_test_add_func("/resolve/match/unit", test_match_unit);
        g_test_add_func("/resolve/match/slice-and-ancestors", test_match_slice_and_ancestors);
        g_test_add_func("/resolve/match/cgroup-glob-crosses-slashes", test_match_cgroup_glob_crosses_slashes);
        g_test_add_func("/resolve/match/user-name-or-uid", test_match_user_name_or_uid);
        g_test_add_func("/resolve/match/manager", test_match_manager);
        g_test_add_func("/resolve/match/user-of-user-manager", test_match_user_of_user_manager);
        g_test_add_func("/resolve/match/xattr-name-or-value", test_match_xattr_name_or_value);
        g_test_add_func("/resolve/match/reserved-xattrs-never-match", test_match_reserved_xattrs_never_match);
        g_test_add_func("/resolve/match/xattr-untrusted-only-self-assign", test_match_xattr_untrusted_only_self_assign);
        g_test_add_func("/resolve/match/focus", test_match_focus);
        g_test_add_func("/resolve/match/focus-and-other-keys", test_match_focus_and_other_keys);
        g_test_add_func("/resolve/focus-deadline", test_focus_deadline);
        g_test_add_func("/resolve/match/or-within-and-across-keys", test_match_or_within_and_across_keys);
        g_test_add_func("/resolve/match/emptied-key-takes-no-part", test_match_emptied_key_takes_no_part);
        g_test_add_func("/resolve/match/executable-only-matches-no-cgroup",
                        test_match_executable_only_matches_no_cgroup);
        g_test_add_func("/resolve/match/executable-does-not-narrow-cgroup-keys",
                        test_match_executable_does_not_narrow_cgroup_keys);
        g_test_add_func("/resolve/match/empty-section-matches-nothing", test_match_empty_section_matches_nothing);

        g_test_add_func("/resolve/inheritance/parent-match-not-inherited", test_no_inheritance_of_parent_match);
        g_test_add_func("/resolve/inheritance/parent-runtime-assignment-not-inherited",
                        test_no_inheritance_of_parent_runtime_assignment);

        g_test_add_func("/resolve/tag/sorted-comma-joined", test_tag_sorted_comma_joined);
        g_test_add_func("/resolve/tag/empty-without-members", test_tag_empty_without_members);
        g_test_add_func("/resolve/has-group", test_has_group);
        g_test_add_func("/resolve/errors/candidate-needs-absolute-cgroup", test_candidate_needs_absolute_cgroup);
        g_test_add_func("/resolve/set-reads-attributes", test_set_reads_attributes);
        g_test_add_func("/resolve/delegation-root/refuses-user-input", test_delegation_root_refuses_user_input);
        g_test_add_func("/resolve/free-accepts-null", test_free_accepts_null);

        return g_test_run();
}
