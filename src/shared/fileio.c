/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "conf-parse.h"
#include "fileio.h"
#include "util.h"

int read_full_file(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK); /* a FIFO is refused, not waited on */
        if (fd < 0)
                return -errno;
        return read_full_fd(fd, ret, ret_size);
}

int read_full_fd(int fd, char **ret, size_t *ret_size) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
                return -EBADFD;
        if (st.st_size > (off_t) CONF_FILE_MAX)
                return -EFBIG;

        g_autoptr(GByteArray) buf = g_byte_array_new();
        uint8_t chunk[16384];
        for (;;) {
                ssize_t k = read(fd, chunk, sizeof(chunk));
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                if (buf->len + (size_t) k > CONF_FILE_MAX)
                        return -EFBIG;
                g_byte_array_append(buf, chunk, (guint) k);
        }

        size_t size = buf->len;
        g_byte_array_append(buf, (const uint8_t *) "", 1); /* NUL-terminate */
        *ret_size = size;
        *ret = (char *) g_byte_array_free(TAKE_PTR(buf), FALSE);
        return 0;
}

/* Asked once: umask() can only be read by setting it, and none of our
 * programs sets another after it starts. */
static mode_t process_umask(void) {
        static mode_t cached = (mode_t) -1;

        if (cached == (mode_t) -1) {
                cached = umask(0);
                (void) umask(cached);
        }
        return cached;
}

int write_file_atomic(const char *path, const char *data, mode_t mode, WriteFileFlags flags) {
        g_autofree char *tmp = g_strdup_printf("%s.XXXXXX", path);
        _cleanup_close_ int fd = -1;
        size_t len = strlen(data);
        int r = 0;

        fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, (int) mode);
        if (fd < 0)
                return -errno;
        while (len > 0 && r == 0) {
                ssize_t k = write(fd, data, len);
                if (k < 0 && errno != EINTR)
                        r = -errno;
                else if (k > 0) {
                        data += k;
                        len -= (size_t) k;
                }
        }
        /* The umask may have narrowed the mode at creation. */
        if (r == 0 && (mode & process_umask()) != 0 && fchmod(fd, mode) < 0)
                r = -errno;
        if (r == 0 && (flags & WRITE_FILE_SYNC) && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}
