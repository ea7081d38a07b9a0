/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "config-trust.h"
#include "util.h"

/* As the kernel's own limit on links followed in one lookup. */
#define LINKS_MAX 40

bool config_inode_trusted(const struct stat *st, uid_t caller, const char **ret_why) {
        if (st->st_uid != 0 && st->st_uid != caller) {
                *ret_why = "not owned by root";
                return false;
        }
        if (S_ISLNK(st->st_mode))
                return true; /* its mode means nothing; its directory decides */
        if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
                return true;
        if (st->st_mode & S_IWOTH) {
                *ret_why = "writable by others";
                return false;
        }
        if (st->st_mode & S_IWGRP) {
                *ret_why = "writable by its group";
                return false;
        }
        return true;
}

bool config_inode_readable_by(const struct stat *st, uid_t uid, const char **ret_why) {
        bool dir = S_ISDIR(st->st_mode);
        mode_t own = dir ? S_IXUSR : S_IRUSR;
        /* Not the owner: the kernel takes the group's bits if uid is in
         * the group, the others' if not. Which, only the user database
         * says; both allowing is enough either way. */
        mode_t rest = dir ? (S_IXGRP | S_IXOTH) : (S_IRGRP | S_IROTH);

        if (uid == 0 || S_ISLNK(st->st_mode))
                return true; /* a link has no permissions of its own */
        if (st->st_uid == uid ? (st->st_mode & own) != 0 : (st->st_mode & rest) == rest)
                return true;
        *ret_why = S_ISDIR(st->st_mode) ? "not searchable by the user" : "not readable by the user";
        return false;
}

/* What a walk checks each directory, link and the file against. */
typedef struct WalkRule {
        bool (*inode_ok)(const struct stat *st, uid_t uid, const char **ret_why);
        uid_t uid;
} WalkRule;

/* kind: "Directory" or "Link" on the way to path, at where; NULL: path itself. */
static int refuse(Diagnostics *diags, const char *path, const char *kind, const char *where, const char *why,
                  const struct stat *st) {
        g_autofree char *what = streq(why, "not owned by root")
                ? g_strdup_printf("owned by uid %u, not by root", (unsigned) st->st_uid)
                : g_strdup_printf("%s (mode %04o)", why, (unsigned) (st->st_mode & 07777));

        if (kind)
                diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE_TRUST, DIAGNOSTIC_WARNING, path, 0,
                                        "%s %s on the way to this file is %s, refusing it", kind, where, what);
        else
                diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE_TRUST, DIAGNOSTIC_WARNING, path, 0,
                                        "File is %s, refusing it", what);
        return -EPERM;
}

/* Opens the directory a walk starts from and checks it. */
static int open_start(const char *path, const char *file, Diagnostics *diags, const WalkRule *rule, int *ret_fd) {
        const char *start = path[0] == '/' ? "/" : ".";
        _cleanup_close_ int fd = open(start, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        const char *why;

        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if (!rule->inode_ok(&st, rule->uid, &why))
                return refuse(diags, file, "Directory", start, why, &st);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int open_walk(const char *path, const WalkRule *rule, Diagnostics *diags, int *ret_fd) {
        g_autofree char *rest = g_strdup(path);
        g_autofree char *walked = g_strdup(path[0] == '/' ? "" : ".");
        _cleanup_close_ int dir = -1;
        unsigned links = 0;
        int r;

        r = open_start(path, path, diags, rule, &dir);
        if (r < 0)
                return r;

        for (;;) {
                /* Take the next component off rest. */
                char *p = rest;
                while (*p == '/')
                        p++;
                char *end = strchrnul(p, '/');
                bool last = true;
                for (const char *q = end; *q; q++)
                        if (*q != '/') {
                                last = false;
                                break;
                        }
                g_autofree char *name = g_strndup(p, (gsize) (end - p));
                g_autofree char *tail = g_strdup(end);
                g_free(rest);
                rest = TAKE_PTR(tail);

                if (isempty(name) || streq(name, ".")) {
                        if (!last)
                                continue;
                        return -EISDIR;
                }

                struct stat st;
                const char *why;
                _cleanup_close_ int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 || fstat(fd, &st) < 0)
                        return -errno;
                g_autofree char *here = g_strconcat(walked, "/", name, NULL);

                if (S_ISLNK(st.st_mode)) {
                        /* dir is trusted, but a sticky one lets others add
                         * links: only root's (or ours) is followed, and its
                         * target's way is checked from the start. */
                        char target[PATH_MAX];
                        ssize_t n;

                        if (!rule->inode_ok(&st, rule->uid, &why))
                                return refuse(diags, path, "Link", here, why, &st);

                        if (++links > LINKS_MAX)
                                return -ELOOP;
                        n = readlinkat(fd, "", target, sizeof(target) - 1);
                        if (n < 0)
                                return -errno;
                        target[n] = 0;
                        g_autofree char *joined = g_strconcat(target, "/", rest, NULL);
                        g_free(rest);
                        rest = TAKE_PTR(joined);
                        if (target[0] == '/') {
                                dir = safe_close(dir);
                                r = open_start("/", path, diags, rule, &dir);
                                if (r < 0)
                                        return r;
                                g_free(walked);
                                walked = g_strdup("");
                        }
                        continue;
                }

                if (!last) {
                        if (!S_ISDIR(st.st_mode))
                                return -ENOTDIR;
                        if (!rule->inode_ok(&st, rule->uid, &why))
                                return refuse(diags, path, "Directory", here, why, &st);
                        dir = safe_close(dir);
                        dir = TAKE_FD(fd);
                        g_free(walked);
                        walked = TAKE_PTR(here);
                        continue;
                }

                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                if (!S_ISREG(st.st_mode))
                        return -EBADFD;
                if (!rule->inode_ok(&st, rule->uid, &why))
                        return refuse(diags, path, NULL, NULL, why, &st);

                /* The inode just checked, opened for reading: never the path again. */
                int rfd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
                if (rfd < 0)
                        return -errno;
                struct stat again;
                if (fstat(rfd, &again) < 0 || again.st_dev != st.st_dev || again.st_ino != st.st_ino) {
                        safe_close(rfd);
                        return -ESTALE; /* replaced between the two opens */
                }
                *ret_fd = rfd;
                return 0;
        }
}

int config_file_open_trusted(const char *path, Diagnostics *diags, int *ret_fd) {
        const WalkRule rule = { .inode_ok = config_inode_trusted, .uid = geteuid() };
        return open_walk(path, &rule, diags, ret_fd);
}

int config_file_open_as_user(const char *path, uid_t uid, Diagnostics *diags, int *ret_fd) {
        const WalkRule rule = { .inode_ok = config_inode_readable_by, .uid = uid };
        return open_walk(path, &rule, diags, ret_fd);
}

static int parse_opened(const char *path, int r, int fd, ConfFile **ret, Diagnostics *diags) {
        if (r == -EPERM)
                return r; /* said why */
        if (r < 0) {
                conf_read_failed(diags, path, r);
                return r;
        }
        return conf_parse_fd(fd, path, ret, diags);
}

int config_file_parse_trusted(const char *path, ConfFile **ret, Diagnostics *diags) {
        _cleanup_close_ int fd = -EBADF;
        int r = config_file_open_trusted(path, diags, &fd);
        return parse_opened(path, r, fd, ret, diags);
}

int config_file_parse_as_user(const char *path, uid_t uid, ConfFile **ret, Diagnostics *diags) {
        _cleanup_close_ int fd = -EBADF;
        int r = config_file_open_as_user(path, uid, diags, &fd);
        return parse_opened(path, r, fd, ret, diags);
}
