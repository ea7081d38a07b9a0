/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What policyd does with a unit's systemd properties (unit-plan.c): a row
 * per case that apply.c executes. */
#include <errno.h>
#include <string.h>
#include <glib.h>

#include "explain.h"
#include "unit-file.h"
#include "unit-plan.h"

#define FRAGMENT "/etc/systemd/system/a.service"
#define GEN "/run/systemd/generator/a.service.d/50-policy-groups.conf"

#define DRY UNIT_PLAN_DRY_RUN
#define STALE UNIT_PLAN_PROPERTIES_STALE
#define GENERATED UNIT_PLAN_GENERATED_DROPIN

typedef struct Row {
        const char *name;
        const char *plan;    /* "PROPERTY=VALUE ...": systemd properties; "@FILE=VALUE": a cgroup file */
        const char *current; /* "PROPERTY=VALUE ..." */
        const char *records; /* "PROPERTY:PREVIOUS:WRITTEN ..." */
        const char *relied;  /* "PROPERTY=VALUE ..." */
        /* "PROPERTY=F:VALUE,G:VALUE ..." (F the fragment, G the generator's
         * drop-in); the files of other properties are unreadable. */
        const char *admin;
        UnitPlanFlags flags;
        const char *want;
} Row;

static const Row rows[] = {
        /* Sets. */
        { "set over a different value: files say nothing, systemd's value to restore", "MemorySwapMax=1073741824",
          "MemorySwapMax=infinity", NULL, NULL, "MemorySwapMax=", 0,
          "read admin: MemorySwapMax | set MemorySwapMax=1073741824 (previous infinity)" },
        { "set, files unreadable: the current value to restore", "MemorySwapMax=1073741824", "MemorySwapMax=infinity",
          NULL, NULL, NULL, 0, "read admin: MemorySwapMax | set MemorySwapMax=1073741824 (previous infinity)" },
        { "set, never reported: nothing to restore", "MemorySwapMax=1073741824", NULL, NULL, NULL, NULL, 0,
          "read admin: MemorySwapMax | set MemorySwapMax=1073741824 (previous )" },
        { "set over the generator's value: the administrator's to restore", "MemorySwapMax=2147483648",
          "MemorySwapMax=161058816", NULL, NULL, "MemorySwapMax=F:1G,G:157284K", GENERATED,
          "read admin: MemorySwapMax | set MemorySwapMax=2147483648 (previous 1073741824, the generator's)" },
        { "set with a record: its previous, no files read", "MemorySwapMax=2147483648", "MemorySwapMax=5000",
          "MemorySwapMax:infinity:1073741824", NULL, NULL, 0, "set MemorySwapMax=2147483648 (previous infinity)" },
        { "dry run: would set, no files read", "MemorySwapMax=1073741824", "MemorySwapMax=infinity", NULL, NULL, NULL,
          DRY, "would set MemorySwapMax=1073741824 (is infinity)" },
        { "already right, with a record: nothing", "MemorySwapMax=1073741824", "MemorySwapMax=1073741824",
          "MemorySwapMax:infinity:1073741824", NULL, NULL, 0, "" },
        { "already right in another spelling", "MemoryZSwapWriteback=no", "MemoryZSwapWriteback=no",
          "MemoryZSwapWriteback:yes:no", NULL, NULL, 0, "" },
        { "a cgroup file is not the unit plan's", "@memory.high=1000", "MemorySwapMax=infinity", NULL, NULL, NULL, 0,
          "" },
        { "two sets, in the plan's order", "MemoryZSwapMax=4096 MemorySwapMax=1073741824",
          "MemorySwapMax=infinity MemoryZSwapMax=infinity", NULL, NULL, "MemorySwapMax= MemoryZSwapMax=", 0,
          "read admin: MemoryZSwapMax,MemorySwapMax | set MemoryZSwapMax=4096 (previous infinity) | "
          "set MemorySwapMax=1073741824 (previous infinity)" },

        /* Records of properties the plan no longer sets. */
        { "undo: the written value is current", NULL, "MemorySwapMax=1073741824", "MemorySwapMax:infinity:1073741824",
          NULL, NULL, 0, "record MemorySwapMax: restore (infinity)" },
        { "dry run: would restore", NULL, "MemorySwapMax=1073741824", "MemorySwapMax:infinity:1073741824", NULL, NULL,
          DRY, "record MemorySwapMax: would restore (infinity)" },
        { "left alone: someone else changed it", NULL, "MemorySwapMax=5000", "MemorySwapMax:infinity:1073741824", NULL,
          NULL, 0, "record MemorySwapMax: changed by someone else (infinity)" },
        { "changed by someone else, in a dry run too", NULL, "MemorySwapMax=5000", "MemorySwapMax:infinity:1073741824",
          NULL, NULL, DRY, "record MemorySwapMax: changed by someone else (infinity)" },
        { "the value from before: nothing to undo", NULL, "MemorySwapMax=infinity",
          "MemorySwapMax:infinity:1073741824", NULL, NULL, 0, "record MemorySwapMax: value from before (infinity)" },
        { "nothing to restore to: an empty previous", NULL, "MemorySwapMax=1073741824", "MemorySwapMax::1073741824",
          NULL, NULL, 0, "record MemorySwapMax: nothing to restore to ()" },
        { "AllowedMemoryNodes: an empty previous is every node", NULL, "AllowedMemoryNodes=0", "AllowedMemoryNodes::0",
          NULL, NULL, 0, "record AllowedMemoryNodes: restore ()" },
        { "a record the plan still sets is no undo", "MemorySwapMax=2147483648",
          "MemorySwapMax=2147483648 MemoryZSwapMax=infinity",
          "MemorySwapMax:infinity:2147483648 MemoryZSwapMax:infinity:4096", NULL, NULL, 0,
          "record MemoryZSwapMax: value from before (infinity)" },

        /* Stale inputs: systemd's values of now first. */
        { "stale, a set to make: read those values first", "MemorySwapMax=1073741824", "MemorySwapMax=infinity",
          "MemoryZSwapMax:infinity:4096", NULL, NULL, STALE, "read values: MemorySwapMax,MemoryZSwapMax" },
        { "stale, a record to undo: read it first", NULL, "MemorySwapMax=1073741824",
          "MemorySwapMax:infinity:1073741824", NULL, NULL, STALE, "read values: MemorySwapMax" },
        { "stale with a generated drop-in: refresh the unit", "MemorySwapMax=1073741824", "MemorySwapMax=1073741824",
          "MemorySwapMax:infinity:1073741824", NULL, NULL, STALE | GENERATED, "read unit" },
        { "stale, nothing to do: planned on what was read", "MemorySwapMax=1073741824", "MemorySwapMax=1073741824",
          "MemorySwapMax:infinity:1073741824", NULL, NULL, STALE, "" },

        /* Properties the generator's drop-in gives, which policyd relies on. */
        { "the group's value already in force: relied on, its file synced", "MemorySwapMax=161058816",
          "MemorySwapMax=161058816", NULL, NULL, NULL, 0, "sync MemorySwapMax=161058816 (relied)" },
        { "relied on in a dry run too", "MemorySwapMax=161058816", "MemorySwapMax=161058816", NULL, NULL, NULL, DRY,
          "sync MemorySwapMax=161058816 (relied)" },
        { "after a daemon-reload without the group: back to systemd's value", NULL, "MemorySwapMax=1073741824", NULL,
          "MemorySwapMax=161058816", NULL, 0, "sync MemorySwapMax=1073741824 (no longer relied)" },
        { "systemd not reloaded yet: still the group's value", NULL, "MemorySwapMax=161058816", NULL,
          "MemorySwapMax=161058816", NULL, 0, "" },
        { "no value reported: left as it is", NULL, NULL, NULL, "MemorySwapMax=161058816", NULL, 0, "" },
        { "relied on and still planned", "MemorySwapMax=161058816", "MemorySwapMax=161058816", NULL,
          "MemorySwapMax=161058816", NULL, 0, "sync MemorySwapMax=161058816 (relied)" },

        /* A group the unit no longer has, still in the generator's drop-in. */
        { "stale generated value: the administrator's restored", NULL, "MemorySwapMax=161058816", NULL, NULL,
          "MemorySwapMax=F:1G,G:157284K", GENERATED,
          "read admin: MemorySwapMax | restore MemorySwapMax=1073741824 (was 161058816)" },
        { "stale generated value, dry run: would restore", NULL, "MemorySwapMax=161058816", NULL, NULL,
          "MemorySwapMax=F:1G,G:157284K", GENERATED | DRY,
          "read admin: MemorySwapMax | would restore MemorySwapMax=1073741824 (was 161058816)" },
        { "not the generator's value: nothing", NULL, "MemorySwapMax=1073741824", NULL, NULL, "MemorySwapMax=F:1G",
          GENERATED, "read admin: MemorySwapMax" },
        { "the administrator's value cannot be told: nothing", NULL, "MemorySwapMax=161058816", NULL, NULL,
          "MemorySwapMax=F:10%,G:157284K", GENERATED, "read admin: MemorySwapMax" },
        { "files unreadable: nothing", NULL, "MemorySwapMax=161058816", NULL, NULL, NULL, GENERATED,
          "read admin: MemorySwapMax" },
        { "without a generated drop-in: not looked at", NULL, "MemorySwapMax=161058816", NULL, NULL,
          "MemorySwapMax=F:1G,G:157284K", 0, "" },
        { "a kept record goes first", NULL, "MemorySwapMax=161058816", "MemorySwapMax:infinity:161058816", NULL,
          "MemorySwapMax=F:1G,G:157284K", GENERATED, "record MemorySwapMax: restore (infinity)" },
        { "a dropped record no longer hides it", NULL, "MemorySwapMax=161058816", "MemorySwapMax:infinity:5000", NULL,
          "MemorySwapMax=F:1G,G:157284K", GENERATED,
          "read admin: MemorySwapMax | record MemorySwapMax: changed by someone else (infinity) | "
          "restore MemorySwapMax=1073741824 (was 161058816)" },
        { "all four, each in its turn", "MemoryZSwapMax=4096", "MemorySwapMax=161058816 MemoryZSwapMax=infinity "
          "AllowedMemoryNodes=1", "AllowedMemoryNodes:0-1:2", "MemoryZSwapWriteback=no",
          "MemoryZSwapMax=G:4K MemorySwapMax=F:1G,G:157284K", GENERATED,
          "read admin: MemoryZSwapMax,MemorySwapMax,AllowedMemoryNodes | set MemoryZSwapMax=4096 (previous infinity) | "
          "record AllowedMemoryNodes: changed by someone else (0-1) | "
          "restore MemorySwapMax=1073741824 (was 161058816)" },
};

static GHashTable *parse_values(const char *spec) {
        GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        g_auto(GStrv) words = g_strsplit(spec ? spec : "", " ", -1);

        for (char **w = words; *w; w++) {
                if (!**w)
                        continue;
                g_auto(GStrv) kv = g_strsplit(*w, "=", 2);
                g_assert_nonnull(kv[1]);
                g_hash_table_replace(h, g_strdup(kv[0]), g_strdup(kv[1]));
        }
        return h;
}

static CgroupPlan *parse_plan(const char *spec) {
        CgroupPlan *p = cgroup_plan_new();
        g_auto(GStrv) words = g_strsplit(spec ? spec : "", " ", -1);

        for (char **w = words; *w; w++) {
                if (!**w)
                        continue;
                bool file = **w == '@';
                g_auto(GStrv) kv = g_strsplit(*w + file, "=", 2);
                cgroup_plan_add(p, file ? BACKEND_CGROUP_FILE : BACKEND_SYSTEMD_PROPERTY, -1, kv[0], g_strdup(kv[1]),
                                NULL);
        }
        return p;
}

static void record_free(PropertyRecord *r) {
        g_free(r->property);
        g_free(r->previous);
        g_free(r->written);
        g_free(r);
}

static GPtrArray *parse_records(const char *spec) {
        GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify) record_free);
        g_auto(GStrv) words = g_strsplit(spec ? spec : "", " ", -1);

        for (char **w = words; *w; w++) {
                if (!**w)
                        continue;
                g_auto(GStrv) f = g_strsplit(*w, ":", 3);
                g_assert_cmpuint(g_strv_length(f), ==, 3);
                PropertyRecord *r = g_new0(PropertyRecord, 1);
                r->property = g_strdup(f[0]);
                r->previous = g_strdup(f[1]);
                r->written = g_strdup(f[2]);
                g_ptr_array_add(a, r);
        }
        return a;
}

static void assignment_free(UnitPropertyAssignment *a) {
        g_free(a->file);
        g_free(a->value);
        g_free(a);
}

static GHashTable *parse_admin(const char *spec) {
        GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
        g_auto(GStrv) words = g_strsplit(spec ? spec : "", " ", -1);

        for (char **w = words; *w; w++) {
                if (!**w)
                        continue;
                g_auto(GStrv) kv = g_strsplit(*w, "=", 2);
                g_auto(GStrv) items = g_strsplit(kv[1], ",", -1);
                GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify) assignment_free);
                for (char **i = items; *i; i++) {
                        if (!**i)
                                continue;
                        g_assert_true((**i == 'F' || **i == 'G') && (*i)[1] == ':');
                        UnitPropertyAssignment *u = g_new0(UnitPropertyAssignment, 1);
                        u->file = g_strdup(**i == 'F' ? FRAGMENT : GEN);
                        u->value = g_strdup(*i + 2);
                        g_ptr_array_add(a, u);
                }
                g_hash_table_replace(h, g_strdup(kv[0]), a);
        }
        return h;
}

static void render(GString *out, const UnitPlan *p) {
#define SEP() (out->len > 0 ? " | " : "")
        switch (p->read) {
        case UNIT_PLAN_READ_VALUES:
        case UNIT_PLAN_READ_ADMIN: {
                g_autofree char *names = g_strjoinv(",", p->read_names);
                g_string_append_printf(out, "%sread %s: %s", SEP(),
                                       p->read == UNIT_PLAN_READ_ADMIN ? "admin" : "values", names);
                break;
        }
        case UNIT_PLAN_READ_UNIT:
                g_string_append_printf(out, "%sread unit", SEP());
                break;
        default:
                break;
        }
        for (guint i = 0; i < p->syncs->len; i++) {
                const UnitPlanSync *x = g_ptr_array_index(p->syncs, i);
                g_string_append_printf(out, "%ssync %s=%s (%s)", SEP(), x->property, x->value,
                                       x->relied ? "relied" : "no longer relied");
        }
        for (guint i = 0; i < p->sets->len; i++) {
                const UnitPlanSet *x = g_ptr_array_index(p->sets, i);
                if (x->would)
                        g_string_append_printf(out, "%swould set %s=%s (is %s)", SEP(), x->property, x->value,
                                               x->current ? x->current : "");
                else
                        g_string_append_printf(out, "%sset %s=%s (previous %s%s)", SEP(), x->property, x->value,
                                               x->previous, x->previous_from_generated ? ", the generator's" : "");
        }
        for (guint i = 0; i < p->records->len; i++) {
                const UnitPlanRecordStep *x = g_ptr_array_index(p->records, i);
                g_string_append_printf(out, "%srecord %s: %s (%s)", SEP(), x->property,
                                       unit_plan_record_verdict_to_string(x->verdict), x->previous);
        }
        for (guint i = 0; i < p->stale_restores->len; i++) {
                const UnitPlanStaleRestore *x = g_ptr_array_index(p->stale_restores, i);
                g_string_append_printf(out, "%s%srestore %s=%s (was %s)", SEP(), x->would ? "would " : "", x->property,
                                       x->admin, x->current);
        }
#undef SEP
}

static void test_rows(void) {
        for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
                const Row *row = &rows[i];
                g_autoptr(CgroupPlan) plan = parse_plan(row->plan);
                g_autoptr(GHashTable) current = parse_values(row->current);
                g_autoptr(GPtrArray) records = parse_records(row->records);
                g_autoptr(GHashTable) relied = parse_values(row->relied);
                g_autoptr(GHashTable) admin = parse_admin(row->admin);
                g_autoptr(UnitPlan) p = NULL;
                g_autoptr(GString) got = g_string_new(NULL);
                UnitPlanInput in = {
                        .plan = plan,
                        .properties = current,
                        .records = records,
                        .relied = relied,
                        .flags = row->flags,
                };

                g_assert_cmpint(unit_plan_build(&in, &p), ==, 0);
                render(got, p);
                if (p->read == UNIT_PLAN_READ_ADMIN) {
                        /* The executor reads them, and asks again. */
                        g_assert_cmpuint(p->syncs->len + p->sets->len, ==, 0);
                        g_assert_cmpuint(p->records->len + p->stale_restores->len, ==, 0);
                        g_clear_pointer(&p, unit_plan_free);
                        in.admin = admin;
                        g_assert_cmpint(unit_plan_build(&in, &p), ==, 0);
                        g_assert_cmpint(p->read, ==, UNIT_PLAN_READ_NOTHING);
                        render(got, p);
                }
                if (!g_str_equal(got->str, row->want))
                        g_error("%s:\n  want: %s\n  got:  %s", row->name, row->want, got->str);
                /* Pure: the inputs are as they were. */
                g_assert_cmpuint(g_hash_table_size(relied), ==, row->relied ? 1 : 0);
        }
}

/* Explain shows what the unit plan does beyond the cgroup plan's rows. */
static void test_explain_rows(void) {
        g_autoptr(CgroupPlan) plan = parse_plan("MemorySwapMax=1073741824");
        g_autoptr(GHashTable) current = parse_values("MemorySwapMax=1073741824 MemoryZSwapMax=4096");
        g_autoptr(GPtrArray) records = parse_records("MemoryZSwapMax:infinity:4096");
        g_autoptr(UnitPlan) p = NULL;
        UnitPlanInput in = { .plan = plan, .properties = current, .records = records };
        g_autoptr(GPtrArray) shown = g_ptr_array_new();
        ExplainRow swap = { .name = (char *) "SwapMax (MemorySwapMax)", .backend = BACKEND_SYSTEMD_PROPERTY,
                            .note = g_strdup("a reason") };

        g_assert_cmpint(unit_plan_build(&in, &p), ==, 0);
        g_ptr_array_add(shown, &swap);
        explain_add_unit_plan(shown, p);
        /* Relied on: systemd has the value, policyd keeps the file in line. */
        g_assert_nonnull(strstr(swap.note, "a reason; systemd has this value already"));
        /* The record's undo: a row of its own. */
        g_assert_cmpuint(shown->len, ==, 2);
        ExplainRow *restore = g_ptr_array_index(shown, 1);
        g_assert_cmpstr(restore->name, ==, "MemoryZSwapMax");
        g_assert_cmpstr(restore->requested, ==, "infinity");
        g_assert_cmpstr(restore->effective, ==, "4096");
        g_assert_nonnull(strstr(restore->note, "restores the value from before"));
        explain_add_unit_plan(shown, NULL); /* no unit: nothing */
        g_assert_cmpuint(shown->len, ==, 2);

        /* Stale: one row that says what is read first. */
        g_clear_pointer(&p, unit_plan_free);
        in.flags = UNIT_PLAN_PROPERTIES_STALE;
        g_assert_cmpint(unit_plan_build(&in, &p), ==, 0);
        g_assert_cmpint(p->read, ==, UNIT_PLAN_READ_VALUES);
        explain_add_unit_plan(shown, p);
        g_assert_cmpuint(shown->len, ==, 3);
        ExplainRow *stale = g_ptr_array_index(shown, 2);
        g_assert_cmpstr(stale->name, ==, "unit properties");
        g_assert_nonnull(strstr(stale->note, "reads MemorySwapMax, MemoryZSwapMax from systemd again"));

        /* The administrator's values not read (Explain reads no file): it says so. */
        g_autoptr(CgroupPlan) set = parse_plan("MemorySwapMax=2147483648");
        g_clear_pointer(&p, unit_plan_free);
        in = (UnitPlanInput) { .plan = set, .properties = current };
        g_assert_cmpint(unit_plan_build(&in, &p), ==, 0);
        g_assert_cmpint(p->read, ==, UNIT_PLAN_READ_ADMIN);
        explain_add_unit_plan(shown, p);
        g_assert_cmpuint(shown->len, ==, 4);
        ExplainRow *unread = g_ptr_array_index(shown, 3);
        g_assert_nonnull(strstr(unread->note, "reads MemorySwapMax from the unit's files at its next pass"));
        g_free(swap.note);
        for (guint i = 1; i < shown->len; i++) {
                ExplainRow *row = g_ptr_array_index(shown, i);
                g_free(row->name);
                g_free(row->requested);
                g_free(row->effective);
                g_free(row->where);
                g_free(row->note);
                g_free(row);
        }
}

static void test_sets_property(void) {
        g_autoptr(CgroupPlan) plan = parse_plan("MemorySwapMax=1 @memory.high=2");

        cgroup_plan_add(plan, BACKEND_SYSTEMD_PROPERTY, -1, "MemoryZSwapMax", NULL, NULL);
        g_assert_true(unit_plan_sets_property(plan, "MemorySwapMax"));
        g_assert_false(unit_plan_sets_property(plan, "memory.high"));
        g_assert_false(unit_plan_sets_property(plan, "MemoryZSwapMax")); /* no value: not set */
        g_assert_false(unit_plan_sets_property(plan, "AllowedMemoryNodes"));
}

static GPtrArray *memberships(const char *list) {
        if (!list)
                return NULL;
        GPtrArray *a = g_ptr_array_new();
        g_auto(GStrv) names = g_strsplit(list, ",", -1);
        for (char **n = names; *n; n++) {
                if (!**n)
                        continue;
                Membership *m = g_new0(Membership, 1);
                m->group = g_strdup(*n);
                g_ptr_array_add(a, m);
        }
        return a;
}

static void memberships_free(GPtrArray *a) {
        for (guint i = 0; a && i < a->len; i++) {
                Membership *m = g_ptr_array_index(a, i);
                g_free(m->group);
                g_free(m);
        }
        if (a)
                g_ptr_array_unref(a);
}

/* Which resolutions change the groups, and which of those are focus moves
 * (logged at debug level: they follow every click). */
static void test_classify(void) {
        static const struct {
                const char *name;
                const char *before; /* NULL: never resolved */
                const char *after;
                UnitPlanChange want;
        } table[] = {
                { "the first resolution: a join, not a move", NULL, "fg", UNIT_PLAN_GROUPS_CHANGED },
                { "the first resolution, no groups", NULL, "", 0 },
                { "the same groups", "fg", "fg", 0 },
                { "between focus groups", "fg", "bg", UNIT_PLAN_GROUPS_CHANGED | UNIT_PLAN_FOCUS_MOVE },
                { "between focus groups, another group kept", "fg,plain", "bg,plain",
                  UNIT_PLAN_GROUPS_CHANGED | UNIT_PLAN_FOCUS_MOVE },
                { "out of a focus group", "fg", "", UNIT_PLAN_GROUPS_CHANGED | UNIT_PLAN_FOCUS_MOVE },
                { "into a focus group from none", "", "bg", UNIT_PLAN_GROUPS_CHANGED | UNIT_PLAN_FOCUS_MOVE },
                { "a focus group to a plain one", "fg", "plain", UNIT_PLAN_GROUPS_CHANGED },
                { "a plain group joins", "fg", "fg,plain", UNIT_PLAN_GROUPS_CHANGED },
                { "a group not in the set", "fg", "gone", UNIT_PLAN_GROUPS_CHANGED },
        };
        g_autoptr(PolicySet) set = policy_set_new();
        PolicyGroup *g;

        g = policy_group_new("fg");
        g->match_focused = 1;
        policy_set_add(set, g);
        g = policy_group_new("bg");
        g->match_focused = 0;
        policy_set_add(set, g);
        policy_set_add(set, policy_group_new("plain"));

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                GPtrArray *before = memberships(table[i].before);
                Resolution r = { .memberships = memberships(table[i].after) };
                UnitPlanChange got = unit_plan_classify(before, &r, set);
                if (got != table[i].want)
                        g_error("%s: want %d, got %d", table[i].name, table[i].want, got);
                memberships_free(before);
                memberships_free(r.memberships);
        }
}

static void test_invalid(void) {
        UnitPlan *p = NULL;
        UnitPlanInput in = {};

        g_assert_cmpint(unit_plan_build(&in, &p), ==, -EINVAL);
        g_assert_null(p);
}

int main(int argc, char *argv[]) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/unit-plan/rows", test_rows);
        g_test_add_func("/unit-plan/sets-property", test_sets_property);
        g_test_add_func("/unit-plan/explain-rows", test_explain_rows);
        g_test_add_func("/unit-plan/classify", test_classify);
        g_test_add_func("/unit-plan/invalid", test_invalid);
        return g_test_run();
}
