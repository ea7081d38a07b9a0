/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as a unit file or drop-in: collect PolicyGroup= values. */

#include <stddef.h>
#include <stdint.h>

#include "conf-parse.h"
#include "fuzz.h"
#include "unit-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(ConfFile) f = conf_parse_data("fuzz.service", (const char *) data, size, diags);

        unit_file_collect_policy_groups("fuzz.service", f, groups, diags);
        unit_file_collect_policy_groups("fuzz.scope", f, groups, diags);
        return 0;
}
