/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small helpers shared by every module. glib's g_autofree/g_autoptr cover heap
 * objects; these cover what glib does not: file descriptors, FILE*, and the
 * TAKE_PTR hand-over idiom. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void closep(int *fd) {
        if (fd && *fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

/* Closes fd if open, keeping errno; returns -1 to store back. */
static inline int safe_close(int fd) {
        closep(&fd);
        return -1;
}

static inline void fclosep(FILE **f) {
        if (f && *f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership over: returns the pointer and clears the variable, so the
 * cleanup handler of the old owner does nothing. */
#define TAKE_PTR(p)                                  \
        ({                                           \
                __typeof__(p) _taken = (p);          \
                (p) = NULL;                          \
                _taken;                              \
        })

#define TAKE_FD(fd)                                  \
        ({                                           \
                int _taken_fd = (fd);                \
                (fd) = -1;                           \
                _taken_fd;                           \
        })

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return streq(a, b);
}

static inline const char *strempty(const char *s) {
        return s ? s : "";
}

static inline bool isempty(const char *s) {
        return !s || !*s;
}

/* A vanished cgroup or process is not an error: it is the normal end of life
 * of the object we were looking at. */
static inline bool errno_is_vanished(int r) {
        r = r < 0 ? -r : r;
        return r == ENOENT || r == ESRCH || r == ENODEV;
}

static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

/* GLib containers take void (*)(gpointer), and our free functions return NULL
 * so callers can write p = foo_free(p). This makes the adapter, foo_free_notify. */
#define DEFINE_FREE_NOTIFY(func, type)                 \
        static inline void func##_notify(gpointer p) { \
                (void) func((type *) p);               \
        }

/* Comparators for g_ptr_array_sort(), which passes pointers to the elements. */
static inline int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static inline int basename_strcmp_ptr(const void *a, const void *b) {
        const char *pa = *(const char *const *) a, *pb = *(const char *const *) b;
        const char *sa = strrchr(pa, '/'), *sb = strrchr(pb, '/');
        return strcmp(sa ? sa + 1 : pa, sb ? sb + 1 : pb);
}
