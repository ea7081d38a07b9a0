/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>

#include <glib.h>

#include "exec-calls.h"
#include "util.h"

int exec_calls_for(const ProcessWant *want, ExecCalls *ret) {
        assert(want && ret);
        /* process_want_for() names the group of each value it wants. */
        assert(want->knobs.ksm < 0 || want->ksm_group);
        assert((!want->knobs.mempolicy && !want->mempolicy_problem) || want->mempolicy_group);

        ExecCalls c = {
                .ksm = want->knobs.ksm,
                .ksm_group = want->ksm_group,
                .mempolicy_group = want->mempolicy_group,
                .mempolicy_problem = want->mempolicy_problem,
        };
        int r = 0;

        /* At start, ApplyToRunning= does not matter: the value is wanted. */
        if (want->knobs.mempolicy) {
                r = mempolicy_parse(want->knobs.mempolicy, &c.mempolicy);
                c.has_mempolicy = r >= 0;
        }
        *ret = c;
        return r < 0 ? -EINVAL : 0;
}

char *exec_calls_describe(const ExecCalls *c) {
        GString *out;
        char policy[512];

        assert(c);
        out = g_string_new(NULL);
        if (c->ksm >= 0)
                g_string_append_printf(out, "KSM %s", c->ksm ? "on" : "off");
        if (c->has_mempolicy) {
                if (mempolicy_format_numa_maps(&c->mempolicy, policy, sizeof(policy)) < 0)
                        g_strlcpy(policy, "?", sizeof(policy));
                g_string_append_printf(out, "%smempolicy %s", out->len > 0 ? ", " : "", policy);
        }
        return g_string_free(out, FALSE);
}

bool exec_explain_row_applied(const char *backend, const char *requested, const char *effective, const char *note) {
        if (streq(backend, "xattr"))
                return streq(effective, requested);
        if (streq(backend, "cgroup-file") || streq(backend, "systemd-property"))
                return !isempty(effective) && !g_str_has_prefix(note, "the kernel has");
        return true;
}
