/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "conf-parse.h"
#include "log.h"
#include "manager.h"
#include "policy-values.h"
#include "state-store.h"
#include "util.h"

/* Escaped keys longer than this get a hash in place of their tail, so that
 * a deep cgroup path still makes a file name within NAME_MAX (255). */
#define STATE_NAME_KEEP 160

char *state_file_name(const char *key) {
        g_autofree char *escaped = g_uri_escape_string(key, NULL, FALSE);
        if (strlen(escaped) <= STATE_NAME_KEEP + 1 + 64)
                return TAKE_PTR(escaped);
        g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key, -1);
        /* Never cut an escape sequence in two. */
        size_t n = STATE_NAME_KEEP;
        while (n > 0 && (escaped[n - 1] == '%' || (n > 1 && escaped[n - 2] == '%')))
                n--;
        return g_strdup_printf("%.*s~%s", (int) n, escaped, hash);
}

static bool state_file_name_is_hashed(const char *name) {
        size_t n = strlen(name);
        if (n < 65 || name[n - 65] != '~')
                return false;
        for (const char *p = name + n - 64; *p; p++)
                if (!g_ascii_isxdigit(*p) || g_ascii_isupper(*p))
                        return false;
        return true;
}

char *state_file_name_to_key(const char *name) {
        /* Unescaped, a hashed name would pass for the name of another key. */
        if (state_file_name_is_hashed(name))
                return NULL;
        g_autofree char *key = g_uri_unescape_string(name, NULL);
        if (!key)
                return NULL;
        /* One no key makes (escaped otherwise). */
        g_autofree char *again = state_file_name(key);
        return streq(again, name) ? TAKE_PTR(key) : NULL;
}

static char *state_path(const char *dir, const char *sub, const char *key) {
        g_autofree char *name = state_file_name(key);
        return g_build_filename(dir, sub, name, NULL);
}

static int ensure_dir(const char *dir, const char *sub) {
        g_autofree char *p = g_build_filename(dir, sub, NULL);
        if (g_mkdir_with_parents(p, 0700) < 0)
                return -errno;
        return 0;
}

/* Writes path, in dir/sub: made only when the write finds it missing,
 * not before every write of a record. Without fsync: a record describes
 * cgroups and runtime properties, which do not outlive the machine either;
 * it must outlive policyd, and the rename gives that. (It is one syscall
 * fewer on the path of every focus change, and in /run a no-op anyway.) */
static int write_file_in_state_dir(const char *dir, const char *sub, const char *path, const char *text) {
        int r = write_file_atomic(path, text, 0600, 0);
        if (r != -ENOENT)
                return r;
        r = ensure_dir(dir, sub);
        if (r < 0)
                return r;
        return write_file_atomic(path, text, 0600, 0);
}

static void append_assignment_lines(GString *out, char sign, GHashTable *table) {
        GHashTableIter it;
        gpointer key, value;

        g_hash_table_iter_init(&it, table);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                GPtrArray *groups = value;
                g_autofree char *k = g_strescape(key, NULL);
                for (guint i = 0; i < groups->len; i++) {
                        const RuntimeAssignment *a = g_ptr_array_index(groups, i);
                        g_string_append_printf(out, "%c\t%s\t%s", sign, k, a->group);
                        if (a->uid != 0)
                                g_string_append_printf(out, "\t%" PRIu32, (uint32_t) a->uid);
                        g_string_append_c(out, '\n');
                }
        }
}

int state_save_assignments(const char *dir, GHashTable *assignments, GHashTable *exclusions) {
        g_autoptr(GString) out = g_string_new("# policyd runtime assignments; written by policyd, do not edit\n");
        g_autofree char *path = g_build_filename(dir, "assignments", NULL);
        int r;

        r = ensure_dir(dir, ".");
        if (r < 0)
                return r;
        append_assignment_lines(out, '+', assignments);
        append_assignment_lines(out, '-', exclusions);
        return write_file_atomic(path, out->str, 0600, WRITE_FILE_SYNC);
}

void runtime_assignment_free(RuntimeAssignment *a) {
        if (!a)
                return;
        g_free(a->group);
        g_free(a);
}

void assignment_table_add(GHashTable *table, const char *key, const char *group, uid_t uid) {
        GPtrArray *groups = g_hash_table_lookup(table, key);
        if (!groups) {
                groups = g_ptr_array_new_with_free_func((GDestroyNotify) runtime_assignment_free);
                g_hash_table_insert(table, g_strdup(key), groups);
        }
        for (guint i = 0; i < groups->len; i++) {
                RuntimeAssignment *a = g_ptr_array_index(groups, i);
                if (streq(a->group, group)) {
                        if (a->uid != 0)
                                a->uid = uid;
                        return;
                }
        }
        RuntimeAssignment *a = g_new0(RuntimeAssignment, 1);
        a->group = g_strdup(group);
        a->uid = uid;
        g_ptr_array_add(groups, a);
}

int state_load_assignments(const char *dir, GHashTable *assignments, GHashTable *exclusions) {
        g_autofree char *path = g_build_filename(dir, "assignments", NULL);
        g_autofree char *data = NULL;
        size_t size;
        int r;

        r = read_full_file(path, &data, &size);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "Failed to read %s, runtime assignments are lost: %m", path);

        g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
        unsigned n = 0;
        for (char **l = lines; *l; l++) {
                n++;
                if (**l == '\0' || **l == '#')
                        continue;
                g_auto(GStrv) f = g_strsplit(*l, "\t", 4);
                guint nf = g_strv_length(f);
                uint32_t uid = 0; /* lines of older versions, and root's */
                if ((nf != 3 && nf != 4) || (!streq(f[0], "+") && !streq(f[0], "-")) ||
                    validate_group_name(f[2], NULL) < 0 || (nf == 4 && (parse_uid(f[3], &uid) < 0 || uid == 0))) {
                        log_warning("%s:%u: malformed line, ignoring it", path, n);
                        continue;
                }
                g_autofree char *key = g_strcompress(f[1]);
                assignment_table_add(streq(f[0], "+") ? assignments : exclusions, key, f[2], (uid_t) uid);
        }
        return 0;
}

int state_save_cgroup_record_file(const char *dir, const char *name, const CgroupRecord *record) {
        g_autofree char *path = g_build_filename(dir, "cgroups", name, NULL);

        if (!record || record->items->len == 0) {
                if (unlink(path) < 0 && errno != ENOENT)
                        return -errno;
                return 0;
        }
        g_autofree char *text = cgroup_record_serialize(record);
        return write_file_in_state_dir(dir, "cgroups", path, text);
}

int state_save_cgroup_record(const char *dir, const char *key, const CgroupRecord *record) {
        g_autofree char *name = state_file_name(key);
        return state_save_cgroup_record_file(dir, name, record);
}

#define INTENT_FILE "cgroups.intent"

int state_intent_append(const char *dir, int *fd, const char *key, const char *text) {
        g_autofree char *name = state_file_name(key);
        g_autofree char *escaped = g_strescape(text, NULL);
        g_autofree char *line = g_strconcat(name, "\t", escaped, "\n", NULL);
        size_t len = strlen(line);
        ssize_t n;

        if (*fd < 0) {
                g_autofree char *path = g_build_filename(dir, INTENT_FILE, NULL);
                int r = ensure_dir(dir, ".");
                if (r < 0)
                        return r;
                *fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
                if (*fd < 0)
                        return -errno;
        }
        /* One write: O_APPEND puts it whole after the last, and a write cut
         * short by SIGKILL leaves a line without its newline. */
        n = write(*fd, line, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len) {
                /* No room for all of it (ENOSPC in /run): the half line goes,
                 * not to be followed by a whole one; the lines before stay. */
                off_t end = lseek(*fd, 0, SEEK_CUR);
                if (end < n || ftruncate(*fd, end - n) < 0)
                        log_warning("Failed to cut a half line off %s/%s: a restart drops it with the line after it",
                                    dir, INTENT_FILE);
                return -ENOSPC;
        }
        return 0;
}

bool state_intent_holds_lines(const char *dir) {
        g_autofree char *path = g_build_filename(dir, INTENT_FILE, NULL);
        struct stat st;

        return stat(path, &st) >= 0 && st.st_size > 0;
}

int state_intent_clear(int fd) {
        return ftruncate(fd, 0) < 0 ? -errno : 0;
}

int state_intent_replay(const char *dir) {
        g_autofree char *path = g_build_filename(dir, INTENT_FILE, NULL);
        g_autofree char *data = NULL;
        g_autoptr(GHashTable) last = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        size_t size;
        int r, carried = 0;

        r = read_full_file(path, &data, &size);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_warning_errno(r, "Failed to read %s, the records written last may be lost: %m", path);

        g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
        guint n = g_strv_length(lines);
        /* What follows the last newline is a write cut short, or nothing. */
        for (guint i = 0; i + 1 < n; i++) {
                const char *tab = strchr(lines[i], '\t');
                g_autofree char *name = tab ? g_strndup(lines[i], (size_t) (tab - lines[i])) : NULL;
                g_autofree char *key = name ? state_file_name_to_key(name) : NULL;
                /* A hashed name stands for a key it does not hold. */
                bool name_ok = name && !strchr(name, '/') && !streq(name, ".") && !streq(name, "..") &&
                               (key || state_file_name_is_hashed(name));
                g_autofree char *text = tab ? g_strcompress(tab + 1) : NULL;
                g_autoptr(CgroupRecord) rec = NULL;

                if (!name_ok || (*text && cgroup_record_parse(text, &rec) < 0)) {
                        log_warning("%s:%u: malformed line, ignoring it", path, i + 1);
                        continue;
                }
                g_hash_table_replace(last, g_steal_pointer(&name), g_steal_pointer(&text));
        }

        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, last);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                g_autoptr(CgroupRecord) rec = NULL;
                if (*(const char *) value)
                        (void) cgroup_record_parse(value, &rec);
                r = state_save_cgroup_record_file(dir, key, rec);
                if (r < 0)
                        /* The log stays, for the next start. */
                        return log_warning_errno(r, "Failed to carry %s from %s into its record: %m",
                                                 (const char *) key, path);
                carried++;
        }
        if (unlink(path) < 0 && errno != ENOENT)
                return log_warning_errno(-errno, "Failed to remove %s: %m", path);
        return carried;
}

int state_load_cgroup_record_file(const char *dir, const char *name, CgroupRecord **ret) {
        g_autofree char *path = g_build_filename(dir, "cgroups", name, NULL);
        g_autofree char *data = NULL;
        size_t size;
        int r;

        r = read_full_file(path, &data, &size);
        if (r < 0)
                return r;
        return cgroup_record_parse(data, ret);
}

int state_load_cgroup_record(const char *dir, const char *key, CgroupRecord **ret) {
        g_autofree char *name = state_file_name(key);
        int r;

        r = state_load_cgroup_record_file(dir, name, ret);
        if (r == -EBADMSG)
                log_warning_errno(r, "Failed to parse %s/cgroups/%s, forgetting what it recorded: %m", dir, name);
        return r;
}

int state_list_records(const char *dir, const char *sub, GPtrArray **ret) {
        g_autofree char *path = g_build_filename(dir, sub, NULL);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        DIR *d;
        struct dirent *de;

        d = opendir(path);
        if (!d && errno != ENOENT)
                return -errno;
        while (d && (errno = 0, de = readdir(d))) {
                struct stat st;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                        g_ptr_array_add(names, g_strdup(de->d_name));
        }
        int r = d && errno != 0 ? -errno : 0;
        if (d)
                closedir(d);
        if (r < 0)
                return r;
        g_ptr_array_sort(names, strcmp_ptr);
        *ret = TAKE_PTR(names);
        return 0;
}

int state_remove_record(const char *dir, const char *sub, const char *name) {
        g_autofree char *path = g_build_filename(dir, sub, name, NULL);
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

void property_record_free(PropertyRecord *r) {
        if (!r)
                return;
        g_free(r->property);
        g_free(r->previous);
        g_free(r->written);
        g_free(r);
}

char *property_records_serialize(const GPtrArray *records) {
        GString *out = g_string_new(NULL);

        for (guint i = 0; records && i < records->len; i++) {
                const PropertyRecord *p = g_ptr_array_index(records, i);
                g_autofree char *prev = g_strescape(p->previous, NULL);
                g_autofree char *written = g_strescape(p->written, NULL);
                g_string_append_printf(out, "%s\t%s\t%s\n", p->property, prev, written);
        }
        return g_string_free(out, FALSE);
}

int state_save_property_records(const char *dir, const char *key, const GPtrArray *records) {
        g_autofree char *path = state_path(dir, "properties", key);

        if (!records || records->len == 0) {
                if (unlink(path) < 0 && errno != ENOENT)
                        return -errno;
                return 0;
        }
        g_autofree char *text = property_records_serialize(records);
        return write_file_in_state_dir(dir, "properties", path, text);
}

int state_load_property_records(const char *dir, const char *key, GPtrArray *records) {
        g_autofree char *path = state_path(dir, "properties", key);
        g_autofree char *data = NULL;
        size_t size;
        int r;

        r = read_full_file(path, &data, &size);
        if (r < 0)
                return r == -ENOENT ? 0 : r;

        g_auto(GStrv) lines = g_strsplit(data, "\n", -1);
        for (char **l = lines; *l; l++) {
                if (**l == '\0')
                        continue;
                g_auto(GStrv) f = g_strsplit(*l, "\t", 3);
                if (g_strv_length(f) != 3) {
                        log_warning("%s: malformed line, ignoring it", path);
                        continue;
                }
                PropertyRecord *p = g_new0(PropertyRecord, 1);
                p->property = g_strdup(f[0]);
                p->previous = g_strcompress(f[1]);
                p->written = g_strcompress(f[2]);
                g_ptr_array_add(records, p);
        }
        return 0;
}
