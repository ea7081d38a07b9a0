/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where the cgroup2 hierarchy is mounted: never assume /sys/fs/cgroup.
 * /sys/fs/cgroup wins over a hybrid setup's "unified". -ENOMEDIUM when
 * there is none. */
int cgroupfs_find_mount(char **ret);
