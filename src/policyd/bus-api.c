/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "assign.h"
#include "attr-watch.h"
#include "bus-api.h"
#include "bus-polkit.h"
#include "user-managers.h"
#include "bus-util.h"
#include "conf-parse.h"
#include "apply.h"
#include "exec-watch.h"
#include "explain.h"
#include "gather.h"
#include "json-writer.h"
#include "log.h"
#include "message-ids.h"
#include "policy-values.h"
#include "process-watch.h"
#include "rate-limit.h"
#include "self-assign.h"
#include "state-store.h"
#include "swap-watch.h"
#include "swap-tier-pass.h"
#include "target-argument.h"
#include "util.h"


/* The sender's effective uid, from the bus (not from the message). */
static int sender_uid(sd_bus_message *msg, uid_t *ret) {
        g_autoptr(sd_bus_creds) creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        return sd_bus_creds_get_euid(creds, ret);
}

/* Reload: uid 0, or whom polkit authorizes. Assign and Unassign: see
 * method_assign_common(). Read methods are open. */
static int check_root(sd_bus_message *msg, sd_bus_error *error) {
        uid_t uid;
        int r;

        r = sender_uid(msg, &uid);
        if (r < 0)
                return r;
        if (uid != 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        "Only root may change policy group assignments or reload them.");
        return 0;
}

static int method_list_groups(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(GPtrArray) names = policy_set_sorted_names(m->policies);
        int r;

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(suss)");
        if (r < 0)
                return r;
        for (guint i = 0; i < names->len; i++) {
                const PolicyGroup *g = policy_set_get(m->policies, g_ptr_array_index(names, i));
                r = sd_bus_message_append(reply, "(suss)", g->name, g->priority, strempty(g->description),
                                          strempty(g->file));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_group(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(sd_bus_message) reply = NULL;
        const char *name;
        int r;

        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        const PolicyGroup *g = policy_set_get(m->policies, name);
        if (!g)
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_GROUP, "No policy group '%s' is loaded.", name);

        g_autofree char *settings = policy_group_format(g);
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "uss", g->priority, strempty(g->description), strempty(g->file));
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "s");
        for (guint i = 0; r >= 0 && i < g->dropins->len; i++)
                r = sd_bus_message_append(reply, "s", (const char *) g_ptr_array_index(g->dropins, i));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "s", settings);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static const Membership *find_membership(const GPtrArray *memberships, const char *group) {
        for (guint i = 0; memberships && i < memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(memberships, i);
                if (streq(mb->group, group))
                        return mb;
        }
        return NULL;
}

/* How a membership came about, for Explain and ListMembers: a runtime
 * assignment a user made says whose it is. */
static char *membership_source_describe(Manager *m, const Subject *s, const Membership *mb) {
        const char *source = membership_source_to_string(mb->source);
        uid_t owner = 0, assigner = 0;

        if (mb->source != MEMBERSHIP_RUNTIME)
                return g_strdup(source);
        bool owner_known = s->cgroup && assign_cgroup_owner(m, s->cgroup, &owner) >= 0;
        g_autoptr(GPtrArray) entries = runtime_assignments_for(m->assignments, s, owner_known, owner);
        for (guint i = 0; i + 1 < entries->len; i++) {
                const RuntimeAssignment *a = g_ptr_array_index(entries, i);
                if (streq(a->group, mb->group))
                        assigner = a->uid;
        }
        if (assigner == 0)
                return g_strdup(source);
        return g_strdup_printf("%s by uid %" PRIu32, source, (uint32_t) assigner);
}

static GPtrArray *sorted_subject_keys(Manager *m) {
        GPtrArray *keys = hash_table_keys(m->subjects);
        g_ptr_array_sort(keys, strcmp_ptr);
        return keys;
}

static int method_list_members(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(GPtrArray) keys = sorted_subject_keys(m);
        const char *group;
        int r;

        r = sd_bus_message_read(msg, "s", &group);
        if (r < 0)
                return r;
        if (!policy_set_get(m->policies, group))
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_GROUP, "No policy group '%s' is loaded.", group);

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        for (guint i = 0; i < keys->len; i++) {
                const Subject *s = g_hash_table_lookup(m->subjects, g_ptr_array_index(keys, i));
                const Membership *mb = find_membership(s->memberships, group);
                if (!mb)
                        continue;
                g_autofree char *source = membership_source_describe(m, s, mb);
                r = sd_bus_message_append(reply, "(sss)", strempty(subject_unit_id(s)), strempty(s->cgroup), source);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* ---- Explain ---- */

/* A unit name, cgroup path or PID from a caller, or the D-Bus error that
 * names the argument. */
static int resolve_target_argument(Manager *m, const char *arg, char **ret_key, char **ret_cgroup,
                                   sd_bus_error *error) {
        int r = assign_resolve_target_argument(m, arg, ret_key, ret_cgroup);
        if (r == -ESRCH)
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_TARGET, "No process %s.", arg);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "'%s' is not a unit name, a cgroup path or a PID.", arg);
        return 0;
}

/* The kernel, for explain: through the same careful walk as the writes. */
static char *explain_read(const char *cgroup, Backend backend, const char *target, void *userdata) {
        const Manager *m = userdata;
        char *value = NULL;

        if (cgroup_read_value(m->cgroup_root, cgroup, backend, target, &value) < 0)
                g_clear_pointer(&value, g_free);
        return value;
}

/* A PID in a cgroup that is no subject's own (below a delegated unit, say)
 * stands, for Explain and ListProcesses, for the subject nearest above it:
 * that is where policyd decides about the process. */
static void pid_target_to_nearest_subject(Manager *m, const char *arg, const char *cgroup, char **key) {
        g_autofree char *p = NULL;

        if (isempty(arg) || arg[strspn(arg, "0123456789")] != '\0' || !cgroup || manager_find_subject(m, *key))
                return;
        p = g_strdup(cgroup);
        for (char *slash; (slash = strrchr(p, '/')) && slash != p;) {
                *slash = '\0';
                Subject *s = manager_find_subject_by_cgroup(m, p);
                if (s) {
                        g_free(*key);
                        *key = g_strdup(subject_key(s));
                        return;
                }
        }
}

static int method_explain(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(sd_bus_message) reply = NULL;
        g_autofree char *key = NULL, *cgroup = NULL;
        _cleanup_(subject_plan_clear) SubjectPlan p = {};
        const char *arg;
        int r;

        r = sd_bus_message_read(msg, "s", &arg);
        if (r < 0)
                return r;
        r = resolve_target_argument(m, arg, &key, &cgroup, error);
        if (r < 0)
                return r;
        pid_target_to_nearest_subject(m, arg, cgroup, &key);
        Subject *s = manager_find_subject(m, key);
        if (!s || !s->memberships)
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_TARGET,
                                         "policyd does not manage '%s': it is not a running unit with a cgroup, "
                                         "nor a cgroup assigned at runtime.",
                                         arg);
        /* Planned again with what is known now, by the function the apply
         * uses: policyd keeps no knobs. */
        CandidateData d = {};
        r = gather_subject_plan(s, &d, GATHER_NO_FILE_READS, &p);
        candidate_data_clear(&d);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Failed to resolve the groups of %s: %m", arg);
        if (p.cgroup_error < 0)
                return p.cgroup_error;
        const Resolution *res = p.resolution;

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "ss", strempty(subject_unit_id(s)), strempty(s->cgroup));
        if (r < 0)
                return r;

        r = sd_bus_message_open_container(reply, 'a', "(ss)");
        if (r < 0)
                return r;
        for (guint i = 0; i < res->memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(res->memberships, i);
                g_autofree char *source = membership_source_describe(m, s, mb);
                r = sd_bus_message_append(reply, "(ss)", mb->group, source);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;

        g_autoptr(GPtrArray) rows = explain_rows(res, p.cgroup, s->cgroup, s->needs_daemon_reload, explain_read, m);
        explain_add_unit_plan(rows, p.unit);
        /* A cgroup in no group with SwapTiers=, narrowed below a widened one. */
        g_autofree char *tiers_written = NULL, *tiers_why = NULL;
        if (swap_tier_pass_describe_cgroup(m->swap_tiers, s->cgroup, &tiers_written, &tiers_why)) {
                ExplainRow *row = tiers_written ? explain_swap_tiers_row(s->cgroup, tiers_written, tiers_why,
                                                                         explain_read, m)
                                                : explain_swap_tiers_row(s->cgroup, "", tiers_why, explain_read, m);
                g_ptr_array_add(rows, row);
        }
        /* Changes held back because their record could not be written. */
        g_autofree char *unrecorded = apply_describe_record_failure(s);
        for (guint i = 0; unrecorded && i < rows->len; i++) {
                ExplainRow *row = g_ptr_array_index(rows, i);
                bool property = row->backend == BACKEND_SYSTEMD_PROPERTY;
                if (!(property ? s->record_failed_properties
                               : s->record_failed_cgroup && (row->backend == BACKEND_XATTR ||
                                                             row->backend == BACKEND_CGROUP_FILE)))
                        continue;
                explain_row_add_note(row, unrecorded);
        }
        r = sd_bus_message_open_container(reply, 'a', "(sssssss)");
        if (r < 0)
                return r;
        for (guint i = 0; i < rows->len; i++) {
                const ExplainRow *row = g_ptr_array_index(rows, i);
                r = sd_bus_message_append(reply, "(sssssss)", row->name, strempty(row->requested),
                                          strempty(row->effective), backend_to_string(row->backend),
                                          strempty(row->group), strempty(row->where), strempty(row->note));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* ---- ListWriteFailures ---- */

static int append_write_failures(sd_bus_message *reply, const Subject *s) {
        for (guint i = 0; i < s->write_failures->len; i++) {
                const WriteFailure *f = g_ptr_array_index(s->write_failures, i);
                int r = sd_bus_message_append(reply, "(ssssssit)", strempty(subject_unit_id(s)), strempty(s->cgroup),
                                              backend_to_string(f->backend), f->target, strempty(f->value),
                                              strempty(f->message), (int32_t) f->error, f->realtime_usec);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The optional target of a listing method: "" is all (*ret_key NULL); a
 * PID names the subject nearest to its cgroup. */
static int read_listing_target(Manager *m, sd_bus_message *msg, const char **ret_arg, char **ret_key,
                               char **ret_cgroup, sd_bus_error *error) {
        const char *arg;
        int r;

        r = sd_bus_message_read(msg, "s", &arg);
        if (r < 0)
                return r;
        *ret_arg = arg;
        if (isempty(arg))
                return 0;
        r = resolve_target_argument(m, arg, ret_key, ret_cgroup, error);
        if (r < 0)
                return r;
        pid_target_to_nearest_subject(m, arg, *ret_cgroup, ret_key);
        return 0;
}

static int method_list_write_failures(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(sd_bus_message) reply = NULL;
        g_autofree char *key = NULL, *cgroup = NULL;
        const char *arg;
        int r;

        r = read_listing_target(m, msg, &arg, &key, &cgroup, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(ssssssit)");
        if (r < 0)
                return r;
        g_autoptr(GPtrArray) keys = sorted_subject_keys(m);
        for (guint i = 0; i < keys->len; i++) {
                const char *k = g_ptr_array_index(keys, i);
                if (key && !streq(k, key))
                        continue;
                r = append_write_failures(reply, g_hash_table_lookup(m->subjects, k));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* ---- ListProcesses ---- */

static int method_list_processes(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(sd_bus_message) reply = NULL;
        g_autofree char *key = NULL, *cgroup = NULL;
        const char *arg;
        pid_t only_pid = 0;
        int r;

        r = read_listing_target(m, msg, &arg, &key, &cgroup, error);
        if (r < 0)
                return r;
        if (!isempty(arg) && arg[strspn(arg, "0123456789")] == '\0')
                only_pid = (pid_t) g_ascii_strtoll(arg, NULL, 10);

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(ussssss)");
        if (r < 0)
                return r;
        uid_t caller = 0;
        r = sender_uid(msg, &caller);
        if (r < 0)
                return r;
        g_autoptr(GPtrArray) records = process_watch_records(m->processes, key);
        for (guint i = 0; i < records->len; i++) {
                const ProcessRecord *p = g_ptr_array_index(records, i);
                char proc[32];
                struct stat st;
                if (only_pid > 0 && p->pid != only_pid)
                        continue;
                /* As hidepid=invisible would: a caller other than root sees
                 * the exe and cgroup of their own processes (euid, as the
                 * owner of /proc/PID shows it) alone. */
                snprintf(proc, sizeof(proc), "/proc/%d", (int) p->pid);
                if (caller != 0 && (stat(proc, &st) < 0 || st.st_uid != caller))
                        continue;
                r = sd_bus_message_append(reply, "(ussssss)", (uint32_t) p->pid, strempty(p->subject),
                                          strempty(p->exe), process_method_to_string(p->method), strempty(p->detail),
                                          strempty(p->verified), strempty(p->applied.mempolicy));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* ---- mutating methods ---- */

/* What a user's changes may cost: each one can be a SetUnitProperties
 * call to PID 1, a write of the state file and a notice. Enough for a
 * person and a desktop; a flood waits. Root has no limit. */
static const TokenBucketRate write_rate = { .burst = 16, .per_sec = 2 };
/* Callers kept before the full buckets (the idle) are dropped. */
#define WRITE_BUCKETS_KEPT 64

/* Takes one of uid's tokens for a change; or, over the limit, sets
 * LimitsExceeded with the wait and returns it. */
static int take_write_token(Manager *m, uid_t uid, const char *what, sd_bus_error *error) {
        gpointer key = GUINT_TO_POINTER(uid + 1); /* 0 is no key for a direct hash */
        uint64_t now = 0;
        TokenBucket *b;

        if (uid == 0)
                return 0;
        (void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        b = g_hash_table_lookup(m->write_buckets, key);
        if (!b) {
                if (g_hash_table_size(m->write_buckets) >= WRITE_BUCKETS_KEPT) {
                        GHashTableIter it;
                        gpointer value;
                        g_hash_table_iter_init(&it, m->write_buckets);
                        while (g_hash_table_iter_next(&it, NULL, &value))
                                if (token_bucket_full(value, &write_rate, now))
                                        g_hash_table_iter_remove(&it);
                }
                b = g_new0(TokenBucket, 1);
                g_hash_table_insert(m->write_buckets, key, b);
        }
        if (token_bucket_take(b, &write_rate, now))
                return 0;

        uint64_t wait_ms = (token_bucket_wait_usec(b, &write_rate, now) + 999) / 1000;
        log_debug("Refused %s by uid %" PRIu32 ": over the rate limit", what, (uint32_t) uid);
        return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                 "Too many changes from uid %" PRIu32 ": at most %u at once, then %u a second. "
                                 "Try again in %" PRIu64 ".%03" PRIu64 " s.",
                                 (uint32_t) uid, write_rate.burst, write_rate.per_sec, wait_ms / 1000,
                                 wait_ms % 1000);
}

/* A refusal of a caller other than root, with the error its verdict calls for. */
static int refuse_self_assign(SelfAssignVerdict v, const SelfAssignRequest *req, bool assign, const char *arg,
                              const char *cgroup, const char *group, sd_bus_error *error) {
        g_autofree char *why = self_assign_refusal(v, req, assign, arg, cgroup, group);
        /* A group that is not loaded is refused as one that does not allow
         * it: AccessDenied, whatever the group name (dbus-hostile.py). */
        const char *name = v == SELF_ASSIGN_NO_CGROUP        ? POLICYD_ERROR_NO_SUCH_TARGET
                           : v == SELF_ASSIGN_INVALID_TARGET ? SD_BUS_ERROR_INVALID_ARGS
                                                             : SD_BUS_ERROR_ACCESS_DENIED;

        log_context_id(MESSAGE_ID_TRUST_REFUSED, LOG_DEBUG, 0, arg, group, NULL, 0, "Refused %s by uid %" PRIu32 ": %s",
                       assign ? "Assign" : "Unassign", (uint32_t) req->caller, why);
        return sd_bus_error_set(error, name, why);
}

static int method_assign_common(sd_bus_message *msg, Manager *m, sd_bus_error *error, bool assign,
                                PolkitVerdict pk);

static int assign_rerun(sd_bus_message *msg, void *userdata, PolkitVerdict pk, sd_bus_error *error) {
        return method_assign_common(msg, userdata, error, streq_ptr(sd_bus_message_get_member(msg), "Assign"), pk);
}

/* The rule's refusal; or, where an administrator could lift it (not for a
 * target that is not there or not valid), polkit's answer first. */
static int refuse_or_ask(SelfAssignVerdict v, const SelfAssignRequest *req, bool assign, const char *arg,
                         const char *cgroup, const char *group, sd_bus_message *msg, Manager *m, PolkitVerdict pk,
                         sd_bus_error *error) {
        if (pk == POLKIT_UNASKED && v != SELF_ASSIGN_NO_CGROUP && v != SELF_ASSIGN_INVALID_TARGET &&
            bus_polkit_check_async(msg, req->caller, POLKIT_ACTION_ASSIGN, assign_rerun, m) > 0)
                return 1; /* answered when polkit has */
        return refuse_self_assign(v, req, assign, arg, cgroup, group, error);
}

/* Root may assign anything, and so may whom polkit authorizes (an
 * administrator, as root). Anyone else only their own things, and only to
 * groups with AllowSelfAssign=yes (self-assign.h; policyd(8), SECURITY);
 * what they assign holds only while it stays theirs. The group is checked
 * before the target is looked at. pk: what polkit said, if it was asked. */
static int method_assign_common(sd_bus_message *msg, Manager *m, sd_bus_error *error, bool assign,
                                PolkitVerdict pk) {
        g_autofree char *key = NULL, *cgroup = NULL;
        const char *arg, *group;
        SelfAssignVerdict v;
        uid_t uid, caller;
        int r;

        /* Its assignments are not loaded: a change would replace the file. */
        if (m->revert)
                return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                         "policyd is undoing everything it set (--revert): no assignments now.");
        r = sender_uid(msg, &caller);
        if (r < 0)
                return r;
        uid = pk == POLKIT_AUTHORIZED ? 0 : caller;
        r = sd_bus_message_read(msg, "ss", &arg, &group);
        if (r < 0)
                return r;
        const PolicyGroup *g = policy_set_get(m->policies, group);
        SelfAssignRequest req = {
                .caller = uid,
                .target_kind = target_argument_classify(arg, NULL),
                .group_loaded = g,
                .group_allows = g && g->allow_self_assign,
        };
        v = self_assign_check(&req);
        if (v == SELF_ASSIGN_NO_SUCH_GROUP || v == SELF_ASSIGN_GROUP_REFUSES)
                return refuse_or_ask(v, &req, assign, arg, NULL, group, msg, m, pk, error);

        if (assign && !g)
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_GROUP, "No policy group '%s' is loaded.", group);
        r = assign_resolve_target_argument(m, arg, &key, &cgroup);
        if (r == -ESRCH)
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_TARGET, "No process %s.", arg);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "'%s' is not a unit name, a cgroup path below the root, or a PID.", arg);

        if (uid != 0) {
                if (req.target_kind == TARGET_ARGUMENT_USER_UNIT)
                        req.owner_known = target_argument_user_unit(arg, &req.owner, NULL) >= 0;
                else if (cgroup)
                        req.owner_known = assign_cgroup_owner(m, cgroup, &req.owner) >= 0;
                /* A user@UID/ unit that is not running has no cgroup yet:
                 * where it will be is checked when it applies. */
                /* A unit of the user's manager whose cgroup policyd refused
                 * (its -.slice is user@UID.service's own cgroup, the
                 * delegation root) is placed where its manager said it is. */
                const char *place_cgroup = cgroup;
                if (!place_cgroup && req.target_kind == TARGET_ARGUMENT_USER_UNIT) {
                        const Subject *s = manager_find_subject(m, key);
                        place_cgroup = s ? s->cgroup_refused : NULL;
                }
                req.place = place_cgroup ? (int) assign_delegation_place(m, place_cgroup, &req.place_unit) : -1;
                v = self_assign_check(&req);
                /* A cgroup the user assigned and then removed has no owner
                 * left, and one assigned before the delegation root was
                 * the administrator's no longer applies: they may still
                 * take back what they made, or it would count against
                 * their limit until the next boot. */
                if ((v == SELF_ASSIGN_NO_CGROUP || v == SELF_ASSIGN_DELEGATION_ROOT ||
                     v == SELF_ASSIGN_NOT_DELEGATED) &&
                    !assign && assign_has_runtime_entry(m, key, group, uid))
                        v = SELF_ASSIGN_ALLOWED;
                if (v != SELF_ASSIGN_ALLOWED)
                        return refuse_or_ask(v, &req, assign, arg, cgroup, group, msg, m, pk, error);
                /* A name costs nothing to make up: without this, each uid
                 * (a user's subordinate uids too, 65536 of them) could
                 * hold its quota of entries for units that never run. */
                if (assign && req.target_kind == TARGET_ARGUMENT_USER_UNIT && req.owner_known &&
                    !g_hash_table_contains(m->user_links, GUINT_TO_POINTER(req.owner)))
                        return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                                 "%s: no systemd of uid %" PRIu32 " runs; a user assigns the units "
                                                 "of their own systemd while it runs.",
                                                 arg, (uint32_t) req.owner);
                if (assign && assign_count_runtime_entries(m, uid) >= SELF_ASSIGN_MAX_ENTRIES)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                                 "Cannot assign %s to group '%s': uid %" PRIu32
                                                 " holds %u runtime assignments already, the most a user may. "
                                                 "Unassign some first.",
                                                 arg, group, (uint32_t) uid, SELF_ASSIGN_MAX_ENTRIES);
        }

        /* Only a call that would change something costs a token: a
         * refusal costs the check alone, and keeps its own answer. */
        r = take_write_token(m, uid, assign ? "Assign" : "Unassign", error);
        if (r < 0)
                return r;
        r = assign_set(m, key, group, assign, uid);
        if (r == -ENXIO)
                return sd_bus_error_setf(error, POLICYD_ERROR_NO_SUCH_TARGET, "No cgroup %s.", key);
        if (r == -ENOENT)
                return sd_bus_error_setf(error, POLICYD_ERROR_NOT_MEMBER, "%s is not in group '%s'.", key, group);
        if (r < 0)
                return r;
        if (uid == 0 && caller != 0)
                log_context(LOG_NOTICE, 0, key, group, NULL, 0,
                            "%s %s group '%s' at runtime, by uid %" PRIu32 " as an administrator (polkit)", key,
                            assign ? "joined" : "left", group, (uint32_t) caller);
        else if (uid == 0)
                log_context(LOG_NOTICE, 0, key, group, NULL, 0, "%s %s group '%s' at runtime", key,
                            assign ? "joined" : "left", group);
        else
                log_context(LOG_NOTICE, 0, key, group, NULL, 0, "%s %s group '%s' at runtime, by uid %" PRIu32, key,
                            assign ? "joined" : "left", group, (uint32_t) uid);
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_assign(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return method_assign_common(msg, userdata, error, true, POLKIT_UNASKED);
}

static int method_unassign(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return method_assign_common(msg, userdata, error, false, POLKIT_UNASKED);
}

/* As systemd's Manager.Subscribe(): the per-change signal goes out only
 * while some client asked for it, until it calls Unsubscribe() or leaves
 * the bus. A desktop moves apps between groups at every focus change, and
 * a signal nobody reads still costs the bus daemon its routing. */
static int method_subscribe(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r;

        if (!m->subscribed) {
                r = sd_bus_track_new(sd_bus_message_get_bus(msg), &m->subscribed, NULL, NULL);
                if (r < 0)
                        return r;
        }
        r = sd_bus_track_add_sender(m->subscribed, msg);
        if (r < 0)
                return r;
        if (r == 0)
                return sd_bus_error_set(error, POLICYD_ERROR_ALREADY_SUBSCRIBED, "Client is already subscribed.");
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_unsubscribe(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        int r = m->subscribed ? sd_bus_track_remove_sender(m->subscribed, msg) : 0;

        if (r < 0)
                return r;
        if (r == 0)
                return sd_bus_error_set(error, POLICYD_ERROR_NOT_SUBSCRIBED, "Client is not subscribed.");
        return sd_bus_reply_method_return(msg, NULL);
}

static int reload_common(sd_bus_message *msg, void *userdata, PolkitVerdict pk, sd_bus_error *error) {
        uid_t caller;
        int r;

        if (pk != POLKIT_AUTHORIZED) {
                r = sender_uid(msg, &caller);
                if (r < 0)
                        return r;
                if (caller != 0 && pk == POLKIT_UNASKED &&
                    bus_polkit_check_async(msg, caller, POLKIT_ACTION_RELOAD, reload_common, userdata) > 0)
                        return 1; /* answered when polkit has */
                r = check_root(msg, error);
                if (r < 0 || sd_bus_error_is_set(error))
                        return r;
        }
        r = manager_reload(userdata);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Failed to reload policy groups: %m");
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return reload_common(msg, userdata, POLKIT_UNASKED, error);
}

static void json_subject(GString *out, const Subject *s) {
        g_string_append_c(out, '{');
        json_append_key(out, "unit");
        json_append_string(out, subject_unit_id(s));
        g_string_append_c(out, ',');
        json_append_key(out, "manager");
        g_autofree char *manager = !s->unit ? NULL
                                   : s->user_unit ? g_strdup_printf("user@%u", (unsigned) s->manager_uid)
                                                  : g_strdup("system");
        json_append_string(out, manager);
        g_string_append_c(out, ',');
        json_append_key(out, "cgroup");
        json_append_string(out, s->cgroup);
        g_string_append_c(out, ',');
        json_append_key(out, "active_state");
        json_append_string(out, s->active_state);
        g_string_append(out, ",\"groups\":[");
        for (guint i = 0; s->memberships && i < s->memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(s->memberships, i);
                g_string_append_printf(out, "%s{\"group\":", i ? "," : "");
                json_append_string(out, mb->group);
                g_string_append(out, ",\"source\":");
                json_append_string(out, membership_source_to_string(mb->source));
                g_string_append_c(out, '}');
        }
        g_string_append(out, "],\"written\":[");
        for (guint i = 0; s->record && i < s->record->items->len; i++) {
                const AppliedItem *a = g_ptr_array_index(s->record->items, i);
                g_string_append_printf(out, "%s{\"target\":", i ? "," : "");
                json_append_string(out, a->target);
                g_string_append(out, ",\"previous\":");
                json_append_string(out, a->had_previous ? a->previous : NULL);
                g_string_append(out, ",\"written\":");
                json_append_string(out, a->written);
                g_string_append_c(out, '}');
        }
        g_string_append(out, "],\"properties\":[");
        for (guint i = 0; i < s->property_records->len; i++) {
                const PropertyRecord *p = g_ptr_array_index(s->property_records, i);
                g_string_append_printf(out, "%s{\"property\":", i ? "," : "");
                json_append_string(out, p->property);
                g_string_append(out, ",\"previous\":");
                json_append_string(out, p->previous);
                g_string_append(out, ",\"written\":");
                json_append_string(out, p->written);
                g_string_append_c(out, '}');
        }
        g_string_append(out, "]}");
}

static int method_dump(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        g_autoptr(GString) out = g_string_new("{");
        g_autoptr(GPtrArray) names = policy_set_sorted_names(m->policies);
        g_autoptr(GPtrArray) keys = sorted_subject_keys(m);

        g_string_append_printf(out, "\"version\":\"%s\",\"dry_run\":%s,\"cgroup_root\":", PROJECT_VERSION,
                               m->dry_run ? "true" : "false");
        json_append_string(out, m->cgroup_root);
        g_string_append_printf(out, ",\"swap_tiers\":%s,\"groups\":[", m->facts && m->facts->swap_tiers ? "true"
                                                                                                         : "false");
        for (guint i = 0; i < names->len; i++) {
                const PolicyGroup *g = policy_set_get(m->policies, g_ptr_array_index(names, i));
                g_autofree char *settings = policy_group_format(g);
                g_string_append_printf(out, "%s{\"name\":", i ? "," : "");
                json_append_string(out, g->name);
                g_string_append(out, ",\"file\":");
                json_append_string(out, g->file);
                g_string_append(out, ",\"settings\":");
                json_append_string(out, settings);
                g_string_append_c(out, '}');
        }
        g_string_append(out, "],\"diagnostics\":[");
        for (guint i = 0; i < m->diagnostics->items->len; i++) {
                g_autofree char *line = diagnostic_format(g_ptr_array_index(m->diagnostics->items, i));
                if (i)
                        g_string_append_c(out, ',');
                json_append_string(out, line);
        }
        g_string_append(out, "],\"targets\":[");
        for (guint i = 0; i < keys->len; i++) {
                if (i)
                        g_string_append_c(out, ',');
                json_subject(out, g_hash_table_lookup(m->subjects, g_ptr_array_index(keys, i)));
        }
        g_string_append(out, "]}\n");
        return sd_bus_reply_method_return(msg, "s", out->str);
}

/* ---- properties ---- */

static int property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;

        if (streq(property, "Version"))
                return sd_bus_message_append(reply, "s", PROJECT_VERSION);
        if (streq(property, "DryRun"))
                return sd_bus_message_append(reply, "b", m->dry_run);
        if (streq(property, "NGroups"))
                return sd_bus_message_append(reply, "u", policy_set_size(m->policies));
        if (streq(property, "LastReloadTimestamp"))
                return sd_bus_message_append(reply, "t", m->last_reload_usec);
        if (streq(property, "NConfigErrors"))
                return sd_bus_message_append(reply, "u", diagnostics_count(m->diagnostics, DIAGNOSTIC_ERROR));
        if (streq(property, "NConfigWarnings"))
                return sd_bus_message_append(reply, "u", diagnostics_count(m->diagnostics, DIAGNOSTIC_WARNING));
        if (streq(property, "NUnitsNeedDaemonReload")) {
                unsigned n = 0;
                GHashTableIter it;
                gpointer value;
                g_hash_table_iter_init(&it, m->subjects);
                while (g_hash_table_iter_next(&it, NULL, &value))
                        n += ((const Subject *) value)->needs_daemon_reload;
                return sd_bus_message_append(reply, "u", n);
        }
        if (streq(property, "Processes")) {
                g_autofree char *execs = exec_watch_describe(m->exec_events);
                g_autofree char *text = process_watch_describe(m->processes, execs);
                return sd_bus_message_append(reply, "s", text);
        }
        if (streq(property, "Swap")) {
                g_autofree char *watch = swap_watch_describe(m->swap);
                g_autofree char *pass = swap_tier_pass_describe(m->swap_tiers);
                g_autofree char *text = pass ? g_strconcat(watch, "; tiers through ancestors: ", pass, NULL)
                                             : g_strdup(watch);
                return sd_bus_message_append(reply, "s", text);
        }
        if (streq(property, "Attributes")) {
                g_autofree char *text = attr_watch_describe(m->attributes);
                return sd_bus_message_append(reply, "s", text);
        }
        if (streq(property, "Records")) {
                g_autofree char *text = apply_describe_record_failures(m);
                return sd_bus_message_append(reply, "s", text);
        }
        if (streq(property, "Managers")) {
                g_autofree char *text = user_managers_describe(m);
                return sd_bus_message_append(reply, "s", text);
        }
        if (streq(property, "NMembers")) {
                unsigned n = 0;
                GHashTableIter it;
                gpointer value;
                g_hash_table_iter_init(&it, m->subjects);
                while (g_hash_table_iter_next(&it, NULL, &value)) {
                        const Subject *s = value;
                        n += s->memberships && s->memberships->len > 0;
                }
                return sd_bus_message_append(reply, "u", n);
        }
        return -ENOENT;
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DryRun", "b", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NGroups", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NMembers", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LastReloadTimestamp", "t", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NConfigErrors", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("NConfigWarnings", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* Counters of the moment (watches, cgroups waiting), read on demand:
         * announcing each would be a signal at every unit start and exec. */
        SD_BUS_PROPERTY("Processes", "s", property_get, 0, 0),
        SD_BUS_PROPERTY("Swap", "s", property_get, 0, 0),
        SD_BUS_PROPERTY("Attributes", "s", property_get, 0, 0),
        /* Announced by the manager (manager_properties_changed()). */
        SD_BUS_PROPERTY("Managers", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_PROPERTY("Records", "s", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
        SD_BUS_PROPERTY("NUnitsNeedDaemonReload", "u", property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_NAMES("ListGroups", NULL, , "a(suss)", SD_BUS_PARAM(groups), method_list_groups,
                                 SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("GetGroup", "s", SD_BUS_PARAM(name), "ussass",
                                 SD_BUS_PARAM(priority) SD_BUS_PARAM(description) SD_BUS_PARAM(file)
                                         SD_BUS_PARAM(dropins) SD_BUS_PARAM(settings),
                                 method_get_group, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ListMembers", "s", SD_BUS_PARAM(group), "a(sss)", SD_BUS_PARAM(members),
                                 method_list_members, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Explain", "s", SD_BUS_PARAM(target), "ssa(ss)a(sssssss)",
                                 SD_BUS_PARAM(unit) SD_BUS_PARAM(cgroup) SD_BUS_PARAM(groups) SD_BUS_PARAM(knobs),
                                 method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ListProcesses", "s", SD_BUS_PARAM(target), "a(ussssss)", SD_BUS_PARAM(processes),
                                 method_list_processes, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("ListWriteFailures", "s", SD_BUS_PARAM(target), "a(ssssssit)",
                                 SD_BUS_PARAM(failures), method_list_write_failures, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Assign", "ss", SD_BUS_PARAM(target) SD_BUS_PARAM(group), NULL, ,
                                 method_assign, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Unassign", "ss", SD_BUS_PARAM(target) SD_BUS_PARAM(group), NULL, ,
                                 method_unassign, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Reload", NULL, NULL, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_NAMES("Dump", NULL, , "s", SD_BUS_PARAM(json), method_dump, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Subscribe", NULL, NULL, method_subscribe, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Unsubscribe", NULL, NULL, method_unsubscribe, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_NAMES("MembershipChanged", "ssas", SD_BUS_PARAM(unit) SD_BUS_PARAM(cgroup)
                                                                  SD_BUS_PARAM(groups),
                                 0),
        SD_BUS_VTABLE_END,
};

static int on_name_requested(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Manager *m = userdata;
        uint32_t result;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);
                /* A lost reply or a bus policy not loaded yet (right after an
                 * install, until "systemctl reload dbus") may pass: try again. */
                log_warning("Failed to own %s: %s%s", POLICYD_BUS_NAME, e->message,
                            sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED)
                                    ? " (is the D-Bus policy for it installed, and dbus reloaded?)"
                                    : "");
                manager_reconnect_later(m);
                return 0;
        }
        if (sd_bus_message_read(reply, "u", &result) < 0 || (result != 1 && result != 4)) {
                /* 1: primary owner; 4: already ours (after a reconnect). */
                if (m->revert)
                        log_error("%s is owned by another process: policyd.service (or another policyd) is "
                                  "running. Stop policyd.service before 'policyd --revert'.",
                                  POLICYD_BUS_NAME);
                else
                        log_error("%s is owned by another process: is another policyd running?", POLICYD_BUS_NAME);
                m->exit_code = EXIT_FAILURE;
                return sd_event_exit(m->event, EXIT_FAILURE);
        }
        manager_name_acquired(m);
        return 0;
}

int bus_api_attach(Manager *m) {
        int r;

        r = sd_bus_add_object_vtable(m->bus, NULL, POLICYD_BUS_PATH, POLICYD_BUS_INTERFACE, manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "Failed to add the D-Bus object: %m");
        /* Without a callback sd-bus would close the connection when the name
         * is taken; with one, a second policyd says so and exits. */
        r = sd_bus_call_method_async(m->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "RequestName", on_name_requested, m, "su",
                                     POLICYD_BUS_NAME, (uint32_t) 4 /* DBUS_NAME_FLAG_DO_NOT_QUEUE */);
        if (r < 0)
                return log_error_errno(r, "Failed to request bus name %s: %m", POLICYD_BUS_NAME);
        return 0;
}

void bus_api_emit_reloaded(Manager *m) {
        if (m->bus)
                (void) sd_bus_emit_properties_changed(m->bus, POLICYD_BUS_PATH, POLICYD_BUS_INTERFACE, "NGroups",
                                                      "LastReloadTimestamp", "NConfigErrors", "NConfigWarnings",
                                                      "DryRun", NULL);
}

void bus_api_emit_membership_changed(Manager *m, const Subject *s, const GPtrArray *memberships) {
        g_autoptr(sd_bus_message) signal = NULL;

        if (!m->bus || sd_bus_track_count(m->subscribed) == 0)
                return;
        if (sd_bus_message_new_signal(m->bus, &signal, POLICYD_BUS_PATH, POLICYD_BUS_INTERFACE,
                                      "MembershipChanged") < 0)
                return;
        if (sd_bus_message_append(signal, "ss", strempty(subject_unit_id(s)), strempty(s->cgroup)) < 0)
                return;
        if (sd_bus_message_open_container(signal, 'a', "s") < 0)
                return;
        for (guint i = 0; i < memberships->len; i++) {
                const Membership *mb = g_ptr_array_index(memberships, i);
                if (sd_bus_message_append(signal, "s", mb->group) < 0)
                        return;
        }
        if (sd_bus_message_close_container(signal) < 0)
                return;
        (void) sd_bus_send(m->bus, signal, NULL);
}

void bus_api_emit_properties_changed(Manager *m, unsigned properties) {
        static const struct {
                ManagerProperty property;
                const char *name;
        } table[] = {
                { MANAGER_PROPERTY_NMEMBERS, "NMembers" },
                { MANAGER_PROPERTY_MANAGERS, "Managers" },
                { MANAGER_PROPERTY_RECORDS, "Records" },
                { MANAGER_PROPERTY_UNITS_NEED_DAEMON_RELOAD, "NUnitsNeedDaemonReload" },
        };
        const char *names[G_N_ELEMENTS(table) + 1] = {};
        size_t n = 0;

        if (!m->bus)
                return;
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
                if (properties & table[i].property)
                        names[n++] = table[i].name;
        if (n > 0)
                (void) sd_bus_emit_properties_changed_strv(m->bus, POLICYD_BUS_PATH, POLICYD_BUS_INTERFACE,
                                                           (char **) names);
}
