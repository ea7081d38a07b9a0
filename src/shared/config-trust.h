/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether a configuration file may steer a root daemon: the rule (pure) and
 * the open that gathers its facts without a window between check and use. */

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "conf-parse.h"
#include "diagnostics.h"

/* A file or a directory on the way to one is trusted when it belongs to root
 * (or to the user running the program, so that users can verify their own
 * trees) and nobody else may change it: no write bit for its group or for
 * others, except on a sticky directory, where others may add names but
 * never replace ours. Returns true, or false with *ret_why set. */
bool config_inode_trusted(const struct stat *st, uid_t caller, const char **ret_why);

/* Whether uid may reach an inode by its mode bits alone: search a directory
 * or read a file, as its owner, or else as its group and as anybody both
 * (whether uid is in the group is not known here). ACLs are not counted: a
 * file only a group or an ACL lets the user read is refused. uid 0 reads
 * all. */
bool config_inode_readable_by(const struct stat *st, uid_t uid, const char **ret_why);

/* Opens path for reading, checking every directory on the way and the file
 * itself with config_inode_trusted(), on the opened descriptors. A symbolic
 * link is followed only where it lies in a trusted directory (so only root
 * could have made it), and its target is checked the same way. A refusal is
 * a warning in diags that names the file (and the directory, where that is
 * what failed), and -EPERM. Other errors (ENOENT) are returned unlogged. */
int config_file_open_trusted(const char *path, Diagnostics *diags, int *ret_fd);

/* Opens path for reading as uid could: a file the user names (a unit file
 * of their own manager's) is read by root only where the user may read it,
 * every directory on the way searchable by uid and the file readable by it,
 * by config_inode_readable_by(), on the opened descriptors; a link is
 * followed wherever it is, its target's way checked the same. A regular file
 * only (never a FIFO, whose open would wait). Errors as above. */
int config_file_open_as_user(const char *path, uid_t uid, Diagnostics *diags, int *ret_fd);

/* Opens path as config_file_open_trusted() does and parses it. A file that
 * cannot be read or is refused is -errno, with a diagnostic naming it. */
int config_file_parse_trusted(const char *path, ConfFile **ret, Diagnostics *diags);

/* Opens path as config_file_open_as_user() does and parses it. */
int config_file_parse_as_user(const char *path, uid_t uid, ConfFile **ret, Diagnostics *diags);
