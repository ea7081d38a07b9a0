/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "system-common.h"

void die(const char *format, ...) {
        va_list ap;

        fflush(stdout);
        fprintf(stderr, "%s: ", program_invocation_short_name);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(EXIT_FAILURE);
}

uint64_t now_usec(void) {
        struct timespec ts;

        if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
                die("clock_gettime: %m");
        return (uint64_t) ts.tv_sec * 1000000U + (uint64_t) ts.tv_nsec / 1000U;
}

static uint64_t parse_value(const char *option, const char *value) {
        char *end;
        unsigned long long v;

        if (strcmp(value, "max") == 0 || strcmp(value, "infinity") == 0)
                return VALUE_MAX;
        errno = 0;
        v = strtoull(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0' || value[0] == '-')
                die("%s: not a number of bytes or \"max\": %s", option, value);
        return v;
}

int unit_state_option(UnitState *state, const char *option, const char *value) {
        char *eq;

        if (strcmp(option, "swap-max") == 0) {
                state->swap_max = parse_value(option, value);
                state->given |= 1;
        } else if (strcmp(option, "swap-high") == 0) {
                state->swap_high = parse_value(option, value);
                state->given |= 2;
        } else if (strcmp(option, "zswap-writeback") == 0) {
                if (strcmp(value, "yes") == 0)
                        state->zswap_writeback = true;
                else if (strcmp(value, "no") == 0)
                        state->zswap_writeback = false;
                else
                        die("--zswap-writeback takes yes or no, not %s", value);
                state->given |= 4;
        } else if (strcmp(option, "xattr") == 0) {
                eq = strchr(value, '=');
                if (eq) {
                        *eq = '\0';
                        state->xattr_value = eq + 1;
                } else
                        state->xattr_value = NULL;
                state->xattr_name = value;
                if (strncmp(value, "user.", 5) != 0)
                        die("--xattr: only user.* attributes, not %s", value);
                state->given |= 8;
        } else
                return 0;
        state->set = state->given == 15;
        return 1;
}

void unit_state_require(const UnitState *state, const char *program) {
        if (!state->set)
                die("%s needs all of --swap-max, --swap-high, --zswap-writeback and --xattr", program);
}

int slice_cgroup_path(const char *slice, char **ret) {
        size_t len = strlen(slice), suffix = strlen(".slice"), cap;
        char *path, *p;

        if (len <= suffix || strcmp(slice + len - suffix, ".slice") != 0)
                return -EINVAL;
        if (strcmp(slice, "-.slice") == 0) {
                path = strdup("");
                if (!path)
                        return -ENOMEM;
                *ret = path;
                return 0;
        }
        /* Each prefix up to a dash is a parent: a-b-c.slice lives in
         * /a.slice/a-b.slice/a-b-c.slice. */
        cap = len * len + 1;
        path = calloc(1, cap);
        if (!path)
                return -ENOMEM;
        p = path;
        for (size_t i = 0; i < len - suffix; i++) {
                if (slice[i] != '-')
                        continue;
                p += snprintf(p, cap - (size_t) (p - path), "/%.*s.slice", (int) i, slice);
        }
        snprintf(p, cap - (size_t) (p - path), "/%s", slice);
        *ret = path;
        return 0;
}

bool slice_is_within(const char *unit_slice, const char *slice) {
        size_t n = strlen(slice) - strlen(".slice");

        if (strcmp(unit_slice, slice) == 0)
                return true;
        if (strcmp(slice, "-.slice") == 0)
                return true;
        return strncmp(unit_slice, slice, n) == 0 && unit_slice[n] == '-';
}

int unit_cgroup_dir(const char *slice, const char *unit, char **ret) {
        char *slice_path = NULL;
        int r;

        r = slice_cgroup_path(slice, &slice_path);
        if (r < 0)
                return r;
        r = asprintf(ret, "%s%s/%s", CGROUP_ROOT, slice_path, unit);
        free(slice_path);
        return r < 0 ? -ENOMEM : 0;
}

static int write_file_at(int dir_fd, const char *name, const char *value) {
        int fd, r = 0;
        size_t len = strlen(value);

        fd = openat(dir_fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (write(fd, value, len) != (ssize_t) len)
                r = -errno;
        close(fd);
        return r;
}

/* The first line of NAME in DIR_FD, without its newline. */
static int read_file_at(int dir_fd, const char *name, char *buf, size_t size) {
        int fd;
        ssize_t n;

        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        if (n < 0) {
                n = -errno;
                close(fd);
                return (int) n;
        }
        close(fd);
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

static void format_value(uint64_t v, char *buf, size_t size) {
        if (v == VALUE_MAX)
                snprintf(buf, size, "max");
        else
                snprintf(buf, size, "%" PRIu64, v);
}

int unit_state_write_direct(int dir_fd, const UnitState *state) {
        char value[32];
        int r;

        format_value(state->swap_high, value, sizeof value);
        r = write_file_at(dir_fd, "memory.swap.high", value);
        if (r < 0)
                return r;
        if (state->xattr_value) {
                if (fsetxattr(dir_fd, state->xattr_name, state->xattr_value, strlen(state->xattr_value), 0) < 0)
                        return -errno;
        } else if (fremovexattr(dir_fd, state->xattr_name) < 0 && errno != ENODATA)
                return -errno;
        return 0;
}

static int check_file(int dir_fd, const char *name, const char *expected) {
        char buf[64];
        int r;

        r = read_file_at(dir_fd, name, buf, sizeof buf);
        if (r < 0)
                return r;
        return strcmp(buf, expected) == 0;
}

int unit_state_check(int dir_fd, const UnitState *state) {
        char value[256];
        ssize_t n;
        int r;

        /* The attribute first: one call, and the step most likely missing. */
        n = fgetxattr(dir_fd, state->xattr_name, value, sizeof value - 1);
        if (n < 0 && errno != ENODATA)
                return -errno;
        if (state->xattr_value) {
                if (n < 0)
                        return 0;
                value[n] = '\0';
                if (strcmp(value, state->xattr_value) != 0)
                        return 0;
        } else if (n >= 0)
                return 0;

        format_value(state->swap_high, value, sizeof value);
        r = check_file(dir_fd, "memory.swap.high", value);
        if (r <= 0)
                return r;
        format_value(state->swap_max, value, sizeof value);
        r = check_file(dir_fd, "memory.swap.max", value);
        if (r <= 0)
                return r;
        return check_file(dir_fd, "memory.zswap.writeback", state->zswap_writeback ? "1" : "0");
}

void unit_state_describe(int dir_fd, char *buf, size_t size) {
        char swap_max[32] = "?", swap_high[32] = "?", writeback[8] = "?", tag[128] = "(none)";
        ssize_t n;

        (void) read_file_at(dir_fd, "memory.swap.max", swap_max, sizeof swap_max);
        (void) read_file_at(dir_fd, "memory.swap.high", swap_high, sizeof swap_high);
        (void) read_file_at(dir_fd, "memory.zswap.writeback", writeback, sizeof writeback);
        n = flistxattr(dir_fd, tag, sizeof tag - 1);
        if (n > 0) {
                tag[n] = '\0';
                for (ssize_t i = 0; i < n - 1; i++)
                        if (tag[i] == '\0')
                                tag[i] = ',';
        }
        snprintf(buf, size, "memory.swap.max=%s memory.swap.high=%s memory.zswap.writeback=%s xattrs=%s",
                 swap_max, swap_high, writeback, tag);
}

int unit_state_set_properties_message(sd_bus *bus, const char *unit, const UnitState *state,
                                      sd_bus_message **ret) {
        sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                           "org.freedesktop.systemd1.Manager", "SetUnitProperties");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "sb", unit, 1);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)", "MemorySwapMax", "t", state->swap_max);
        if (r >= 0)
                r = sd_bus_message_append(m, "(sv)", "MemoryZSwapWriteback", "b", (int) state->zswap_writeback);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0) {
                sd_bus_message_unref(m);
                return r;
        }
        *ret = m;
        return 0;
}
