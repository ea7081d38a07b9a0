/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plans against fake system facts, and the applier against a fake cgroupfs:
 * a temporary directory with regular knob files, and user xattrs on the
 * filesystem TMPDIR is on. Resolutions are built by hand, so that these
 * tests do not depend on what the resolver decides. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cgroup-apply.h"
#include "cgroupfs.h"
#include "util.h"
#include "diagnostics.h"
#include "write-failure.h"

#define UNIT "/system.slice/foo.service"

/* ---- hand-built resolutions ---- */

static Resolution *res_new(void) {
        Resolution *r = g_new0(Resolution, 1);
        r->memberships = g_ptr_array_new();
        r->attributes = g_ptr_array_new();
        r->notes = g_ptr_array_new();
        return r;
}

/* Frees what res_*() built; resolution_free() belongs to resolve.c. */
static void res_free(Resolution *r) {
        for (guint i = 0; i < r->memberships->len; i++) {
                Membership *m = g_ptr_array_index(r->memberships, i);
                g_free(m->group);
                g_free(m);
        }
        for (int k = 0; k < _KNOB_MAX; k++) {
                knob_value_clear(&r->knobs[k].value);
                g_free(r->knobs[k].group);
                provenance_clear(&r->knobs[k].source);
        }
        for (guint i = 0; i < r->attributes->len; i++) {
                ResolvedAttribute *a = g_ptr_array_index(r->attributes, i);
                g_free(a->name);
                g_free(a->value);
                g_free(a->group);
                provenance_clear(&a->source);
                g_free(a);
        }
        g_ptr_array_unref(r->memberships);
        g_ptr_array_unref(r->attributes);
        g_ptr_array_unref(r->notes);
        g_free(r);
}
/* resolve.h already defines g_autoptr(TestResolution) with resolution_free(). */
typedef Resolution TestResolution;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TestResolution, res_free)

static void res_add_group(Resolution *r, const char *group) {
        Membership *m = g_new0(Membership, 1);
        m->group = g_strdup(group);
        m->source = MEMBERSHIP_RUNTIME;
        g_ptr_array_add(r->memberships, m);
}

static ResolvedKnob *res_knob(Resolution *r, Knob k) {
        r->knobs[k].set = true;
        g_free(r->knobs[k].group);
        r->knobs[k].group = g_strdup("test");
        return &r->knobs[k];
}

static void res_set_bytes(Resolution *r, Knob k, uint64_t bytes) {
        res_knob(r, k)->value.limit = (MemoryLimit) { .kind = MEMORY_LIMIT_BYTES, .bytes = bytes };
}

static void res_set_percent(Resolution *r, Knob k, unsigned permyriad) {
        res_knob(r, k)->value.limit = (MemoryLimit) { .kind = MEMORY_LIMIT_PERCENT, .permyriad = permyriad };
}

static void res_set_infinity(Resolution *r, Knob k) {
        res_knob(r, k)->value.limit = (MemoryLimit) { .kind = MEMORY_LIMIT_INFINITY };
}

static void res_set_bool(Resolution *r, Knob k, bool b) {
        res_knob(r, k)->value.boolean = b;
}

/* Space-separated, as SwapTiers= is written; "" for an empty list. */
static void res_set_tiers(Resolution *r, const char *tiers) {
        ResolvedKnob *k = res_knob(r, KNOB_SWAP_TIERS);
        g_strfreev(k->value.tiers);
        k->value.tiers = isempty(tiers) ? g_new0(char *, 1) : g_strsplit(tiers, " ", -1);
}

static void res_add_attr(Resolution *r, const char *name, const char *value) {
        ResolvedAttribute *a = g_new0(ResolvedAttribute, 1);
        a->name = g_strdup(name);
        a->value = g_strdup(value);
        a->group = g_strdup("test");
        g_ptr_array_add(r->attributes, a);
}

/* ---- fake facts ---- */

static SystemFacts *facts_new(bool swap_tiers, const char *tiers, uint64_t swap_total) {
        SystemFacts *f = g_new0(SystemFacts, 1);
        f->swap_tiers = swap_tiers;
        f->tier_names = isempty(tiers) ? g_new0(char *, 1) : g_strsplit(tiers, " ", -1);
        f->swap_total = swap_total;
        f->zswap_writeback = true;
        return f;
}

static CgroupPlan *build(const Resolution *r, const SystemFacts *f, PlanFlags flags) {
        CgroupPlan *p = NULL;
        g_assert_cmpint(cgroup_plan_build(r, f, flags, &p), ==, 0);
        g_assert_nonnull(p);
        return p;
}

static char *plan_dump(const CgroupPlan *p) {
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < p->items->len; i++) {
                const PlanItem *it = g_ptr_array_index(p->items, i);
                g_autofree char *v = it->value ? g_strescape(it->value, NULL) : g_strdup("(null)");
                g_string_append_printf(s, "  %s %s = %s  [%s]\n", backend_to_string(it->backend), it->target, v,
                                       strempty(it->reason));
        }
        return g_string_free(s, FALSE);
}

static guint plan_count(const CgroupPlan *p, const char *target) {
        guint n = 0;
        for (guint i = 0; i < p->items->len; i++)
                n += streq(((const PlanItem *) g_ptr_array_index(p->items, i))->target, target);
        return n;
}

/* The one item with this target and backend; fails with the whole plan. */
static const PlanItem *plan_get(const CgroupPlan *p, Backend b, const char *target) {
        const PlanItem *found = NULL;
        for (guint i = 0; i < p->items->len; i++) {
                const PlanItem *it = g_ptr_array_index(p->items, i);
                if (it->backend == b && streq(it->target, target)) {
                        if (found) {
                                g_autofree char *dump = plan_dump(p);
                                g_error("two %s items for %s in the plan:\n%s", backend_to_string(b), target, dump);
                        }
                        found = it;
                }
        }
        if (!found) {
                g_autofree char *dump = plan_dump(p);
                g_error("no %s item for %s in the plan:\n%s", backend_to_string(b), target, dump);
        }
        return found;
}

static void assert_plan_lacks(const CgroupPlan *p, const char *target) {
        if (plan_count(p, target) > 0) {
                g_autofree char *dump = plan_dump(p);
                g_error("the plan should have no item for %s:\n%s", target, dump);
        }
}

/* ---- fake cgroupfs ---- */

typedef struct Tree {
        char *root;    /* the temporary directory */
        char *cgroupfs; /* root/cgroup */
        char *unit;    /* root/cgroup/system.slice/foo.service */
        bool xattrs;   /* user.* xattrs work here */
} Tree;

static int remove_tree(const char *path) {
        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
        const char *e;
        while (d && (e = g_dir_read_name(d))) {
                g_autofree char *p = g_build_filename(path, e, NULL);
                if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
                        remove_tree(p);
                else
                        g_unlink(p);
        }
        return g_rmdir(path);
}

static void put(const char *dir, const char *name, const char *content) {
        g_autoptr(GError) error = NULL;
        g_autofree char *p = g_build_filename(dir, name, NULL);
        g_autofree char *parent = g_path_get_dirname(p);
        g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
        g_assert_true(g_file_set_contents(p, content, -1, &error));
        g_assert_no_error(error);
}

static char *get(const char *dir, const char *name) {
        g_autofree char *p = g_build_filename(dir, name, NULL);
        char *s = NULL;
        if (!g_file_get_contents(p, &s, NULL, NULL))
                g_error("cannot read %s", p);
        return s;
}

static void tree_setup(Tree *t, gconstpointer data) {
        g_autoptr(GError) error = NULL;

        t->root = g_dir_make_tmp("cgroup-apply-XXXXXX", &error);
        g_assert_no_error(error);
        t->cgroupfs = g_build_filename(t->root, "cgroup", NULL);
        t->unit = g_build_filename(t->cgroupfs, UNIT, NULL);
        g_assert_cmpint(g_mkdir_with_parents(t->unit, 0755), ==, 0);
        put(t->unit, "memory.swap.max", "max\n");
        put(t->unit, "memory.swap.high", "max\n");
        put(t->unit, "memory.zswap.max", "max\n");
        put(t->unit, "memory.zswap.writeback", "1\n");

        t->xattrs = setxattr(t->unit, "user.test-probe", "x", 1, 0) == 0;
        if (t->xattrs)
                g_assert_cmpint(removexattr(t->unit, "user.test-probe"), ==, 0);
}

static void tree_teardown(Tree *t, gconstpointer data) {
        remove_tree(t->root);
        g_free(t->root);
        g_free(t->cgroupfs);
        g_free(t->unit);
}

/* Visible skip, never a silent pass. */
static bool need_xattrs(Tree *t) {
        if (t->xattrs)
                return true;
        g_test_skip("user.* xattrs are not supported on the filesystem of TMPDIR");
        return false;
}

static char *xattr_get(const char *path, const char *name) {
        char buf[65536];
        ssize_t n = getxattr(path, name, buf, sizeof(buf) - 1);
        if (n < 0) {
                g_assert_cmpint(errno, ==, ENODATA);
                return NULL;
        }
        buf[n] = '\0';
        return g_strdup(buf);
}

static void xattr_put(const char *path, const char *name, const char *value) {
        g_assert_cmpint(setxattr(path, name, value, strlen(value), 0), ==, 0);
}

/* Sets the file's mtime far into the past: any write moves it to now. */
static void age(const char *dir, const char *name) {
        g_autofree char *p = g_build_filename(dir, name, NULL);
        struct timespec ts[2] = { { .tv_sec = 946684800 }, { .tv_sec = 946684800 } };
        g_assert_cmpint(utimensat(AT_FDCWD, p, ts, 0), ==, 0);
}

static bool was_written(const char *dir, const char *name) {
        g_autofree char *p = g_build_filename(dir, name, NULL);
        struct stat st;
        g_assert_cmpint(stat(p, &st), ==, 0);
        return st.st_mtim.tv_sec != 946684800;
}

static char *report_dump(const ApplyReport *r) {
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < r->actions->len; i++) {
                const Action *a = g_ptr_array_index(r->actions, i);
                g_autofree char *o = a->old_value ? g_strescape(a->old_value, NULL) : g_strdup("(null)");
                g_autofree char *n = a->new_value ? g_strescape(a->new_value, NULL) : g_strdup("(null)");
                g_string_append_printf(s, "  %s %s %s: %s -> %s (%d)\n", action_result_to_string(a->result),
                                       backend_to_string(a->backend), a->target, o, n, a->error);
        }
        return g_string_free(s, FALSE);
}

/* The one action on this target; fails with the whole report. */
static const Action *report_get(const ApplyReport *r, const char *target) {
        const Action *found = NULL;
        for (guint i = 0; i < r->actions->len; i++) {
                const Action *a = g_ptr_array_index(r->actions, i);
                if (streq(a->target, target)) {
                        if (found) {
                                g_autofree char *dump = report_dump(r);
                                g_error("two actions on %s:\n%s", target, dump);
                        }
                        found = a;
                }
        }
        if (!found) {
                g_autofree char *dump = report_dump(r);
                g_error("no action on %s:\n%s", target, dump);
        }
        return found;
}

static void assert_action(const ApplyReport *r, const char *target, ActionResult expected) {
        const Action *a = report_get(r, target);
        if (a->result != expected) {
                g_autofree char *dump = report_dump(r);
                g_error("%s: expected %s, got %s:\n%s", target, action_result_to_string(expected),
                        action_result_to_string(a->result), dump);
        }
}

static const AppliedItem *record_get(const CgroupRecord *rec, const char *target) {
        for (guint i = 0; i < rec->items->len; i++) {
                const AppliedItem *it = g_ptr_array_index(rec->items, i);
                if (streq(it->target, target))
                        return it;
        }
        return NULL;
}

static const AppliedItem *record_must_get(const CgroupRecord *rec, const char *target) {
        const AppliedItem *it = record_get(rec, target);
        if (!it) {
                g_autofree char *text = cgroup_record_serialize(rec);
                g_error("%s is not in the record:\n%s", target, text);
        }
        return it;
}

static void assert_recorded(const CgroupRecord *rec, const char *target, bool recorded) {
        if ((record_get(rec, target) != NULL) != recorded) {
                g_autofree char *text = cgroup_record_serialize(rec);
                g_error("%s should %sbe in the record:\n%s", target, recorded ? "" : "not ", text);
        }
}

/* Applies and checks the return value, with the report on failure. */
static void apply(Tree *t, const CgroupPlan *p, CgroupRecord *rec, ApplyFlags flags, ApplyReport *report,
                  int expected) {
        int r = cgroup_apply_plan(t->cgroupfs, UNIT, p, rec, flags, report);
        if (r != expected) {
                g_autofree char *dump = report_dump(report);
                g_error("cgroup_apply_plan returned %d (%s), expected %d:\n%s", r, g_strerror(-r), expected, dump);
        }
}

/* ---- paths ---- */

static void test_path_validate(void) {
        const char *good[] = { "/", "/system.slice", UNIT, "/user.slice/user-1000.slice/app-x.scope", "/a..b" };
        const char *bad[] = { "", "system.slice", "/..", "/a/../b", "/a/..", "/.", "/a/./b", "//", "/a//b", "/a/",
                              "/a\nb" };

        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                if (cgroup_path_validate(good[i]) != 0)
                        g_error("'%s' should be accepted", good[i]);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (cgroup_path_validate(bad[i]) != -EINVAL)
                        g_error("'%s' should be rejected", bad[i]);
        g_assert_cmpint(cgroup_path_validate(NULL), ==, -EINVAL);
}

static void test_apply_rejects_dotdot(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new("/system.slice/../system.slice/foo.service");
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *content = NULL;

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpint(cgroup_apply_plan(t->cgroupfs, "/system.slice/../system.slice/foo.service", p, rec, 0,
                                          report),
                        ==, -EINVAL);
        g_assert_cmpuint(report->actions->len, ==, 0);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
}

static void test_apply_does_not_follow_symlinks(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new("/system.slice/evil");
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *outside = g_build_filename(t->root, "outside", NULL);
        g_autofree char *link = g_build_filename(t->cgroupfs, "system.slice/evil", NULL);
        g_autofree char *content = NULL;

        put(outside, "memory.swap.max", "max\n");
        g_assert_cmpint(symlink(outside, link), ==, 0);
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);

        int ret = cgroup_apply_plan(t->cgroupfs, "/system.slice/evil", p, rec, 0, report);
        g_assert_cmpint(ret, <, 0);
        content = get(outside, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
        g_assert_cmpuint(rec->items->len, ==, 0);
}

static void test_exists_walks_without_symlinks(Tree *t, gconstpointer data) {
        g_autofree char *outside = g_build_filename(t->root, "outside", NULL);
        g_autofree char *link = g_build_filename(t->cgroupfs, "system.slice/evil", NULL);

        g_assert_cmpint(g_mkdir_with_parents(outside, 0755), ==, 0);
        g_assert_cmpint(symlink(outside, link), ==, 0);
        g_assert_cmpint(cgroup_exists(t->cgroupfs, UNIT), ==, 1);
        g_assert_cmpint(cgroup_exists(t->cgroupfs, "/system.slice/gone.service"), ==, 0);
        g_assert_cmpint(cgroup_exists(t->cgroupfs, "/system.slice/evil"), <, 0);
        g_assert_cmpint(cgroup_exists(t->cgroupfs, "/system.slice/../system.slice"), ==, -EINVAL);
}

/* ---- plans ---- */

static void test_plan_group_tag_and_attributes(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autofree char *tag = NULL;

        res_add_group(r, "background");
        res_add_group(r, "batch");
        res_add_attr(r, "user.slo.class", "latency");
        res_add_attr(r, "user.bare", "");
        g_autoptr(CgroupPlan) p = build(r, f, 0);

        tag = resolution_group_tag(r);
        g_assert_cmpstr(plan_get(p, BACKEND_XATTR, POLICY_GROUP_XATTR)->value, ==, tag);
        g_assert_cmpstr(plan_get(p, BACKEND_XATTR, "user.slo.class")->value, ==, "latency");
        g_assert_cmpstr(plan_get(p, BACKEND_XATTR, "user.bare")->value, ==, "");
        g_assert_cmpuint(p->items->len, ==, 3);
}

static void test_plan_no_membership_removes_tag(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupPlan) p = build(r, f, 0);

        g_assert_null(plan_get(p, BACKEND_XATTR, POLICY_GROUP_XATTR)->value);
        g_assert_cmpuint(p->items->len, ==, 1);
}

static void test_plan_limits_in_kernel_format(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, UINT64_C(1) << 30);

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_percent(r, KNOB_SWAP_HIGH, 5000);
        res_set_infinity(r, KNOB_ZSWAP_MAX);
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, false);
        g_autoptr(CgroupPlan) p = build(r, f, 0);

        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.max")->value, ==, "67108864");
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.high")->value, ==, "536870912");
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.max")->value, ==, "max");
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.writeback")->value, ==, "0");
}

/* The kernel keeps pages and reads back a page multiple: so do we. */
static void test_plan_percent_rounds_down_to_a_page(void) {
        g_autoptr(TestResolution) r = res_new();
        uint64_t total = UINT64_C(3) * 1000 * 1000 * 1000 + 12345;
        g_autoptr(SystemFacts) f = facts_new(false, NULL, total);
        uint64_t exact = total / 10000 * 1234 + total % 10000 * 1234 / 10000;
        guint64 got;

        res_set_percent(r, KNOB_SWAP_MAX, 1234);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_true(g_ascii_string_to_unsigned(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.max")->value, 10, 0,
                                                 G_MAXUINT64, &got, NULL));
        g_assert_cmpuint(got, <=, exact);
        g_assert_cmpuint(exact - got, <, (guint64) sysconf(_SC_PAGESIZE));
        g_assert_cmpuint(got % (guint64) sysconf(_SC_PAGESIZE), ==, 0);
}

/* MemorySwapMax= gets the number policyd-generator writes in its drop-in:
 * a page multiple, not the exact share. Otherwise policyd overrides the
 * drop-in at runtime (issue 7, class 8). */
static void test_plan_systemd_percent_is_the_generators(void) {
        g_autoptr(TestResolution) r = res_new();
        uint64_t total = UINT64_C(1572856) * 1024; /* 10% is 161060454.4 bytes */
        g_autoptr(SystemFacts) f = facts_new(false, NULL, total);
        g_autofree char *expected = NULL;
        MemoryLimit l = { .kind = MEMORY_LIMIT_PERCENT, .permyriad = 1000 };

        res_set_percent(r, KNOB_SWAP_MAX, 1000);
        res_set_percent(r, KNOB_ZSWAP_MAX, 1000);
        g_autoptr(CgroupPlan) p = build(r, f, PLAN_SYSTEMD_MANAGED);
        g_assert_cmpint(format_memory_limit_for_systemd(&l, total, page_size(), &expected), ==, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax")->value, ==, expected);
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemoryZSwapMax")->value, ==, expected);
        if (page_size() == 4096)
                g_assert_cmpstr(expected, ==, "161058816");
}

/* A share of no swap is no number: SwapMax=50% with no swap active was
 * written as 0 (MemorySwapMax=0), which forbade swap once swap came on
 * (issue 24). The knob is left alone, and the plan says why. */
static void test_plan_percent_without_swap_leaves_the_knob(void) {
        static const char reason[] =
                "a share of swap, and no swap was active (/proc/swaps) when policyd last looked: left alone";

        for (int systemd = 0; systemd <= 1; systemd++) {
                g_autoptr(TestResolution) r = res_new();
                g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

                res_set_percent(r, KNOB_SWAP_MAX, 5000);
                res_set_percent(r, KNOB_SWAP_HIGH, 2500);
                res_set_percent(r, KNOB_ZSWAP_MAX, 1000);
                g_autoptr(CgroupPlan) p = build(r, f, systemd ? PLAN_SYSTEMD_MANAGED : 0);
                const char *swap_max = systemd ? "MemorySwapMax" : "memory.swap.max";
                const char *zswap_max = systemd ? "MemoryZSwapMax" : "memory.zswap.max";

                g_assert_cmpuint(p->items->len, ==, 4); /* the tag and the three */
                g_assert_cmpstr(plan_get(p, BACKEND_NOT_ENFORCEABLE, swap_max)->value, ==, "50%");
                g_assert_cmpstr(plan_get(p, BACKEND_NOT_ENFORCEABLE, swap_max)->reason, ==, reason);
                g_assert_cmpstr(plan_get(p, BACKEND_NOT_ENFORCEABLE, "memory.swap.high")->value, ==, "25%");
                g_assert_cmpstr(plan_get(p, BACKEND_NOT_ENFORCEABLE, zswap_max)->value, ==, "10%");
        }
}

/* 0% is 0 of any total, swap or none. */
static void test_plan_zero_percent_without_swap_is_zero(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        res_set_percent(r, KNOB_SWAP_MAX, 0);
        g_autoptr(CgroupPlan) p = build(r, f, PLAN_SYSTEMD_MANAGED);
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax")->value, ==, "0");
}

static void test_plan_systemd_managed_backends(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, UINT64_C(1) << 30);
        NumaNodeMask nodes = {};

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_bytes(r, KNOB_SWAP_HIGH, 32 << 20);
        res_set_infinity(r, KNOB_ZSWAP_MAX);
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, false);
        res_set_bool(r, KNOB_KSM, true);
        res_knob(r, KNOB_NUMA_POLICY)->value.numa_policy = NUMA_POLICY_BIND;
        numa_node_mask_set(&nodes, 0);
        numa_node_mask_set(&nodes, 1);
        res_knob(r, KNOB_NUMA_NODES)->value.numa_nodes = nodes;
        g_autoptr(CgroupPlan) p = build(r, f, PLAN_SYSTEMD_MANAGED);

        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax")->value, ==, "67108864");
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemoryZSwapMax")->value, ==, "infinity");
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemoryZSwapWriteback")->value, ==, "no");
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "AllowedMemoryNodes")->value, ==, "0-1");
        /* systemd has no property for it. */
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.high")->value, ==, "33554432");
        g_assert_cmpstr(plan_get(p, BACKEND_EXEC_TIME, "MemoryKSM")->value, ==, "yes");
        g_assert_cmpstr(plan_get(p, BACKEND_EXEC_TIME, "NUMAPolicy")->value, ==, "bind");
        g_assert_nonnull(strstr(plan_get(p, BACKEND_EXEC_TIME, "NUMAPolicy")->reason, "ApplyToRunning=yes"));
        assert_plan_lacks(p, "memory.swap.max");
        assert_plan_lacks(p, "cpuset.mems");
}

static void test_plan_delegated_backends(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        NumaNodeMask nodes = {};

        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, true);
        res_set_bool(r, KNOB_KSM, false);
        numa_node_mask_set(&nodes, 0);
        numa_node_mask_set(&nodes, 1);
        numa_node_mask_set(&nodes, 3);
        res_knob(r, KNOB_NUMA_NODES)->value.numa_nodes = nodes;
        g_autoptr(CgroupPlan) p = build(r, f, 0);

        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "cpuset.mems")->value, ==, "0-1,3");
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.writeback")->value, ==, "1");
        g_assert_cmpstr(plan_get(p, BACKEND_EXEC_TIME, "MemoryKSM")->value, ==, "no");
        assert_plan_lacks(p, "AllowedMemoryNodes");
}

/* No cpuset controller: NUMANodes= becomes migrate_pages, and the note
 * says whether anything confines new allocations. */
static void test_plan_numa_nodes_without_cpuset(void) {
        static const struct {
                PlanFlags flags;
                bool bind;
                Backend backend;
                const char *target, *value, *note; /* a part of the reason; NULL: none */
        } table[] = {
                { 0, false, BACKEND_CGROUP_FILE, "cpuset.mems", "1", NULL },
                { PLAN_NO_CPUSET, false, BACKEND_MIGRATE_PAGES, "migrate_pages", "1", "are not confined" },
                { PLAN_NO_CPUSET, true, BACKEND_MIGRATE_PAGES, "migrate_pages", "1", "NUMAPolicy=bind" },
                /* systemd enables the controller for AllowedMemoryNodes=. */
                { PLAN_SYSTEMD_MANAGED | PLAN_NO_CPUSET, false, BACKEND_SYSTEMD_PROPERTY, "AllowedMemoryNodes", "1",
                  NULL },
                { PLAN_SYSTEMD_MANAGED, false, BACKEND_SYSTEMD_PROPERTY, "AllowedMemoryNodes", "1", NULL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                g_autoptr(TestResolution) r = res_new();
                g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
                NumaNodeMask nodes = {};

                numa_node_mask_set(&nodes, 1);
                res_knob(r, KNOB_NUMA_NODES)->value.numa_nodes = nodes;
                if (table[i].bind)
                        res_knob(r, KNOB_NUMA_POLICY)->value.numa_policy = NUMA_POLICY_BIND;
                g_autoptr(CgroupPlan) p = build(r, f, table[i].flags);
                const PlanItem *item = plan_get(p, table[i].backend, table[i].target);
                g_assert_cmpint(item->knob, ==, KNOB_NUMA_NODES);
                g_assert_cmpstr(item->value, ==, table[i].value);
                g_assert_cmpuint(plan_count(p, "cpuset.mems") + plan_count(p, "migrate_pages") +
                                         plan_count(p, "AllowedMemoryNodes"), ==, 1);
                if (table[i].note && (!item->reason || !strstr(item->reason, table[i].note)))
                        g_error("row %zu: reason '%s' does not say '%s'", i, item->reason, table[i].note);
                g_assert_cmpint(cgroup_plan_numa_by_migration(table[i].flags), ==,
                                table[i].backend == BACKEND_MIGRATE_PAGES);
        }
}

static void test_plan_zswap_writeback_needs_the_kernel(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        f->zswap_writeback = false;
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, false);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        plan_get(p, BACKEND_NOT_ENFORCEABLE, "memory.zswap.writeback");
        g_assert_cmpuint(plan_count(p, "memory.zswap.writeback"), ==, 1);
}

/* ---- the root cgroup ---- */

/* The root cgroup has none of the files the plan writes (the kernel's
 * CFTYPE_NOT_ON_ROOT): not even memory.swap.tiers.max (swap tiers v10 3/6).
 * Each knob is not enforceable there, and says why, rather than failing
 * with ENOENT at every pass. */
static void test_plan_root_cgroup_takes_no_knob_file(void) {
        static const struct {
                PlanFlags flags;
                const char *target;
                const char *reason;
        } table[] = {
                { 0, "memory.swap.tiers.max", "the root cgroup takes no swap tiers: it has no memory.swap.tiers.max" },
                { 0, "memory.swap.max", "the root cgroup has no memory.swap.max" },
                { 0, "memory.swap.high", "the root cgroup has no memory.swap.high" },
                { 0, "memory.zswap.max", "the root cgroup has no memory.zswap.max" },
                { 0, "memory.zswap.writeback", "the root cgroup has no memory.zswap.writeback" },
                { 0, "cpuset.mems", "the root cgroup has no cpuset.mems" },
                { PLAN_SYSTEMD_MANAGED, "memory.swap.tiers.max",
                  "the root cgroup takes no swap tiers: it has no memory.swap.tiers.max" },
                { PLAN_SYSTEMD_MANAGED, "MemorySwapMax", "the root cgroup has no memory.swap.max" },
                { PLAN_SYSTEMD_MANAGED, "MemoryZSwapWriteback", "the root cgroup has no memory.zswap.writeback" },
                { PLAN_SYSTEMD_MANAGED, "AllowedMemoryNodes", "the root cgroup has no cpuset.mems" },
        };
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", UINT64_C(1) << 30);

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                g_autoptr(TestResolution) r = res_new();
                NumaNodeMask nodes = {};

                res_add_group(r, "test");
                res_set_tiers(r, "fast");
                res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
                res_set_bytes(r, KNOB_SWAP_HIGH, 32 << 20);
                res_set_bytes(r, KNOB_ZSWAP_MAX, 16 << 20);
                res_set_bool(r, KNOB_ZSWAP_WRITEBACK, false);
                numa_node_mask_set(&nodes, 0);
                res_knob(r, KNOB_NUMA_NODES)->value.numa_nodes = nodes;
                g_autoptr(CgroupPlan) p = build(r, f, table[i].flags | PLAN_ROOT_CGROUP);

                const PlanItem *it = plan_get(p, BACKEND_NOT_ENFORCEABLE, table[i].target);
                if (!it->reason || !g_str_has_prefix(it->reason, table[i].reason))
                        g_error("row %zu: %s: reason '%s', expected '%s…'", i, table[i].target, it->reason,
                                table[i].reason);
                g_assert_cmpuint(plan_count(p, table[i].target), ==, 1);
                /* The group tag is an xattr, which the root cgroup has. */
                plan_get(p, BACKEND_XATTR, POLICY_GROUP_XATTR);
        }
}

/* Applied to "/" of a fake tree without the files: no failure at all. */
static void test_apply_root_cgroup_no_enoent(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(CgroupRecord) rec = cgroup_record_new("/");

        res_set_tiers(r, "fast");
        g_autoptr(CgroupPlan) p = build(r, f, PLAN_ROOT_CGROUP);
        g_assert_cmpint(cgroup_apply_plan(t->cgroupfs, "/", p, rec, 0, report), ==, 0);
        assert_action(report, "memory.swap.tiers.max", ACTION_NOT_ENFORCEABLE);
        g_autoptr(GPtrArray) failures = write_failures_new();
        write_failures_update(failures, report, 1);
        g_assert_cmpuint(failures->len, ==, 0);
}

/* ---- swap tiers, on a kernel with the v10 interface ---- */

static void test_plan_tiers_allowed_and_denied(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);

        res_set_tiers(r, "fast");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==, "fast max\nslow 0");
        assert_plan_lacks(p, POLICY_SWAP_TIERS_XATTR);
}

static void test_plan_tiers_none_denies_every_tier(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);

        res_set_tiers(r, SWAP_TIER_NONE);
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==, "fast 0\nslow 0");
        /* The tiers do it; SwapMax= keeps its own value. */
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.max")->value, ==, "67108864");
}

static void test_plan_tiers_unknown_tier_not_enforceable(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);

        res_set_tiers(r, "slow nvme");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==, "fast 0\nslow max");
        const PlanItem *ne = plan_get(p, BACKEND_NOT_ENFORCEABLE, "memory.swap.tiers.max");
        g_assert_cmpstr(ne->value, ==, "nvme");
        g_assert_nonnull(strstr(ne->reason, "'nvme'"));
}

/* zswap is not a tier: it needs a slot on a tier the cgroup may use, so
 * zswap only is every tier allowed, and no writeback (issue 24, gap 9). */
static void test_plan_tiers_zswap_only_allows_tiers_not_writeback(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);

        res_set_tiers(r, SWAP_TIER_ZSWAP);
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, true);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.writeback")->value, ==, "0");
        g_assert_cmpuint(plan_count(p, "memory.zswap.writeback"), ==, 1);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==, "fast max\nslow max");
        assert_plan_lacks(p, "memory.zswap.max");

        /* Only tiers named as keywords, which no group can allow: said. */
        g_autoptr(SystemFacts) keywords = facts_new(true, "zswap none", 0);
        g_autoptr(CgroupPlan) q = build(r, keywords, 0);
        g_assert_cmpstr(plan_get(q, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==, "zswap 0\nnone 0");
        bool said = false;
        for (guint i = 0; i < q->items->len; i++) {
                const PlanItem *it = g_ptr_array_index(q->items, i);
                said |= it->backend == BACKEND_NOT_ENFORCEABLE && strstr(it->reason, "zswap needs a swap tier");
        }
        g_assert_true(said);
}

/* A list without zswap: no zswap, also over ZSwapMax= (issue 24, gap 8);
 * through systemd where it holds the cgroup. none too. */
static void test_plan_tiers_without_zswap_turn_zswap_off(void) {
        static const char *const lists[] = { "fast", "slow fast", SWAP_TIER_NONE };
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);

        for (size_t i = 0; i < G_N_ELEMENTS(lists); i++) {
                g_autoptr(TestResolution) r = res_new();
                res_set_tiers(r, lists[i]);
                res_set_bytes(r, KNOB_ZSWAP_MAX, 1 << 30);
                g_autoptr(CgroupPlan) p = build(r, f, 0);
                const PlanItem *it = plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.max");
                g_assert_cmpstr(it->value, ==, "0");
                g_assert_nonnull(strstr(it->reason, "does not list zswap"));
                g_assert_cmpuint(plan_count(p, "memory.zswap.max"), ==, 1);
                g_autoptr(CgroupPlan) s = build(r, f, PLAN_SYSTEMD_MANAGED);
                g_assert_cmpstr(plan_get(s, BACKEND_SYSTEMD_PROPERTY, "MemoryZSwapMax")->value, ==, "0");
        }
        /* Listed: ZSwapMax= as the group says. */
        g_autoptr(TestResolution) r = res_new();
        res_set_tiers(r, "fast zswap");
        res_set_bytes(r, KNOB_ZSWAP_MAX, 1 << 30);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.max")->value, ==, "1073741824");
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==, "fast max\nslow 0");
}

/* none and zswap are legal kernel tier names, and SwapTiers= keywords: the
 * keywords win. A kernel tier so named is allowed by no group, so every
 * group with SwapTiers= denies it, and says why. */
static void test_plan_tiers_keyword_names_are_keywords(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast zswap none slow", 0);

        res_set_tiers(r, "zswap slow");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.tiers.max")->value, ==,
                        "fast 0\nzswap 0\nnone 0\nslow max");
        g_assert_cmpuint(plan_count(p, "memory.swap.tiers.max"), ==, 3);
        guint notes = 0;
        for (guint i = 0; i < p->items->len; i++) {
                const PlanItem *it = g_ptr_array_index(p->items, i);
                if (it->backend != BACKEND_NOT_ENFORCEABLE)
                        continue;
                g_assert_true(streq(it->value, "zswap") || streq(it->value, "none"));
                g_assert_nonnull(strstr(it->reason, "a SwapTiers= keyword"));
                notes++;
        }
        g_assert_cmpuint(notes, ==, 2);
}

/* The same clash, said once for the whole system: policyd's reload and
 * policyctl verify add it to their diagnostics. */
static void test_facts_diagnose_keyword_tiers(void) {
        g_autoptr(SystemFacts) f = facts_new(true, "fast zswap none", 0);
        g_autoptr(Diagnostics) d = diagnostics_new();

        g_assert_true(swap_tier_is_keyword("none"));
        g_assert_true(swap_tier_is_keyword("zswap"));
        g_assert_false(swap_tier_is_keyword("None"));
        system_facts_diagnose(f, "/sys/kernel/mm/swap/tiers", d);
        g_assert_cmpuint(d->items->len, ==, 2);
        g_autofree char *line = diagnostic_format(g_ptr_array_index(d->items, 0));
        g_assert_cmpstr(line, ==,
                        "/sys/kernel/mm/swap/tiers: warning: Swap tier 'zswap' has the name of a SwapTiers= keyword: "
                        "no group can allow it, and groups with SwapTiers= deny it; rename the tier to use it");

        g_autoptr(SystemFacts) plain = facts_new(true, "fast slow", 0);
        g_autoptr(Diagnostics) none = diagnostics_new();
        system_facts_diagnose(plain, "/sys/kernel/mm/swap/tiers", none);
        g_assert_cmpuint(none->items->len, ==, 0);
}

/* ---- swap tiers, on a kernel without them (DESIGN §6 fallbacks) ---- */

static void test_plan_no_tiers_none_is_swap_max_zero(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        res_set_tiers(r, SWAP_TIER_NONE);
        res_set_bytes(r, KNOB_SWAP_MAX, 1 << 30);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        const PlanItem *it = plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.max");
        g_assert_cmpstr(it->value, ==, "0");
        g_assert_cmpstr(it->reason, ==, "SwapTiers=none on a kernel without swap tiers");
        g_assert_cmpuint(plan_count(p, "memory.swap.max"), ==, 1);
        assert_plan_lacks(p, "memory.swap.tiers.max");
        assert_plan_lacks(p, POLICY_SWAP_TIERS_XATTR);
}

static void test_plan_no_tiers_none_through_systemd(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        res_set_tiers(r, SWAP_TIER_NONE);
        res_set_infinity(r, KNOB_SWAP_MAX);
        g_autoptr(CgroupPlan) p = build(r, f, PLAN_SYSTEMD_MANAGED);
        g_assert_cmpstr(plan_get(p, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax")->value, ==, "0");
        g_assert_cmpuint(plan_count(p, "MemorySwapMax"), ==, 1);
}

static void test_plan_no_tiers_empty_list_is_none(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        res_set_tiers(r, "");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_CGROUP_FILE, "memory.swap.max")->value, ==, "0");
}

static void test_plan_no_tiers_zswap_is_writeback_off(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        res_set_tiers(r, SWAP_TIER_ZSWAP);
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, true);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        const PlanItem *it = plan_get(p, BACKEND_CGROUP_FILE, "memory.zswap.writeback");
        g_assert_cmpstr(it->value, ==, "0");
        g_assert_cmpstr(it->reason, ==, "SwapTiers=zswap on a kernel without swap tiers");
        g_assert_cmpuint(plan_count(p, "memory.zswap.writeback"), ==, 1);
        assert_plan_lacks(p, "memory.swap.max");
}

static void test_plan_no_tiers_named_tiers_are_tagged(void) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);

        res_set_tiers(r, "fast slow");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpstr(plan_get(p, BACKEND_XATTR, POLICY_SWAP_TIERS_XATTR)->value, ==, "fast,slow");
        g_assert_cmpstr(plan_get(p, BACKEND_NOT_ENFORCEABLE, "memory.swap.tiers.max")->reason, ==,
                        "swap tiers not supported by this kernel (no /sys/kernel/mm/swap/tiers)");
        assert_plan_lacks(p, "memory.swap.max");
}

/* ---- probing a fake sysfs and procfs ---- */

static void test_probe_fake_tree(Tree *t, gconstpointer data) {
        g_autofree char *sys = g_build_filename(t->root, "sys", NULL);
        g_autofree char *proc = g_build_filename(t->root, "proc", NULL);
        g_autoptr(SystemFacts) f = NULL;

        /* The read format (v10, blanks collapsed) of /sys/kernel/mm/swap/tiers. */
        put(sys, "kernel/mm/swap/tiers", "Name Idx PrioStart PrioEnd\nfast 0 10 32767\nslow 1 -1 9\n");
        put(proc, "swaps",
            "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
            "/dev/zram0                              partition\t1048572\t\t0\t\t100\n"
            "/var/swap\\040file                       file\t\t2097148\t\t512\t\t-2\n");
        put(sys, "module/zswap/parameters/enabled", "Y\n");
        put(proc, "sys/kernel/osrelease", "6.12.38+deb13-amd64\n");

        g_assert_cmpint(system_facts_probe(sys, proc, &f), ==, 0);
        g_assert_true(f->swap_tiers);
        g_assert_cmpuint(g_strv_length(f->tier_names), ==, 2);
        g_assert_cmpstr(f->tier_names[0], ==, "fast");
        g_assert_cmpstr(f->tier_names[1], ==, "slow");
        g_assert_cmpuint(f->swap_total, ==, (UINT64_C(1048572) + UINT64_C(2097148)) * 1024);
        g_assert_true(f->zswap_writeback);
}

/* What swap-watch.c compares: a probe after a swapoff, a tier redefined
 * (same names, other priorities) or a tier added differs; the same tree
 * probed again does not. */
static void test_probe_facts_equal(Tree *t, gconstpointer data) {
        g_autofree char *sys = g_build_filename(t->root, "sys", NULL);
        g_autofree char *proc = g_build_filename(t->root, "proc", NULL);
        const char *header = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        g_autofree char *both = g_strconcat(header, "/dev/zram0 partition 1048572 0 100\n",
                                            "/dev/vdb partition 2097148 0 10\n", NULL);
        g_autofree char *zram = g_strconcat(header, "/dev/zram0 partition 1048572 0 100\n", NULL);
        g_autoptr(SystemFacts) a = NULL, b = NULL, c = NULL, d = NULL, e = NULL;

        put(sys, "kernel/mm/swap/tiers", "Name Idx PrioStart PrioEnd\nfast 0 100 32767\nslow 1 -1 99\n");
        put(proc, "swaps", both);
        g_assert_cmpint(system_facts_probe(sys, proc, &a), ==, 0);
        g_assert_cmpint(system_facts_probe(sys, proc, &b), ==, 0);
        g_assert_true(system_facts_equal(a, b));
        g_assert_true(system_facts_equal(NULL, NULL));
        g_assert_false(system_facts_equal(a, NULL));

        put(proc, "swaps", zram); /* swapoff /dev/vdb */
        g_assert_cmpint(system_facts_probe(sys, proc, &c), ==, 0);
        g_assert_false(system_facts_equal(a, c));

        put(proc, "swaps", both);
        put(sys, "kernel/mm/swap/tiers", "Name Idx PrioStart PrioEnd\nfast 0 50 32767\nslow 1 -1 49\n");
        g_assert_cmpint(system_facts_probe(sys, proc, &d), ==, 0);
        g_assert_cmpstr(d->tier_names[0], ==, "fast");
        g_assert_false(system_facts_equal(a, d)); /* redefined: the same names */

        put(sys, "kernel/mm/swap/tiers",
            "Name Idx PrioStart PrioEnd\nfast 0 100 32767\nmid 2 50 99\nslow 1 -1 49\n");
        g_assert_cmpint(system_facts_probe(sys, proc, &e), ==, 0);
        g_assert_false(system_facts_equal(a, e));
}

static void test_probe_plain_kernel(Tree *t, gconstpointer data) {
        g_autofree char *sys = g_build_filename(t->root, "sys", NULL);
        g_autofree char *proc = g_build_filename(t->root, "proc", NULL);
        g_autoptr(SystemFacts) f = NULL;

        put(proc, "swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        put(sys, "module/zswap/parameters/enabled", "Y\n");
        put(proc, "sys/kernel/osrelease", "6.1.0-30-amd64\n");

        g_assert_cmpint(system_facts_probe(sys, proc, &f), ==, 0);
        g_assert_false(f->swap_tiers);
        g_assert_nonnull(f->tier_names);
        g_assert_null(f->tier_names[0]);
        g_assert_cmpuint(f->swap_total, ==, 0);
        g_assert_false(f->zswap_writeback); /* 6.8+ only */
}

static void test_probe_tolerates_odd_tier_lines(Tree *t, gconstpointer data) {
        g_autofree char *sys = g_build_filename(t->root, "sys", NULL);
        g_autofree char *proc = g_build_filename(t->root, "proc", NULL);
        g_autoptr(SystemFacts) f = NULL;

        put(sys, "kernel/mm/swap/tiers", "\n  fast   0 10 32767\n+slow:-1\nbad/name 2 0 0\nfast 3 0 0\n");
        g_assert_cmpint(system_facts_probe(sys, proc, &f), ==, 0);
        g_assert_true(f->swap_tiers);
        g_assert_cmpuint(g_strv_length(f->tier_names), ==, 2);
        g_assert_cmpstr(f->tier_names[0], ==, "fast");
        g_assert_cmpstr(f->tier_names[1], ==, "slow");
        g_assert_false(f->zswap_writeback);
}

/* The header is the first line, exactly as v10's swap_tiers_sysfs_show()
 * prints it ("%-16s %-5s %-11s %-11s"); tiers named name and Name are tiers. */
static void test_probe_keeps_tiers_named_name(Tree *t, gconstpointer data) {
        g_autofree char *sys = g_build_filename(t->root, "sys", NULL);
        g_autofree char *proc = g_build_filename(t->root, "proc", NULL);
        g_autoptr(SystemFacts) f = NULL;

        put(sys, "kernel/mm/swap/tiers",
            "Name             Idx   PrioStart   PrioEnd    \n"
            "Name             2     200         32767      \n"
            "name             0     100         199        \n"
            "NAME             1     -1          99         \n");
        g_assert_cmpint(system_facts_probe(sys, proc, &f), ==, 0);
        g_assert_true(f->swap_tiers);
        g_assert_cmpuint(g_strv_length(f->tier_names), ==, 3);
        g_assert_cmpstr(f->tier_names[0], ==, "Name");
        g_assert_cmpstr(f->tier_names[1], ==, "name");
        g_assert_cmpstr(f->tier_names[2], ==, "NAME");
}

/* ---- applying ---- */

static void test_systemd_property_kernel_files(void) {
        static const struct {
                const char *property, *value;
                int r;
                const char *file, *kernel;
        } table[] = {
                { "MemorySwapMax", "1073741824", 0, "memory.swap.max", "1073741824" },
                { "MemorySwapMax", "infinity", 0, "memory.swap.max", "max" },
                { "MemoryZSwapMax", "0", 0, "memory.zswap.max", "0" },
                { "MemoryZSwapWriteback", "no", 0, "memory.zswap.writeback", "0" },
                { "MemoryZSwapWriteback", "yes", 0, "memory.zswap.writeback", "1" },
                { "MemorySwapMax", "1G", -EINVAL, NULL, NULL },
                { "MemorySwapMax", "", -EINVAL, NULL, NULL },
                { "MemoryZSwapWriteback", "maybe", -EINVAL, NULL, NULL },
                { "AllowedMemoryNodes", "0-1", -EOPNOTSUPP, NULL, NULL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                const char *file = NULL;
                g_autofree char *kernel = NULL;
                int r = systemd_property_kernel_file(table[i].property, table[i].value, &file, &kernel);
                if (r != table[i].r || g_strcmp0(file, table[i].file) != 0 || g_strcmp0(kernel, table[i].kernel) != 0)
                        g_error("%s=%s: expected %d %s=%s, got %d %s=%s", table[i].property, table[i].value, table[i].r,
                                table[i].file, table[i].kernel, r, file, kernel);
        }
}

/* After a daemon-reload, systemd's value reaches the kernel only if
 * policyd writes it: compared first, nothing recorded. */
static void test_sync_knob_file_writes_only_a_difference(Tree *t, gconstpointer data) {
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *content = NULL;

        put(t->unit, "memory.swap.max", "161058816\n");
        g_assert_cmpint(cgroup_sync_knob_file(t->cgroupfs, UNIT, "memory.swap.max", "1073741824", 0, report), ==, 0);
        assert_action(report, "memory.swap.max", ACTION_WROTE);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "1073741824\n");

        g_clear_pointer(&report, apply_report_free);
        report = apply_report_new();
        g_assert_cmpint(cgroup_sync_knob_file(t->cgroupfs, UNIT, "memory.swap.max", "1073741824", 0, report), ==, 0);
        assert_action(report, "memory.swap.max", ACTION_UNCHANGED);

        g_clear_pointer(&report, apply_report_free);
        report = apply_report_new();
        g_assert_cmpint(cgroup_sync_knob_file(t->cgroupfs, UNIT, "memory.swap.max", "max", APPLY_DRY_RUN, report), ==, 0);
        assert_action(report, "memory.swap.max", ACTION_WOULD_WRITE);
        g_clear_pointer(&content, g_free);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "1073741824\n");

        g_assert_cmpint(cgroup_sync_knob_file(t->cgroupfs, "/system.slice/gone.service", "memory.swap.max", "max", 0,
                                              report),
                        ==, -ENOENT);
}

/* The hook sees each write in the record before the kernel does. */
typedef struct HookLog {
        const char *unit_dir;
        unsigned calls;
        bool record_ahead_of_kernel; /* every call: recorded, not yet written */
        int fail_with;
} HookLog;

static int hook_before_write(const CgroupRecord *record, void *userdata) {
        HookLog *h = userdata;
        g_autofree char *content = get(h->unit_dir, "memory.swap.max");
        bool recorded = false;

        for (guint i = 0; i < record->items->len; i++) {
                const AppliedItem *it = g_ptr_array_index(record->items, i);
                recorded = recorded || (streq(it->target, "memory.swap.max") && streq(it->written, "67108864") &&
                                        streq(it->previous, "max"));
        }
        h->calls++;
        h->record_ahead_of_kernel = (h->calls == 1 || h->record_ahead_of_kernel) && recorded &&
                                    streq(content, "max\n");
        return h->fail_with;
}

static void test_apply_records_ahead_of_writes(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        HookLog h = { .unit_dir = t->unit };
        const ApplyHooks hooks = { hook_before_write, &h };

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) files = build(r, f, 0); /* SwapMax as memory.swap.max */
        g_assert_cmpint(cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, files, rec, 0, &hooks, report), >=, -ENOSPC);
        g_assert_cmpuint(h.calls, >=, 1);
        g_assert_true(h.record_ahead_of_kernel);
        g_autofree char *content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "67108864\n");
}

static void test_apply_hook_failure_writes_nothing(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        HookLog h = { .unit_dir = t->unit, .fail_with = -EROFS };
        const ApplyHooks hooks = { hook_before_write, &h };

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        (void) cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, p, rec, 0, &hooks, report);
        g_autofree char *content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
        g_assert_null(record_get(rec, "memory.swap.max"));
        g_assert_cmpint(report_get(report, "memory.swap.max")->result, ==, ACTION_FAILED);
}

/* A knob whose write fails (a directory where its file should be) keeps
 * the failure, with errno, value and time, until a later write succeeds;
 * the knob written beside it has none. */
static void test_write_failure_kept_until_a_write_succeeds(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(GPtrArray) failures = write_failures_new();
        g_autofree char *high = g_build_filename(t->unit, "memory.swap.high", NULL);

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_bytes(r, KNOB_SWAP_HIGH, 32 << 20);
        g_autoptr(CgroupPlan) files = build(r, f, 0);
        g_assert_cmpint(g_unlink(high), ==, 0);
        g_assert_cmpint(g_mkdir(high, 0755), ==, 0);
        (void) cgroup_apply_plan(t->cgroupfs, UNIT, files, rec, 0, report);
        write_failures_update(failures, report, 1000);

        g_assert_cmpuint(failures->len, ==, 1);
        const WriteFailure *w = write_failures_find(failures, BACKEND_CGROUP_FILE, "memory.swap.high");
        g_assert_nonnull(w);
        /* No regular file: the read before the write refuses it. */
        g_assert_cmpint(w->error, ==, EINVAL);
        g_assert_cmpstr(w->message, ==, g_strerror(EINVAL));
        g_assert_cmpstr(w->value, ==, "33554432");
        g_assert_cmpuint(w->realtime_usec, ==, 1000);
        g_assert_null(write_failures_find(failures, BACKEND_CGROUP_FILE, "memory.swap.max"));

        /* The same failure again: one entry, with the newer time. */
        g_autoptr(ApplyReport) again = apply_report_new();
        (void) cgroup_apply_plan(t->cgroupfs, UNIT, files, rec, 0, again);
        write_failures_update(failures, again, 2000);
        g_assert_cmpuint(failures->len, ==, 1);
        g_assert_cmpuint(((const WriteFailure *) g_ptr_array_index(failures, 0))->realtime_usec, ==, 2000);

        /* The file is back: the write succeeds, and the failure goes. */
        g_assert_cmpint(g_rmdir(high), ==, 0);
        put(t->unit, "memory.swap.high", "max\n");
        g_autoptr(ApplyReport) fixed = apply_report_new();
        g_assert_cmpint(cgroup_apply_plan(t->cgroupfs, UNIT, files, rec, 0, fixed), ==, 0);
        assert_action(fixed, "memory.swap.high", ACTION_WROTE);
        write_failures_update(failures, fixed, 3000);
        g_assert_cmpuint(failures->len, ==, 0);
}

/* A write not made because its record could not be kept is no failure of
 * the knob: the report marks it, and write_failures_update() passes it. */
static void test_write_failure_not_for_an_unrecorded_write(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(GPtrArray) failures = write_failures_new();
        HookLog h = { .unit_dir = t->unit, .fail_with = -EIO };
        const ApplyHooks hooks = { hook_before_write, &h };

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        (void) cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, p, rec, 0, &hooks, report);
        const Action *a = report_get(report, "memory.swap.max");
        g_assert_cmpint(a->result, ==, ACTION_FAILED);
        g_assert_true(a->unrecorded);
        write_failures_update(failures, report, 1000);
        g_assert_cmpuint(failures->len, ==, 0);
}

static bool keep_none(Backend backend, const char *target, void *userdata) {
        return false;
}

static void test_write_failures_set_clear_prune(void) {
        g_autoptr(GPtrArray) failures = write_failures_new();

        write_failures_set(failures, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax", "1073741824", -EINVAL,
                           "Cannot set property MemorySwapMax", 5);
        write_failures_set(failures, BACKEND_XATTR, "user.x", NULL, ENOSPC, NULL, 6);
        g_assert_cmpuint(failures->len, ==, 2);
        const WriteFailure *w = write_failures_find(failures, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax");
        g_assert_cmpint(w->error, ==, EINVAL);
        g_assert_cmpstr(w->message, ==, "Cannot set property MemorySwapMax");
        w = write_failures_find(failures, BACKEND_XATTR, "user.x");
        g_assert_null(w->value);
        g_assert_cmpstr(w->message, ==, g_strerror(ENOSPC));
        /* Another backend's target of the same name is another knob. */
        g_assert_null(write_failures_find(failures, BACKEND_CGROUP_FILE, "user.x"));

        write_failures_prune(failures, BACKEND_XATTR, keep_none, NULL);
        g_assert_cmpuint(failures->len, ==, 1);
        write_failures_clear(failures, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax");
        g_assert_cmpuint(failures->len, ==, 0);
        write_failures_clear(failures, BACKEND_SYSTEMD_PROPERTY, "MemorySwapMax");
}

/* Two writes on one cgroup: one save of the record ahead of both, holding
 * both, while the kernel has neither yet. */
typedef struct HookBoth {
        const char *unit_dir;
        unsigned calls;
        bool both_ahead;
} HookBoth;

static int hook_before_both(const CgroupRecord *record, void *userdata) {
        HookBoth *h = userdata;
        g_autofree char *max = get(h->unit_dir, "memory.swap.max");
        g_autofree char *high = get(h->unit_dir, "memory.swap.high");
        unsigned recorded = 0;

        for (guint i = 0; i < record->items->len; i++) {
                const AppliedItem *it = g_ptr_array_index(record->items, i);
                recorded += (streq(it->target, "memory.swap.max") && streq(it->written, "67108864")) ||
                            (streq(it->target, "memory.swap.high") && streq(it->written, "33554432"));
        }
        h->calls++;
        h->both_ahead = recorded == 2 && streq(max, "max\n") && streq(high, "max\n");
        return 0;
}

static void test_apply_records_all_writes_in_one_save(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        HookBoth h = { .unit_dir = t->unit };
        const ApplyHooks hooks = { hook_before_both, &h };

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_bytes(r, KNOB_SWAP_HIGH, 32 << 20);
        g_autoptr(CgroupPlan) files = build(r, f, 0);
        g_assert_cmpint(cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, files, rec, 0, &hooks, report), ==, 0);
        g_assert_cmpuint(h.calls, ==, 1);
        g_assert_true(h.both_ahead);
        assert_action(report, "memory.swap.max", ACTION_WROTE);
        assert_action(report, "memory.swap.high", ACTION_WROTE);

        /* Nothing to write: no save. */
        g_autoptr(ApplyReport) again = apply_report_new();
        g_assert_cmpint(cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, files, rec, 0, &hooks, again), ==, 0);
        g_assert_cmpuint(h.calls, ==, 1);
}

/* One item of a record, as cgroup_apply_plan() would have made it. */
static void add_item(CgroupRecord *rec, Backend b, const char *target, bool had, const char *prev,
                     const char *written) {
        AppliedItem *it = g_new0(AppliedItem, 1);
        it->backend = b;
        it->target = g_strdup(target);
        it->had_previous = had;
        it->previous = g_strdup(prev);
        it->written = g_strdup(written);
        g_ptr_array_add(rec->items, it);
}

/* A knob file in the record, which the plan changes from what policyd
 * wrote: written without a read, whatever it holds; the value to restore
 * stays the one from before policyd's first write. */
static void test_apply_recorded_file_written_without_read(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();

        add_item(rec, BACKEND_CGROUP_FILE, "memory.swap.max", true, "max", "33554432");
        put(t->unit, "memory.swap.max", "67108864\n"); /* already the new value */

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) files = build(r, f, 0);
        g_assert_cmpint(cgroup_apply_plan(t->cgroupfs, UNIT, files, rec, 0, report), ==, 0);
        const Action *a = report_get(report, "memory.swap.max");
        g_assert_cmpint(a->result, ==, ACTION_WROTE);
        g_assert_cmpstr(a->old_value, ==, "33554432");
        g_autofree char *content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "67108864\n");
        const AppliedItem *kept = record_must_get(rec, "memory.swap.max");
        g_assert_cmpstr(kept->previous, ==, "max");
        g_assert_cmpstr(kept->written, ==, "67108864");
}

/* A handle on a tree of plain files keeps none open: each write opens its
 * file, so that a shorter value replaces a longer one whole. */
static void test_handle_keeps_no_plain_files(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        int fd;

        put(t->unit, "memory.swap.max", "max\n");
        g_assert_cmpint(cgroup_open_dir(t->cgroupfs, UNIT, &fd), ==, 0);
        g_autoptr(CgroupHandle) h = cgroup_handle_new(fd);
        g_assert_false(h->keep_files);
        const uint64_t values[] = { 1ULL << 30, 64 << 20 };
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                g_autoptr(ApplyReport) report = apply_report_new();
                res_set_bytes(r, KNOB_SWAP_MAX, values[i]);
                g_autoptr(CgroupPlan) p = build(r, f, 0);
                g_assert_cmpint(cgroup_apply_plan_at(h, t->cgroupfs, UNIT, p, rec, 0, NULL, report), ==, 0);
                g_autofree char *want = g_strdup_printf("%" PRIu64 "\n", values[i]);
                g_autofree char *content = get(t->unit, "memory.swap.max");
                g_assert_cmpstr(content, ==, want);
                g_assert_cmpint(h->files[0].fd, ==, -1);
        }
}

static void test_plan_item_free(void *p) {
        PlanItem *item = p;
        g_free(item->target);
        g_free(item->value);
        g_free(item);
}

/* One knob file to write, whatever the planner would say of it. */
static CgroupPlan *plan_of_file(const char *file, const char *value) {
        CgroupPlan *p = g_new0(CgroupPlan, 1);
        PlanItem *item = g_new0(PlanItem, 1);

        p->items = g_ptr_array_new_with_free_func(test_plan_item_free);
        item->backend = BACKEND_CGROUP_FILE;
        item->knob = -1;
        item->target = g_strdup(file);
        item->value = g_strdup(value);
        g_ptr_array_add(p->items, item);
        return p;
}

/* On cgroupfs a handle keeps a knob file open, and the next write goes
 * through it: one write(), which the kernel takes whole. A cgroup removed
 * and made again under the name is not written through the old file: the
 * apply says it vanished, and the new cgroup keeps its value. */
static void test_handle_keeps_cgroup_files(void) {
        g_autofree char *root = NULL;
        g_autofree char *cg = g_strdup_printf("/pg-test-handle-%d", (int) getpid());
        int fd;

        if (cgroupfs_find_mount(&root) < 0) {
                g_test_skip("no cgroup2 mount");
                return;
        }
        g_autofree char *path = g_build_filename(root, cg, NULL);
        if (mkdir(path, 0755) < 0) {
                g_autofree char *why = g_strdup_printf("cannot make a cgroup in %s: %s", root, g_strerror(errno));
                g_test_skip(why);
                return;
        }
        g_autoptr(CgroupRecord) rec = cgroup_record_new(cg);
        g_assert_cmpint(cgroup_open_dir(root, cg, &fd), ==, 0);
        CgroupHandle *h = cgroup_handle_new(fd);
        g_assert_true(h->keep_files);

        int kept = -1;
        const char *values[] = { "5", "3" };
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                g_autoptr(ApplyReport) report = apply_report_new();
                g_autoptr(CgroupPlan) p = plan_of_file("cgroup.max.depth", values[i]);
                g_assert_cmpint(cgroup_apply_plan_at(h, root, cg, p, rec, 0, NULL, report), ==, 0);
                g_autofree char *content = get(path, "cgroup.max.depth");
                g_autofree char *want = g_strconcat(values[i], "\n", NULL);
                g_assert_cmpstr(content, ==, want);
                g_assert_cmpint(h->files[0].fd, >=, 0);
                if (kept < 0)
                        kept = h->files[0].fd;
                g_assert_cmpint(h->files[0].fd, ==, kept);
        }

        g_assert_cmpint(rmdir(path), ==, 0);
        g_assert_cmpint(mkdir(path, 0755), ==, 0);
        {
                g_autoptr(ApplyReport) report = apply_report_new();
                g_autoptr(CgroupPlan) p = plan_of_file("cgroup.max.depth", "4");
                g_assert_cmpint(cgroup_apply_plan_at(h, root, cg, p, rec, 0, NULL, report), ==, -ENOENT);
                g_autofree char *content = get(path, "cgroup.max.depth");
                g_assert_cmpstr(content, ==, "max\n");
        }
        cgroup_handle_free(h);
        g_assert_cmpint(rmdir(path), ==, 0);
}

/* A crash after the record and before the write: undo finds the previous
 * value still there, writes nothing and calls nobody foreign. */
static void test_undo_of_a_write_that_never_happened(Tree *t, gconstpointer data) {
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();

        add_item(rec, BACKEND_CGROUP_FILE, "memory.swap.max", true, "max", "67108864");

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, report), ==, 0);
        g_assert_cmpuint(rec->items->len, ==, 0);
        g_assert_cmpint(report_get(report, "memory.swap.max")->result, ==, ACTION_UNCHANGED);
        g_autofree char *content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
}

static void test_apply_writes_and_records(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *content = NULL;

        if (!need_xattrs(t))
                return;
        res_add_group(r, "batch");
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);

        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "67108864\n");
        const Action *a = report_get(report, "memory.swap.max");
        g_assert_cmpint(a->result, ==, ACTION_WROTE);
        g_assert_cmpstr(a->old_value, ==, "max");
        g_assert_cmpstr(a->new_value, ==, "67108864");

        const AppliedItem *it = record_must_get(rec, "memory.swap.max");
        g_assert_true(it->had_previous);
        g_assert_cmpstr(it->previous, ==, "max");
        g_assert_cmpstr(it->written, ==, "67108864");

        g_autofree char *tag = xattr_get(t->unit, POLICY_GROUP_XATTR);
        g_autofree char *want = resolution_group_tag(r);
        g_assert_cmpstr(tag, ==, want);
        it = record_must_get(rec, POLICY_GROUP_XATTR);
        g_assert_false(it->had_previous);
}

static void test_apply_equal_value_is_not_written(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();

        res_set_infinity(r, KNOB_SWAP_HIGH);
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, true);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        age(t->unit, "memory.swap.high");
        age(t->unit, "memory.zswap.writeback");
        apply(t, p, rec, 0, report, 0);

        assert_action(report, "memory.swap.high", ACTION_UNCHANGED);
        assert_action(report, "memory.zswap.writeback", ACTION_UNCHANGED);
        g_assert_false(was_written(t->unit, "memory.swap.high"));
        g_assert_false(was_written(t->unit, "memory.zswap.writeback"));
        /* Not ours: undo must never touch it. */
        assert_recorded(rec, "memory.swap.high", false);
        assert_recorded(rec, "memory.zswap.writeback", false);
}

static void test_apply_twice_changes_nothing(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) first = apply_report_new();
        g_autoptr(ApplyReport) second = apply_report_new();

        if (!need_xattrs(t))
                return;
        res_add_group(r, "batch");
        res_add_attr(r, "user.slo.class", "batch");
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, first, 0);
        g_autofree char *before = cgroup_record_serialize(rec);
        age(t->unit, "memory.swap.max");
        apply(t, p, rec, 0, second, 0);
        g_autofree char *after = cgroup_record_serialize(rec);

        for (guint i = 0; i < second->actions->len; i++) {
                const Action *a = g_ptr_array_index(second->actions, i);
                if (a->result != ACTION_UNCHANGED) {
                        g_autofree char *dump = report_dump(second);
                        g_error("second apply changed something:\n%s", dump);
                }
        }
        g_assert_false(was_written(t->unit, "memory.swap.max"));
        /* The value from before the first write is kept. */
        g_assert_cmpstr(after, ==, before);
}

/* Someone changed our value; we write ours again. The value from before
 * our first write is still what undo puts back. */
static void test_apply_rewrite_keeps_first_previous(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) first = apply_report_new();
        g_autoptr(ApplyReport) second = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();
        g_autofree char *content = NULL;

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, first, 0);
        put(t->unit, "memory.swap.max", "1048576\n");
        apply(t, p, rec, 0, second, 0);
        assert_action(second, "memory.swap.max", ACTION_WROTE);
        g_assert_cmpuint(rec->items->len, ==, 1);
        g_assert_cmpstr(record_must_get(rec, "memory.swap.max")->previous, ==, "max");

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
}

static void test_undo_restores_previous(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();
        g_autofree char *content = NULL;

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_bool(r, KNOB_ZSWAP_WRITEBACK, false);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);

        assert_action(undo, "memory.swap.max", ACTION_RESTORED);
        assert_action(undo, "memory.zswap.writeback", ACTION_RESTORED);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
        g_free(content);
        content = get(t->unit, "memory.zswap.writeback");
        g_assert_cmpstr(content, ==, "1\n");
        g_assert_cmpuint(rec->items->len, ==, 0);
}

static void test_undo_leaves_foreign_value(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();
        g_autofree char *content = NULL;

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        put(t->unit, "memory.swap.max", "1048576\n"); /* an administrator */
        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);

        assert_action(undo, "memory.swap.max", ACTION_LEFT_FOREIGN);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "1048576\n");
        g_assert_cmpuint(rec->items->len, ==, 0);
}

static void test_undo_removes_xattr_absent_before(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();

        if (!need_xattrs(t))
                return;
        res_add_group(r, "batch");
        res_add_attr(r, "user.slo.class", "batch");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        g_autofree char *set = xattr_get(t->unit, "user.slo.class");
        g_assert_cmpstr(set, ==, "batch");

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);
        assert_action(undo, "user.slo.class", ACTION_REMOVED);
        assert_action(undo, POLICY_GROUP_XATTR, ACTION_REMOVED);
        g_assert_null(xattr_get(t->unit, "user.slo.class"));
        g_assert_null(xattr_get(t->unit, POLICY_GROUP_XATTR));
}

static void test_undo_restores_xattr_present_before(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();

        if (!need_xattrs(t))
                return;
        xattr_put(t->unit, "user.slo.class", "best effort\nwith = and \\ in it");
        res_add_attr(r, "user.slo.class", "latency");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        g_autofree char *set = xattr_get(t->unit, "user.slo.class");
        g_assert_cmpstr(set, ==, "latency");

        /* Through the text form, as policyd would after a restart. */
        g_autofree char *text = cgroup_record_serialize(rec);
        g_autoptr(CgroupRecord) back = NULL;
        g_assert_cmpint(cgroup_record_parse(text, &back), ==, 0);
        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, back, 0, undo), ==, 0);
        assert_action(undo, "user.slo.class", ACTION_RESTORED);
        g_autofree char *restored = xattr_get(t->unit, "user.slo.class");
        g_assert_cmpstr(restored, ==, "best effort\nwith = and \\ in it");
}

/* A user's value over CGROUP_RECORD_PREVIOUS_MAX is recorded as a digest,
 * which survives the text form (a short line, not the value), tells a
 * write that never happened, and is not restored: undo removes policyd's
 * value. One at the cap is kept whole. */
static void test_undo_long_xattr_kept_as_digest(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();
        g_autofree char *big = g_strnfill(CGROUP_RECORD_PREVIOUS_MAX + 1, 'a');
        g_autofree char *fits = g_strnfill(CGROUP_RECORD_PREVIOUS_MAX, 'b');

        if (!need_xattrs(t))
                return;
        /* ext4 keeps all of a file's xattrs in one block: not there. */
        if (setxattr(t->unit, "user.big", big, strlen(big), 0) < 0 ||
            setxattr(t->unit, "user.fits", fits, strlen(fits), 0) < 0) {
                g_test_skip("this filesystem does not take two xattr values of 4 KiB");
                return;
        }
        res_add_attr(r, "user.big", "fg");
        res_add_attr(r, "user.fits", "fg");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);

        g_autofree char *text = cgroup_record_serialize(rec);
        g_assert_cmpuint(strlen(text), <, CGROUP_RECORD_PREVIOUS_MAX + 200);
        g_autoptr(CgroupRecord) back = NULL;
        g_assert_cmpint(cgroup_record_parse(text, &back), ==, 0);
        const AppliedItem *it = cgroup_record_find(back, BACKEND_XATTR, "user.big", NULL);
        g_assert_nonnull(it);
        g_assert_true(it->previous_is_digest);
        g_assert_true(applied_item_previous_is(it, true, big));
        g_assert_false(applied_item_previous_is(it, true, fits));
        g_assert_null(cgroup_record_xattr_input(back, "user.big", "fg"));
        g_assert_false(cgroup_record_find(back, BACKEND_XATTR, "user.fits", NULL)->previous_is_digest);

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, back, 0, undo), ==, 0);
        assert_action(undo, "user.big", ACTION_REMOVED);
        assert_action(undo, "user.fits", ACTION_RESTORED);
        g_assert_null(xattr_get(t->unit, "user.big"));
        g_autofree char *restored = xattr_get(t->unit, "user.fits");
        g_assert_cmpstr(restored, ==, fits);

        /* A digest only of an xattr, and only a well-formed one. */
        g_autoptr(CgroupRecord) bad = NULL;
        g_assert_cmpint(cgroup_record_parse("cgroup\t/a\nfile\tmemory.high\td\tsha256:00\t1\n", &bad), ==,
                        -EBADMSG);
        g_assert_cmpint(cgroup_record_parse("cgroup\t/a\nxattr\tuser.x\td\tlong value\t1\n", &bad), ==,
                        -EBADMSG);
}

static void test_undo_leaves_foreign_xattr(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();

        if (!need_xattrs(t))
                return;
        res_add_attr(r, "user.slo.class", "latency");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        xattr_put(t->unit, "user.slo.class", "someone-else");

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);
        assert_action(undo, "user.slo.class", ACTION_LEFT_FOREIGN);
        g_autofree char *v = xattr_get(t->unit, "user.slo.class");
        g_assert_cmpstr(v, ==, "someone-else");
}

/* The kernel's limits on cgroupfs are 128 user xattrs or 128 KiB of values
 * (ENOSPC). A test fs has its own: fill the directory with foreign xattrs
 * until the kernel refuses, so the ENOSPC that follows is a real one. */
static bool fill_xattrs(const char *path) {
        static const size_t sizes[] = { 1000, 100, 10, 1 };
        g_autofree char *value = g_malloc0(1001);
        unsigned n = 0;

        memset(value, 'f', 1000);
        for (size_t s = 0; s < ELEMENTSOF(sizes); s++) {
                for (;; n++) {
                        g_autofree char *name = g_strdup_printf("user.fill.%u", n);
                        if (n > 4096)
                                return false; /* no limit in sight (tmpfs has none) */
                        if (setxattr(path, name, value, sizes[s], 0) == 0)
                                continue;
                        if (errno != ENOSPC)
                                return false;
                        break;
                }
        }
        return true;
}

static void test_apply_enospc_goes_on(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *content = NULL;

        if (!need_xattrs(t))
                return;
        if (!fill_xattrs(t->unit)) {
                g_test_skip("the filesystem of TMPDIR never says ENOSPC for user xattrs (tmpfs?): "
                            "cannot provoke it honestly");
                return;
        }
        res_add_attr(r, "user.slo.class", "latency");
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, -ENOSPC);

        const Action *a = report_get(report, "user.slo.class");
        g_assert_cmpint(a->result, ==, ACTION_NO_SPACE);
        g_assert_cmpint(a->error, ==, -ENOSPC);
        g_assert_cmpstr(a->new_value, ==, "latency");
        assert_recorded(rec, "user.slo.class", false);
        /* The other items still went through. */
        assert_action(report, "memory.swap.max", ACTION_WROTE);
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "67108864\n");
}

static void test_apply_vanished_cgroup(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();

        res_add_group(r, "batch");
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        remove_tree(t->unit);

        apply(t, p, rec, 0, report, -ENOENT);
        g_assert_cmpuint(report->actions->len, ==, 1);
        assert_action(report, UNIT, ACTION_VANISHED);
        g_assert_cmpuint(rec->items->len, ==, 0);
}

static void test_undo_vanished_cgroup_is_fine(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        g_assert_cmpuint(rec->items->len, >, 0);
        remove_tree(t->unit);

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);
        assert_action(undo, UNIT, ACTION_VANISHED);
        g_assert_cmpuint(rec->items->len, ==, 0);
}

static void test_apply_dry_run_changes_nothing(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *content = NULL;

        res_add_group(r, "batch");
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_infinity(r, KNOB_SWAP_HIGH);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        age(t->unit, "memory.swap.max");
        apply(t, p, rec, APPLY_DRY_RUN, report, t->xattrs ? 0 : -EOPNOTSUPP);

        const Action *a = report_get(report, "memory.swap.max");
        g_assert_cmpint(a->result, ==, ACTION_WOULD_WRITE);
        g_assert_cmpstr(a->old_value, ==, "max");
        g_assert_cmpstr(a->new_value, ==, "67108864");
        assert_action(report, "memory.swap.high", ACTION_UNCHANGED);
        g_assert_false(was_written(t->unit, "memory.swap.max"));
        content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
        g_assert_cmpuint(rec->items->len, ==, 0);
        if (t->xattrs) {
                assert_action(report, POLICY_GROUP_XATTR, ACTION_WOULD_WRITE);
                g_assert_null(xattr_get(t->unit, POLICY_GROUP_XATTR));
        }
}

/* A group removed, or the unit left it: the new plan lacks what the old one
 * set, and what we set goes back. */
static void test_apply_undoes_what_the_plan_dropped(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) before = res_new();
        g_autoptr(TestResolution) after = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) first = apply_report_new();
        g_autoptr(ApplyReport) second = apply_report_new();
        g_autofree char *swap_max = NULL, *swap_high = NULL;

        if (!need_xattrs(t))
                return;
        res_add_group(before, "batch");
        res_add_attr(before, "user.slo.class", "batch");
        res_set_bytes(before, KNOB_SWAP_MAX, 64 << 20);
        res_set_bytes(before, KNOB_SWAP_HIGH, 32 << 20);
        g_autoptr(CgroupPlan) p1 = build(before, f, 0);
        apply(t, p1, rec, 0, first, 0);

        /* Now in no group at all, but SwapHigh= came from elsewhere. */
        res_set_bytes(after, KNOB_SWAP_HIGH, 32 << 20);
        g_autoptr(CgroupPlan) p2 = build(after, f, 0);
        apply(t, p2, rec, 0, second, 0);

        assert_action(second, POLICY_GROUP_XATTR, ACTION_REMOVED);
        assert_action(second, "user.slo.class", ACTION_REMOVED);
        assert_action(second, "memory.swap.max", ACTION_RESTORED);
        assert_action(second, "memory.swap.high", ACTION_UNCHANGED);
        g_assert_null(xattr_get(t->unit, POLICY_GROUP_XATTR));
        g_assert_null(xattr_get(t->unit, "user.slo.class"));
        swap_max = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(swap_max, ==, "max\n");
        swap_high = get(t->unit, "memory.swap.high");
        g_assert_cmpstr(swap_high, ==, "33554432\n");
        assert_recorded(rec, "memory.swap.high", true);
        assert_recorded(rec, "memory.swap.max", false);
        assert_recorded(rec, POLICY_GROUP_XATTR, false);
        g_assert_cmpuint(rec->items->len, ==, 1);
}

static void test_apply_missing_knob_file(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autofree char *zswap = g_build_filename(t->unit, "memory.zswap.max", NULL);

        g_assert_cmpint(g_unlink(zswap), ==, 0); /* memory controller without zswap */
        res_set_bytes(r, KNOB_ZSWAP_MAX, 16 << 20);
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, -EOPNOTSUPP);

        const Action *a = report_get(report, "memory.zswap.max");
        g_assert_cmpint(a->result, ==, ACTION_FAILED);
        g_assert_cmpint(a->error, ==, -ENOENT);
        assert_action(report, "memory.swap.max", ACTION_WROTE);
        g_assert_false(g_file_test(zswap, G_FILE_TEST_EXISTS));
}

static void test_apply_reports_other_backends(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();

        if (!need_xattrs(t))
                return;
        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        res_set_bool(r, KNOB_KSM, true);
        res_set_tiers(r, "fast");
        g_autoptr(CgroupPlan) p = build(r, f, PLAN_SYSTEMD_MANAGED);
        apply(t, p, rec, 0, report, 0);

        assert_action(report, "MemorySwapMax", ACTION_DEFERRED);
        assert_action(report, "MemoryKSM", ACTION_DEFERRED);
        assert_action(report, "memory.swap.tiers.max", ACTION_NOT_ENFORCEABLE);
        assert_action(report, POLICY_SWAP_TIERS_XATTR, ACTION_WROTE);
        g_autofree char *content = get(t->unit, "memory.swap.max");
        g_assert_cmpstr(content, ==, "max\n");
}

/* memory.swap.tiers.max against a fake that behaves like v10: it lists every
 * tier, one "TIER max|0" line each. */
static void test_apply_swap_tiers_file(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast slow", 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) again = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();
        g_autofree char *content = NULL;

        put(t->unit, "memory.swap.tiers.max", "fast max\nslow max\n");
        res_set_tiers(r, "fast");
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        assert_action(report, "memory.swap.tiers.max", ACTION_WROTE);
        content = get(t->unit, "memory.swap.tiers.max");
        g_assert_cmpstr(content, ==, "fast max\nslow 0\n");

        apply(t, p, rec, 0, again, 0);
        assert_action(again, "memory.swap.tiers.max", ACTION_UNCHANGED);

        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);
        assert_action(undo, "memory.swap.tiers.max", ACTION_RESTORED);
        g_free(content);
        content = get(t->unit, "memory.swap.tiers.max");
        g_assert_cmpstr(content, ==, "fast max\nslow max\n");
}

/* A kernel that refuses one tier's line: v10 takes one "TIER max|0" per
 * write() and refuses a tier it does not have (EINVAL), for one removed
 * since the plan, say. Lines starting with refused_prefix fail. */
static ssize_t refuse_some_lines(int fd, const void *buf, size_t len, void *userdata) {
        const char *refused_prefix = userdata;

        if (len >= strlen(refused_prefix) && memcmp(buf, refused_prefix, strlen(refused_prefix)) == 0) {
                errno = EINVAL;
                return -1;
        }
        return write(fd, buf, len);
}

/* Every line is tried: one refused tier does not keep the later ones out,
 * the failure is kept with the line it was about, and the record holds
 * what did land, so that undo puts it back. */
static void test_apply_swap_tiers_every_line_tried(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(true, "fast mid slow", 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        g_autoptr(ApplyReport) undo = apply_report_new();
        g_autoptr(GPtrArray) failures = write_failures_new();
        const ApplyHooks hooks = { .knob_write = refuse_some_lines, .userdata = (void *) "fast " };
        g_autofree char *content = NULL;

        put(t->unit, "memory.swap.tiers.max", "fast max\nmid max\nslow max\n");
        res_set_tiers(r, "slow zswap"); /* zswap listed: no memory.zswap.max in the record */
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpint(cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, p, rec, 0, &hooks, report), ==, -EINVAL);

        /* The fake is a regular file: O_TRUNC, then the lines that landed. */
        content = get(t->unit, "memory.swap.tiers.max");
        g_assert_cmpstr(content, ==, "mid 0\nslow max\n");

        const Action *a = report_get(report, "memory.swap.tiers.max");
        g_assert_cmpint(a->result, ==, ACTION_FAILED);
        g_assert_cmpint(a->error, ==, -EINVAL);
        g_assert_cmpstr(a->new_value, ==, "fast 0\nmid 0\nslow max");
        g_assert_cmpstr(a->message, ==, "'fast 0': Invalid argument; the other lines were written");

        write_failures_update(failures, report, 1000);
        const WriteFailure *w = write_failures_find(failures, BACKEND_CGROUP_FILE, "memory.swap.tiers.max");
        g_assert_nonnull(w);
        g_assert_cmpint(w->error, ==, EINVAL);
        g_assert_cmpstr(w->message, ==, "'fast 0': Invalid argument; the other lines were written");

        /* What landed is policyd's: undo restores the lines it changed. */
        g_assert_cmpuint(rec->items->len, ==, 1);
        const AppliedItem *it = g_ptr_array_index(rec->items, 0);
        g_assert_cmpstr(it->written, ==, "mid 0\nslow max");
        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, undo), ==, 0);
        assert_action(undo, "memory.swap.tiers.max", ACTION_RESTORED);
        g_free(content);
        content = get(t->unit, "memory.swap.tiers.max");
        g_assert_cmpstr(content, ==, "fast max\nmid max\nslow max\n");
}

/* A value of one line that fails is as before: the error, no message of
 * lines, nothing recorded. */
static void test_apply_one_line_failure_unchanged(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();
        const ApplyHooks hooks = { .knob_write = refuse_some_lines, .userdata = (void *) "6" };

        res_set_bytes(r, KNOB_SWAP_MAX, 64 << 20);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpint(cgroup_apply_plan_with_hooks(t->cgroupfs, UNIT, p, rec, 0, &hooks, report), ==, -EINVAL);
        const Action *a = report_get(report, "memory.swap.max");
        g_assert_cmpint(a->result, ==, ACTION_FAILED);
        g_assert_null(a->message);
        g_assert_cmpuint(rec->items->len, ==, 0);
}

/* The kernel reads back a page multiple of what was written. */
static void test_apply_compares_in_kernel_form(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autoptr(ApplyReport) report = apply_report_new();

        put(t->unit, "memory.swap.max", "67108864 \n");
        age(t->unit, "memory.swap.max");
        res_set_bytes(r, KNOB_SWAP_MAX, (64 << 20) + 100);
        g_autoptr(CgroupPlan) p = build(r, f, 0);
        apply(t, p, rec, 0, report, 0);
        assert_action(report, "memory.swap.max", ACTION_UNCHANGED);
        g_assert_false(was_written(t->unit, "memory.swap.max"));
}

static void test_apply_refuses_record_of_another_cgroup(Tree *t, gconstpointer data) {
        g_autoptr(TestResolution) r = res_new();
        g_autoptr(SystemFacts) f = facts_new(false, NULL, 0);
        g_autoptr(CgroupRecord) rec = cgroup_record_new("/system.slice/bar.service");
        g_autoptr(ApplyReport) report = apply_report_new();

        g_autoptr(CgroupPlan) p = build(r, f, 0);
        g_assert_cmpint(cgroup_apply_plan(t->cgroupfs, UNIT, p, rec, 0, report), ==, -EINVAL);
        g_assert_cmpint(cgroup_undo(t->cgroupfs, UNIT, rec, 0, report), ==, -EINVAL);
}

/* ---- records ---- */

static void test_record_round_trip(void) {
        g_autoptr(CgroupRecord) rec = cgroup_record_new("/user.slice/user 1000.slice/app-caf\xc3\xa9 \"x\\\\y\".scope");
        g_autoptr(CgroupRecord) back = NULL;
        g_autofree char *text = NULL, *again = NULL;

        add_item(rec, BACKEND_XATTR, POLICY_GROUP_XATTR, false, NULL, "batch,foreground");
        add_item(rec, BACKEND_XATTR, "user.odd", true, "a b\tc\nd=e\\f\"g\x01h\xc3\xa9", "");
        add_item(rec, BACKEND_CGROUP_FILE, "memory.swap.tiers.max", true, "fast max\nslow max", "fast max\nslow 0");
        add_item(rec, BACKEND_CGROUP_FILE, "memory.swap.max", true, "max", "67108864");

        text = cgroup_record_serialize(rec);
        g_assert_cmpint(cgroup_record_parse(text, &back), ==, 0);
        g_assert_cmpstr(back->cgroup, ==, rec->cgroup);
        g_assert_cmpuint(back->items->len, ==, rec->items->len);
        for (guint i = 0; i < rec->items->len; i++) {
                const AppliedItem *a = g_ptr_array_index(rec->items, i), *b = g_ptr_array_index(back->items, i);
                g_assert_cmpint(a->backend, ==, b->backend);
                g_assert_cmpstr(a->target, ==, b->target);
                g_assert_cmpint(a->had_previous, ==, b->had_previous);
                g_assert_cmpstr(a->previous, ==, b->previous);
                g_assert_cmpstr(a->written, ==, b->written);
        }
        /* The form on disk: fields as g_strescape() writes them, whether
         * they need an escape or not. */
        g_autofree char *escaped = g_strescape(rec->cgroup, NULL);
        g_autofree char *cgroup_line = g_strconcat("cgroup\t", escaped, "\n", NULL);
        g_autofree char *odd = g_strescape("a b\tc\nd=e\\f\"g\x01h\xc3\xa9", NULL);
        g_autofree char *odd_line = g_strconcat("\nxattr\tuser.odd\t1\t", odd, "\t\n", NULL);
        g_assert_true(g_str_has_prefix(text, cgroup_line));
        g_assert_nonnull(strstr(text, odd_line));
        g_assert_nonnull(strstr(text, "\nfile\tmemory.swap.max\t1\tmax\t67108864\n"));
        g_assert_nonnull(strstr(text, "\nxattr\tuser.policy.group\t0\t\tbatch,foreground\n"));
        /* One item per line: no raw newline inside a field. */
        again = cgroup_record_serialize(back);
        g_assert_cmpstr(again, ==, text);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_assert_cmpuint(g_strv_length(lines), ==, 1 + rec->items->len + 1);
}

/* [Match] XAttr= sees what was there before policyd wrote, while policyd's
 * value is there; someone else's value as it is. */
static void test_record_xattr_input(void) {
        g_autoptr(CgroupRecord) rec = cgroup_record_new("/system.slice/a.service");

        add_item(rec, BACKEND_XATTR, "user.slo.class", false, NULL, "batch");
        add_item(rec, BACKEND_XATTR, "user.kept", true, "same", "same");
        add_item(rec, BACKEND_XATTR, "user.over", true, "theirs", "ours");
        add_item(rec, BACKEND_CGROUP_FILE, "memory.swap.max", true, "max", "1024");

        /* policyd's value, on a name that was not there: nothing to see. */
        g_assert_null(cgroup_record_xattr_input(rec, "user.slo.class", "batch"));
        /* Someone changed it since: that value is theirs. */
        g_assert_cmpstr(cgroup_record_xattr_input(rec, "user.slo.class", "latency"), ==, "latency");
        g_assert_cmpstr(cgroup_record_xattr_input(rec, "user.kept", "same"), ==, "same");
        /* Over someone's value: theirs, as it was. */
        g_assert_cmpstr(cgroup_record_xattr_input(rec, "user.over", "ours"), ==, "theirs");
        g_assert_cmpstr(cgroup_record_xattr_input(rec, "user.over", "other"), ==, "other");
        g_assert_cmpstr(cgroup_record_xattr_input(rec, "user.other", "batch"), ==, "batch");
        g_assert_cmpstr(cgroup_record_xattr_input(rec, "memory.swap.max", "1024"), ==, "1024");
        g_assert_cmpstr(cgroup_record_xattr_input(NULL, "user.slo.class", "batch"), ==, "batch");
}

static void test_record_garbage_rejected(void) {
        static const char *const bad[] = {
                "",
                "\n",
                "garbage",
                "cgroup\n",
                "cgroup\trelative\n",
                "cgroup\t/a/../b\n",
                "cgroup\t/a\textra\n",
                "cgroup\t/a\n\n",
                "cgroup\t/a\nxattr\tuser.a\t0\t\tv\nxattr\tuser.a\t0\t\tw\n",   /* duplicate */
                "cgroup\t/a\nxattr\tuser.a\t2\t\tv\n",                       /* had is 0 or 1 */
                "cgroup\t/a\nxattr\tuser.a\t0\tprev\tv\n",                   /* previous without had */
                "cgroup\t/a\nxattr\tuser.a\t1\tp\n",                         /* missing field */
                "cgroup\t/a\nxattr\tuser.a\t1\tp\tv\textra\n",
                "cgroup\t/a\nxattr\tsecurity.selinux\t1\tp\tv\n",            /* not ours to touch */
                "cgroup\t/a\nxattr\tuser.\t1\tp\tv\n",
                "cgroup\t/a\nfile\t../../etc/passwd\t1\tp\tv\n",
                "cgroup\t/a\nfile\tsub/memory.max\t1\tp\tv\n",
                "cgroup\t/a\nfile\t.hidden\t1\tp\tv\n",
                "cgroup\t/a\nfile\tmemory.swap.max\t0\t\tv\n",               /* a file always had a value */
                "cgroup\t/a\nsymlink\tx\t1\tp\tv\n",
                "cgroup\t/a\nxattr\tuser.a\t1\tp\\\tv\n",                    /* trailing backslash */
                "cgroup\t/a\nxattr\tuser.a\t1\tp\\q\tv\n",                   /* unknown escape */
                "cgroup\t/a\nxattr\tuser.a\t1\tp\\000\tv\n",                 /* NUL */
                "cgroup\t/a\nxattr\tuser.a\t1\tp\\777\tv\n",
                "cgroup\t/a\nxattr\tuser.a\t1\tp\rq\tv\n",                   /* raw control character */
                "cgroup\t/a\\\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                g_autoptr(CgroupRecord) rec = NULL;
                int r = cgroup_record_parse(bad[i], &rec);
                if (r != -EBADMSG) {
                        g_autofree char *shown = g_strescape(bad[i], NULL);
                        g_error("\"%s\" gave %d, expected -EBADMSG", shown, r);
                }
                g_assert_null(rec);
        }
        g_assert_cmpint(cgroup_record_parse(NULL, NULL), ==, -EBADMSG);
}

static void test_record_without_final_newline(void) {
        g_autoptr(CgroupRecord) rec = NULL;
        g_assert_cmpint(cgroup_record_parse("cgroup\t/\nxattr\tuser.a\t0\t\tv", &rec), ==, 0);
        g_assert_cmpstr(rec->cgroup, ==, "/");
        g_assert_cmpuint(rec->items->len, ==, 1);
}

/* A record under /run may be cut short or scribbled on: no input crashes
 * the parser. */
static void test_record_mutations_never_crash(void) {
        g_autoptr(CgroupRecord) rec = cgroup_record_new(UNIT);
        g_autofree char *text = NULL;
        size_t len;

        add_item(rec, BACKEND_XATTR, POLICY_GROUP_XATTR, false, NULL, "batch");
        add_item(rec, BACKEND_XATTR, "user.odd", true, "a\\b\n\x01", "\xff");
        add_item(rec, BACKEND_CGROUP_FILE, "memory.swap.max", true, "max", "67108864");
        text = cgroup_record_serialize(rec);
        len = strlen(text);

        for (int round = 0; round < 5000; round++) {
                g_autofree char *m = g_strdup(text);
                int edits = g_test_rand_int_range(1, 4);
                for (int e = 0; e < edits; e++) {
                        size_t at = (size_t) g_test_rand_int_range(0, (gint32) len);
                        static const char pick[] = "\\\t\n0127x.\"/\001";
                        if (g_test_rand_bit())
                                m[at] = pick[g_test_rand_int_range(0, sizeof(pick) - 1)];
                        else
                                m[at] = '\0'; /* truncation */
                }
                g_autoptr(CgroupRecord) out = NULL;
                int r = cgroup_record_parse(m, &out);
                g_assert_true(r == 0 || r == -EBADMSG);
                g_assert_true((r == 0) == (out != NULL));
        }
}

/* ---- names and NULL ---- */

static void test_names_and_free_null(void) {
        for (int b = 0; b < _BACKEND_MAX; b++)
                g_assert_nonnull(backend_to_string((Backend) b));
        g_assert_null(backend_to_string(_BACKEND_MAX));
        g_assert_null(backend_to_string((Backend) -1));
        for (int a = ACTION_WROTE; a <= ACTION_NOT_ENFORCEABLE; a++)
                g_assert_nonnull(action_result_to_string((ActionResult) a));
        g_assert_null(action_result_to_string((ActionResult) (ACTION_NOT_ENFORCEABLE + 1)));
        g_assert_cmpstr(action_result_to_string(ACTION_LEFT_FOREIGN), ==, "left-foreign");

        g_assert_null(system_facts_free(NULL));
        g_assert_null(cgroup_plan_free(NULL));
        g_assert_null(cgroup_record_free(NULL));
        g_assert_null(apply_report_free(NULL));
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);

#define ADD_TREE(name, fn) g_test_add("/cgroup-apply/" name, Tree, NULL, tree_setup, fn, tree_teardown)
        ADD_TREE("apply/records-ahead-of-writes", test_apply_records_ahead_of_writes);
        ADD_TREE("apply/hook-failure-writes-nothing", test_apply_hook_failure_writes_nothing);
        ADD_TREE("apply/records-all-writes-in-one-save", test_apply_records_all_writes_in_one_save);
        ADD_TREE("write-failure/kept-until-a-write-succeeds", test_write_failure_kept_until_a_write_succeeds);
        ADD_TREE("write-failure/not-for-an-unrecorded-write", test_write_failure_not_for_an_unrecorded_write);
        g_test_add_func("/cgroup-apply/write-failure/set-clear-prune", test_write_failures_set_clear_prune);
        ADD_TREE("apply/recorded-file-written-without-read", test_apply_recorded_file_written_without_read);
        ADD_TREE("undo/write-that-never-happened", test_undo_of_a_write_that_never_happened);
        ADD_TREE("handle/keeps-no-plain-files", test_handle_keeps_no_plain_files);
        g_test_add_func("/cgroup-apply/handle/keeps-cgroup-files", test_handle_keeps_cgroup_files);
        g_test_add_func("/cgroup-apply/path/validate", test_path_validate);
        ADD_TREE("path/apply-rejects-dotdot", test_apply_rejects_dotdot);
        ADD_TREE("sync-knob-file-writes-only-a-difference", test_sync_knob_file_writes_only_a_difference);
        ADD_TREE("path/apply-does-not-follow-symlinks", test_apply_does_not_follow_symlinks);
        ADD_TREE("path/exists-walks-without-symlinks", test_exists_walks_without_symlinks);

        g_test_add_func("/cgroup-apply/plan/group-tag-and-attributes", test_plan_group_tag_and_attributes);
        g_test_add_func("/cgroup-apply/plan/no-membership-removes-tag", test_plan_no_membership_removes_tag);
        g_test_add_func("/cgroup-apply/plan/limits-in-kernel-format", test_plan_limits_in_kernel_format);
        g_test_add_func("/cgroup-apply/plan/percent-rounds-down-to-a-page", test_plan_percent_rounds_down_to_a_page);
        g_test_add_func("/cgroup-apply/plan/systemd-percent-is-the-generators", test_plan_systemd_percent_is_the_generators);
        g_test_add_func("/cgroup-apply/systemd-property-kernel-files", test_systemd_property_kernel_files);
        g_test_add_func("/cgroup-apply/plan/percent-without-swap-leaves-the-knob",
                        test_plan_percent_without_swap_leaves_the_knob);
        g_test_add_func("/cgroup-apply/plan/zero-percent-without-swap-is-zero",
                        test_plan_zero_percent_without_swap_is_zero);
        g_test_add_func("/cgroup-apply/plan/systemd-managed-backends", test_plan_systemd_managed_backends);
        g_test_add_func("/cgroup-apply/plan/delegated-backends", test_plan_delegated_backends);
        g_test_add_func("/cgroup-apply/plan/numa-nodes-without-cpuset", test_plan_numa_nodes_without_cpuset);
        g_test_add_func("/cgroup-apply/plan/zswap-writeback-needs-the-kernel",
                        test_plan_zswap_writeback_needs_the_kernel);

        g_test_add_func("/cgroup-apply/plan/root-cgroup-takes-no-knob-file", test_plan_root_cgroup_takes_no_knob_file);
        ADD_TREE("apply/root-cgroup-no-enoent", test_apply_root_cgroup_no_enoent);
        g_test_add_func("/cgroup-apply/tiers/allowed-and-denied", test_plan_tiers_allowed_and_denied);
        g_test_add_func("/cgroup-apply/tiers/keyword-names-are-keywords", test_plan_tiers_keyword_names_are_keywords);
        g_test_add_func("/cgroup-apply/tiers/facts-diagnose-keyword-tiers", test_facts_diagnose_keyword_tiers);
        g_test_add_func("/cgroup-apply/tiers/none-denies-every-tier", test_plan_tiers_none_denies_every_tier);
        g_test_add_func("/cgroup-apply/tiers/unknown-tier-not-enforceable",
                        test_plan_tiers_unknown_tier_not_enforceable);
        g_test_add_func("/cgroup-apply/tiers/zswap-only-allows-tiers-not-writeback",
                        test_plan_tiers_zswap_only_allows_tiers_not_writeback);
        g_test_add_func("/cgroup-apply/tiers/without-zswap-no-zswap", test_plan_tiers_without_zswap_turn_zswap_off);
        g_test_add_func("/cgroup-apply/tiers/no-kernel-none-is-swap-max-zero",
                        test_plan_no_tiers_none_is_swap_max_zero);
        g_test_add_func("/cgroup-apply/tiers/no-kernel-none-through-systemd", test_plan_no_tiers_none_through_systemd);
        g_test_add_func("/cgroup-apply/tiers/no-kernel-empty-list-is-none", test_plan_no_tiers_empty_list_is_none);
        g_test_add_func("/cgroup-apply/tiers/no-kernel-zswap-is-writeback-off",
                        test_plan_no_tiers_zswap_is_writeback_off);
        g_test_add_func("/cgroup-apply/tiers/no-kernel-named-tiers-are-tagged",
                        test_plan_no_tiers_named_tiers_are_tagged);

        ADD_TREE("probe/fake-tree", test_probe_fake_tree);
        ADD_TREE("probe/plain-kernel", test_probe_plain_kernel);
        ADD_TREE("probe/facts-equal", test_probe_facts_equal);
        ADD_TREE("probe/tolerates-odd-tier-lines", test_probe_tolerates_odd_tier_lines);
        ADD_TREE("probe/keeps-tiers-named-name", test_probe_keeps_tiers_named_name);

        ADD_TREE("apply/writes-and-records", test_apply_writes_and_records);
        ADD_TREE("apply/equal-value-is-not-written", test_apply_equal_value_is_not_written);
        ADD_TREE("apply/twice-changes-nothing", test_apply_twice_changes_nothing);
        ADD_TREE("apply/enospc-goes-on", test_apply_enospc_goes_on);
        ADD_TREE("apply/vanished-cgroup", test_apply_vanished_cgroup);
        ADD_TREE("apply/dry-run-changes-nothing", test_apply_dry_run_changes_nothing);
        ADD_TREE("apply/undoes-what-the-plan-dropped", test_apply_undoes_what_the_plan_dropped);
        ADD_TREE("apply/missing-knob-file", test_apply_missing_knob_file);
        ADD_TREE("apply/reports-other-backends", test_apply_reports_other_backends);
        ADD_TREE("apply/rewrite-keeps-first-previous", test_apply_rewrite_keeps_first_previous);
        ADD_TREE("apply/swap-tiers-file", test_apply_swap_tiers_file);
        ADD_TREE("apply/swap-tiers-every-line-tried", test_apply_swap_tiers_every_line_tried);
        ADD_TREE("apply/one-line-failure-unchanged", test_apply_one_line_failure_unchanged);
        ADD_TREE("apply/compares-in-kernel-form", test_apply_compares_in_kernel_form);
        ADD_TREE("apply/refuses-record-of-another-cgroup", test_apply_refuses_record_of_another_cgroup);

        ADD_TREE("undo/restores-previous", test_undo_restores_previous);
        ADD_TREE("undo/leaves-foreign-value", test_undo_leaves_foreign_value);
        ADD_TREE("undo/removes-xattr-absent-before", test_undo_removes_xattr_absent_before);
        ADD_TREE("undo/restores-xattr-present-before", test_undo_restores_xattr_present_before);
        ADD_TREE("undo/long-xattr-kept-as-digest", test_undo_long_xattr_kept_as_digest);
        ADD_TREE("undo/leaves-foreign-xattr", test_undo_leaves_foreign_xattr);
        ADD_TREE("undo/vanished-cgroup-is-fine", test_undo_vanished_cgroup_is_fine);

        g_test_add_func("/cgroup-apply/record/round-trip", test_record_round_trip);
        g_test_add_func("/cgroup-apply/record/garbage-rejected", test_record_garbage_rejected);
        g_test_add_func("/cgroup-apply/record/xattr-input", test_record_xattr_input);
        g_test_add_func("/cgroup-apply/record/without-final-newline", test_record_without_final_newline);
        g_test_add_func("/cgroup-apply/record/mutations-never-crash", test_record_mutations_never_crash);
        g_test_add_func("/cgroup-apply/names-and-free-null", test_names_and_free_null);
        return g_test_run();
}
