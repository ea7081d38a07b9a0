/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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
        assert(key);

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

        assert(out && table);
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
        GPtrArray *groups;

        assert(table && key && group);
        groups = g_hash_table_lookup(table, key);
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
/* Between the changes of one line: escaped fields never hold a raw 0x1e. */
#define INTENT_OP_SEPARATOR '\x1e'
/* A longer line is no line policyd writes (an item is bounded by
 * CGROUP_RECORD_PREVIOUS_MAX and NAME_MAX, or was by 64 KiB twice escaped
 * in the older whole-record lines): skipped as malformed. */
#define INTENT_LINE_MAX (1024U * 1024U)
/* Malformed lines named one by one; past that, only counted. */
#define INTENT_WARNINGS_MAX 10U

/* Splits a record's text into its header ("cgroup\tPATH") and a table of
 * its item lines by "KIND\tTARGET". */
static void split_record_text(const char *text, char **ret_header, GHashTable *items, GPtrArray *order) {
        g_auto(GStrv) lines = NULL;

        assert(text && ret_header && items);
        lines = g_strsplit(text, "\n", -1);
        *ret_header = NULL;
        for (guint i = 0; lines[i]; i++) {
                if (*lines[i] == '\0')
                        continue;
                if (i == 0) {
                        *ret_header = g_strdup(lines[i]);
                        continue;
                }
                const char *tab = strchr(lines[i], '\t');
                tab = tab ? strchr(tab + 1, '\t') : NULL;
                if (!tab)
                        continue;
                char *key = g_strndup(lines[i], (size_t) (tab - lines[i]));
                if (order)
                        g_ptr_array_add(order, key);
                g_hash_table_replace(items, key, g_strdup(lines[i]));
        }
}

static void append_op(GString *out, const char *op) {
        assert(out && op);
        if (out->len > 0)
                g_string_append_c(out, INTENT_OP_SEPARATOR);
        g_string_append(out, op);
}

/* Everything up to the last tab: the item without its written value. */
static size_t item_head_len(const char *line) {
        const char *tab = strrchr(line, '\t');
        return tab ? (size_t) (tab - line) : strlen(line);
}

char *state_intent_changes(const char *old_text, const char *new_text) {
        g_autoptr(GHashTable) old_items = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        g_autoptr(GHashTable) new_items = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        g_autoptr(GPtrArray) old_order = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) new_order = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *old_header = NULL, *new_header = NULL;
        g_autoptr(GString) out = g_string_new(NULL);

        if (isempty(new_text)) {
                if (old_text && *old_text == '\0')
                        return NULL;
                return g_strdup("none");
        }
        split_record_text(new_text, &new_header, new_items, new_order);
        if (old_text)
                split_record_text(old_text, &old_header, old_items, old_order);
        /* Another cgroup, or nothing known of what was saved: from scratch. */
        bool reset = !streq_ptr(old_header, new_header);
        if (reset)
                append_op(out, strempty(new_header));

        for (guint i = 0; i < new_order->len; i++) {
                const char *key = g_ptr_array_index(new_order, i);
                const char *line = g_hash_table_lookup(new_items, key);
                const char *old = reset ? NULL : g_hash_table_lookup(old_items, key);
                size_t head = item_head_len(line);

                if (streq_ptr(old, line))
                        continue;
                if (old && item_head_len(old) == head && strncmp(old, line, head) == 0) {
                        /* Only what policyd writes changed (a focus move): not
                         * the value from before, which may be 4 KiB. */
                        g_autofree char *op = g_strconcat("w\t", key, "\t", line + head + 1, NULL);
                        append_op(out, op);
                } else
                        append_op(out, line);
        }
        for (guint i = 0; !reset && i < old_order->len; i++) {
                const char *key = g_ptr_array_index(old_order, i);
                if (!g_hash_table_contains(new_items, key)) {
                        g_autofree char *op = g_strconcat("drop\t", key, NULL);
                        append_op(out, op);
                }
        }
        return out->len > 0 ? g_string_free(g_steal_pointer(&out), FALSE) : NULL;
}

int state_intent_append(const char *dir, int *fd, const char *key, const char *old_text, const char *new_text) {
        assert(dir && fd && key);

        g_autofree char *changes = state_intent_changes(old_text, new_text);
        if (!changes)
                return 0;
        g_autofree char *name = state_file_name(key);
        g_autofree char *line = g_strconcat(name, "\t", changes, "\n", NULL);
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
        return (int) MIN(len, (size_t) INT_MAX);
}

bool state_intent_holds_lines(const char *dir) {
        g_autofree char *path = g_build_filename(dir, INTENT_FILE, NULL);
        struct stat st;

        return stat(path, &st) >= 0 && st.st_size > 0;
}

int state_intent_clear(const char *dir, int fd) {
        if (fd >= 0)
                return ftruncate(fd, 0) < 0 ? -errno : 0;
        /* Not opened by this run: a log the start could not carry whole. */
        g_autofree char *path = g_build_filename(dir, INTENT_FILE, NULL);
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

/* One line of f into line, without its newline: 1; 0 at the end (what
 * follows the last newline, a write cut short, is dropped); -E2BIG for a
 * line over INTENT_LINE_MAX, read to its end and not kept; -errno. */
static int read_line(FILE *f, GString *line) {
        bool too_long = false;
        int c;

        g_string_truncate(line, 0);
        while ((c = getc_unlocked(f)) != EOF) {
                if (c == '\n')
                        return too_long ? -E2BIG : 1;
                if (line->len >= INTENT_LINE_MAX)
                        too_long = true;
                else
                        g_string_append_c(line, (char) c);
        }
        return ferror(f) ? -EIO : 0;
}

/* What the log says of one key so far: its record (NULL: none), from its
 * file when the first line of it changes only part of it. */
typedef struct IntentEntry {
        CgroupRecord *record;
} IntentEntry;

static void intent_entry_free(void *p) {
        IntentEntry *e = p;
        if (!e)
                return;
        cgroup_record_free(e->record);
        g_free(e);
}

/* "KIND<TAB>TARGET[<TAB>WRITTEN]" of a "w" or "drop" change, read as an
 * item's line would be (the same checks, the same strict unescaping). */
static int parse_item_key(const char *rest, bool with_written, AppliedItem **ret) {
        const char *tab = strchr(rest, '\t');
        if (!tab)
                return -EBADMSG;
        const char *tail = strchr(tab + 1, '\t');
        if (with_written != (tail != NULL))
                return -EBADMSG;
        g_autofree char *head = g_strndup(rest, (size_t) ((tail ?: rest + strlen(rest)) - rest));
        g_autofree char *line = g_strconcat(head, "\t1\t\t", tail ? tail + 1 : "", NULL);
        return applied_item_parse(line, ret);
}

/* Applies one change to rec (which it may replace). Changes are absolute
 * (an item's whole line, its written value, its removal, a new record),
 * so a log replayed over a file a checkpoint wrote after some of its lines
 * comes to the same record. */
static int apply_op(const char *op, CgroupRecord **rec) {
        if (streq(op, "none")) {
                g_clear_pointer(rec, cgroup_record_free);
                return 0;
        }
        if (g_str_has_prefix(op, "cgroup\t")) {
                g_autofree char *text = g_strconcat(op, "\n", NULL);
                CgroupRecord *fresh = NULL;
                int r = cgroup_record_parse(text, &fresh);
                if (r < 0)
                        return r;
                cgroup_record_free(*rec);
                *rec = fresh;
                return 0;
        }
        if (!*rec)
                return -EBADMSG; /* a change of no record */
        if (g_str_has_prefix(op, "w\t") || g_str_has_prefix(op, "drop\t")) {
                bool drop = op[0] == 'd';
                g_autoptr(AppliedItem) key = NULL;
                guint index;
                int r = parse_item_key(op + (drop ? strlen("drop\t") : strlen("w\t")), !drop, &key);
                if (r < 0)
                        return r;
                AppliedItem *it = cgroup_record_find(*rec, key->backend, key->target, &index);
                if (!it)
                        return 0; /* dropped later, in a file newer than this line */
                if (drop)
                        g_ptr_array_remove_index((*rec)->items, index);
                else {
                        g_free(it->written);
                        it->written = TAKE_PTR(key->written);
                }
                return 0;
        }
        g_autoptr(AppliedItem) item = NULL;
        guint index;
        int r = applied_item_parse(op, &item);
        if (r < 0)
                return r;
        if (cgroup_record_find(*rec, item->backend, item->target, &index))
                g_ptr_array_remove_index((*rec)->items, index);
        g_ptr_array_add((*rec)->items, TAKE_PTR(item));
        return 0;
}

/* One line: every change of it, or none (a copy takes them first). */
static int apply_line(const char *dir, GHashTable *entries, const char *line) {
        const char *tab = strchr(line, '\t');
        g_autofree char *name = tab ? g_strndup(line, (size_t) (tab - line)) : NULL;
        g_autofree char *key = name ? state_file_name_to_key(name) : NULL;
        /* A hashed name stands for a key it does not hold. */
        if (!name || strchr(name, '/') || streq(name, ".") || streq(name, "..") ||
            (!key && !state_file_name_is_hashed(name)))
                return -EBADMSG;

        const char *rest = tab + 1;
        IntentEntry *e = g_hash_table_lookup(entries, name);
        g_autoptr(CgroupRecord) rec = NULL;
        int r;

        /* A line of an older policyd: the whole record, escaped once more. */
        if (*rest == '\0' || g_str_has_prefix(rest, "cgroup\\t")) {
                g_autofree char *text = g_strcompress(rest);
                if (*text && cgroup_record_parse(text, &rec) < 0)
                        return -EBADMSG;
        } else {
                if (e && e->record) {
                        g_autofree char *copy = cgroup_record_serialize(e->record);
                        if (cgroup_record_parse(copy, &rec) < 0)
                                return -EBADMSG;
                } else if (!e && !g_str_has_prefix(rest, "cgroup\t") && !g_str_has_prefix(rest, "none")) {
                        /* Changes of part of it: its file is the base. */
                        r = state_load_cgroup_record_file(dir, name, &rec);
                        if (r < 0 && r != -ENOENT)
                                return r; /* no base to change: the line is not kept */
                }
                g_auto(GStrv) ops = g_strsplit(rest, (const char[]) { INTENT_OP_SEPARATOR, '\0' }, -1);
                for (char **op = ops; *op; op++) {
                        r = apply_op(*op, &rec);
                        if (r < 0)
                                return r;
                }
        }
        if (!e) {
                e = g_new0(IntentEntry, 1);
                g_hash_table_insert(entries, g_steal_pointer(&name), e);
        }
        cgroup_record_free(e->record);
        e->record = TAKE_PTR(rec);
        return 0;
}

int state_intent_replay(const char *dir, GHashTable *unwritten) {
        g_autofree char *path = g_build_filename(dir, INTENT_FILE, NULL);
        g_autoptr(GHashTable) entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, intent_entry_free);
        g_autoptr(GString) line = g_string_new(NULL);
        unsigned n = 0, malformed = 0;
        int r, carried = 0, failed = 0;
        FILE *f;

        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0
                                       : log_warning_errno(-errno, "Failed to open %s, the records written last are lost: %m",
                                                           path);
        /* Streamed: a log of any size is read, in memory only its records. */
        while ((r = read_line(f, line)) != 0) {
                n++;
                if (r == -EIO) {
                        log_warning("%s: read error after line %u, keeping the lines before it", path, n - 1);
                        break;
                }
                if (r >= 0)
                        r = apply_line(dir, entries, line->str);
                if (r < 0 && ++malformed <= INTENT_WARNINGS_MAX)
                        log_warning("%s:%u: malformed line, ignoring it", path, n);
        }
        fclose(f);
        if (malformed > INTENT_WARNINGS_MAX)
                log_warning("%s: %u malformed lines in all, ignored", path, malformed);

        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, entries);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                const IntentEntry *e = value;
                r = state_save_cgroup_record_file(dir, key, e->record);
                if (r < 0) {
                        /* Kept for the subject that reads it, and written at a checkpoint. */
                        if (failed++ == 0)
                                log_warning_errno(r, "Failed to carry %s from %s into its record, keeping it: %m",
                                                  (const char *) key, path);
                        if (unwritten)
                                g_hash_table_replace(unwritten, g_strdup(key),
                                                     e->record ? cgroup_record_serialize(e->record) : g_strdup(""));
                        continue;
                }
                carried++;
        }
        if (failed > 0)
                /* The log stays until a checkpoint has written them all. */
                return log_warning_errno(-EIO, "%i record%s from %s not written yet", failed,
                                         failed == 1 ? "" : "s", path);
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
                /* A record is made with all three, or loaded with all three. */
                assert(p->property && p->previous && p->written);
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
