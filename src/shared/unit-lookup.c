/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>

#include "policy-values.h"
#include "unit-lookup.h"
#include "util.h"

/* systemd's UNIT_NAME_MAX: names are shorter than this. */
#define UNIT_NAME_MAX 256
/* systemd's FOLLOW_MAX for alias chains in the name map. */
#define ALIAS_FOLLOW_MAX 8
/* systemd's CHASE_MAX for symlinks in one path. */
#define SYMLINK_FOLLOW_MAX 32

struct UnitLookup {
        char *root;              /* NULL for none */
        GPtrArray *search_path;  /* char*, as systemd names the directories */
        GHashTable *ids;         /* name → absolute path (file, link or mask) or the name it aliases */
        GHashTable *names;       /* fragment name → GPtrArray of the names that lead to it */
        GHashTable *dropin_dirs; /* NAME of every NAME.d in a unit directory */
};

static char **array_to_strv(GPtrArray *a) {
        g_ptr_array_add(a, NULL);
        g_ptr_array_set_free_func(a, NULL);
        return (char **) g_ptr_array_free(a, FALSE);
}

/* ---- unit names ---- */

static const char *const unit_types[] = {
        "service", "mount", "swap", "socket", "target", "device", "automount", "timer", "path", "slice", "scope",
};

bool unit_type_is_valid(const char *type) {
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if (streq(type, unit_types[i]))
                        return true;
        return false;
}

static bool unit_chars_valid(const char *s, size_t n, bool at_allowed) {
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!g_ascii_isalnum(s[i]) && !strchr(":-_.\\", s[i]) && !(at_allowed && s[i] == '@'))
                        return false;
        return true;
}

UnitNameKind unit_name_kind(const char *name) {
        const char *dot, *at;

        if (isempty(name) || strlen(name) >= UNIT_NAME_MAX)
                return UNIT_NAME_INVALID;
        dot = strrchr(name, '.');
        if (!dot || dot == name || !unit_type_is_valid(dot + 1))
                return UNIT_NAME_INVALID;
        at = memchr(name, '@', (size_t) (dot - name));
        if (!at)
                return unit_chars_valid(name, (size_t) (dot - name), false) ? UNIT_NAME_PLAIN : UNIT_NAME_INVALID;
        if (!unit_chars_valid(name, (size_t) (at - name), false))
                return UNIT_NAME_INVALID;
        if (at + 1 == dot)
                return UNIT_NAME_TEMPLATE;
        return unit_chars_valid(at + 1, (size_t) (dot - at - 1), true) ? UNIT_NAME_INSTANCE : UNIT_NAME_INVALID;
}

const char *unit_name_type(const char *name) {
        if (unit_name_kind(name) == UNIT_NAME_INVALID)
                return NULL;
        return strrchr(name, '.') + 1;
}

/* The instance of an instance name, or NULL. */
static char *unit_name_instance(const char *name) {
        if (unit_name_kind(name) != UNIT_NAME_INSTANCE)
                return NULL;
        const char *at = strchr(name, '@'), *dot = strrchr(name, '.');
        return g_strndup(at + 1, (gsize) (dot - at - 1));
}

char *unit_name_to_template(const char *name) {
        if (unit_name_kind(name) != UNIT_NAME_INSTANCE)
                return NULL;
        const char *at = strchr(name, '@'), *dot = strrchr(name, '.');
        return g_strdup_printf("%.*s%s", (int) (at - name + 1), name, dot);
}

/* "foo@.service" + "bar" → "foo@bar.service". */
static char *unit_name_with_instance(const char *template, const char *instance) {
        const char *at = strchr(template, '@'), *dot = strrchr(template, '.');
        return g_strdup_printf("%.*s%s%s", (int) (at - template + 1), template, instance, dot);
}

/* Stands for "any instance" in expand(): no name built with it is kept. */
static const char ANY_INSTANCE[] = "*";

static void expand_add(const char *name, GPtrArray *out) {
        for (guint i = 0; i < out->len; i++)
                if (streq(g_ptr_array_index(out, i), name))
                        return; /* reading a directory twice changes nothing */
        g_ptr_array_add(out, g_strdup(name));
}

/* dropin.c's unit_file_find_dirs(), by name only: the unit itself, for an
 * instance its template (recursively), then the dash prefix, recursively.
 * instance is NULL for a plain name, "" for a template. */
static void expand(const char *prefix, const char *instance, const char *type, GPtrArray *out) {
        g_autofree char *name = NULL, *shorter = g_strdup(prefix);
        bool chopped = false;
        char *dash;

        if (!instance)
                name = g_strdup_printf("%s.%s", prefix, type);
        else
                name = g_strdup_printf("%s@%s.%s", prefix, instance == ANY_INSTANCE ? "" : instance, type);
        if (strlen(name) >= UNIT_NAME_MAX)
                return; /* systemd cannot build the name either */
        if (instance != ANY_INSTANCE)
                expand_add(name, out);

        if (instance && *instance)
                expand(prefix, "", type, out);

        /* The last dash-separated part goes; a trailing dash is chopped
         * first, but only once: "a-b-" → "a-", "a--b" → "a--" → "a-". A
         * leading dash ends it. */
        for (;;) {
                dash = strrchr(shorter, '-');
                if (!dash || dash == shorter)
                        return;
                if (dash[1] != '\0' || chopped) {
                        dash[1] = '\0';
                        break;
                }
                *dash = '\0';
                chopped = true;
        }
        /* A template's prefix is a plain name: foo-bar@.service → foo-.service. */
        expand(shorter, instance && *instance ? instance : NULL, type, out);
}

static void expand_name(const char *name, bool any, GPtrArray *out) {
        UnitNameKind kind = unit_name_kind(name);
        const char *dot = strrchr(name, '.'), *at;
        g_autofree char *prefix = NULL, *instance = NULL;

        if (kind == UNIT_NAME_INVALID)
                return;
        at = memchr(name, '@', (size_t) (dot - name));
        prefix = g_strndup(name, (gsize) ((at ? at : dot) - name));
        if (kind == UNIT_NAME_INSTANCE)
                instance = unit_name_instance(name);
        expand(prefix, kind == UNIT_NAME_PLAIN ? NULL :
                       kind == UNIT_NAME_INSTANCE ? instance :
                       any ? ANY_INSTANCE : "",
               dot + 1, out);
}

char **unit_name_dropin_names(const char *name) {
        GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

        expand_name(name, false, out);
        return array_to_strv(out);
}

/* ---- paths below a root ---- */

static char *host_join(const char *root, const char *path) {
        if (!root)
                return g_strdup(path);
        return g_strconcat(root, path, NULL);
}

typedef enum ChaseFlags {
        CHASE_NOFOLLOW = 1 << 0,    /* keep a final symlink */
        CHASE_NONEXISTENT = 1 << 1, /* a missing component ends resolution: the rest is kept as written */
} ChaseFlags;

/* Appends the components of rest to done without resolving them; "." and
 * ".." are still folded. */
static void append_unresolved(GString *done, const char *rest) {
        g_auto(GStrv) parts = g_strsplit(rest, "/", -1);

        for (char **c = parts; *c; c++) {
                if (**c == '\0' || streq(*c, "."))
                        continue;
                if (streq(*c, "..")) {
                        char *s = strrchr(done->str, '/');
                        g_string_truncate(done, s ? (gsize) (s - done->str) : 0);
                        continue;
                }
                g_string_append_c(done, '/');
                g_string_append(done, *c);
        }
}

/* Resolves path (absolute, as seen from inside root) the way systemd's
 * chase() does with a root prefix: every absolute symlink target, at every
 * step, starts again at the root, and ".." never leaves it. Returns the
 * resolved path, still as seen from inside root. A symlink to /dev/null
 * resolves to /dev/null even when the root has no /dev: it is a mask. */
static int chase_below_root(const char *root, const char *path, ChaseFlags flags, char **ret) {
        g_autoptr(GString) done = g_string_new(NULL); /* "" stands for "/" */
        g_autofree char *todo = g_strdup(path);
        const char *p = todo;
        unsigned links = 0;

        for (;;) {
                g_autofree char *comp = NULL, *candidate = NULL, *host = NULL;
                const char *end;
                struct stat st;
                bool last;

                while (*p == '/')
                        p++;
                if (*p == '\0')
                        break;
                end = strchrnul(p, '/');
                comp = g_strndup(p, (gsize) (end - p));
                p = end;
                last = p[strspn(p, "/")] == '\0';

                if (streq(comp, "."))
                        continue;
                if (streq(comp, "..")) {
                        char *s = strrchr(done->str, '/');
                        g_string_truncate(done, s ? (gsize) (s - done->str) : 0);
                        continue;
                }

                candidate = g_strconcat(done->str, "/", comp, NULL);
                if (last && (flags & CHASE_NOFOLLOW)) {
                        g_string_assign(done, candidate);
                        break;
                }

                host = host_join(root, candidate);
                if (lstat(host, &st) < 0) {
                        if (errno == ENOENT && (flags & CHASE_NONEXISTENT)) {
                                g_string_assign(done, candidate);
                                append_unresolved(done, p);
                                break;
                        }
                        return -errno;
                }

                if (S_ISLNK(st.st_mode)) {
                        g_autoptr(GError) error = NULL;
                        g_autofree char *target = g_file_read_link(host, &error);
                        char *next;

                        if (++links > SYMLINK_FOLLOW_MAX)
                                return -ELOOP;
                        if (!target)
                                return error->code == G_FILE_ERROR_NOENT ? -ENOENT : -EIO;
                        if (last && streq(target, "/dev/null")) {
                                g_string_assign(done, "/dev/null");
                                break;
                        }
                        if (g_path_is_absolute(target))
                                g_string_truncate(done, 0);
                        next = g_strconcat(target, "/", p, NULL);
                        g_free(todo);
                        todo = next;
                        p = todo;
                        continue;
                }

                if (!last && !S_ISDIR(st.st_mode))
                        return -ENOTDIR;
                g_string_assign(done, candidate);
        }

        *ret = g_strdup(done->len > 0 ? done->str : "/");
        return 0;
}

/* Where to open a path resolved by chase_below_root(). */
static char *host_path(const UnitLookup *l, const char *resolved) {
        if (l->root && streq(resolved, "/dev/null")) {
                g_autofree char *inside = host_join(l->root, resolved);
                if (!g_file_test(inside, G_FILE_TEST_EXISTS))
                        return g_strdup("/dev/null");
        }
        return host_join(l->root, resolved);
}

char *unit_lookup_file(const UnitLookup *l, const char *path) {
        g_autofree char *resolved = NULL;

        if (!l->root)
                return g_strdup(path); /* the kernel resolves the links as systemd would */
        if (chase_below_root(l->root, path, 0, &resolved) < 0)
                return host_join(l->root, path);
        return host_path(l, resolved);
}

/* "/etc/systemd/system/x" in "/etc/systemd/system" → "x". */
static const char *path_tail_in(const char *path, const char *dir) {
        size_t n = strlen(dir);

        while (n > 0 && dir[n - 1] == '/')
                n--;
        if (strncmp(path, dir, n) != 0 || path[n] != '/')
                return NULL;
        return path + n + 1;
}

/* ---- the name map ---- */

/* unit_validate_alias_symlink_and_warn(): which links are aliases systemd accepts. */
static bool alias_valid(const char *src, const char *dst) {
        static const char *const may_alias[] = { "service", "socket", "target", "device", "timer", "path" };
        static const char *const may_template[] = { "service", "socket", "target", "timer", "path" };
        UnitNameKind sk = unit_name_kind(src), dk = unit_name_kind(dst);
        const char *type = unit_name_type(src);
        bool ok = false;

        if (sk == UNIT_NAME_INVALID || dk == UNIT_NAME_INVALID)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(may_alias); i++)
                ok = ok || streq(type, may_alias[i]);
        if (!ok)
                return false;
        if (sk != UNIT_NAME_PLAIN) {
                ok = false;
                for (size_t i = 0; i < ELEMENTSOF(may_template); i++)
                        ok = ok || streq(type, may_template[i]);
                if (!ok)
                        return false;
        }
        if (!(dk == sk || (sk == UNIT_NAME_INSTANCE && dk == UNIT_NAME_TEMPLATE)))
                return false;
        if (dk == UNIT_NAME_INSTANCE) {
                g_autofree char *a = unit_name_instance(src), *b = unit_name_instance(dst);
                if (!streq(a, b))
                        return false;
        }
        return streq(type, unit_name_type(dst));
}

/* One entry of a unit directory, as unit_file_build_name_map() reads it:
 * the value is the unit file (or the link itself, for linked units and
 * masks), or the name of the unit it aliases; NULL to ignore the entry. */
static char *name_map_value(const UnitLookup *l, const char *dir, const char *name) {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_autofree char *host = host_join(l->root, path);
        g_autofree char *target = NULL, *joined = NULL, *simplified = NULL;
        const char *tail = NULL, *dst;
        struct stat st;

        if (lstat(host, &st) < 0)
                return NULL;
        if (!S_ISLNK(st.st_mode))
                return TAKE_PTR(path);

        target = g_file_read_link(host, NULL);
        if (!target)
                return NULL;
        joined = g_path_is_absolute(target) ? g_strdup(target) : g_build_filename(dir, target, NULL);
        /* Only "." and ".." go, and links on the way: the last component is the name. */
        if (chase_below_root(l->root, joined, CHASE_NOFOLLOW | CHASE_NONEXISTENT, &simplified) < 0)
                return NULL;

        for (guint i = 0; i < l->search_path->len && !tail; i++)
                tail = path_tail_in(simplified, g_ptr_array_index(l->search_path, i));
        if (!tail)
                return TAKE_PTR(path); /* linked (systemctl link) or masked: the link is the fragment */

        /* Inside the search path: an alias, named by the target's file name,
         * even when it is in a subdirectory (systemd warns about that). */
        dst = strrchr(simplified, '/') + 1;
        if (!alias_valid(name, dst) || streq(dst, name))
                return NULL; /* rejected, or a self-alias that does nothing */
        return g_strdup(dst);
}

/* unit_ids_map_get(): follows aliases to an absolute path; an instance
 * reached through an alias falls back to its template. */
static int ids_get(const UnitLookup *l, const char *name, const char **ret) {
        const char *id = NULL;

        for (unsigned n = 0; n < ALIAS_FOLLOW_MAX; n++) {
                const char *t = g_hash_table_lookup(l->ids, id ?: name);

                if (!t) {
                        g_autofree char *template = NULL;

                        if (!id)
                                return -ENOENT;
                        template = unit_name_to_template(id);
                        if (!template)
                                return -ENXIO;
                        t = g_hash_table_lookup(l->ids, template);
                        if (!t)
                                return -ENXIO;
                }
                if (t[0] == '/') {
                        *ret = t;
                        return 0;
                }
                id = t;
        }
        return -ELOOP;
}

/* null_or_empty_path(): 1 for /dev/null (any character device) or an
 * empty file, 0 otherwise, negative when it cannot be resolved. */
static int fragment_file(const UnitLookup *l, const char *fragment, char **ret_file) {
        g_autofree char *resolved = NULL, *file = NULL;
        struct stat st;
        int r;

        if (l->root) {
                r = chase_below_root(l->root, fragment, 0, &resolved);
                if (r < 0)
                        return r;
                file = host_path(l, resolved);
        } else
                file = g_strdup(fragment);
        if (stat(file, &st) < 0)
                return -errno;
        r = S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0);
        *ret_file = TAKE_PTR(file);
        return r;
}

static void names_add(GHashTable *names, const char *dst, const char *src) {
        GPtrArray *a = g_hash_table_lookup(names, dst);

        if (!a) {
                a = g_ptr_array_new_with_free_func(g_free);
                g_hash_table_insert(names, g_strdup(dst), a);
        }
        g_ptr_array_add(a, g_strdup(src));
}

static void scan_dir(UnitLookup *l, const char *dir) {
        g_autofree char *resolved = NULL, *host = NULL;
        g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GDir) d = NULL;
        const char *e;

        if (chase_below_root(l->root, dir, 0, &resolved) < 0)
                return;
        host = host_join(l->root, resolved);
        d = g_dir_open(host, 0, NULL);
        if (!d)
                return;
        while ((e = g_dir_read_name(d)))
                g_ptr_array_add(entries, g_strdup(e));
        /* readdir order decides nothing in systemd either: one name, one entry. */
        g_ptr_array_sort(entries, strcmp_ptr);

        for (guint i = 0; i < entries->len; i++) {
                const char *name = g_ptr_array_index(entries, i);
                char *value;

                if (g_str_has_suffix(name, ".d") && strlen(name) > 2)
                        g_hash_table_add(l->dropin_dirs, g_strndup(name, strlen(name) - 2));
                if (unit_name_kind(name) == UNIT_NAME_INVALID || g_hash_table_contains(l->ids, name))
                        continue; /* the first directory with the name has it */
                value = name_map_value(l, dir, name);
                if (value)
                        g_hash_table_insert(l->ids, g_strdup(name), value);
        }
}

int unit_lookup_new(const char *root, const char *const *search_path, UnitLookup **ret) {
        g_autoptr(UnitLookup) l = g_new0(UnitLookup, 1);
        GHashTableIter it;
        gpointer key;

        if (!isempty(root) && !streq(root, "/")) {
                l->root = g_strdup(root);
                for (size_t n = strlen(l->root); n > 1 && l->root[n - 1] == '/'; n--)
                        l->root[n - 1] = '\0';
        }
        l->search_path = g_ptr_array_new_with_free_func(g_free);
        for (const char *const *d = search_path; d && *d; d++)
                g_ptr_array_add(l->search_path, g_strdup(*d));
        l->ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        l->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
        l->dropin_dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        for (guint i = 0; i < l->search_path->len; i++)
                scan_dir(l, g_ptr_array_index(l->search_path, i));

        /* The reverse map: unit (fragment name, instance put in when an
         * instance links to a template) → every name that leads to it.
         * Masked units have no other names. */
        g_hash_table_iter_init(&it, l->ids);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                g_autofree char *file = NULL, *dst_instance = NULL, *src_instance = NULL;
                const char *src = key, *fragment, *dst;

                if (ids_get(l, src, &fragment) < 0 || fragment_file(l, fragment, &file) != 0)
                        continue;
                dst = strrchr(fragment, '/') + 1;
                src_instance = unit_name_instance(src);
                if (unit_name_kind(dst) == UNIT_NAME_TEMPLATE && src_instance)
                        dst = dst_instance = unit_name_with_instance(dst, src_instance);
                names_add(l->names, dst, src);
        }

        *ret = TAKE_PTR(l);
        return 0;
}

UnitLookup *unit_lookup_free(UnitLookup *l) {
        if (!l)
                return NULL;
        g_free(l->root);
        g_clear_pointer(&l->search_path, g_ptr_array_unref);
        g_clear_pointer(&l->ids, g_hash_table_unref);
        g_clear_pointer(&l->names, g_hash_table_unref);
        g_clear_pointer(&l->dropin_dirs, g_hash_table_unref);
        g_free(l);
        return NULL;
}

static char **sorted_keys(GHashTable *t) {
        GPtrArray *a = g_ptr_array_new();
        GHashTableIter it;
        gpointer key;

        g_hash_table_iter_init(&it, t);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_ptr_array_add(a, g_strdup(key));
        g_ptr_array_sort(a, strcmp_ptr);
        g_ptr_array_add(a, NULL);
        return (char **) g_ptr_array_free(a, FALSE);
}

char **unit_lookup_list_names(const UnitLookup *l) {
        return sorted_keys(l->ids);
}

char **unit_lookup_list_dropin_dir_names(const UnitLookup *l) {
        return sorted_keys(l->dropin_dirs);
}

/* ---- one unit ---- */

/* add_names(): name itself (unless a template), then the names that lead to
 * the same unit; for an instance, a template alias gets the instance put in,
 * unless that instance has a fragment of its own elsewhere. */
static void add_names(const UnitLookup *l, UnitNameKind kind, const char *instance, const char *fragment_name,
                      const char *name, GHashTable *names) {
        GPtrArray *aliases;

        if (kind != UNIT_NAME_TEMPLATE) {
                g_autofree char *with_instance = NULL;
                if (instance && unit_name_kind(name) == UNIT_NAME_TEMPLATE)
                        with_instance = unit_name_with_instance(name, instance);
                g_hash_table_add(names, g_strdup(with_instance ?: name));
        }

        aliases = g_hash_table_lookup(l->names, name);
        for (guint i = 0; aliases && i < aliases->len; i++) {
                const char *alias = g_ptr_array_index(aliases, i);

                if (kind == UNIT_NAME_INSTANCE && unit_name_kind(alias) == UNIT_NAME_TEMPLATE) {
                        g_autofree char *inst = unit_name_with_instance(alias, instance);
                        const char *inst_fragment = NULL;

                        if (ids_get(l, inst, &inst_fragment) >= 0 && fragment_name &&
                            !streq(strrchr(inst_fragment, '/') + 1, fragment_name))
                                continue; /* that instance is another unit */
                        g_hash_table_add(names, TAKE_PTR(inst));
                } else
                        g_hash_table_add(names, g_strdup(alias));
        }
}

/* dropin.c: each group of names (the id's, each alias's, the type) is
 * looked for across the whole search path, the search path being the outer
 * loop. Directories are chased: DropInPaths name the real ones. */
static void find_dropin_dirs(const UnitLookup *l, GPtrArray *groups, GPtrArray *ret_names, GPtrArray *ret_dirs) {
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

        for (guint gi = 0; gi < groups->len; gi++) {
                GPtrArray *g = g_ptr_array_index(groups, gi);

                for (guint n = 0; n < g->len; n++)
                        expand_add(g_ptr_array_index(g, n), ret_names);
                for (guint p = 0; p < l->search_path->len; p++)
                        for (guint n = 0; n < g->len; n++) {
                                g_autofree char *d = g_strdup_printf("%s/%s.d",
                                                                     (const char *) g_ptr_array_index(l->search_path, p),
                                                                     (const char *) g_ptr_array_index(g, n));
                                g_autofree char *resolved = NULL, *host = NULL;

                                if (chase_below_root(l->root, d, 0, &resolved) < 0)
                                        continue;
                                host = host_join(l->root, resolved);
                                if (!g_file_test(host, G_FILE_TEST_IS_DIR) || g_hash_table_contains(seen, resolved))
                                        continue;
                                g_hash_table_add(seen, g_strdup(resolved));
                                g_ptr_array_add(ret_dirs, TAKE_PTR(resolved));
                        }
        }
}

/* conf_files_list_strv(): every *.conf but hidden ones; the first
 * directory holding a file name has it; sorted by file name. A link to
 * /dev/null is listed like any file, and so hides the name. */
static void list_conf_files(const UnitLookup *l, GPtrArray *dirs, GPtrArray *ret_files) {
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        GHashTableIter it;
        gpointer value;

        for (guint i = 0; i < dirs->len; i++) {
                const char *dir = g_ptr_array_index(dirs, i);
                g_autofree char *host = host_join(l->root, dir);
                g_autoptr(GDir) d = g_dir_open(host, 0, NULL);
                const char *e;

                while (d && (e = g_dir_read_name(d))) {
                        if (e[0] == '.' || !g_str_has_suffix(e, ".conf") || g_hash_table_contains(seen, e))
                                continue;
                        g_hash_table_insert(seen, g_strdup(e), g_build_filename(dir, e, NULL));
                }
        }
        g_hash_table_iter_init(&it, seen);
        while (g_hash_table_iter_next(&it, NULL, &value))
                g_ptr_array_add(ret_files, g_strdup(value));
        g_ptr_array_sort(ret_files, basename_strcmp_ptr);
}

int unit_lookup_unit(const UnitLookup *l, const char *name, UnitLookupFlags flags, UnitInfo **ret) {
        g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr(GPtrArray) aliases = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) dropin_names = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) dropins = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func((GDestroyNotify) g_ptr_array_unref);
        g_autoptr(UnitInfo) info = g_new0(UnitInfo, 1);
        g_autofree char *instance = NULL, *template = NULL, *id = NULL;
        UnitNameKind kind = unit_name_kind(name);
        bool any_instance = (flags & UNIT_LOOKUP_ANY_INSTANCE) && kind == UNIT_NAME_TEMPLATE;
        const char *fragment = NULL;
        GHashTableIter it;
        gpointer key;

        if (unit_type_is_valid(name)) {
                /* The type directory alone: what a unit of the type without
                 * drop-ins of its own reads. */
                id = g_strdup(name);
                g_ptr_array_add(groups, g_ptr_array_new_with_free_func(g_free));
                g_ptr_array_add(g_ptr_array_index(groups, 0), g_strdup(name));
                goto find_dirs;
        }
        if (kind == UNIT_NAME_INVALID)
                return -EINVAL;
        instance = unit_name_instance(name);

        /* unit_file_find_fragment(): the name's own entry, else the template's. */
        add_names(l, kind, instance, NULL, name, names);
        if (ids_get(l, name, &fragment) < 0 && kind == UNIT_NAME_INSTANCE) {
                template = unit_name_to_template(name);
                if (ids_get(l, template, &fragment) < 0)
                        fragment = NULL;
        }
        if (fragment) {
                const char *base = strrchr(fragment, '/') + 1;
                int r;

                if (!streq(base, name))
                        add_names(l, kind, instance, base, base, names);
                info->fragment = g_strdup(fragment);
                r = fragment_file(l, fragment, &info->fragment_file);
                info->masked = r > 0;
        }

        /* unit_load_fragment(): the unit's id is its fragment's name, the
         * instance put in; the other names are aliases. */
        if (fragment && instance && unit_name_kind(strrchr(fragment, '/') + 1) == UNIT_NAME_TEMPLATE)
                id = unit_name_with_instance(strrchr(fragment, '/') + 1, instance);
        else
                id = g_strdup(fragment ? strrchr(fragment, '/') + 1 : name);
        g_hash_table_iter_init(&it, names);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (!streq(key, id))
                        g_ptr_array_add(aliases, g_strdup(key));
        /* systemd keeps aliases in a hash set: its order is not defined. */
        g_ptr_array_sort(aliases, strcmp_ptr);

        /* A masked unit loads no drop-ins: DropInPaths is empty. */
        if (info->masked)
                goto done;

        /* unit_file_find_dropin_paths(): the id, then each alias, each
         * across the whole search path (the outer loop); the type
         * directory last, across the search path too. */
        g_ptr_array_add(groups, g_ptr_array_new_with_free_func(g_free));
        expand_name(id, any_instance, g_ptr_array_index(groups, 0));
        for (guint i = 0; i < aliases->len; i++) {
                GPtrArray *g = g_ptr_array_new_with_free_func(g_free);
                expand_name(g_ptr_array_index(aliases, i), any_instance, g);
                g_ptr_array_add(groups, g);
        }
        g_ptr_array_add(groups, g_ptr_array_new_with_free_func(g_free));
        g_ptr_array_add(g_ptr_array_index(groups, groups->len - 1), g_strdup(unit_name_type(name)));

find_dirs:
        find_dropin_dirs(l, groups, dropin_names, dirs);
        list_conf_files(l, dirs, dropins);

done:
        info->id = TAKE_PTR(id);
        info->aliases = array_to_strv(TAKE_PTR(aliases));
        info->dropin_names = array_to_strv(TAKE_PTR(dropin_names));
        info->dropin_dirs = array_to_strv(TAKE_PTR(dirs));
        {
                GPtrArray *files = g_ptr_array_new();
                for (guint i = 0; i < dropins->len; i++)
                        g_ptr_array_add(files, unit_lookup_file(l, g_ptr_array_index(dropins, i)));
                info->dropin_files = array_to_strv(files);
        }
        info->dropins = array_to_strv(TAKE_PTR(dropins));
        *ret = TAKE_PTR(info);
        return 0;
}

UnitInfo *unit_info_free(UnitInfo *i) {
        if (!i)
                return NULL;
        g_free(i->id);
        g_free(i->fragment);
        g_free(i->fragment_file);
        g_strfreev(i->aliases);
        g_strfreev(i->dropin_names);
        g_strfreev(i->dropin_dirs);
        g_strfreev(i->dropins);
        g_strfreev(i->dropin_files);
        g_free(i);
        return NULL;
}

const char *unit_type_interface(const char *unit) {
        static const struct {
                const char *type, *interface;
        } table[] = {
                { "service", "org.freedesktop.systemd1.Service" }, { "scope", "org.freedesktop.systemd1.Scope" },
                { "slice", "org.freedesktop.systemd1.Slice" },     { "socket", "org.freedesktop.systemd1.Socket" },
                { "mount", "org.freedesktop.systemd1.Mount" },     { "swap", "org.freedesktop.systemd1.Swap" },
        };
        const char *type = unit ? unit_name_type(unit) : NULL;

        for (size_t i = 0; type && i < ELEMENTSOF(table); i++)
                if (streq(type, table[i].type))
                        return table[i].interface;
        return NULL;
}

bool unit_type_has_cgroup(const char *unit) {
        return unit_type_interface(unit) != NULL;
}

/* A uid as policyd spells it in keys: one spelling for each. */
static int parse_canonical_uid(const char *s, uint32_t *ret) {
        char buf[16];

        if (parse_uid(s, ret) < 0)
                return -EINVAL;
        g_snprintf(buf, sizeof(buf), "%" G_GUINT32_FORMAT, *ret);
        return streq(buf, s) ? 0 : -EINVAL;
}

int user_manager_unit_parse(const char *unit, uid_t *ret_uid) {
        uint32_t uid;

        if (!unit || !g_str_has_prefix(unit, "user@") || !g_str_has_suffix(unit, ".service"))
                return -EINVAL;
        g_autofree char *number = g_strndup(unit + strlen("user@"), strlen(unit) - strlen("user@.service"));
        if (parse_canonical_uid(number, &uid) < 0)
                return -EINVAL;
        if (ret_uid)
                *ret_uid = uid;
        return 0;
}
