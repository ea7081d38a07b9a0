/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <glib.h>
#include <libmount/libmount.h>

#include "cgroupfs.h"
#include "util.h"

typedef struct libmnt_table MountTable;
typedef struct libmnt_iter MountIter;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MountTable, mnt_unref_table)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(MountIter, mnt_free_iter)

int cgroupfs_find_mount(char **ret) {
        g_autoptr(MountTable) table = mnt_new_table();
        g_autoptr(MountIter) iter = mnt_new_iter(MNT_ITER_FORWARD);
        g_autofree char *found = NULL;
        struct libmnt_fs *fs;
        int r;

        if (!table || !iter)
                return -ENOMEM;
        r = mnt_table_parse_mtab(table, "/proc/self/mountinfo");
        if (r < 0)
                return r;
        while (mnt_table_next_fs(table, iter, &fs) == 0) {
                const char *target = mnt_fs_get_target(fs);
                if (!streq_ptr(mnt_fs_get_fstype(fs), "cgroup2") || !target)
                        continue;
                /* The unified hierarchy at /sys/fs/cgroup beats a hybrid's "unified". */
                if (!found || streq(target, "/sys/fs/cgroup")) {
                        g_free(found);
                        found = g_strdup(target);
                }
        }
        if (!found)
                return -ENOMEDIUM;
        *ret = TAKE_PTR(found);
        return 0;
}
