/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* policyd-generator: a systemd generator (systemd.generator(7)). It turns
 * PolicyGroup= and X-PolicyGroup= in unit files into drop-ins with native
 * properties, so that systemd applies the exec-time knobs (MemoryKSM=,
 * NUMAPolicy=, NUMAMask=) before the first instruction of the unit runs, and
 * the memory properties from the unit's very first start.
 *
 * When policyd.conf declares swap tiers ([SwapTiers]), it also pulls in
 * policyd-swap-tiers.service, ordered before every swap unit.
 *
 * It runs early at boot and at every daemon-reload, in parallel with other
 * generators. It must be fast and must never fail boot: every problem is a
 * warning, and the exit status is always 0. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cgroup-apply.h"
#include "conf-parse.h"
#include "diagnostics.h"
#include "log.h"
#include "policy-load.h"
#include "resolve.h"
#include "unit-file.h"
#include "unit-lookup.h"
#include "util.h"

#ifndef PR_GET_MEMORY_MERGE
#define PR_GET_MEMORY_MERGE 68 /* Linux 6.4 */
#endif

#define DROPIN_FILE GENERATOR_DROPIN_FILE /* policyd knows its drop-ins by this name */

/* ---- logging to the kernel log ----
 *
 * Under systemd, a generator's stderr is PID 1's, which is /dev/null, and a
 * generator may not talk to journald (systemd.generator(7)). Like systemd's
 * own generators, we then write to /dev/kmsg, which the journal imports.
 * The shared log wrapper prints to stderr; stderr becomes a stream that
 * turns each line into one kernel log record, at the level of the message.
 * Every message passes through log_context(), which records that level. */

static int kmsg_level = LOG_WARNING;
static FILE *kmsg_saved_stderr; /* the real stderr, while ours goes to /dev/kmsg */
#define log_context(level, ...) (kmsg_level = (level), log_context((level), __VA_ARGS__))

typedef struct KmsgStream {
        int fd;
        GString *pending; /* the start of a line not yet ended */
} KmsgStream;

static void kmsg_stream_flush_line(KmsgStream *k, size_t n) {
        g_autofree char *record = g_strdup_printf("<%d>policyd-generator[%d]: %.*s\n", kmsg_level, (int) getpid(),
                                                  (int) n, k->pending->str);
        /* One write() is one record. Lost records are not worth failing for. */
        (void) !write(k->fd, record, strlen(record));
        g_string_erase(k->pending, 0, (gssize) MIN(n + 1, k->pending->len));
}

static ssize_t kmsg_stream_write(void *cookie, const char *buf, size_t size) {
        KmsgStream *k = cookie;
        const char *nl;

        g_string_append_len(k->pending, buf, (gssize) size);
        while ((nl = memchr(k->pending->str, '\n', k->pending->len)))
                kmsg_stream_flush_line(k, (size_t) (nl - k->pending->str));
        return (ssize_t) size;
}

static int kmsg_stream_close(void *cookie) {
        KmsgStream *k = cookie;

        if (k->pending->len > 0)
                kmsg_stream_flush_line(k, k->pending->len);
        close(k->fd);
        g_string_free(k->pending, TRUE);
        g_free(k);
        return 0;
}

/* As systemd's invoked_by_systemd(): the manager sets $SYSTEMD_EXEC_PID to
 * the PID of what it spawns, and $SYSTEMD_SCOPE for generators (systemd 251). */
static bool invoked_by_systemd(void) {
        const char *e = getenv("SYSTEMD_EXEC_PID");
        guint64 pid;

        if (e && g_ascii_string_to_unsigned(e, 10, 1, G_MAXINT, &pid, NULL) && (pid_t) pid == getpid())
                return true;
        return getenv("SYSTEMD_SCOPE") != NULL;
}

static void log_to_kmsg_when_invoked_by_systemd(void) {
        KmsgStream *k;
        FILE *f;
        int fd;

        if (!invoked_by_systemd())
                return;
        fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return; /* stderr it is */

        k = g_new0(KmsgStream, 1);
        k->fd = fd;
        k->pending = g_string_new(NULL);
        f = fopencookie(k, "w", (cookie_io_functions_t) { .write = kmsg_stream_write, .close = kmsg_stream_close });
        if (!f) {
                kmsg_stream_close(k);
                return;
        }
        setvbuf(f, NULL, _IOLBF, 0);
        kmsg_saved_stderr = stderr;
        stderr = f; /* glibc's stderr is an ordinary variable */
}

static void log_to_kmsg_done(void) {
        FILE *f = stderr;

        if (!kmsg_saved_stderr)
                return;
        stderr = TAKE_PTR(kmsg_saved_stderr);
        fclose(f);
}

/* The unit types whose properties we can set. Exec-time properties (KSM and
 * NUMA policy) exist only where systemd forks processes of its own. */
static const struct {
        const char *suffix;
        bool exec;
} unit_types[] = {
        { ".service", true }, { ".socket", true }, { ".mount", true },
        { ".swap", true },    { ".slice", false }, { ".scope", false },
};

typedef enum EntryKind {
        ENTRY_UNIT,    /* a unit file (a template as any of its instances), or an instance that reads more */
        ENTRY_DROPINS, /* only NAME.d exists: a prefix ("foo-.service"), a transient or implicit unit */
        ENTRY_TYPE,    /* the type directory "service.d": every unit of the type */
} EntryKind;

typedef struct Entry {
        EntryKind kind;
        char *name;       /* the unit's id; ".service" for the type directory */
        char *dropin_dir; /* where our drop-in goes, relative to the output directory */
        UnitInfo *info;   /* from unit-lookup: fragment, aliases, drop-ins in systemd's order */
        bool masked;

        /* Filled by entry_read() */
        GPtrArray *files;   /* char*: where to read the fragment, then the drop-ins */
        GPtrArray *shown;   /* char*: the same files as systemd names them */
        char **groups;      /* NULL when no file mentions PolicyGroup */
        bool written;       /* a drop-in with settings was written */
        bool visiting, generated;
} Entry;

static Entry *entry_free(Entry *e) {
        if (!e)
                return NULL;
        g_free(e->name);
        g_free(e->dropin_dir);
        unit_info_free(e->info);
        g_clear_pointer(&e->files, g_ptr_array_unref);
        g_clear_pointer(&e->shown, g_ptr_array_unref);
        g_strfreev(e->groups);
        g_free(e);
        return NULL;
}
DEFINE_FREE_NOTIFY(entry_free, Entry)

typedef struct Context {
        const char *root;       /* NULL for the real root */
        const char *output_dir; /* systemd's "normal" generator directory */
        UnitLookup *lookup;     /* unit_search_dirs minus the generator directories */
        PolicySet *policies;

        GHashTable *entries; /* name → Entry*, owned */

        /* Facts about the running system, read under root. */
        bool swap_known;
        uint64_t swap_total;
        NumaNodeMask memory_nodes;
        bool ksm_supported;

        GHashTable *warned; /* "group/knob/why" already warned about: once per boot is enough */
        unsigned n_written;
} Context;

static char *path_under_root(const Context *c, const char *path) {
        if (!c->root)
                return g_strdup(path);
        return g_build_filename(c->root, path, NULL);
}

/* The path as it will be on the real system: without the root prefix, so
 * that drop-ins and logs name /usr/lib/policy.d/…, not /tmp/xyz/usr/lib/…. */
static const char *path_display(const Context *c, const char *path) {
        size_t n;

        if (!c->root || !path)
                return path;
        n = strlen(c->root);
        while (n > 0 && c->root[n - 1] == '/')
                n--;
        if (strncmp(path, c->root, n) == 0 && path[n] == '/')
                return path + n;
        return path;
}

/* "file:line", or "file" when the line is not known, as logs show them. */
static char *location(const Context *c, const char *file, unsigned line) {
        if (!file)
                return g_strdup("");
        if (line == 0)
                return g_strdup(path_display(c, file));
        return g_strdup_printf("%s:%u", path_display(c, file), line);
}

static int unit_type_index(const char *name) {
        const char *dot = strrchr(name, '.');

        if (!dot)
                return -1;
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if (streq(dot, unit_types[i].suffix))
                        return (int) i;
        return -1;
}

static bool unit_name_ours(const char *name) {
        return unit_name_kind(name) != UNIT_NAME_INVALID && unit_type_index(name) >= 0;
}


/* ---- facts about the running system ---- */

static void read_swap_total(Context *c) {
        g_autofree char *path = path_under_root(c, "/proc/swaps");
        g_autofree char *data = NULL;
        size_t size;

        if (read_full_file(path, &data, &size) < 0)
                return;
        c->swap_known = true;
        c->swap_total = swap_total_parse(data); /* as policyd reads it */
}

static void read_memory_nodes(Context *c) {
        static const char *const files[] = {
                "/sys/devices/system/node/has_memory", /* N_MEMORY: what set_mempolicy() and cpuset.mems accept */
                "/sys/devices/system/node/online",
        };

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                g_autofree char *path = path_under_root(c, files[i]);
                g_autofree char *data = NULL;
                size_t size;

                if (read_full_file(path, &data, &size) < 0)
                        continue;
                g_strstrip(data);
                if (parse_numa_nodes(data, &c->memory_nodes, NULL) >= 0 && !numa_node_mask_is_empty(&c->memory_nodes))
                        return;
        }
        /* No NUMA in the kernel: everything is node 0. */
        c->memory_nodes = (NumaNodeMask) {};
        numa_node_mask_set(&c->memory_nodes, 0);
}

static void probe_ksm(Context *c) {
        g_autofree char *path = path_under_root(c, "/sys/kernel/mm/ksm");

        /* systemd fails the unit's start when prctl(PR_SET_MEMORY_MERGE)
         * returns EINVAL, which is what kernels before 6.4 or without
         * CONFIG_KSM do. Only write MemoryKSM= where it works. Under --root
         * the directory stands for the kernel. */
        c->ksm_supported = g_file_test(path, G_FILE_TEST_IS_DIR);
        if (c->ksm_supported && !c->root)
                c->ksm_supported = prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0) >= 0;
}

/* ---- finding units ---- */

/* For messages: the unit name, or "service.d" for the type directory. */
static const char *entry_display(const Entry *e) {
        return e->kind == ENTRY_TYPE ? e->dropin_dir : e->name;
}

static Entry *entry_new(Context *c, EntryKind kind, const char *name, UnitInfo *info) {
        Entry *e = g_new0(Entry, 1);

        e->kind = kind;
        e->name = g_strdup(name);
        e->dropin_dir = kind == ENTRY_TYPE ? g_strconcat(name + 1, ".d", NULL) : g_strconcat(name, ".d", NULL);
        e->info = info;
        e->masked = info->masked;
        g_hash_table_insert(c->entries, e->name, e);
        return e;
}

/* A template stands for any of its instances: it reads what they all read,
 * instance prefix directories (foo-@.service.d) included. */
static UnitInfo *lookup(const Context *c, const char *name) {
        UnitInfo *info = NULL;

        if (unit_lookup_unit(c->lookup, name, UNIT_LOOKUP_ANY_INSTANCE, &info) < 0)
                return NULL;
        return info;
}

/* Every unit with a file of its own, under its id: aliases are read with
 * the unit they name, as systemd reads them. */
static void add_unit_entries(Context *c) {
        g_auto(GStrv) names = unit_lookup_list_names(c->lookup);

        for (char **n = names; *n; n++) {
                g_autoptr(UnitInfo) info = NULL;

                if (!unit_name_ours(*n))
                        continue;
                info = lookup(c, *n);
                if (!info || !info->fragment || !streq(info->id, *n))
                        continue; /* an alias, or a name systemd does not load (a loop, a bad alias) */
                if (!info->fragment_file) {
                        log_debug("%s: dangling or looping symlink, ignoring.", info->fragment);
                        continue;
                }
                entry_new(c, ENTRY_UNIT, *n, TAKE_PTR(info));
        }
}

static bool strv_equal(char **a, char **b) {
        for (; *a && *b; a++, b++)
                if (!streq(*a, *b))
                        return false;
        return !*a && !*b;
}

static int compare_entries(const void *a, const void *b) {
        const Entry *x = *(const Entry *const *) a, *y = *(const Entry *const *) b;
        return strcmp(x->name, y->name);
}

/* NAME.d directories without a unit file of their own: the type
 * directories, dash prefixes and transient units. An instance gets an entry
 * when it reads more than its template does (its own directory, an
 * instance prefix directory foo-@bar.service.d, an alias's); otherwise the
 * template's drop-in serves it. */
static void add_dropin_entries(Context *c) {
        g_auto(GStrv) stems = unit_lookup_list_dropin_dir_names(c->lookup);
        g_autoptr(GPtrArray) templates = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        for (char **s = stems; *s; s++) {
                g_autoptr(UnitInfo) info = NULL;
                g_autofree char *type_name = g_strconcat(".", *s, NULL);

                if (g_hash_table_contains(c->entries, *s))
                        continue;
                if (unit_type_index(type_name) >= 0 && streq(strrchr(type_name, '.'), type_name)) {
                        if (unit_lookup_unit(c->lookup, *s, 0, &info) >= 0)
                                entry_new(c, ENTRY_TYPE, type_name, TAKE_PTR(info));
                        continue;
                }
                if (!unit_name_ours(*s) || unit_name_kind(*s) != UNIT_NAME_PLAIN)
                        continue; /* instances below; templates without a file are no unit */
                info = lookup(c, *s);
                if (!info || info->fragment || !streq(info->id, *s))
                        continue; /* a masked unit, an alias's directory: read with its unit */
                entry_new(c, ENTRY_DROPINS, *s, TAKE_PTR(info));
        }

        g_hash_table_iter_init(&it, c->entries);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                Entry *t = value;
                if (t->kind == ENTRY_UNIT && !t->masked && unit_name_kind(t->name) == UNIT_NAME_TEMPLATE)
                        g_ptr_array_add(templates, t);
        }
        g_ptr_array_sort(templates, compare_entries);

        for (char **s = stems; *s; s++) {
                const char *at, *dot;
                g_autofree char *instance = NULL, *stem_template = NULL;

                if (unit_name_kind(*s) != UNIT_NAME_INSTANCE || !unit_name_ours(*s))
                        continue;
                at = strchr(*s, '@');
                dot = strrchr(*s, '.');
                instance = g_strndup(at + 1, (gsize) (dot - at - 1));
                stem_template = unit_name_to_template(*s);

                for (guint i = 0; i < templates->len; i++) {
                        const Entry *t = g_ptr_array_index(templates, i);
                        g_autofree char *name = NULL;
                        g_autoptr(UnitInfo) info = NULL;

                        /* X@I.service.d is read by T@I.service exactly when
                         * every instance of T reads X@.service.d: cheap to
                         * check before looking the instance up. */
                        if (!g_strv_contains((const char *const *) t->info->dropin_names, stem_template))
                                continue;
                        name = g_strdup_printf("%.*s%s%s", (int) (strchr(t->name, '@') - t->name + 1), t->name,
                                               instance, dot);
                        if (g_hash_table_contains(c->entries, name))
                                continue;
                        info = lookup(c, name);
                        if (!info || !info->fragment_file || !streq(info->id, name) || info->masked)
                                continue;
                        if (strv_equal(info->dropins, t->info->dropins))
                                continue;
                        entry_new(c, ENTRY_UNIT, name, TAKE_PTR(info));
                }
        }
}

/* ---- reading PolicyGroup= ---- */

/* A quick look for the key before parsing: nearly no unit file has it. */
static bool file_mentions_policy_group(const char *path) {
        g_autofree char *data = NULL;
        size_t size;

        if (read_full_file(path, &data, &size) < 0)
                return false;
        return memmem(data, size, "PolicyGroup", strlen("PolicyGroup")) != NULL;
}

static void entry_read(Context *c, Entry *e) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        const char *fragment = e->info->fragment_file;
        bool mentioned = false;

        e->files = g_ptr_array_new_with_free_func(g_free);
        e->shown = g_ptr_array_new_with_free_func(g_free);
        if (fragment) {
                g_ptr_array_add(e->files, g_strdup(fragment));
                g_ptr_array_add(e->shown, g_strdup(e->info->fragment));
        }
        for (char **f = e->info->dropin_files, **p = e->info->dropins; *f; f++, p++) {
                g_ptr_array_add(e->files, g_strdup(*f));
                g_ptr_array_add(e->shown, g_strdup(*p));
        }

        for (guint i = 0; i < e->files->len && !mentioned; i++)
                mentioned = file_mentions_policy_group(g_ptr_array_index(e->files, i));
        if (!mentioned)
                return;

        (void) unit_file_read_policy_groups(e->name, fragment, (const char *const *) e->info->dropin_files, 0,
                                            &e->groups, diags);
        for (guint i = 0; i < diags->items->len; i++) {
                const Diagnostic *d = g_ptr_array_index(diags->items, i);
                g_autofree char *where = location(c, d->file, d->line);
                log_context(LOG_WARNING, 0, entry_display(e), NULL, d->file, d->line, "%s: %s", where, d->message);
        }
}

/* Where the unit's files name group: the last assignment that does, for the warning. */
static void find_group_assignment(const Entry *e, const char *group, const char **ret_file, unsigned *ret_line) {
        const char *type_section = unit_type_section(e->name);

        *ret_file = e->files->len > 0 ? g_ptr_array_index(e->files, 0) : NULL;
        *ret_line = 0;
        for (guint i = 0; i < e->files->len; i++) {
                const char *path = g_ptr_array_index(e->files, i);
                g_autoptr(ConfFile) f = NULL;

                if (conf_parse_file(path, &f, NULL) < 0)
                        continue;
                for (guint j = 0; j < f->assignments->len; j++) {
                        const ConfAssignment *a = g_ptr_array_index(f->assignments, j);
                        g_auto(GStrv) words = NULL;

                        if (!streq(a->key, "PolicyGroup") && !streq(a->key, "X-PolicyGroup"))
                                continue;
                        if (!streq(a->section, "Unit") && !streq_ptr(a->section, type_section))
                                continue;
                        words = g_strsplit_set(a->value, " \t", -1);
                        if (g_strv_contains((const char *const *) words, group)) {
                                *ret_file = path;
                                *ret_line = a->line;
                        }
                }
        }
}

/* ---- writing the drop-in ---- */

typedef struct Output {
        Context *c;
        const Entry *e;
        bool exec;        /* the unit type has an exec context */
        bool nodes_shown; /* the NUMANodes= source comment is already there */
        GString *body;
        bool any_setting;
} Output;

static void out_source(Output *o, const ResolvedKnob *k, Knob knob, const char *note) {
        g_autofree char *v = knob_value_format(knob, &k->value);

        g_string_append_printf(o->body, "# %s=%s from %s:%u (group %s)%s%s\n", knob_to_string(knob), v,
                               strempty(path_display(o->c, k->source.file)), k->source.line, k->group,
                               note ? ": " : "", strempty(note));
}

static void out_setting(Output *o, const char *property, const char *value) {
        g_string_append_printf(o->body, "%s=%s\n", property, value);
        o->any_setting = true;
}

/* Once per group, knob and reason: many units share a group. */
static void warn_knob(const Output *o, const ResolvedKnob *k, Knob knob, const char *why) {
        g_autofree char *v = knob_value_format(knob, &k->value);
        g_autofree char *key = g_strdup_printf("%s/%s/%s", k->group, knob_to_string(knob), why);
        g_autofree char *where = location(o->c, k->source.file, k->source.line);

        if (!g_hash_table_add(o->c->warned, TAKE_PTR(key)))
                return;
        log_context(LOG_WARNING, 0, NULL, k->group, k->source.file, k->source.line,
                    "%s: %s=%s of group '%s' is left out of generated drop-ins: %s.", where, knob_to_string(knob), v,
                    k->group, why);
}

/* MemorySwapMax= and MemoryZSwapMax=: bytes or infinity. systemd reads a
 * percentage as one of physical memory, so a share of swap becomes bytes
 * here, with policyd's conversion: if the numbers differed, policyd would
 * override this drop-in at runtime. format_size() spells the same number,
 * exactly, for the reader. */
static void out_memory_limit(Output *o, const ResolvedKnob *k, Knob knob, const char *property) {
        const MemoryLimit *l = &k->value.limit;
        g_autofree char *note = NULL, *value = NULL;
        uint64_t bytes;

        if (l->kind == MEMORY_LIMIT_PERCENT) {
                if (!o->c->swap_known || o->c->swap_total == 0) {
                        /* Usual at boot: generators run before swap is on. */
                        out_source(o, k, knob,
                                   "no swap was active when the generator ran; policyd sets it when the unit starts");
                        g_autofree char *where = location(o->c, k->source.file, k->source.line);
                        log_context(LOG_INFO, 0, entry_display(o->e), k->group, k->source.file, k->source.line,
                                    "%s: %s= is a share of swap, and no swap is active yet; leaving it to policyd.",
                                    where, knob_to_string(knob));
                        return;
                }
                g_autofree char *total = format_size(o->c->swap_total);
                note = g_strdup_printf("a share of the %s of swap active when the generator ran", total);
        }

        if (memory_limit_to_bytes(l, o->c->swap_total, page_size(), &bytes) < 0) {
                out_source(o, k, knob, "cannot be turned into bytes");
                return;
        }
        value = bytes == UINT64_MAX ? g_strdup("infinity") : format_size(bytes);
        out_source(o, k, knob, note);
        out_setting(o, property, value);
}

/* Executable= narrows a group's KSM= and NUMAPolicy= to some processes;
 * a unit-wide exec-time setting would give them to all of them. So the
 * value at start is that of the strongest group without Executable=, as
 * process_want_for() decides for a process whose executable matches none:
 * the process layer sets the matching processes' own afterwards. */
static bool limited_to_executables(const PolicyGroup *g) {
        return g && g->match_executables && g->match_executables->len > 0;
}

static const PolicyGroup *exec_time_winner(const Output *o, const ResolvedKnob *k) {
        const PolicyGroup *winner = policy_set_get(o->c->policies, k->group);

        if (!limited_to_executables(winner))
                return winner;
        winner = NULL;
        for (guint i = 0; k->overridden && i < k->overridden->len; i++) {
                const PolicyGroup *g = policy_set_get(o->c->policies, g_ptr_array_index(k->overridden, i));
                if (g && !limited_to_executables(g) && policy_group_beats(g, winner))
                        winner = g;
        }
        return winner;
}

/* A group's own setting, in the shape out_source() prints. */
static ResolvedKnob group_setting(const PolicyGroup *g, Knob knob) {
        return (ResolvedKnob) {
                .set = true,
                .value = g->knobs[knob].value,
                .group = (char *) g->name, /* borrowed, never freed */
                .source = g->knobs[knob].source,
        };
}

static void out_limited_source(Output *o, const ResolvedKnob *k, Knob knob, const PolicyGroup *instead) {
        g_autofree char *note = g_strdup_printf(
                "Executable= limits it to some processes, which policyd sets (ApplyToRunning=yes); at start: %s",
                instead ? instead->name : "nothing");
        out_source(o, k, knob, note);
}

static void out_ksm(Output *o, const ResolvedKnob *resolved) {
        const PolicyGroup *g = exec_time_winner(o, resolved);
        ResolvedKnob instead;
        const ResolvedKnob *k = resolved;

        if (!o->exec) {
                out_source(o, k, KNOB_KSM, "no exec-time settings in this unit type; policyd applies it to processes");
                return;
        }
        if (!streq_ptr(g ? g->name : NULL, resolved->group)) {
                out_limited_source(o, resolved, KNOB_KSM, g);
                if (!g)
                        return;
                instead = group_setting(g, KNOB_KSM);
                k = &instead;
        }
        if (!o->c->ksm_supported) {
                out_source(o, k, KNOB_KSM, "the kernel has no prctl(PR_SET_MEMORY_MERGE)");
                if (k->value.boolean)
                        warn_knob(o, k, KNOB_KSM,
                                  "the kernel has no per-process KSM (Linux 6.4 with CONFIG_KSM), and systemd would "
                                  "fail the unit's start");
                return;
        }
        out_source(o, k, KNOB_KSM, NULL);
        out_setting(o, "MemoryKSM", k->value.boolean ? "yes" : "no");
}

static bool nodes_available(const Output *o, const NumaNodeMask *m) {
        for (unsigned n = 0; n < NUMA_NODES_MAX; n++)
                if (numa_node_mask_test(m, n) && !numa_node_mask_test(&o->c->memory_nodes, n))
                        return false;
        return true;
}

static unsigned nodes_count(const NumaNodeMask *m) {
        unsigned count = 0;
        for (unsigned n = 0; n < NUMA_NODES_MAX; n++)
                count += numa_node_mask_test(m, n);
        return count;
}


/* NUMAPolicy= and NUMAMask=. systemd fails the unit's start when
 * set_mempolicy() refuses the pair, so only pairs that work are written.
 * The nodes are the policy's own group's NUMANodes= if it sets them, else
 * the unit's: as the process layer decides (process_want_for()). */
static void out_numa_policy(Output *o, const ResolvedKnob *resolved, const ResolvedKnob *unit_nodes) {
        const PolicyGroup *pg = exec_time_winner(o, resolved);
        ResolvedKnob instead, own_nodes;
        const ResolvedKnob *policy = resolved, *nodes = unit_nodes;
        const NumaNodeMask *mask;
        NumaPolicy p;
        bool with_mask = false;

        if (!o->exec) {
                out_source(o, policy, KNOB_NUMA_POLICY,
                           "no exec-time settings in this unit type; policyd applies it to processes");
                return;
        }
        if (!streq_ptr(pg ? pg->name : NULL, resolved->group)) {
                out_limited_source(o, resolved, KNOB_NUMA_POLICY, pg);
                if (!pg)
                        return;
                instead = group_setting(pg, KNOB_NUMA_POLICY);
                policy = &instead;
        }
        if (pg && pg->knobs[KNOB_NUMA_NODES].set) {
                own_nodes = group_setting(pg, KNOB_NUMA_NODES);
                nodes = &own_nodes;
        }
        mask = nodes->set ? &nodes->value.numa_nodes : NULL;
        p = policy->value.numa_policy;

        switch (p) {
        case NUMA_POLICY_DEFAULT:
        case NUMA_POLICY_LOCAL:
                break;
        case NUMA_POLICY_PREFERRED:
                /* Without nodes, "preferred" means the local node. systemd
                 * 257 has no preferred-many: one node at most. */
                if (mask && nodes_count(mask) != 1) {
                        out_source(o, policy, KNOB_NUMA_POLICY, "preferred takes exactly one node in NUMANodes=");
                        warn_knob(o, policy, KNOB_NUMA_POLICY,
                                  "systemd takes exactly one node for NUMAPolicy=preferred, and NUMANodes= has more");
                        return;
                }
                with_mask = mask != NULL;
                break;
        case NUMA_POLICY_BIND:
        case NUMA_POLICY_INTERLEAVE:
                if (!mask) {
                        out_source(o, policy, KNOB_NUMA_POLICY, "no NUMANodes= to go with it");
                        warn_knob(o, policy, KNOB_NUMA_POLICY, "no group sets NUMANodes= for it");
                        return;
                }
                with_mask = true;
                break;
        case NUMA_POLICY_WEIGHTED_INTERLEAVE:
        default:
                /* systemd's mpol table has default, preferred, bind, interleave
                 * and local up to at least v257; weighted-interleave came later. */
                out_source(o, policy, KNOB_NUMA_POLICY, "systemd has no weighted-interleave NUMAPolicy=");
                warn_knob(o, policy, KNOB_NUMA_POLICY,
                          "systemd (up to at least 257) has no weighted-interleave NUMAPolicy=; it is not applied");
                return;
        }

        if (with_mask && !nodes_available(o, mask)) {
                g_autofree char *have = format_numa_nodes(&o->c->memory_nodes);
                g_autofree char *why =
                        g_strdup_printf("NUMANodes= names nodes without memory here (nodes with memory: %s)", have);
                out_source(o, policy, KNOB_NUMA_POLICY, why);
                warn_knob(o, policy, KNOB_NUMA_POLICY, why);
                return;
        }

        out_source(o, policy, KNOB_NUMA_POLICY, NULL);
        out_setting(o, "NUMAPolicy", numa_policy_to_string(p));
        if (with_mask) {
                g_autofree char *v = format_numa_nodes(mask);
                out_source(o, nodes, KNOB_NUMA_NODES, NULL);
                out_setting(o, "NUMAMask", v);
                o->nodes_shown = true;
        }
}

/* AllowedMemoryNodes= (cpuset.mems). The kernel refuses nodes without memory. */
static void out_allowed_nodes(Output *o, const ResolvedKnob *nodes) {
        g_autofree char *v = format_numa_nodes(&nodes->value.numa_nodes);

        if (!nodes_available(o, &nodes->value.numa_nodes)) {
                g_autofree char *have = format_numa_nodes(&o->c->memory_nodes);
                g_autofree char *why = g_strdup_printf("names nodes without memory here (nodes with memory: %s)", have);
                out_source(o, nodes, KNOB_NUMA_NODES, why);
                warn_knob(o, nodes, KNOB_NUMA_NODES, why);
                return;
        }
        if (!o->nodes_shown)
                out_source(o, nodes, KNOB_NUMA_NODES, NULL);
        out_setting(o, "AllowedMemoryNodes", v);
}

static void out_knobs(Output *o, const Resolution *r) {
        for (int k = 0; k < _KNOB_MAX; k++) {
                const ResolvedKnob *rk = &r->knobs[k];

                if (!rk->set)
                        continue;
                switch ((Knob) k) {
                case KNOB_SWAP_MAX:
                        out_memory_limit(o, rk, KNOB_SWAP_MAX, "MemorySwapMax");
                        break;
                case KNOB_ZSWAP_MAX:
                        out_memory_limit(o, rk, KNOB_ZSWAP_MAX, "MemoryZSwapMax");
                        break;
                case KNOB_ZSWAP_WRITEBACK:
                        /* systemd 256; older versions warn about the key and go on. */
                        out_source(o, rk, KNOB_ZSWAP_WRITEBACK, NULL);
                        out_setting(o, "MemoryZSwapWriteback", rk->value.boolean ? "yes" : "no");
                        break;
                case KNOB_SWAP_HIGH:
                        out_source(o, rk, KNOB_SWAP_HIGH, "systemd has no property; policyd writes memory.swap.high");
                        break;
                case KNOB_SWAP_TIERS:
                        out_source(o, rk, KNOB_SWAP_TIERS, "systemd has no property; policyd applies it");
                        break;
                case KNOB_KSM:
                        out_ksm(o, rk);
                        break;
                case KNOB_NUMA_POLICY:
                        out_numa_policy(o, rk, &r->knobs[KNOB_NUMA_NODES]);
                        break;
                case KNOB_NUMA_NODES:
                        out_allowed_nodes(o, rk);
                        break;
                case _KNOB_MAX:
                        break;
                }
        }
}

static int write_dropin(Context *c, const Entry *e, const char *content) {
        g_autofree char *dir = g_build_filename(c->output_dir, e->dropin_dir, NULL);
        g_autofree char *path = g_build_filename(dir, DROPIN_FILE, NULL);
        int r;

        if (g_mkdir_with_parents(dir, 0755) < 0)
                return log_warning_errno(errno, "%s: cannot create %s: %m", entry_display(e), dir);
        /* No fsync(): the output directories are on tmpfs, and systemd makes
         * them anew at every run. */
        r = write_file_atomic(path, content, 0644, 0);
        if (r < 0)
                return log_warning_errno(r, "%s: cannot write %s: %m", entry_display(e), path);
        log_debug("%s: wrote %s", entry_display(e), path);
        c->n_written++;
        return 0;
}

/* The entries whose NAME.d this entry's unit also reads: its template,
 * dash prefixes, its aliases' and the type directory. */
static Entry *wider_entry(const Context *c, const Entry *e, const char *dropin_name) {
        g_autofree char *type_name = strchr(dropin_name, '.') ? NULL : g_strconcat(".", dropin_name, NULL);
        Entry *w = g_hash_table_lookup(c->entries, type_name ?: dropin_name);

        return w == e ? NULL : w;
}

static bool wider_written(const Context *c, const Entry *e) {
        for (char **n = e->info->dropin_names; *n; n++) {
                const Entry *w = wider_entry(c, e, *n);
                if (w && w->written)
                        return true;
        }
        return false;
}

static void append_groups_header(GString *s, const Resolution *r) {
        g_string_append(s, "# Policy groups:");
        for (guint i = 0; i < r->memberships->len; i++)
                g_string_append_printf(s, " %s", ((const Membership *) g_ptr_array_index(r->memberships, i))->group);
        g_string_append_c(s, '\n');
        for (guint i = 0; i < r->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(r->notes, i);
                g_string_append_printf(s, "# Ignored: %s (%s)\n", n->group,
                                       n->kind == RESOLVE_NOTE_MASKED_GROUP ? "masked" : "no such group");
        }
}

static void report_notes(const Context *c, const Entry *e, const Resolution *r) {
        for (guint i = 0; i < r->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(r->notes, i);
                g_autofree char *where = NULL;
                const char *file;
                unsigned line;

                find_group_assignment(e, n->group, &file, &line);
                where = location(c, file, line);
                if (n->kind == RESOLVE_NOTE_MASKED_GROUP)
                        log_context(LOG_INFO, 0, entry_display(e), n->group, file, line,
                                    "%s: policy group '%s' is masked, ignoring it.", where, n->group);
                else
                        log_context(LOG_WARNING, 0, entry_display(e), n->group, file, line,
                                    "%s: unknown policy group '%s', ignoring it.", where, n->group);
        }
}

static void entry_generate(Context *c, Entry *e) {
        g_autoptr(Resolution) r = NULL;
        g_autoptr(GString) s = g_string_new(NULL);
        g_autoptr(GString) body = g_string_new(NULL);
        Output o = {
                .c = c,
                .e = e,
                .exec = unit_types[unit_type_index(e->name)].exec,
                .body = body,
        };

        if (e->masked)
                return;

        if (e->groups && e->groups[0]) {
                g_autoptr(GPtrArray) excluded = policy_set_sorted_names(c->policies);
                g_autofree char *cgroup = g_strconcat("/system.slice/", e->name, NULL);
                int k;

                /* Only the groups the unit names. [Match] rules need the
                 * running unit (cgroup, xattrs, owner): policyd applies them.
                 * Excluding every other group keeps them out of the merge. */
                for (guint i = excluded->len; i > 0; i--)
                        if (g_strv_contains((const char *const *) e->groups, g_ptr_array_index(excluded, i - 1)))
                                g_ptr_array_remove_index(excluded, i - 1);
                g_ptr_array_add(excluded, NULL);

                Candidate cand = {
                        .unit = e->name,
                        .cgroup = cgroup,
                        .unit_groups = (const char *const *) e->groups,
                        .runtime_excluded = (const char *const *) excluded->pdata,
                };
                k = resolve_candidate(c->policies, &cand, &r);
                if (k < 0) {
                        log_warning_errno(k, "%s: cannot resolve its policy groups, skipping it: %m",
                                          entry_display(e));
                        return;
                }
                report_notes(c, e, r);
        }

        if (r && r->memberships->len > 0) {
                out_knobs(&o, r);

                g_string_append(s, "# Generated by policyd-generator(8). Do not edit: systemd runs the generator\n"
                                   "# again at boot and at every daemon-reload.\n");
                append_groups_header(s, r);
                g_string_append(s, "# Named in:");
                for (guint i = 0; i < e->files->len; i++)
                        if (file_mentions_policy_group(g_ptr_array_index(e->files, i)))
                                g_string_append_printf(s, "\n#   %s", (const char *) g_ptr_array_index(e->shown, i));
                g_string_append(s, "\n# [Match] rules, xattrs, SwapHigh= and swap tiers are applied by policyd.\n");
        }

        if (o.any_setting) {
                g_string_append_printf(s, "\n[%s]\n%s", unit_type_section(e->name), body->str);
                e->written = write_dropin(c, e, s->str) >= 0;
        } else if (wider_written(c, e)) {
                /* Our drop-in of the same name in a wider directory (foo-.service.d,
                 * service.d, a template's) would apply; hide it. */
                if (s->len == 0)
                        g_string_append(s, "# Generated by policyd-generator(8). Do not edit.\n");
                g_string_append_printf(s, "# %s gets no settings from policy groups: this file hides the %s\n"
                                          "# of a more general drop-in directory.\n",
                                       entry_display(e), DROPIN_FILE);
                (void) write_dropin(c, e, s->str);
        }
}

/* ---- swap tiers ---- */

#define SWAP_TIERS_UNIT "policyd-swap-tiers.service"
#define SWAP_TIERS_DROPIN "50-policyd-swap-tiers.conf"

/* Writes the drop-in dir/SWAP_TIERS_DROPIN; false on failure (logged). */
static bool write_swap_tiers_dropin(const char *dir, const char *content) {
        g_autofree char *path = g_build_filename(dir, SWAP_TIERS_DROPIN, NULL);
        int r;

        if (g_mkdir_with_parents(dir, 0755) < 0) {
                log_warning_errno(errno, "Cannot create %s: %m", dir);
                return false;
        }
        r = write_file_atomic(path, content, 0644, 0);
        if (r < 0) {
                log_warning_errno(r, "Cannot write %s: %m", path);
                return false;
        }
        return true;
}

/* With [SwapTiers] in policyd.conf: policyd-swap-tiers.service in
 * swap.target (swap turned on by a script after sysinit.target comes after
 * it too), and in every swap unit, ordered before it, through the
 * type-level drop-in swap.d/ (systemd.unit(5)): Before=swap.target alone
 * does not order a .swap unit, which is itself before swap.target. Drop-ins
 * rather than a .wants link, whose target would name the unit directory.
 * The unit's own errors (a list that cannot be applied) are its to report
 * at boot; here only whether tiers are declared counts. */
static void generate_swap_tiers(Context *c) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autofree char *swap_dir = g_build_filename(c->output_dir, "swap.d", NULL);
        g_autofree char *target_dir = g_build_filename(c->output_dir, "swap.target.d", NULL);
        DaemonConfig config;
        guint n;

        daemon_config_init(&config);
        (void) daemon_config_load(c->root, &config, diags);
        n = config.swap_tiers->len;
        daemon_config_done(&config);
        if (n == 0)
                return;

        if (!write_swap_tiers_dropin(swap_dir,
                                     "# Written by policyd-generator: policyd.conf declares swap tiers, which the\n"
                                     "# kernel takes only before swapon (policyd.conf(5)).\n"
                                     "[Unit]\n"
                                     "Wants=" SWAP_TIERS_UNIT "\n"
                                     "After=" SWAP_TIERS_UNIT "\n") ||
            !write_swap_tiers_dropin(target_dir,
                                     "# Written by policyd-generator: policyd.conf declares swap tiers\n"
                                     "# (policyd.conf(5)).\n"
                                     "[Unit]\n"
                                     "Wants=" SWAP_TIERS_UNIT "\n"))
                return;
        log_debug("%u swap tiers declared: wrote %s and %s.", n, swap_dir, target_dir);
}

/* ---- main ---- */

/* Wider drop-ins first: whether this entry must hide one depends on them. */
static void entry_generate_ordered(Context *c, Entry *e) {
        if (e->generated || e->visiting)
                return;
        e->visiting = true;
        for (char **n = e->info->dropin_names; *n; n++) {
                Entry *w = wider_entry(c, e, *n);
                if (w)
                        entry_generate_ordered(c, w);
        }
        entry_generate(c, e);
        e->generated = true;
}

static void run(Context *c) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(GPtrArray) sorted = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;
        int r;

        generate_swap_tiers(c);

        r = policy_set_load(c->root, NULL, &c->policies, diags);
        diagnostics_sort(diags);
        for (guint i = 0; i < diags->items->len; i++) {
                const Diagnostic *d = g_ptr_array_index(diags->items, i);
                g_autofree char *where = location(c, d->file, d->line);
                log_context(LOG_WARNING, 0, NULL, NULL, d->file, d->line, "%s: %s", where, d->message);
        }
        if (r < 0) {
                log_warning_errno(r, "Cannot load policy groups, generating nothing: %m");
                return;
        }
        if (policy_set_size(c->policies) == 0) {
                log_debug("No policy groups, nothing to do.");
                return;
        }

        read_swap_total(c);
        read_memory_nodes(c);
        probe_ksm(c);

        {
                /* Other generators write to the generator directories while
                 * we run; and the normal one holds our own output on a rerun
                 * by hand. */
                g_autoptr(GPtrArray) dirs = g_ptr_array_new();
                for (const char *const *d = unit_search_dirs; *d; d++)
                        if (!g_str_has_prefix(*d, "/run/systemd/generator"))
                                g_ptr_array_add(dirs, (gpointer) *d);
                g_ptr_array_add(dirs, NULL);
                r = unit_lookup_new(c->root, (const char *const *) dirs->pdata, &c->lookup);
                if (r < 0) {
                        log_warning_errno(r, "Cannot read the unit directories, generating nothing: %m");
                        return;
                }
        }
        add_unit_entries(c);
        add_dropin_entries(c);

        g_hash_table_iter_init(&it, c->entries);
        while (g_hash_table_iter_next(&it, NULL, &value))
                g_ptr_array_add(sorted, value);
        g_ptr_array_sort(sorted, compare_entries);

        for (guint i = 0; i < sorted->len; i++) {
                Entry *e = g_ptr_array_index(sorted, i);
                if (!e->masked)
                        entry_read(c, e);
        }
        for (guint i = 0; i < sorted->len; i++)
                entry_generate_ordered(c, g_ptr_array_index(sorted, i));

        log_debug("Looked at %u units and drop-in directories, wrote %u drop-ins.", sorted->len, c->n_written);
}

static void context_done(Context *c) {
        c->lookup = unit_lookup_free(c->lookup);
        c->policies = policy_set_free(c->policies);
        g_clear_pointer(&c->entries, g_hash_table_unref);
        g_clear_pointer(&c->warned, g_hash_table_unref);
}

static void help(void) {
        printf("Usage: policyd-generator [--root=DIR] NORMAL_DIR [EARLY_DIR LATE_DIR]\n"
               "\n"
               "systemd runs this generator at boot and at daemon-reload. It writes\n"
               "NORMAL_DIR/UNIT.d/" DROPIN_FILE " for units whose files name policy groups\n"
               "with PolicyGroup= or X-PolicyGroup=. See policyd-generator(8).\n"
               "\n"
               "  --root=DIR   read unit files, policies, /proc and /sys below DIR\n"
               "  -h, --help   show this help\n");
}

static int parse_log_level(const char *s) {
        static const char *const names[] = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };
        guint64 n;

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(s, names[i]))
                        return (int) i;
        if (g_ascii_string_to_unsigned(s, 10, 0, LOG_DEBUG, &n, NULL))
                return (int) n;
        return -1;
}

/* Returns 1 to generate, 0 when there is nothing to do (help was shown). */
static int parse_argv(int argc, char *argv[], char **ret_root, const char **ret_output_dir) {
        g_autofree char *root = NULL;
        int i = 1;

        for (; i < argc && argv[i][0] == '-'; i++) {
                if (streq(argv[i], "-h") || streq(argv[i], "--help")) {
                        help();
                        return 0;
                } else if (g_str_has_prefix(argv[i], "--root=")) {
                        g_free(root);
                        root = g_strdup(argv[i] + strlen("--root="));
                } else if (streq(argv[i], "--root") && i + 1 < argc) {
                        g_free(root);
                        root = g_strdup(argv[++i]);
                } else if (streq(argv[i], "--")) {
                        i++;
                        break;
                } else
                        log_warning("Unknown option %s, ignoring it.", argv[i]);
        }
        if (i >= argc) {
                /* Only a person runs it without arguments. */
                help();
                return 0;
        }
        /* systemd passes three; be lenient with anything else. */
        if (argc - i != 1 && argc - i != 3)
                log_warning("Expected 1 or 3 directories, got %d; writing to %s.", argc - i, argv[i]);

        if (root) {
                while (strlen(root) > 1 && g_str_has_suffix(root, "/"))
                        root[strlen(root) - 1] = '\0';
                if (streq(root, "/") || root[0] == '\0')
                        g_clear_pointer(&root, g_free);
        }
        *ret_root = TAKE_PTR(root);
        *ret_output_dir = argv[i];
        return 1;
}

static void generate(const char *root, const char *output_dir) {
        Context c = {
                .root = root,
                .output_dir = output_dir,
                .entries = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, entry_free_notify),
                .warned = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        };

        run(&c);
        context_done(&c);
}

int main(int argc, char *argv[]) {
        g_autofree char *root = NULL;
        const char *output_dir = NULL;
        const char *e;

        log_to_kmsg_when_invoked_by_systemd();
        log_setup("policyd-generator", LOG_TARGET_CONSOLE);
        /* Quiet by default: boot logs get warnings only. */
        log_set_max_level(LOG_NOTICE);
        e = getenv("SYSTEMD_LOG_LEVEL");
        if (e && parse_log_level(e) >= 0)
                log_set_max_level(parse_log_level(e));

        /* Policy groups are for the system manager. */
        if (parse_argv(argc, argv, &root, &output_dir) > 0 && !streq_ptr(getenv("SYSTEMD_SCOPE"), "user"))
                generate(root, output_dir);

        log_to_kmsg_done();
        return 0; /* never fail boot */
}
