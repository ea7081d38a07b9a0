/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "conf-parse.h"
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
static int read_one(const char *unit_name, const char *path, GPtrArray *groups, Diagnostics *diags) {
        g_autoptr(ConfFile) f = NULL;
        int r;

        r = conf_parse_file(path, &f, diags);
        if (r < 0)
                return r;
        unit_file_collect_policy_groups(unit_name, f, groups, diags);
        return f->refused ? -EBADMSG : 0;
}

int unit_file_read_policy_groups(const char *unit_name, const char *fragment, const char *const *dropins,
                                 char ***ret, Diagnostics *diags) {
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);

        /* /dev/null fragments are masked units: nothing to read. A fragment
         * systemd refuses leaves the unit unloaded (LoadState=error), so it
         * is in no group at all. A refused drop-in only loses its lines from
         * the bad one on: systemd 257 keeps what it had read. */
        if (!isempty(fragment) && !streq(fragment, "/dev/null") &&
            read_one(unit_name, fragment, groups, diags) == -EBADMSG) {
                diagnostics_add(diags, DIAGNOSTIC_ERROR, fragment, 0,
                                "systemd refuses to load %s from this file, so it joins no policy group", unit_name);
                g_ptr_array_set_size(groups, 0);
        } else
                for (const char *const *d = dropins; d && *d; d++)
                        if (!streq(*d, "/dev/null"))
                                (void) read_one(unit_name, *d, groups, diags);

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

