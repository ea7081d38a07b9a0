/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Any bytes, as a cgroup record read back from /run/policyd (a file under
 * cgroups/, or a record an intent log line rebuilds). Whatever is accepted
 * must hold what undo relies on: a valid cgroup path, targets policyd may
 * write, a digest only of an xattr's value, and a text form that parses
 * back to the same text; an item's line alone round-trips too. A broken
 * rule aborts, so libFuzzer and the replay report it. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "cgroup-record.h"
#include "fuzz.h"
#include "util.h"

#define check(cond)                                                                \
        do {                                                                       \
                if (!(cond)) {                                                     \
                        fprintf(stderr, "fuzz-cgroup-record: breaks %s\n", #cond); \
                        abort();                                                   \
                }                                                                  \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        g_autofree char *text = g_strndup((const char *) data, size);
        g_autoptr(CgroupRecord) rec = NULL;

        if (cgroup_record_parse(text, &rec) < 0)
                return 0;
        check(cgroup_path_validate(rec->cgroup) == 0);
        for (guint i = 0; i < rec->items->len; i++) {
                const AppliedItem *it = g_ptr_array_index(rec->items, i);
                check(cgroup_record_target_is_valid(it->backend, it->target));
                check(!it->previous_is_digest || (it->backend == BACKEND_XATTR && it->had_previous &&
                                                  !applied_item_can_restore(it)));
                check(it->had_previous || !it->previous);

                g_autofree char *line = applied_item_serialize(it);
                g_autoptr(AppliedItem) again = NULL;
                check(applied_item_parse(line, &again) == 0);
                g_autofree char *line2 = applied_item_serialize(again);
                check(streq(line, line2));
        }
        g_autofree char *out = cgroup_record_serialize(rec);
        g_autoptr(CgroupRecord) back = NULL;
        check(cgroup_record_parse(out, &back) == 0);
        g_autofree char *out2 = cgroup_record_serialize(back);
        check(streq(out, out2));
        return 0;
}
