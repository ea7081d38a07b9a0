/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whole-file reads and atomic writes, for every program of the project. */

#include <stddef.h>
#include <sys/types.h>

/* Reads a whole file, refusing one larger than CONF_FILE_MAX. The data is
 * NUL-terminated; ret_size does not count the NUL. */
int read_full_file(const char *path, char **ret, size_t *ret_size);

/* The same from an open descriptor, which stays open. */
int read_full_fd(int fd, char **ret, size_t *ret_size);

typedef enum WriteFileFlags {
        /* fsync() before the rename: the file must survive a crash of the
         * machine, not only of the program. */
        WRITE_FILE_SYNC = 1 << 0,
} WriteFileFlags;

/* Writes data to a temporary file next to path (path + ".XXXXXX") with
 * mode, and renames it into place: a reader sees the old file or the new
 * one, never half of one. */
int write_file_atomic(const char *path, const char *data, mode_t mode, WriteFileFlags flags);
