/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>

#include "conf-parse.h"
#include "config-trust.h"
#include "policy-values.h"
#include "unit-file.h"
#include "util.h"

const char *const unit_search_dirs[] = {
        "/etc/systemd/system.control",
        "/run/systemd/system.control",
        "/run/systemd/transient",
        "/run/systemd/generator.early",
        "/etc/systemd/system",
        "/etc/systemd/system.attached",
        "/run/systemd/system",
        "/run/systemd/system.attached",
        "/run/systemd/generator",
        "/usr/local/lib/systemd/system",
        "/usr/lib/systemd/system",
        "/run/systemd/generator.late",
        NULL,
};

const char *unit_type_section(const char *unit_name) {
        static const struct {
                const char *suffix, *section;
        } table[] = {
                { ".service", "Service" }, { ".socket", "Socket" }, { ".mount", "Mount" },
                { ".swap", "Swap" },       { ".slice", "Slice" },   { ".scope", "Scope" },
                { ".automount", "Automount" }, { ".timer", "Timer" }, { ".path", "Path" },
                { ".target", "Target" },   { ".device", "Device" },
        };
        const char *dot = unit_name ? strrchr(unit_name, '.') : NULL;

        if (!dot)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(dot, table[i].suffix))
                        return table[i].section;
        return NULL;
}

void unit_file_collect_policy_groups(const char *unit_name, const ConfFile *f, GPtrArray *groups,
                                     Diagnostics *diags) {
        const char *type_section = unit_type_section(unit_name);
        const char *path = f->path;

        for (guint i = 0; i < f->assignments->len; i++) {
                const ConfAssignment *a = g_ptr_array_index(f->assignments, i);

                if (!streq(a->key, "PolicyGroup") && !streq(a->key, "X-PolicyGroup"))
                        continue;
                if (!streq(a->section, "Unit") && !streq_ptr(a->section, type_section))
                        continue;

                if (isempty(a->value)) {
                        g_ptr_array_set_size(groups, 0);
                        continue;
                }

                g_auto(GStrv) words = g_strsplit_set(a->value, " \t", -1);
                for (char **w = words; *w; w++) {
                        const char *why = NULL;
                        bool dup = false;

                        if (**w == '\0')
                                continue;
                        if (validate_group_name(*w, &why) < 0) {
                                diagnostics_add(diags, DIAGNOSTIC_ERROR, path, a->line,
                                                "Invalid %s= value '%s': %s; ignoring it", a->key, *w, why);
                                continue;
                        }
                        for (guint j = 0; j < groups->len; j++)
                                dup = dup || streq(g_ptr_array_index(groups, j), *w);
                        if (!dup)
                                g_ptr_array_add(groups, g_strdup(*w));
                }
        }
}

/* -EBADMSG when systemd would refuse the file; the groups named before the
 * bad line are collected all the same. */
/* A unit file, read as reader could (0: root, PID 1's units). */
static int parse_unit_file(const char *path, uid_t reader, ConfFile **ret, Diagnostics *diags) {
        return reader == 0 ? conf_parse_file(path, ret, diags) : config_file_parse_as_user(path, reader, ret, diags);
}

static int read_one(const char *unit_name, const char *path, uid_t reader, GPtrArray *groups, Diagnostics *diags) {
        g_autoptr(ConfFile) f = NULL;
        int r;

        r = parse_unit_file(path, reader, &f, diags);
        if (r < 0)
                return r;
        unit_file_collect_policy_groups(unit_name, f, groups, diags);
        return f->refused ? -EBADMSG : 0;
}

int unit_file_read_policy_groups(const char *unit_name, const char *fragment, const char *const *dropins,
                                 uid_t reader, char ***ret, Diagnostics *diags) {
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);

        /* /dev/null fragments are masked units: nothing to read. A fragment
         * systemd refuses leaves the unit unloaded (LoadState=error), so it
         * is in no group at all. A refused drop-in only loses its lines from
         * the bad one on: systemd 257 keeps what it had read. */
        if (!isempty(fragment) && !streq(fragment, "/dev/null") &&
            read_one(unit_name, fragment, reader, groups, diags) == -EBADMSG) {
                diagnostics_add_refusal(diags, DIAGNOSTIC_REFUSES_FILE, DIAGNOSTIC_ERROR, fragment, 0,
                                        "systemd refuses to load %s from this file, so it joins no policy group",
                                        unit_name);
                g_ptr_array_set_size(groups, 0);
        } else
                for (const char *const *d = dropins; d && *d; d++)
                        if (!streq(*d, "/dev/null"))
                                (void) read_one(unit_name, *d, reader, groups, diags);

        g_ptr_array_add(groups, NULL);
        *ret = (char **) g_ptr_array_free(TAKE_PTR(groups), FALSE);
        return 0;
}

char **unit_slice_chain(const char *slice) {
        g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(g_free);

        if (isempty(slice) || !g_str_has_suffix(slice, ".slice")) {
                g_ptr_array_add(chain, NULL);
                return (char **) g_ptr_array_free(TAKE_PTR(chain), FALSE);
        }
        g_ptr_array_add(chain, g_strdup(slice));
        /* systemd's slice names encode their parents: a-b.slice is in a.slice. */
        if (!streq(slice, "-.slice")) {
                g_autofree char *prefix = g_strndup(slice, strlen(slice) - strlen(".slice"));
                char *dash;
                while ((dash = strrchr(prefix, '-'))) {
                        *dash = '\0';
                        g_ptr_array_add(chain, g_strconcat(prefix, ".slice", NULL));
                }
                g_ptr_array_add(chain, g_strdup("-.slice"));
        }
        g_ptr_array_add(chain, NULL);
        return (char **) g_ptr_array_free(TAKE_PTR(chain), FALSE);
}

bool systemd_property_value_equal(const char *property, const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        if (streq(property, "MemoryZSwapWriteback")) {
                bool x, y;
                return parse_boolean(a, &x, NULL) >= 0 && parse_boolean(b, &y, NULL) >= 0 && x == y;
        }
        if (streq(property, "AllowedMemoryNodes")) {
                NumaNodeMask x = {}, y = {};
                if (!isempty(a) && parse_numa_nodes(a, &x, NULL) < 0)
                        return false;
                if (!isempty(b) && parse_numa_nodes(b, &y, NULL) < 0)
                        return false;
                return numa_node_mask_equal(&x, &y);
        }
        return streq(a, b);
}

bool unit_dropin_is_generated(const char *path) {
        static const char *const dirs[] = {
                "/run/systemd/generator/",
                "/run/systemd/generator.early/",
                "/run/systemd/generator.late/",
        };

        for (size_t i = 0; path && i < ELEMENTSOF(dirs); i++) {
                if (!g_str_has_prefix(path, dirs[i]))
                        continue;
                const char *dir = path + strlen(dirs[i]);
                const char *slash = strchr(dir, '/');
                /* Exactly NAME.d/FILE: the generator writes no deeper. */
                return slash && slash - dir > 2 && strncmp(slash - 2, ".d", 2) == 0 &&
                       streq(slash + 1, GENERATOR_DROPIN_FILE);
        }
        return false;
}

static void unit_property_assignment_free(gpointer p) {
        UnitPropertyAssignment *a = p;
        g_free(a->file);
        g_free(a->value);
        g_free(a);
}

static void read_property_of(const char *path, uid_t reader, const char *section, const char *property,
                             GPtrArray *out) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(ConfFile) f = NULL;

        if (parse_unit_file(path, reader, &f, diags) < 0)
                return;
        for (guint i = 0; i < f->assignments->len; i++) {
                const ConfAssignment *a = g_ptr_array_index(f->assignments, i);
                if (!streq(a->key, property) || !streq_ptr(a->section, section))
                        continue;
                UnitPropertyAssignment *u = g_new0(UnitPropertyAssignment, 1);
                u->file = g_strdup(path);
                u->value = g_strdup(a->value);
                g_ptr_array_add(out, u);
        }
}

int unit_file_read_property(const char *unit_name, const char *fragment, const char *const *dropins,
                            uid_t reader, const char *property, GPtrArray **ret) {
        const char *section = unit_type_section(unit_name);
        g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(unit_property_assignment_free);

        if (!section || !property || !ret)
                return -EINVAL;
        if (!isempty(fragment) && !streq(fragment, "/dev/null"))
                read_property_of(fragment, reader, section, property, out);
        for (const char *const *d = dropins; d && *d; d++)
                if (!streq(*d, "/dev/null"))
                        read_property_of(*d, reader, section, property, out);
        *ret = TAKE_PTR(out);
        return 0;
}

static bool is_memory_limit_property(const char *property) {
        return streq(property, "MemorySwapMax") || streq(property, "MemoryZSwapMax");
}

/* What systemd reports for a property no file sets. */
static const char *systemd_property_default(const char *property) {
        if (is_memory_limit_property(property))
                return "infinity";
        if (streq(property, "MemoryZSwapWriteback"))
                return "yes";
        return ""; /* AllowedMemoryNodes: all of them */
}

bool systemd_property_empty_is_value(const char *property) {
        return streq_ptr(property, "AllowedMemoryNodes");
}

int systemd_property_from_unit_file(const char *property, const char *value, char **ret) {
        if (!property || !value || !ret)
                return -EINVAL;

        if (is_memory_limit_property(property)) {
                uint64_t bytes;
                if (isempty(value) || streq(value, "infinity")) {
                        *ret = g_strdup(systemd_property_default(property));
                        return 0;
                }
                /* systemd takes a percentage of physical memory here. */
                if (g_str_has_suffix(value, "%") || g_str_has_suffix(value, "\u2030") ||
                    g_str_has_suffix(value, "\u2031"))
                        return -EOPNOTSUPP;
                if (parse_size(value, &bytes, NULL) < 0)
                        return -EINVAL;
                *ret = bytes == UINT64_MAX ? g_strdup("infinity") : g_strdup_printf("%" PRIu64, bytes);
                return 0;
        }
        if (streq(property, "MemoryZSwapWriteback")) {
                bool b;
                /* An empty or bad boolean is ignored by systemd. */
                if (parse_boolean(value, &b, NULL) < 0)
                        return -EINVAL;
                *ret = g_strdup(b ? "yes" : "no");
                return 0;
        }
        if (streq(property, "AllowedMemoryNodes")) {
                NumaNodeMask m = {};
                if (!isempty(value) && parse_numa_nodes(value, &m, NULL) < 0)
                        return -EINVAL;
                *ret = format_numa_nodes(&m);
                return 0;
        }
        return -EOPNOTSUPP;
}

int unit_property_previous(const char *property, const char *current, const GPtrArray *assignments, char **ret) {
        g_autofree char *generated = NULL;
        guint i;
        int r;

        if (!property || !ret)
                return -EINVAL;

        /* The assignment systemd applied last: invalid ones it ignored. */
        for (i = assignments ? assignments->len : 0; i > 0; i--) {
                const UnitPropertyAssignment *a = g_ptr_array_index(assignments, i - 1);
                r = systemd_property_from_unit_file(property, a->value, &generated);
                if (r == -EINVAL)
                        continue;
                if (r < 0 || !unit_dropin_is_generated(a->file))
                        g_clear_pointer(&generated, g_free);
                break;
        }
        /* Not ours, or changed since at runtime: current is someone else's. */
        if (!generated || !systemd_property_value_equal(property, current, generated)) {
                *ret = g_strdup(strempty(current));
                return 0;
        }

        /* Ours: what the administrator's files give without it. */
        for (i--; i > 0; i--) {
                const UnitPropertyAssignment *a = g_ptr_array_index(assignments, i - 1);
                g_autofree char *value = NULL;

                if (unit_dropin_is_generated(a->file))
                        continue;
                r = systemd_property_from_unit_file(property, a->value, &value);
                if (r == -EINVAL)
                        continue;
                *ret = r < 0 ? g_strdup("") : TAKE_PTR(value);
                return 1;
        }
        *ret = g_strdup(systemd_property_default(property));
        return 1;
}

bool unit_dropin_is_runtime_control(const char *path) {
        const char *dir, *slash;

        if (!path || !g_str_has_prefix(path, RUNTIME_CONTROL_DIR "/"))
                return false;
        dir = path + strlen(RUNTIME_CONTROL_DIR "/");
        slash = strchr(dir, '/');
        return slash && slash - dir > 2 && strncmp(slash - 2, ".d", 2) == 0 && slash[1] && !strchr(slash + 1, '/');
}

bool unit_property_dropin_restates_files(const char *property, const char *restored, const GPtrArray *assignments) {
        if (!property || !restored)
                return false;

        /* The last assignment systemd takes wins; invalid ones it ignores. */
        for (guint i = assignments ? assignments->len : 0; i > 0; i--) {
                const UnitPropertyAssignment *a = g_ptr_array_index(assignments, i - 1);
                g_autofree char *value = NULL;

                if (unit_dropin_is_generated(a->file) || unit_dropin_is_runtime_control(a->file))
                        continue;
                int r = systemd_property_from_unit_file(property, a->value, &value);
                if (r == -EINVAL)
                        continue;
                return r >= 0 && systemd_property_value_equal(property, restored, value);
        }
        return systemd_property_value_equal(property, restored, systemd_property_default(property));
}
