/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What policyd keeps under /run/policyd: file names within NAME_MAX for any
 * key, and records that survive a save and a load unchanged. */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "manager.h"
#include "state-store.h"
#include "util.h"

static void test_file_names_fit_name_max(void) {
        g_autoptr(GString) deep = g_string_new(NULL);
        for (int i = 0; i < 60; i++)
                g_string_append_printf(deep, "/user-%d.slice", i);

        const char *keys[] = { "foo.service", "/a b/c%d", deep->str };
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
                g_autofree char *name = state_file_name(keys[i]);
                /* write_file_atomic() adds ".XXXXXX" for its temporary file. */
                g_assert_cmpuint(strlen(name) + 7, <=, NAME_MAX);
                g_assert_null(strchr(name, '/'));
        }

        g_autofree char *plain = state_file_name("foo.service");
        g_assert_cmpstr(plain, ==, "foo.service");
        /* Two long keys that differ only at the end get different names. */
        g_autofree char *a = state_file_name(deep->str);
        g_string_append(deep, "/x");
        g_autofree char *b = state_file_name(deep->str);
        g_assert_cmpstr(a, !=, b);
}

static void test_records_round_trip_for_long_keys(void) {
        g_autofree char *dir = g_dir_make_tmp("policyd-state-XXXXXX", NULL);
        g_autoptr(GString) key = g_string_new(NULL);
        for (int i = 0; i < 40; i++)
                g_string_append_printf(key, "/deep-%d.slice", i);

        g_autoptr(CgroupRecord) rec = cgroup_record_new(key->str);
        AppliedItem *it = g_new0(AppliedItem, 1);
        it->backend = BACKEND_CGROUP_FILE;
        it->target = g_strdup("memory.swap.high");
        it->had_previous = true;
        it->previous = g_strdup("max");
        it->written = g_strdup("1048576");
        g_ptr_array_add(rec->items, it);
        g_assert_cmpint(state_save_cgroup_record(dir, key->str, rec), ==, 0);

        g_autoptr(CgroupRecord) back = NULL;
        g_assert_cmpint(state_load_cgroup_record(dir, key->str, &back), ==, 0);
        g_autofree char *want = cgroup_record_serialize(rec), *got = cgroup_record_serialize(back);
        g_assert_cmpstr(got, ==, want);

        g_autoptr(GPtrArray) props = g_ptr_array_new_with_free_func((GDestroyNotify) property_record_free);
        PropertyRecord *p = g_new0(PropertyRecord, 1);
        p->property = g_strdup("MemorySwapMax");
        p->previous = g_strdup("");
        p->written = g_strdup("1073741824");
        g_ptr_array_add(props, p);
        g_assert_cmpint(state_save_property_records(dir, key->str, props), ==, 0);
        g_autoptr(GPtrArray) loaded = g_ptr_array_new_with_free_func((GDestroyNotify) property_record_free);
        g_assert_cmpint(state_load_property_records(dir, key->str, loaded), ==, 0);
        g_assert_cmpuint(loaded->len, ==, 1);
        const PropertyRecord *q = g_ptr_array_index(loaded, 0);
        g_assert_cmpstr(q->property, ==, "MemorySwapMax");
        g_assert_cmpstr(q->previous, ==, "");
        g_assert_cmpstr(q->written, ==, "1073741824");

        /* Empty records remove their files. */
        g_ptr_array_set_size(rec->items, 0);
        g_ptr_array_set_size(props, 0);
        g_assert_cmpint(state_save_cgroup_record(dir, key->str, rec), ==, 0);
        g_assert_cmpint(state_save_property_records(dir, key->str, props), ==, 0);
        g_autofree char *sub1 = g_build_filename(dir, "cgroups", NULL), *sub2 = g_build_filename(dir, "properties", NULL);
        g_assert_cmpint(g_rmdir(sub1), ==, 0);
        g_assert_cmpint(g_rmdir(sub2), ==, 0);
        g_assert_cmpint(g_rmdir(dir), ==, 0);
}

/* The startup sweep finds records by file name: the key comes back from
 * the name unless the name holds a hash. */
static void test_file_names_back_to_keys(void) {
        g_autoptr(GString) deep = g_string_new(NULL);
        for (int i = 0; i < 60; i++)
                g_string_append_printf(deep, "/user-%d.slice", i);

        const char *keys[] = { "foo.service", "/a b/c%d", "sp-tr.scope", "/system.slice/x~y.scope" };
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
                g_autofree char *name = state_file_name(keys[i]);
                g_autofree char *key = state_file_name_to_key(name);
                g_assert_cmpstr(key, ==, keys[i]);
        }
        g_autofree char *hashed = state_file_name(deep->str);
        g_assert_null(state_file_name_to_key(hashed));
        /* Not a name state_file_name() makes: "/" would have been escaped. */
        g_assert_null(state_file_name_to_key("%2Fa/b"));
        g_assert_null(state_file_name_to_key("a%2"));
}

static void test_records_listed_and_removed_by_name(void) {
        g_autofree char *dir = g_dir_make_tmp("policyd-state-XXXXXX", NULL);
        g_autoptr(GPtrArray) names = NULL;

        /* No directory yet: nothing, and no error. */
        g_assert_cmpint(state_list_records(dir, "cgroups", &names), ==, 0);
        g_assert_cmpuint(names->len, ==, 0);
        g_clear_pointer(&names, g_ptr_array_unref);

        g_autoptr(CgroupRecord) rec = cgroup_record_new("/a.slice/b.scope");
        AppliedItem *it = g_new0(AppliedItem, 1);
        it->backend = BACKEND_XATTR;
        it->target = g_strdup("user.policy.group");
        it->written = g_strdup("g");
        g_ptr_array_add(rec->items, it);
        g_assert_cmpint(state_save_cgroup_record(dir, "b.scope", rec), ==, 0);
        g_assert_cmpint(state_save_cgroup_record(dir, "/a.slice/b.scope", rec), ==, 0);
        g_autofree char *sub = g_build_filename(dir, "cgroups", NULL);
        g_autofree char *subdir = g_build_filename(sub, "not-a-record", NULL);
        g_assert_cmpint(g_mkdir(subdir, 0700), ==, 0);

        g_assert_cmpint(state_list_records(dir, "cgroups", &names), ==, 0);
        g_assert_cmpuint(names->len, ==, 2);
        g_assert_cmpstr(g_ptr_array_index(names, 0), ==, "%2Fa.slice%2Fb.scope");
        g_assert_cmpstr(g_ptr_array_index(names, 1), ==, "b.scope");

        g_autoptr(CgroupRecord) back = NULL;
        g_assert_cmpint(state_load_cgroup_record_file(dir, "b.scope", &back), ==, 0);
        g_assert_cmpstr(back->cgroup, ==, "/a.slice/b.scope");
        g_assert_cmpint(state_load_cgroup_record_file(dir, "missing", &back), ==, -ENOENT);

        g_assert_cmpint(state_remove_record(dir, "cgroups", "b.scope"), ==, 0);
        g_assert_cmpint(state_remove_record(dir, "cgroups", "b.scope"), ==, 0);
        g_ptr_array_set_size(back->items, 0);
        g_assert_cmpint(state_save_cgroup_record_file(dir, "%2Fa.slice%2Fb.scope", back), ==, 0);
        g_assert_cmpint(g_rmdir(subdir), ==, 0);
        g_assert_cmpint(g_rmdir(sub), ==, 0);
        g_assert_cmpint(g_rmdir(dir), ==, 0);
}

static GHashTable *assignment_table_new(void) {
        return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
}

/* The group and uid of key's only entry, as "group:uid"; NULL when none. */
static char *only_entry(GHashTable *table, const char *key) {
        GPtrArray *groups = g_hash_table_lookup(table, key);
        if (!groups || groups->len != 1)
                return NULL;
        const RuntimeAssignment *a = g_ptr_array_index(groups, 0);
        return g_strdup_printf("%s:%u", a->group, (unsigned) a->uid);
}

/* Who made each runtime assignment survives a restart; a file an older
 * policyd wrote loads as root's; a line with a bad uid is dropped, never
 * taken for root's. */
static void test_assignments_keep_their_uid(void) {
        g_autofree char *dir = g_dir_make_tmp("policyd-state-XXXXXX", NULL);
        g_autofree char *path = g_build_filename(dir, "assignments", NULL);
        g_autoptr(GHashTable) assignments = assignment_table_new(), exclusions = assignment_table_new();
        g_autoptr(GHashTable) a2 = assignment_table_new(), e2 = assignment_table_new();
        g_autofree char *data = NULL;

        assignment_table_add(assignments, "foo.service", "alpha", 0);
        assignment_table_add(assignments, "user@1000/app.scope", "background", 1000);
        assignment_table_add(exclusions, "/a/b", "beta", 1000);
        g_assert_cmpint(state_save_assignments(dir, assignments, exclusions), ==, 0);
        g_assert_true(g_file_get_contents(path, &data, NULL, NULL));
        g_assert_nonnull(strstr(data, "\n+\tfoo.service\talpha\n")); /* root's: as before */
        g_assert_nonnull(strstr(data, "\n+\tuser@1000/app.scope\tbackground\t1000\n"));
        g_assert_nonnull(strstr(data, "\n-\t/a/b\tbeta\t1000\n"));

        g_assert_cmpint(state_load_assignments(dir, a2, e2), ==, 0);
        g_autofree char *root = only_entry(a2, "foo.service"), *user = only_entry(a2, "user@1000/app.scope");
        g_autofree char *excluded = only_entry(e2, "/a/b");
        g_assert_cmpstr(root, ==, "alpha:0");
        g_assert_cmpstr(user, ==, "background:1000");
        g_assert_cmpstr(excluded, ==, "beta:1000");

        /* Root's entry stays root's when a user adds it again; a user's
         * becomes root's when root does. */
        assignment_table_add(a2, "foo.service", "alpha", 1000);
        assignment_table_add(a2, "user@1000/app.scope", "background", 0);
        g_autofree char *root2 = only_entry(a2, "foo.service"), *user2 = only_entry(a2, "user@1000/app.scope");
        g_assert_cmpstr(root2, ==, "alpha:0");
        g_assert_cmpstr(user2, ==, "background:0");

        /* An older version's file, and bad uids. */
        const char *old = "# policyd runtime assignments\n"
                          "+\told.service\talpha\n"
                          "+\tbad0.service\talpha\t0\n"
                          "+\tbadsign.service\talpha\t-1\n"
                          "+\tbadmax.service\talpha\t4294967295\n"
                          "+\tbadword.service\talpha\talice\n"
                          "+\textra.service\talpha\t1000\tx\n";
        g_assert_true(g_file_set_contents(path, old, -1, NULL));
        g_autoptr(GHashTable) a3 = assignment_table_new(), e3 = assignment_table_new();
        g_assert_cmpint(state_load_assignments(dir, a3, e3), ==, 0);
        g_autofree char *from_old = only_entry(a3, "old.service");
        g_assert_cmpstr(from_old, ==, "alpha:0");
        g_assert_cmpuint(g_hash_table_size(a3), ==, 1);
        g_assert_cmpuint(g_hash_table_size(e3), ==, 0);

        g_assert_cmpint(g_unlink(path), ==, 0);
        g_assert_cmpint(g_rmdir(dir), ==, 0);
}

static CgroupRecord *swap_high_record(const char *cgroup, const char *written) {
        CgroupRecord *rec = cgroup_record_new(cgroup);
        AppliedItem *it = g_new0(AppliedItem, 1);
        it->backend = BACKEND_CGROUP_FILE;
        it->target = g_strdup("memory.swap.high");
        it->had_previous = true;
        it->previous = g_strdup("max");
        it->written = g_strdup(written);
        g_ptr_array_add(rec->items, it);
        return rec;
}

static char *loaded_written(const char *dir, const char *key) {
        g_autoptr(CgroupRecord) rec = NULL;
        if (state_load_cgroup_record(dir, key, &rec) < 0 || rec->items->len != 1)
                return NULL;
        return g_strdup(((const AppliedItem *) g_ptr_array_index(rec->items, 0))->written);
}

/* The write-ahead log: at the next start each key's last line reaches its
 * file, over an older file; an empty record removes the file; a line cut
 * short by a kill (no newline) and a malformed one are left out; the log
 * goes. state_intent_clear() empties it. */
static void test_intent_log_replayed_at_start(void) {
        g_autofree char *dir = g_dir_make_tmp("policyd-state-XXXXXX", NULL);
        g_autofree char *log_path = g_build_filename(dir, "cgroups.intent", NULL);
        g_autoptr(CgroupRecord) old_a = swap_high_record("/a.slice", "1");
        g_autoptr(CgroupRecord) a1 = swap_high_record("/a.slice", "2"), a2 = swap_high_record("/a.slice", "3");
        g_autoptr(CgroupRecord) b = swap_high_record("/b/c", "4"), gone = swap_high_record("/gone", "5");
        g_autofree char *t_a1 = cgroup_record_serialize(a1), *t_a2 = cgroup_record_serialize(a2);
        g_autofree char *t_b = cgroup_record_serialize(b);
        g_autofree char *t_old_a = cgroup_record_serialize(old_a), *t_gone = cgroup_record_serialize(gone);
        int fd = -1;

        g_assert_cmpint(state_save_cgroup_record(dir, "a.service", old_a), ==, 0);
        g_assert_cmpint(state_save_cgroup_record(dir, "/gone", gone), ==, 0);
        g_assert_cmpint(state_intent_append(dir, &fd, "a.service", t_old_a, t_a1), >, 0);
        g_assert_cmpint(fd, >=, 0);
        g_assert_cmpint(state_intent_append(dir, &fd, "/b/c", NULL, t_b), >, 0);
        g_assert_cmpint(state_intent_append(dir, &fd, "a.service", t_a1, t_a2), >, 0);
        g_assert_cmpint(state_intent_append(dir, &fd, "/gone", t_gone, ""), >, 0);
        /* A malformed line, then a write cut short. */
        const char *bad = "a.service\tnot a record\\n\na.service\tcgroup\\t/a.slice\\nfile\\tmemory.swap.high\\t1\\tmax\\t9";
        g_assert_cmpint(write(fd, bad, strlen(bad)), ==, (ssize_t) strlen(bad));
        safe_close(fd);

        g_assert_cmpint(state_intent_replay(dir, NULL), ==, 3);
        g_assert_false(g_file_test(log_path, G_FILE_TEST_EXISTS));
        g_autofree char *got_a = loaded_written(dir, "a.service"), *got_b = loaded_written(dir, "/b/c");
        g_assert_cmpstr(got_a, ==, "3");
        g_assert_cmpstr(got_b, ==, "4");
        g_autoptr(CgroupRecord) none = NULL;
        g_assert_cmpint(state_load_cgroup_record(dir, "/gone", &none), ==, -ENOENT);
        g_assert_cmpint(state_intent_replay(dir, NULL), ==, 0); /* no log: nothing */

        /* Emptied, it carries nothing over. */
        fd = -1;
        g_assert_cmpint(state_intent_append(dir, &fd, "a.service", t_a2, t_a1), >, 0);
        g_assert_cmpint(state_intent_clear(dir, fd), ==, 0);
        safe_close(fd);
        g_assert_cmpint(state_intent_replay(dir, NULL), ==, 0);
        g_autofree char *still_a = loaded_written(dir, "a.service");
        g_assert_cmpstr(still_a, ==, "3");

        g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
        g_assert_cmpint(system(rm), ==, 0);
}

/* Changes, not records: a new written value is a short "w" line however
 * long the value from before; a line of an older policyd (the whole
 * record) is still read; a line replayed over a file that a checkpoint
 * wrote after it changes nothing. */
static void test_intent_log_holds_changes(void) {
        g_autofree char *dir = g_dir_make_tmp("policyd-state-XXXXXX", NULL);
        g_autofree char *log_path = g_build_filename(dir, "cgroups.intent", NULL);
        g_autofree char *prev = g_strnfill(4000, 'p');
        g_autoptr(CgroupRecord) r1 = swap_high_record("/a.slice", "1");
        int fd = -1;

        g_free(((AppliedItem *) g_ptr_array_index(r1->items, 0))->previous);
        ((AppliedItem *) g_ptr_array_index(r1->items, 0))->previous = g_strdup(prev);
        g_autofree char *t1 = cgroup_record_serialize(r1);
        g_free(((AppliedItem *) g_ptr_array_index(r1->items, 0))->written);
        ((AppliedItem *) g_ptr_array_index(r1->items, 0))->written = g_strdup("2");
        g_autofree char *t2 = cgroup_record_serialize(r1);

        g_autofree char *c = state_intent_changes(t1, t2);
        g_assert_cmpstr(c, ==, "w\tfile\tmemory.swap.high\t2");
        g_assert_null(state_intent_changes(t2, t2));
        g_assert_null(state_intent_changes("", ""));
        g_autofree char *none = state_intent_changes(t2, "");
        g_assert_cmpstr(none, ==, "none");
        g_autofree char *fresh = state_intent_changes(NULL, t1);
        g_assert_nonnull(strstr(fresh, "cgroup\t/a.slice\x1e"));

        /* A base file at t1, a change to 2, an older policyd's whole line for
         * /b, and a change of a record that is not there. */
        g_assert_cmpint(state_save_cgroup_record(dir, "a.service", r1), ==, 0);
        g_autoptr(CgroupRecord) b = swap_high_record("/b", "7");
        g_autofree char *tb = cgroup_record_serialize(b);
        g_autofree char *tb_escaped = g_strescape(tb, NULL);
        g_autofree char *old_line = g_strconcat("%2Fb\t", tb_escaped, "\n", NULL);
        g_assert_cmpint(state_intent_append(dir, &fd, "a.service", t1, t2), >, 0);
        g_assert_cmpint(write(fd, old_line, strlen(old_line)), ==, (ssize_t) strlen(old_line));
        const char *orphan = "%2Fnone\tw\tfile\tmemory.swap.high\t3\n";
        g_assert_cmpint(write(fd, orphan, strlen(orphan)), ==, (ssize_t) strlen(orphan));
        struct stat st;
        g_assert_cmpint(fstat(fd, &st), ==, 0);
        g_assert_cmpint(st.st_size, <, 200); /* not the 4000 bytes from before */
        safe_close(fd);

        g_assert_cmpint(state_intent_replay(dir, NULL), ==, 2);
        g_assert_false(g_file_test(log_path, G_FILE_TEST_EXISTS));
        g_autofree char *got_a = loaded_written(dir, "a.service"), *got_b = loaded_written(dir, "/b");
        g_assert_cmpstr(got_a, ==, "2");
        g_assert_cmpstr(got_b, ==, "7");
        g_autoptr(CgroupRecord) back = NULL;
        g_assert_cmpint(state_load_cgroup_record(dir, "a.service", &back), ==, 0);
        g_assert_cmpstr(((AppliedItem *) g_ptr_array_index(back->items, 0))->previous, ==, prev);

        g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
        g_assert_cmpint(system(rm), ==, 0);
}

/* A record replay cannot write (here: cgroups/ is not a directory) is
 * handed back, and the log stays until it is written; then it goes. */
static void test_intent_replay_keeps_unwritten(void) {
        g_autofree char *dir = g_dir_make_tmp("policyd-state-XXXXXX", NULL);
        g_autofree char *log_path = g_build_filename(dir, "cgroups.intent", NULL);
        g_autofree char *blocker = g_build_filename(dir, "cgroups", NULL);
        g_autoptr(CgroupRecord) a = swap_high_record("/a.slice", "1");
        g_autofree char *t_a = cgroup_record_serialize(a);
        g_autoptr(GHashTable) unwritten = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        int fd = -1;

        g_assert_cmpint(state_intent_append(dir, &fd, "a.service", "", t_a), >, 0);
        safe_close(fd);
        g_assert_true(g_file_set_contents(blocker, "", 0, NULL));
        g_assert_cmpint(state_intent_replay(dir, unwritten), <, 0);
        g_assert_true(g_file_test(log_path, G_FILE_TEST_EXISTS));
        g_assert_cmpstr(g_hash_table_lookup(unwritten, "a.service"), ==, t_a);

        g_assert_cmpint(g_unlink(blocker), ==, 0);
        g_assert_cmpint(state_intent_clear(dir, -1), ==, 0);
        g_assert_false(g_file_test(log_path, G_FILE_TEST_EXISTS));

        g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
        g_assert_cmpint(system(rm), ==, 0);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/state-store/file-names-fit-name-max", test_file_names_fit_name_max);
        g_test_add_func("/state-store/records-round-trip-for-long-keys", test_records_round_trip_for_long_keys);
        g_test_add_func("/state-store/file-names-back-to-keys", test_file_names_back_to_keys);
        g_test_add_func("/state-store/records-listed-and-removed-by-name", test_records_listed_and_removed_by_name);
        g_test_add_func("/state-store/assignments-keep-their-uid", test_assignments_keep_their_uid);
        g_test_add_func("/state-store/intent-log-replayed-at-start", test_intent_log_replayed_at_start);
        g_test_add_func("/state-store/intent-log-holds-changes", test_intent_log_holds_changes);
        g_test_add_func("/state-store/intent-replay-keeps-unwritten", test_intent_replay_keeps_unwritten);
        return g_test_run();
}
