/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The injector built as on an architecture it does not support
 * (INJECT_NO_ARCH): it refuses cleanly, touching nothing. */
#include <stdio.h>
#include <unistd.h>

#include "inject.h"

int main(void) {
        InjectRequest req = { .ksm = 1 };
        InjectReport rep;
        int r = inject_process(getppid(), &req, &rep);

        if (r < 0 || rep.outcome != INJECT_REFUSED || rep.refusal != INJECT_REFUSAL_UNSUPPORTED_ARCH) {
                printf("FAIL: want refused (unsupported architecture), got %d, %s (%s)\n", r,
                       inject_outcome_to_string(rep.outcome), inject_refusal_to_string(rep.refusal));
                return 1;
        }
        printf("PASS: refused (%s)\n", inject_refusal_to_string(rep.refusal));
        return 0;
}
