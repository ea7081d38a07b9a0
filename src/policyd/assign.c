/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "apply.h"
#include "assign.h"
#include "log.h"
#include "manager.h"
#include "state-store.h"
#include "systemd-watch.h"
#include "target-argument.h"
#include "unit-lookup.h"
#include "util.h"

Subject *manager_find_subject_by_cgroup(Manager *m, const char *cgroup) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, m->subjects);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Subject *s = value;
                if (s->cgroup && streq(s->cgroup, cgroup))
                        return s;
        }
        return NULL;
}

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

int manager_resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup) {
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
        *ret_key = g_strdup(s && s->unit ? subject_key(s) : cgroup);
        *ret_cgroup = TAKE_PTR(cgroup);
        return 0;
}

static bool table_remove(GHashTable *table, const char *key, const char *group) {
        GPtrArray *groups = g_hash_table_lookup(table, key);
        for (guint i = 0; groups && i < groups->len; i++)
                if (streq(g_ptr_array_index(groups, i), group)) {
                        g_ptr_array_remove_index(groups, i);
                        if (groups->len == 0)
                                g_hash_table_remove(table, key);
                        return true;
                }
        return false;
}


int manager_assign(Manager *m, const char *key, const char *group, bool assign) {
        Subject *s;
        int r;

        if (assign && key[0] == '/') {
                g_autofree char *path = g_build_filename(m->cgroup_root, key, NULL);
                if (!g_file_test(path, G_FILE_TEST_IS_DIR))
                        return -ENXIO;
        }
        if (assign) {
                table_remove(m->exclusions, key, group);
                assignment_table_add(m->assignments, key, group);
        } else {
                bool was_runtime = table_remove(m->assignments, key, group);
                s = manager_find_subject(m, key);
                bool member = s && membership_list_has(s->memberships, group);
                if (!was_runtime && !member)
                        return -ENOENT;
                /* Unassign means "not in this group": if another source
                 * (unit file, [Match]) would still put it there, exclude it. */
                if (s && was_runtime) {
                        subject_apply(s);
                        member = membership_list_has(s->memberships, group);
                }
                if (member)
                        assignment_table_add(m->exclusions, key, group);
        }

        if (!m->dry_run) {
                r = state_save_assignments(m->state_dir, m->assignments, m->exclusions);
                if (r < 0)
                        log_warning_errno(r, "Failed to save runtime assignments to %s: %m", m->state_dir);
        }

        s = manager_find_subject(m, key);
        if (!s && key[0] == '/')
                s = subject_new(m, NULL, key);
        if (s)
                subject_apply(s);
        return 0;
}
