/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* One subject, one pass: gather, resolve, plan, then write the cgroup
 * (write-ahead records) and set systemd's properties, and undo what the
 * groups no longer want. */

#include "subject.h"

void subject_apply(Subject *s);
