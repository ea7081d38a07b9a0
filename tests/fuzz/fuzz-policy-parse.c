/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as a policy file: parse, apply the table, check, format. */

#include <stddef.h>
#include <stdint.h>

#include "conf-parse.h"
#include "fuzz.h"
#include "policy-load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        g_autoptr(Diagnostics) diags = diagnostics_new();
        g_autoptr(PolicyGroup) g = policy_group_new("fuzz");
        g_autoptr(ConfFile) f = conf_parse_data("fuzz.policy", (const char *) data, size, diags);

        policy_group_apply_conf(g, f, diags);
        /* Twice: a drop-in applied on top of the same group. */
        policy_group_apply_conf(g, f, diags);
        policy_group_check(g, diags);
        g_free(policy_group_format(g));

        diagnostics_sort(diags);
        for (guint i = 0; i < diags->items->len; i++)
                g_free(diagnostic_format(g_ptr_array_index(diags->items, i)));
        return 0;
}
