/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config-trust.h"
#include "policy-load.h"
#include "swap-tiers-conf.h"
#include "util.h"

const char *const policy_search_dirs[] = {
        "/etc/policy.d",
        "/run/policy.d",
        "/usr/local/lib/policy.d",
        "/usr/lib/policy.d",
        NULL,
};

const char *const config_search_dirs[] = {
        "/etc",
        "/run",
        "/usr/local/lib",
        "/usr/lib",
        NULL,
};

ConfigSource *config_source_free(ConfigSource *s) {
        if (!s)
                return NULL;
        g_free(s->name);
        g_free(s->file);
        g_ptr_array_unref(s->dropins);
        g_free(s);
        return NULL;
}
DEFINE_FREE_NOTIFY(config_source_free, ConfigSource)

static ConfigSource *config_source_new(const char *name) {
        ConfigSource *s = g_new0(ConfigSource, 1);
        s->name = g_strdup(name);
        s->dropins = g_ptr_array_new_with_free_func(g_free);
        return s;
}

static char *path_under_root(const char *root, const char *dir) {
        if (isempty(root) || streq(root, "/"))
                return g_strdup(dir);
        return g_build_filename(root, dir, NULL);
}

bool config_file_is_masked(const char *path) {
        struct stat st;

        /* stat() follows the symlink: a link to /dev/null is the null device. */
        if (stat(path, &st) < 0)
                return false;
        if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
                return true;
        return S_ISREG(st.st_mode) && st.st_size == 0;
}

bool config_file_is_trusted(const char *path, Diagnostics *diags) {
        _cleanup_close_ int fd = -1;
        int r;

        r = config_file_open_trusted(path, diags, &fd);
        return r != -EPERM; /* other errors: the read that follows reports them */
}

/* Adds the *.conf drop-ins of a NAME.d directory from dirpath into seen (basename → path) unless
 * a stronger directory already had that basename. */
static void collect_dropins(const char *dirpath, GHashTable *seen) {
        g_autoptr(GDir) d = g_dir_open(dirpath, 0, NULL);
        const char *e;

        if (!d)
                return;
        while ((e = g_dir_read_name(d))) {
                if (e[0] == '.' || !g_str_has_suffix(e, DROPIN_SUFFIX))
                        continue;
                if (g_hash_table_contains(seen, e))
                        continue;
                g_autofree char *p = g_build_filename(dirpath, e, NULL);
                if (g_file_test(p, G_FILE_TEST_IS_DIR))
                        continue;
                g_hash_table_insert(seen, g_strdup(e), TAKE_PTR(p));
        }
}

static void finish_dropins(ConfigSource *s, GHashTable *seen) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, seen);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                /* A /dev/null drop-in masks weaker ones of its name, and adds nothing. */
                if (config_file_is_masked(value))
                        continue;
                g_ptr_array_add(s->dropins, g_strdup(value));
        }
        g_ptr_array_sort(s->dropins, basename_strcmp_ptr);
}

typedef struct Found {
        char *file;            /* strongest main file, or NULL */
        GHashTable *dropins;   /* basename → path */
} Found;

static void found_free(Found *f) {
        if (!f)
                return;
        g_free(f->file);
        g_hash_table_unref(f->dropins);
        g_free(f);
}

static Found *found_get(GHashTable *by_name, const char *name) {
        Found *f = g_hash_table_lookup(by_name, name);
        if (!f) {
                f = g_new0(Found, 1);
                f->dropins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
                g_hash_table_insert(by_name, g_strdup(name), f);
        }
        return f;
}

static ConfigSource *source_from_found(const char *name, Found *f) {
        ConfigSource *s = config_source_new(name);
        s->file = g_strdup(f->file);
        s->masked = f->file && config_file_is_masked(f->file);
        if (!s->masked)
                finish_dropins(s, f->dropins);
        return s;
}

static gint compare_sources(gconstpointer a, gconstpointer b) {
        const ConfigSource *sa = *(const ConfigSource *const *) a, *sb = *(const ConfigSource *const *) b;
        return strcmp(sa->name, sb->name);
}

int config_sources_find(const char *root, const char *const *dirs, const char *suffix, GPtrArray **ret,
                        Diagnostics *diags) {
        g_autoptr(GHashTable) by_name =
                g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify) found_free);
        g_autofree char *dropin_suffix = g_strconcat(suffix, ".d", NULL);

        for (const char *const *dir = dirs; *dir; dir++) {
                g_autofree char *dirpath = path_under_root(root, *dir);
                g_autoptr(GError) error = NULL;
                g_autoptr(GDir) d = g_dir_open(dirpath, 0, &error);
                const char *e;

                if (!d) {
                        if (!g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT) &&
                            !g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
                                diagnostics_add(diags, DIAGNOSTIC_WARNING, dirpath, 0,
                                                "Cannot read directory, skipping: %s", error->message);
                        continue;
                }

                /* Sorted, so that results never depend on readdir order. */
                g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
                while ((e = g_dir_read_name(d)))
                        if (e[0] != '.')
                                g_ptr_array_add(names, g_strdup(e));
                g_ptr_array_sort(names, strcmp_ptr);

                for (guint i = 0; i < names->len; i++) {
                        const char *entry = g_ptr_array_index(names, i);
                        g_autofree char *p = g_build_filename(dirpath, entry, NULL);

                        if (g_str_has_suffix(entry, suffix) && strlen(entry) > strlen(suffix)) {
                                g_autofree char *name = g_strndup(entry, strlen(entry) - strlen(suffix));
                                if (g_file_test(p, G_FILE_TEST_IS_DIR))
                                        continue;
                                Found *f = found_get(by_name, name);
                                if (!f->file)
                                        f->file = TAKE_PTR(p);
                        } else if (g_str_has_suffix(entry, dropin_suffix) && strlen(entry) > strlen(dropin_suffix)) {
                                g_autofree char *name =
                                        g_strndup(entry, strlen(entry) - strlen(dropin_suffix));
                                if (!g_file_test(p, G_FILE_TEST_IS_DIR))
                                        continue;
                                collect_dropins(p, found_get(by_name, name)->dropins);
                        }
                }
        }

        g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func(config_source_free_notify);
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, by_name);
        while (g_hash_table_iter_next(&it, &key, &value))
                g_ptr_array_add(sources, source_from_found(key, value));
        g_ptr_array_sort(sources, compare_sources);

        *ret = TAKE_PTR(sources);
        return 0;
}

int config_source_find_one(const char *root, const char *const *dirs, const char *filename, ConfigSource **ret,
                           Diagnostics *diags) {
        g_autoptr(GHashTable) dropins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        g_autofree char *file = NULL;
        g_autofree char *dropin_dir = g_strconcat(filename, ".d", NULL);

        for (const char *const *dir = dirs; *dir; dir++) {
                g_autofree char *dirpath = path_under_root(root, *dir);
                g_autofree char *p = g_build_filename(dirpath, filename, NULL);
                g_autofree char *dp = g_build_filename(dirpath, dropin_dir, NULL);

                if (!file && g_file_test(p, G_FILE_TEST_EXISTS) && !g_file_test(p, G_FILE_TEST_IS_DIR))
                        file = TAKE_PTR(p);
                collect_dropins(dp, dropins);
        }

        if (!file && g_hash_table_size(dropins) == 0) {
                *ret = NULL;
                return 0;
        }

        Found f = { .file = file, .dropins = dropins };
        *ret = source_from_found(filename, &f);
        return 0;
}

/* ---- policy file table ---- */

static void parse_description(const ConfContext *ctx, const char *value, void *data) {
        char **s = data;
        g_free(*s);
        *s = isempty(value) ? NULL : g_strdup(value);
}

/* systemd's documentation_url_is_valid(): http(s)://, file:/, info: or
 * man:, followed by something in ASCII. */
static bool documentation_url_valid(const char *url) {
        static const char *const schemes[] = { "http://", "https://", "file:/", "info:", "man:" };

        for (size_t i = 0; i < ELEMENTSOF(schemes); i++) {
                if (!g_str_has_prefix(url, schemes[i]))
                        continue;
                const char *rest = url + strlen(schemes[i]);
                if (*rest == '\0')
                        return false;
                for (; *rest; rest++)
                        if ((unsigned char) *rest >= 0x80)
                                return false;
                return true;
        }
        return false;
}

/* Documentation=, as systemd reads it in a unit: words appended, empty
 * resets, invalid URLs dropped with a warning, an unbalanced quote drops
 * the assignment. No %-specifiers. */
static void parse_documentation(const ConfContext *ctx, const char *value, void *data) {
        GPtrArray *list = *(GPtrArray **) data;
        g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func(g_free);

        if (isempty(value)) {
                g_ptr_array_set_size(list, 0);
                return;
        }
        if (conf_extract_words(value, words) < 0) {
                diagnostics_add(ctx->diags, DIAGNOSTIC_WARNING, ctx->file, ctx->line,
                                "Failed to parse %s= (an unbalanced quote), ignoring the assignment: %s", ctx->key,
                                value);
                return;
        }
        for (guint i = 0; i < words->len; i++) {
                const char *url = g_ptr_array_index(words, i);
                if (documentation_url_valid(url))
                        g_ptr_array_add(list, g_strdup(url));
                else
                        diagnostics_add(ctx->diags, DIAGNOSTIC_WARNING, ctx->file, ctx->line,
                                        "Invalid URL in %s=, ignoring: %s", ctx->key, url);
        }
}

/* For the parsers of single values: true (and an error naming file, line
 * and key) when r says the value is invalid; the previous value stays. */
static bool refuse_value(const ConfContext *ctx, const char *value, int r, const char *const *why) {
        /* why by address: it is set by the call that computes r, and
         * arguments are evaluated in no particular order. */
        if (r >= 0)
                return false;
        diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                        "Invalid %s= value '%s': %s; keeping the previous value", ctx->key, value, *why);
        return true;
}

static void parse_priority_key(const ConfContext *ctx, const char *value, void *data) {
        unsigned *p = data, v;
        const char *why = NULL;

        if (isempty(value))
                *p = 0;
        else if (!refuse_value(ctx, value, parse_priority(value, &v, &why), &why))
                *p = v;
}

/* ltype is the default, which an empty assignment restores. */
static void parse_boolean_key(const ConfContext *ctx, const char *value, void *data) {
        bool *b = data, v;
        const char *why = NULL;

        if (isempty(value))
                *b = ctx->ltype != 0;
        else if (!refuse_value(ctx, value, parse_boolean(value, &v, &why), &why))
                *b = v;
}

/* Focused=: yes, no, or empty for unset (-1). */
static void parse_focused(const ConfContext *ctx, const char *value, void *data) {
        int *focused = data;
        const char *why = NULL;
        bool v;

        if (isempty(value))
                *focused = -1;
        else if (!refuse_value(ctx, value, parse_boolean(value, &v, &why), &why))
                *focused = v;
}

/* InactiveFor=: a time span, or empty for unset. */
static void parse_inactive_for(const ConfContext *ctx, const char *value, void *data) {
        uint64_t *usec = data, v;
        const char *why = NULL;

        if (isempty(value))
                *usec = FOCUS_UNSET;
        else if (!refuse_value(ctx, value, parse_timespan(value, &v, &why), &why))
                *usec = v;
}

/* Manager=: system, user or any; empty for the default, system. */
static void parse_manager(const ConfContext *ctx, const char *value, void *data) {
        MatchManager *manager = data;
        const char *why = "expected system, user or any";
        int v;

        if (isempty(value)) {
                *manager = MATCH_MANAGER_SYSTEM;
                return;
        }
        v = match_manager_from_string(value);
        if (!refuse_value(ctx, value, v < 0 ? v : 0, &why))
                *manager = (MatchManager) v;
}

typedef enum MatchKind {
        MATCH_GLOB,       /* Unit=, ControlGroup= */
        MATCH_SLICE,
        MATCH_USER,
        MATCH_XATTR,
        MATCH_EXECUTABLE,
} MatchKind;

static int validate_match_word(MatchKind kind, const char *w, const char **why) {
        int r;

        switch (kind) {
        case MATCH_GLOB:
                return validate_glob(w, why);
        case MATCH_SLICE:
                r = validate_glob(w, why);
                if (r < 0)
                        return r;
                if (!g_str_has_suffix(w, ".slice") && !strpbrk(w, "*?[")) {
                        *why = "not a slice unit name (it must end in .slice)";
                        return -EINVAL;
                }
                return 0;
        case MATCH_USER: {
                uint32_t uid;
                if (g_ascii_isdigit(w[0]))
                        return parse_uid(w, &uid) < 0 ? (*why = "not a valid uid", -EINVAL) : 0;
                for (const char *p = w; *p; p++)
                        if (!g_ascii_isalnum(*p) && !strchr("._-$", *p)) {
                                *why = "not a valid user name";
                                return -EINVAL;
                        }
                return 0;
        }
        case MATCH_XATTR:
                /* Our own tag and the self-request are not policy inputs. */
                if (g_str_has_prefix(w, "user.policy.")) {
                        *why = "the user.policy. namespace is policyd's own and cannot be matched on";
                        return -EINVAL;
                }
                return parse_xattr_assignment(w, NULL, NULL, why);
        case MATCH_EXECUTABLE:
                if (w[0] != '/' && w[0] != '*') {
                        *why = "executable pattern must be an absolute path or start with '*'";
                        return -EINVAL;
                }
                return validate_glob(w, why);
        }
        return -EINVAL;
}

/* Space-separated words; empty assignment resets the list. All or nothing:
 * one bad word rejects the assignment. */
static void parse_match_list(const ConfContext *ctx, const char *value, void *data) {
        GPtrArray *list = *(GPtrArray **) data;
        g_auto(GStrv) words = g_strsplit_set(value, " \t", -1);

        if (isempty(value)) {
                g_ptr_array_set_size(list, 0);
                return;
        }
        for (char **w = words; *w; w++) {
                const char *why = NULL;
                if (**w == '\0')
                        continue;
                if (validate_match_word((MatchKind) ctx->ltype, *w, &why) < 0) {
                        diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                                        "Invalid %s= value '%s': %s; ignoring the assignment", ctx->key, *w, why);
                        return;
                }
        }
        for (char **w = words; *w; w++)
                if (**w != '\0')
                        g_ptr_array_add(list, g_strdup(*w));
}

static int parse_tiers(const char *value, char ***ret, const char **why) {
        g_auto(GStrv) words = g_strsplit_set(value, " \t,", -1);
        g_autoptr(GPtrArray) tiers = g_ptr_array_new_with_free_func(g_free);

        for (char **w = words; *w; w++) {
                if (**w == '\0')
                        continue;
                int r = validate_tier_name(*w, why);
                if (r < 0)
                        return r;
                bool dup = false;
                for (guint i = 0; i < tiers->len; i++)
                        dup = dup || streq(g_ptr_array_index(tiers, i), *w);
                if (!dup)
                        g_ptr_array_add(tiers, g_strdup(*w));
        }
        for (guint i = 0; i < tiers->len; i++)
                if (streq(g_ptr_array_index(tiers, i), "none") && tiers->len > 1) {
                        *why = "'none' cannot be combined with other tiers";
                        return -EINVAL;
                }
        g_ptr_array_add(tiers, NULL);
        *ret = (char **) g_ptr_array_free(TAKE_PTR(tiers), FALSE);
        return 0;
}

static void parse_knob(const ConfContext *ctx, const char *value, void *data) {
        KnobSetting *setting = data;
        Knob k = (Knob) ctx->ltype;
        KnobValue v = {};
        const char *why = NULL;
        int r = 0;

        if (isempty(value)) {
                /* Empty assignment: back to "not set by this group". */
                knob_value_clear(&setting->value);
                provenance_clear(&setting->source);
                setting->set = false;
                return;
        }

        switch (knob_type(k)) {
        case KNOB_TYPE_MEMORY_LIMIT:
                r = parse_memory_limit(value, &v.limit, &why);
                break;
        case KNOB_TYPE_BOOLEAN:
                r = parse_boolean(value, &v.boolean, &why);
                break;
        case KNOB_TYPE_TIERS:
                r = parse_tiers(value, &v.tiers, &why);
                break;
        case KNOB_TYPE_NUMA_POLICY:
                r = parse_numa_policy(value, &v.numa_policy, &why);
                break;
        case KNOB_TYPE_NUMA_NODES:
                r = parse_numa_nodes(value, &v.numa_nodes, &why);
                break;
        }
        if (r < 0) {
                diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                                "Invalid %s= value '%s': %s; keeping the previous value", ctx->key, value, why);
                knob_value_clear(&v);
                return;
        }

        knob_value_clear(&setting->value);
        setting->value = v;
        setting->set = true;
        provenance_set(&setting->source, ctx->file, ctx->line);
}

static void parse_attribute(const ConfContext *ctx, const char *value, void *data) {
        GPtrArray *list = *(GPtrArray **) data;
        g_autofree char *name = NULL, *v = NULL;
        const char *why = NULL;

        if (isempty(value)) {
                g_ptr_array_set_size(list, 0);
                return;
        }
        if (parse_xattr_assignment(value, &name, &v, &why) < 0) {
                diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                                "Invalid %s= value '%s': %s; ignoring the assignment", ctx->key, value, why);
                return;
        }
        if (g_str_has_prefix(name, "user.policy.")) {
                diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                                "Invalid %s= value '%s': the user.policy. namespace is reserved for policyd; "
                                "ignoring the assignment",
                                ctx->key, value);
                return;
        }

        /* A later assignment of the same name replaces the earlier one. */
        for (guint i = 0; i < list->len; i++) {
                AttributeSetting *a = g_ptr_array_index(list, i);
                if (streq(a->name, name)) {
                        g_ptr_array_remove_index(list, i);
                        break;
                }
        }
        AttributeSetting *a = g_new0(AttributeSetting, 1);
        a->name = TAKE_PTR(name);
        a->value = TAKE_PTR(v);
        provenance_set(&a->source, ctx->file, ctx->line);
        g_ptr_array_add(list, a);
}

#define KNOB_ITEM(section, key, knob) \
        { section, key, parse_knob, offsetof(PolicyGroup, knobs) + (knob) * sizeof(KnobSetting), knob }

static const ConfTableItem policy_table[] = {
        { "PolicyGroup", "Description", parse_description, offsetof(PolicyGroup, description), 0 },
        { "PolicyGroup", "Documentation", parse_documentation, offsetof(PolicyGroup, documentation), 0 },
        { "PolicyGroup", "Priority", parse_priority_key, offsetof(PolicyGroup, priority), 0 },
        { "PolicyGroup", "AllowSelfAssign", parse_boolean_key, offsetof(PolicyGroup, allow_self_assign), 0 },
        { "PolicyGroup", "ApplyToRunning", parse_boolean_key, offsetof(PolicyGroup, apply_to_running), 0 },
        { "Match", "Unit", parse_match_list, offsetof(PolicyGroup, match_units), MATCH_GLOB },
        { "Match", "Slice", parse_match_list, offsetof(PolicyGroup, match_slices), MATCH_SLICE },
        { "Match", "ControlGroup", parse_match_list, offsetof(PolicyGroup, match_cgroups), MATCH_GLOB },
        { "Match", "User", parse_match_list, offsetof(PolicyGroup, match_users), MATCH_USER },
        { "Match", "XAttr", parse_match_list, offsetof(PolicyGroup, match_xattrs), MATCH_XATTR },
        { "Match", "Manager", parse_manager, offsetof(PolicyGroup, match_manager), 0 },
        { "Match", "Focused", parse_focused, offsetof(PolicyGroup, match_focused), 0 },
        { "Match", "InactiveFor", parse_inactive_for, offsetof(PolicyGroup, match_inactive_usec), 0 },
        { "Match", "Executable", parse_match_list, offsetof(PolicyGroup, match_executables), MATCH_EXECUTABLE },
        KNOB_ITEM("Swap", "SwapMax", KNOB_SWAP_MAX),
        KNOB_ITEM("Swap", "SwapHigh", KNOB_SWAP_HIGH),
        KNOB_ITEM("Swap", "ZSwapMax", KNOB_ZSWAP_MAX),
        KNOB_ITEM("Swap", "ZSwapWriteback", KNOB_ZSWAP_WRITEBACK),
        KNOB_ITEM("Swap", "SwapTiers", KNOB_SWAP_TIERS),
        KNOB_ITEM("Memory", "KSM", KNOB_KSM),
        KNOB_ITEM("Memory", "NUMAPolicy", KNOB_NUMA_POLICY),
        KNOB_ITEM("Memory", "NUMANodes", KNOB_NUMA_NODES),
        { "Attributes", "XAttr", parse_attribute, offsetof(PolicyGroup, attributes), 0 },
        {},
};

void policy_group_apply_conf(PolicyGroup *g, const ConfFile *f, Diagnostics *diags) {
        conf_table_apply(policy_table, f, g, diags);
}

static int policy_group_apply_file(PolicyGroup *g, const char *path, Diagnostics *diags) {
        g_autoptr(ConfFile) f = NULL;
        int r;

        r = config_file_parse_trusted(path, &f, diags);
        if (r < 0)
                return r;
        /* Where systemd would refuse a unit file, the whole policy file goes,
         * drop-ins included: half a drop-in is never what its author meant
         * (policy.d(5), "Syntax"). */
        if (f->refused)
                return -EBADMSG;
        policy_group_apply_conf(g, f, diags);
        return 0;
}

PolicyGroup *policy_group_load(const ConfigSource *source, Diagnostics *diags) {
        const char *why = NULL;

        if (!source->file || source->masked)
                return NULL;
        if (validate_group_name(source->name, &why) < 0) {
                diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE, DIAGNOSTIC_WARNING, source->file, 0,
                                        "Invalid group name '%s': %s; ignoring the file", source->name, why);
                return NULL;
        }
        g_autoptr(PolicyGroup) g = policy_group_new(source->name);
        g->file = g_strdup(source->file);
        /* Without its main file a group would silently fall back to
         * defaults; better that it is absent, with the error saying why. */
        if (policy_group_apply_file(g, source->file, diags) < 0)
                return NULL;

        for (guint i = 0; i < source->dropins->len; i++) {
                const char *p = g_ptr_array_index(source->dropins, i);
                if (policy_group_apply_file(g, p, diags) >= 0)
                        g_ptr_array_add(g->dropins, g_strdup(p));
        }

        policy_group_check(g, diags);
        return TAKE_PTR(g);
}

void policy_group_check(PolicyGroup *g, Diagnostics *diags) {
        KnobSetting *policy = &g->knobs[KNOB_NUMA_POLICY];
        KnobSetting *nodes = &g->knobs[KNOB_NUMA_NODES];
        KnobSetting *swap_max = &g->knobs[KNOB_SWAP_MAX];
        KnobSetting *swap_high = &g->knobs[KNOB_SWAP_HIGH];

        if (policy->set && !nodes->set &&
            (policy->value.numa_policy == NUMA_POLICY_BIND || policy->value.numa_policy == NUMA_POLICY_INTERLEAVE ||
             policy->value.numa_policy == NUMA_POLICY_WEIGHTED_INTERLEAVE)) {
                /* set_mempolicy() rejects these with an empty node mask. */
                diagnostics_add(diags, DIAGNOSTIC_ERROR, policy->source.file, policy->source.line,
                                "NUMAPolicy=%s needs NUMANodes= in group '%s'; ignoring NUMAPolicy=",
                                numa_policy_to_string(policy->value.numa_policy), g->name);
                knob_value_clear(&policy->value);
                provenance_clear(&policy->source);
                policy->set = false;
        }

        /* Executable= selects processes for these two knobs only. */
        if (g->match_executables->len > 0) {
                KnobSetting *ksm = &g->knobs[KNOB_KSM];
                const KnobSetting *first = ksm->set ? ksm : policy->set ? policy : NULL;
                if (!first)
                        diagnostics_add(diags, DIAGNOSTIC_WARNING, g->file, 0,
                                        "Executable= in group '%s' has no effect: it limits only KSM= and "
                                        "NUMAPolicy=, and the group sets neither",
                                        g->name);
                else if (!g->apply_to_running)
                        diagnostics_add(diags, DIAGNOSTIC_NOTICE, first->source.file, first->source.line,
                                        "Executable= limits %s= of group '%s' to matching processes, which only "
                                        "ApplyToRunning=yes (or policyctl exec) reaches: with ApplyToRunning=no "
                                        "no unit gets it at start",
                                        ksm->set ? "KSM" : "NUMAPolicy", g->name);
        }

        /* Mutter writes the focus on app cgroups, which their user owns. */
        if (g->match_focused == 1 && g->match_inactive_usec != FOCUS_UNSET)
                diagnostics_add(diags, DIAGNOSTIC_WARNING, g->file, 0,
                                "Group '%s' has Focused=yes and InactiveFor=, so it matches nothing: an app with "
                                "focus is not inactive",
                                g->name);
        else if ((g->match_focused >= 0 || g->match_inactive_usec != FOCUS_UNSET) && !g->allow_self_assign)
                diagnostics_add(diags, DIAGNOSTIC_NOTICE, g->file, 0,
                                "Focused= and InactiveFor= of group '%s' select only cgroups that root owns: "
                                "desktop apps' cgroups belong to their user, whose attributes select only groups "
                                "with AllowSelfAssign=yes",
                                g->name);

        bool selects = g->match_units->len + g->match_slices->len + g->match_cgroups->len + g->match_users->len +
                               g->match_xattrs->len >
                       0;
        bool reads_focus = g->match_focused >= 0 || g->match_inactive_usec != FOCUS_UNSET;
        if (g->match_manager != MATCH_MANAGER_SYSTEM && !selects && !reads_focus)
                diagnostics_add(diags, DIAGNOSTIC_WARNING, g->file, 0,
                                "Manager=%s in group '%s' selects nothing on its own: it narrows the other [Match] "
                                "keys (Unit=* takes every unit)",
                                match_manager_to_string(g->match_manager), g->name);
        else if (reads_focus && g->match_manager == MATCH_MANAGER_SYSTEM)
                diagnostics_add(diags, DIAGNOSTIC_NOTICE, g->file, 0,
                                "Focused= and InactiveFor= of group '%s' reach only PID 1's units: a desktop "
                                "session's apps are units of the user's own manager (Manager=user or any)",
                                g->name);

        if (swap_max->set && swap_high->set && swap_max->value.limit.kind == MEMORY_LIMIT_BYTES &&
            swap_high->value.limit.kind == MEMORY_LIMIT_BYTES && swap_high->value.limit.bytes >= swap_max->value.limit.bytes)
                diagnostics_add(diags, DIAGNOSTIC_WARNING, swap_high->source.file, swap_high->source.line,
                                "SwapHigh= is not below SwapMax= in group '%s', so it has no effect", g->name);
}

int policy_set_load(const char *root, const char *const *dirs, PolicySet **ret, Diagnostics *diags) {
        g_autoptr(GPtrArray) sources = NULL;
        g_autoptr(PolicySet) set = policy_set_new();
        int r;

        r = config_sources_find(root, dirs ?: policy_search_dirs, POLICY_SUFFIX, &sources, diags);
        if (r < 0)
                return r;

        for (guint i = 0; i < sources->len; i++) {
                const ConfigSource *s = g_ptr_array_index(sources, i);

                if (s->masked) {
                        g_ptr_array_add(set->masked, g_strdup(s->name));
                        continue;
                }
                if (!s->file) {
                        diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE, DIAGNOSTIC_WARNING,
                                                g_ptr_array_index(s->dropins, 0), 0,
                                                "Drop-in for group '%s', which has no %s%s file; ignoring",
                                                s->name, s->name, POLICY_SUFFIX);
                        continue;
                }
                PolicyGroup *g = policy_group_load(s, diags);
                if (g)
                        policy_set_add(set, g);
        }

        *ret = TAKE_PTR(set);
        return 0;
}

/* ---- policyd.conf ---- */

static void parse_seconds(const ConfContext *ctx, const char *value, void *data) {
        unsigned *sec = data;
        uint64_t v = 0;
        const char *p = value;

        if (isempty(value) || streq(value, "off") || streq(value, "infinity")) {
                *sec = 0;
                return;
        }
        for (; g_ascii_isdigit(*p) && v <= 86400 * 365; p++)
                v = v * 10 + (uint64_t) (*p - '0');
        uint64_t factor = streq(p, "min") || streq(p, "m") ? 60 : streq(p, "h") ? 3600 : 1;
        if (p == value || v * factor > 86400 * 365 ||
            !(streq(p, "") || streq(p, "s") || streq(p, "m") || streq(p, "min") || streq(p, "h"))) {
                diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                                "Invalid %s= value '%s': use whole seconds, or a number with s, m, min or h, up to a "
                                "year; keeping the previous value",
                                ctx->key, value);
                return;
        }
        *sec = (unsigned) (v * factor);
}

/* [SwapTiers] Tier=NAME:PRIO, a list: an empty assignment resets it. */
static void parse_swap_tier(const ConfContext *ctx, const char *value, void *data) {
        GPtrArray **tiers = data;
        g_autofree char *name = NULL;
        const char *why = NULL;
        int prio;

        if (isempty(value)) {
                g_ptr_array_set_size(*tiers, 0);
                return;
        }
        if (swap_tier_parse(value, &name, &prio, &why) < 0) {
                diagnostics_add(ctx->diags, DIAGNOSTIC_ERROR, ctx->file, ctx->line,
                                "Invalid %s= value '%s': %s; ignoring it", ctx->key, value, why);
                return;
        }
        g_ptr_array_add(*tiers, swap_tier_new(name, prio, ctx->file, ctx->line));
}

static const ConfTableItem daemon_table[] = {
        { "Daemon", "RescanIntervalSec", parse_seconds, offsetof(DaemonConfig, rescan_interval_sec), 0 },
        { "Daemon", "DryRun", parse_boolean_key, offsetof(DaemonConfig, dry_run), 0 },
        { "SwapTiers", "Tier", parse_swap_tier, offsetof(DaemonConfig, swap_tiers), 0 },
        {},
};

static void swap_tier_free_void(gpointer p) {
        swap_tier_free(p);
}

void daemon_config_init(DaemonConfig *c) {
        *c = (DaemonConfig) {
                .rescan_interval_sec = 0,
                .swap_tiers = g_ptr_array_new_with_free_func(swap_tier_free_void),
                .swap_tiers_valid = true,
        };
}

void daemon_config_done(DaemonConfig *c) {
        if (c->swap_tiers)
                g_ptr_array_unref(c->swap_tiers);
        *c = (DaemonConfig) {};
}

void daemon_config_check(DaemonConfig *c, Diagnostics *diags) {
        c->swap_tiers_valid = swap_tiers_check(c->swap_tiers, diags);
}

void daemon_config_load_file(DaemonConfig *c, const ConfFile *f, Diagnostics *diags) {
        conf_table_apply(daemon_table, f, c, diags);
}

static void daemon_config_apply_path(DaemonConfig *c, const char *path, Diagnostics *diags) {
        g_autoptr(ConfFile) f = NULL;

        if (config_file_parse_trusted(path, &f, diags) < 0 || f->refused)
                return;
        daemon_config_load_file(c, f, diags);
}

int daemon_config_load(const char *root, DaemonConfig *c, Diagnostics *diags) {
        g_autoptr(ConfigSource) s = NULL;
        int r;

        r = config_source_find_one(root, config_search_dirs, "policyd.conf", &s, diags);
        if (r < 0 || !s)
                return r;
        if (s->masked) {
                /* An empty policyd.conf masks every drop-in too: say so. */
                diagnostics_add(diags, DIAGNOSTIC_NOTICE, s->file, 0,
                                "policyd.conf is masked (empty, or a link to /dev/null): drop-ins are ignored and "
                                "the defaults apply");
                return 0;
        }
        if (s->file)
                daemon_config_apply_path(c, s->file, diags);
        for (guint i = 0; i < s->dropins->len; i++)
                daemon_config_apply_path(c, g_ptr_array_index(s->dropins, i), diags);
        daemon_config_check(c, diags);
        return 0;
}

/* ---- verify ---- */

int policy_group_load_file(const char *path, PolicyGroup **ret, Diagnostics *diags) {
        g_autofree char *base = g_path_get_basename(path);
        g_autofree char *dropdir = g_strconcat(path, ".d", NULL);
        g_autoptr(GHashTable) dropins = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

        if (!g_str_has_suffix(base, POLICY_SUFFIX) || streq(base, POLICY_SUFFIX)) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, path, 0, "Not a NAME%s file", POLICY_SUFFIX);
                return -EINVAL;
        }
        if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, path, 0, "No such file");
                return -ENOENT;
        }

        g_autofree char *name = g_strndup(base, strlen(base) - strlen(POLICY_SUFFIX));
        g_autoptr(ConfigSource) s = config_source_new(name);
        s->file = g_strdup(path);
        s->masked = config_file_is_masked(path);
        if (s->masked) {
                diagnostics_add(diags, DIAGNOSTIC_NOTICE, path, 0, "Group '%s' is masked", name);
                *ret = NULL;
                return 0;
        }
        collect_dropins(dropdir, dropins);
        finish_dropins(s, dropins);
        *ret = policy_group_load(s, diags);
        return 0;
}

static bool is_daemon_config_path(const char *path) {
        g_autofree char *base = g_path_get_basename(path);
        g_autofree char *dir = g_path_get_dirname(path);
        g_autofree char *dirbase = g_path_get_basename(dir);
        return streq(base, "policyd.conf") || streq(dirbase, "policyd.conf.d");
}

int policy_file_verify(const char *path, Diagnostics *diags) {
        g_autofree char *base = g_path_get_basename(path);

        if (is_daemon_config_path(path)) {
                DaemonConfig c;
                daemon_config_init(&c);
                daemon_config_apply_path(&c, path, diags);
                /* A drop-in alone may hold part of the list only. */
                if (streq(base, "policyd.conf"))
                        daemon_config_check(&c, diags);
                daemon_config_done(&c);
                return 0;
        }

        if (g_str_has_suffix(base, POLICY_SUFFIX) && !streq(base, POLICY_SUFFIX)) {
                g_autoptr(PolicyGroup) g = NULL;
                return policy_group_load_file(path, &g, diags);
        }

        if (g_str_has_suffix(base, DROPIN_SUFFIX)) {
                /* A drop-in alone: the same table, without the group checks. */
                g_autoptr(PolicyGroup) g = policy_group_new("drop-in");
                if (config_file_is_masked(path)) {
                        diagnostics_add(diags, DIAGNOSTIC_NOTICE, path, 0,
                                        "Masks drop-ins of this name in weaker directories");
                        return 0;
                }
                (void) policy_group_apply_file(g, path, diags);
                return 0;
        }

        diagnostics_add(diags, DIAGNOSTIC_ERROR, path, 0,
                        "Not a policy file: expected NAME.policy, a drop-in NAME.policy.d/*.conf, policyd.conf, or a "
                        "directory");
        return -EINVAL;
}
