/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>

#include "apply.h"
#include "assign.h"
#include "log.h"
#include "manager.h"
#include "self-assign.h"
#include "state-store.h"
#include "systemd-watch.h"
#include "target-argument.h"
#include "unit-lookup.h"
#include "util.h"

static int cgroup_of_pid(const char *pid_str, char **ret) {
        g_autofree char *path = g_strdup_printf("/proc/%s/cgroup", pid_str);
        g_autofree char *data = NULL;
        size_t size;
        int r = read_full_file(path, &data, &size);

        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        /* cgroup v2: one line "0::/path". */
        g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
        for (char **l = lines; *l; l++)
                if (g_str_has_prefix(*l, "0::")) {
                        *ret = g_strdup(*l + 3);
                        return 0;
                }
        return -ENOMEDIUM;
}

int assign_resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup) {
        g_autofree char *cgroup = NULL;
        int kind = target_argument_classify(arg, NULL), r;

        if (kind < 0)
                return kind;
        if (kind == TARGET_ARGUMENT_PID) {
                r = cgroup_of_pid(arg, &cgroup);
                if (r < 0)
                        return r;
        } else if (kind == TARGET_ARGUMENT_CGROUP) {
                cgroup = g_strdup(arg);
        } else {
                *ret_key = g_strdup(arg);
                Subject *s = manager_find_subject(m, arg);
                *ret_cgroup = s && s->cgroup ? g_strdup(s->cgroup) : NULL;
                return 0;
        }

        r = cgroup_path_validate(cgroup);
        if (r < 0)
                return r;
        Subject *s = manager_find_subject_by_cgroup(m, cgroup);
        *ret_key = g_strdup(s ? subject_key(s) : cgroup);
        *ret_cgroup = TAKE_PTR(cgroup);
        return 0;
}

int assign_cgroup_owner(Manager *m, const char *cgroup, uid_t *ret) {
        g_autofree char *path = g_build_filename(m->cgroup_root, cgroup, NULL);
        struct stat st;

        /* The path was validated (no "..", no "//"); a symlink is no cgroup. */
        if (lstat(path, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        *ret = st.st_uid;
        return 0;
}

/* The unit of PID 1 whose cgroup is cgroup: any subject there that is no
 * user manager's (one of those may claim any path it likes). */
/* delegation_place()'s units: PID 1's, with a cgroup, from the subjects. */
static bool next_system_unit(void *iter, const char **ret_unit, const char **ret_cgroup) {
        gpointer value;

        while (g_hash_table_iter_next(iter, NULL, &value)) {
                const Subject *s = value;
                if (!s->unit || s->user_unit || !s->cgroup)
                        continue;
                *ret_unit = s->unit;
                *ret_cgroup = s->cgroup;
                return true;
        }
        return false;
}

DelegationPlace assign_delegation_place(Manager *m, const char *path, const char **ret_unit) {
        GHashTableIter it;

        g_hash_table_iter_init(&it, m->subjects);
        return delegation_place(path, next_system_unit, &it, ret_unit);
}

static void add_applying(GPtrArray *out, GHashTable *table, const char *key, bool system_unit, bool owner_known,
                         uid_t owner) {
        GPtrArray *groups = key ? g_hash_table_lookup(table, key) : NULL;

        for (guint i = 0; groups && i < groups->len; i++) {
                RuntimeAssignment *a = g_ptr_array_index(groups, i);
                if (!runtime_assignment_applies(a->uid, key, system_unit, owner_known, owner))
                        continue;
                guint j;
                for (j = 0; j < out->len; j++) {
                        RuntimeAssignment *b = g_ptr_array_index(out, j);
                        if (streq(b->group, a->group))
                                break;
                }
                if (j == out->len)
                        g_ptr_array_add(out, a);
                else if (a->uid == 0)
                        out->pdata[j] = a; /* root's is the one that says most */
        }
}

GPtrArray *runtime_assignments_for(GHashTable *table, const Subject *s, bool owner_known, uid_t owner) {
        GPtrArray *out = g_ptr_array_new();
        const char *key = subject_key(s);
        bool system_unit = s->unit && !s->user_unit;

        add_applying(out, table, key, system_unit, owner_known, owner);
        if (s->cgroup && !streq_ptr(key, s->cgroup))
                add_applying(out, table, s->cgroup, system_unit, owner_known, owner);
        g_ptr_array_add(out, NULL);
        return out;
}

static unsigned count_entries(GHashTable *table, uid_t uid) {
        GHashTableIter it;
        gpointer value;
        unsigned n = 0;

        g_hash_table_iter_init(&it, table);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                GPtrArray *groups = value;
                for (guint i = 0; i < groups->len; i++)
                        n += ((const RuntimeAssignment *) g_ptr_array_index(groups, i))->uid == uid;
        }
        return n;
}

static bool table_has(GHashTable *table, const char *key, const char *group, uid_t uid) {
        GPtrArray *groups = g_hash_table_lookup(table, key);
        for (guint i = 0; groups && i < groups->len; i++) {
                const RuntimeAssignment *a = g_ptr_array_index(groups, i);
                if (a->uid == uid && streq(a->group, group))
                        return true;
        }
        return false;
}

bool assign_has_runtime_entry(Manager *m, const char *key, const char *group, uid_t uid) {
        return table_has(m->assignments, key, group, uid) || table_has(m->exclusions, key, group, uid);
}

unsigned assign_count_runtime_entries(Manager *m, uid_t uid) {
        return count_entries(m->assignments, uid) + count_entries(m->exclusions, uid);
}

static bool table_remove(GHashTable *table, const char *key, const char *group) {
        GPtrArray *groups = g_hash_table_lookup(table, key);
        for (guint i = 0; groups && i < groups->len; i++)
                if (streq(((const RuntimeAssignment *) g_ptr_array_index(groups, i))->group, group)) {
                        g_ptr_array_remove_index(groups, i);
                        if (groups->len == 0)
                                g_hash_table_remove(table, key);
                        return true;
                }
        return false;
}


int assign_set(Manager *m, const char *key, const char *group, bool assign, uid_t uid) {
        Subject *s;
        int r;

        if (assign && key[0] == '/') {
                g_autofree char *path = g_build_filename(m->cgroup_root, key, NULL);
                if (!g_file_test(path, G_FILE_TEST_IS_DIR))
                        return -ENXIO;
        }
        if (assign) {
                table_remove(m->exclusions, key, group);
                assignment_table_add(m->assignments, key, group, uid);
        } else {
                bool was_runtime = table_remove(m->assignments, key, group);
                s = manager_find_subject(m, key);
                bool member = s && membership_list_has(s->memberships, group);
                if (!was_runtime && !member)
                        return -ENOENT;
                /* Unassign means "not in this group": if another source
                 * (unit file, [Match]) would still put it there, exclude it. */
                if (s && was_runtime) {
                        manager_apply_subject(m, s);
                        member = membership_list_has(s->memberships, group);
                }
                if (member)
                        assignment_table_add(m->exclusions, key, group, uid);
        }

        /* --revert holds none of the administrator's: the file is theirs. */
        if (!m->dry_run && !m->revert) {
                r = state_save_assignments(m->state_dir, m->assignments, m->exclusions);
                if (r < 0)
                        log_warning_errno(r, "Failed to save runtime assignments to %s: %m", m->state_dir);
        }

        s = manager_find_subject(m, key);
        if (!s && key[0] == '/')
                s = subject_new(m, NULL, key);
        if (s)
                manager_apply_subject(m, s);
        return 0;
}
