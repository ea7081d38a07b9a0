/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policyctl exec --group=G -- CMD: CMD in a new transient scope that is in
 * group G, with G's process-level knobs set in this process before the
 * exec, as systemd sets MemoryKSM= and NUMAPolicy= for a service.
 *
 * The steps, each of which must be done before the next:
 *   1. GetGroup from policyd: the group is loaded (nothing made yet if not);
 *   2. StartTransientUnit of a scope holding our PID, and its job's end;
 *   3. Assign of the scope to G;
 *   4. Explain until policyd has applied the cgroup-level knobs: Assign's
 *      reply does not mean that (for a unit policyd has not read yet it only
 *      records the assignment, and SetUnitProperties calls are asynchronous);
 *   5. what policyd's process layer wants for a process of the scope
 *      (process-plan.c, from the scope's groups), set here with prctl()
 *      and set_mempolicy(): the layer then finds CMD as it wants it;
 *   6. execvp(): CMD is this process, so it is in the scope.
 * A failure before 6 exits; the scope, empty then, is stopped and collected
 * by systemd, and policyd drops the runtime assignment of a transient unit
 * that is gone. */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "bus-util.h"
#include "conf-parse.h"
#include "exec-arguments.h"
#include "policy-load.h"
#include "policyctl-online.h"
#include "exec-calls.h"
#include "process-plan.h"
#include "resolve.h"
#include "util.h"

#define SYSTEMD_BUS_NAME "org.freedesktop.systemd1"
#define SYSTEMD_BUS_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER_INTERFACE "org.freedesktop.systemd1.Manager"

/* How long the scope's start job and policyd's apply may take, each: as
 * long as sd-bus waits for an answer by default. */
#define EXEC_WAIT_USEC (25 * G_USEC_PER_SEC)
/* Names tried for the default unit before giving up. */
#define EXEC_NAME_ATTEMPTS 8

static void exec_help(void) {
        printf("policyctl exec --group=GROUP [OPTIONS...] -- CMD [ARGS...]\n\n"
               "Run CMD in a new transient scope that is in GROUP: policyd applies the\n"
               "group's cgroup settings to the scope before CMD starts, and CMD starts with\n"
               "the group's KSM= and NUMAPolicy= already set. Needs root.\n\n"
               "Options:\n"
               "  -h --help               Show this help\n"
               "     --group=GROUP        The policy group (required)\n"
               "     --unit=NAME          Name the scope (default: policyctl-exec-PID.scope)\n"
               "     --slice=SLICE        Put the scope in this slice\n"
               "     --description=TEXT   The scope's description (default: the command line)\n"
               "  -q --quiet              Do not say which unit and settings CMD runs with\n\n"
               "The exit status is CMD's. See policyctl(1) for policyctl's own.\n");
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * G_USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000;
}

/* ---- 1. the group, as policyd has loaded it ---- */

/* GetGroup's settings are a policy file that loads to the same group
 * (policyctl(1), show): read back with the loader policyd uses. */
static int get_group(sd_bus *bus, const char *name, PolicyGroup **ret) {
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(Diagnostics) diags = diagnostics_new();
        const char *description, *file, *settings;
        uint32_t priority;
        int r, code;

        code = call(bus, "exec", POLICYD_BUS_INTERFACE, "GetGroup", &reply, "s", name);
        if (code != EXIT_OK)
                return code;
        r = sd_bus_message_read(reply, "uss", &priority, &description, &file);
        if (r >= 0)
                r = sd_bus_message_skip(reply, "as");
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &settings);
        if (r < 0)
                return bad_reply("GetGroup", r);

        g_autofree char *origin = g_strdup_printf("policyd's group %s", name);
        g_autoptr(ConfFile) f = conf_parse_data(origin, settings, strlen(settings), diags);
        g_autoptr(PolicyGroup) g = policy_group_new(name);
        policy_group_apply_conf(g, f, diags);
        policy_group_check(g, diags);
        g->priority = priority;
        *ret = TAKE_PTR(g);
        return EXIT_OK;
}

/* ---- 2. the scope ---- */

/* JobRemoved of every job, by object path → result: the signal for our job
 * may come before the reply that names it. */
static int on_job_removed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
        GHashTable *removed = userdata;
        const char *job, *unit, *result;
        uint32_t id;

        if (sd_bus_message_read(msg, "uoss", &id, &job, &unit, &result) >= 0)
                g_hash_table_replace(removed, g_strdup(job), g_strdup(result));
        return 0;
}

static int start_scope_call(sd_bus *bus, const char *unit, const ExecArguments *a, const char *description,
                            sd_bus_error *error, char **ret_job) {
        g_autoptr(sd_bus_message) msg = NULL, reply = NULL;
        const char *job;
        int r;

        r = sd_bus_message_new_method_call(bus, &msg, SYSTEMD_BUS_NAME, SYSTEMD_BUS_PATH, SYSTEMD_MANAGER_INTERFACE,
                                           "StartTransientUnit");
        if (r >= 0)
                r = sd_bus_message_append(msg, "ss", unit, "fail");
        if (r >= 0)
                r = sd_bus_message_open_container(msg, 'a', "(sv)");
        if (r >= 0)
                r = sd_bus_message_append(msg, "(sv)", "Description", "s", description);
        if (r >= 0)
                r = sd_bus_message_append(msg, "(sv)", "PIDs", "au", 1, (uint32_t) getpid());
        if (r >= 0 && a->slice)
                r = sd_bus_message_append(msg, "(sv)", "Slice", "s", a->slice);
        if (r >= 0)
                r = sd_bus_message_close_container(msg);
        if (r >= 0)
                r = sd_bus_message_append(msg, "a(sa(sv))", 0);
        if (r < 0)
                return r;

        r = sd_bus_call(bus, msg, 0, error, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &job);
        if (r < 0)
                return r;
        *ret_job = g_strdup(job);
        return 0;
}

static int report_systemd_error(const char *what, const sd_bus_error *error, int r) {
        fprintf(stderr, "%s: %s\n", what, error->message ? error->message : g_strerror(-r));
        if (sd_bus_error_has_names(error, SD_BUS_ERROR_ACCESS_DENIED, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED))
                return EXIT_ACCESS_DENIED;
        return EXIT_ERRORS;
}

/* Starts the scope with our PID in it, and returns when its start job is
 * done. A default name that is taken gets a number. */
static int start_scope(sd_bus *bus, const ExecArguments *a, char **ret_unit) {
        g_autoptr(GHashTable) removed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        g_autoptr(sd_bus_slot) slot = NULL;
        g_autofree char *job = NULL, *unit = NULL;
        g_autofree char *description =
                a->description ? g_strdup(a->description) : exec_default_description(a->command);
        int r;

        /* Before the call, so that the signal cannot pass us by (as
         * systemd-run does). sd_bus_match_signal() waits for AddMatch. */
        r = sd_bus_match_signal(bus, &slot, SYSTEMD_BUS_NAME, SYSTEMD_BUS_PATH, SYSTEMD_MANAGER_INTERFACE,
                                "JobRemoved", on_job_removed, removed);
        if (r < 0) {
                fprintf(stderr, "Cannot watch systemd's jobs: %s\n", g_strerror(-r));
                return EXIT_ERRORS;
        }

        for (unsigned attempt = 1;; attempt++) {
                sd_bus_error error = SD_BUS_ERROR_NULL;

                g_free(unit);
                unit = a->unit ? g_strdup(a->unit) : exec_default_unit_name(getpid(), attempt);
                r = start_scope_call(bus, unit, a, description, &error, &job);
                if (r >= 0)
                        break;
                bool taken = sd_bus_error_has_name(&error, "org.freedesktop.systemd1.UnitExists");
                if (!taken || a->unit || attempt >= EXEC_NAME_ATTEMPTS) {
                        g_autofree char *what = g_strdup_printf("Failed to start transient scope %s", unit);
                        int code = report_systemd_error(what, &error, r);
                        sd_bus_error_free(&error);
                        return code;
                }
                sd_bus_error_free(&error);
        }

        uint64_t deadline = now_usec() + EXEC_WAIT_USEC;
        const char *result;
        while (!(result = g_hash_table_lookup(removed, job))) {
                uint64_t now = now_usec();
                if (now >= deadline) {
                        fprintf(stderr, "systemd did not start %s within %u s.\n", unit,
                                (unsigned) (EXEC_WAIT_USEC / G_USEC_PER_SEC));
                        return EXIT_ERRORS;
                }
                r = sd_bus_process(bus, NULL);
                if (r == 0)
                        r = sd_bus_wait(bus, deadline - now);
                if (r < 0) {
                        fprintf(stderr, "Lost the system bus while waiting for %s to start: %s\n", unit,
                                g_strerror(-r));
                        return EXIT_ERRORS;
                }
        }
        if (!streq(result, "done")) {
                fprintf(stderr, "Failed to start transient scope %s: the job's result is '%s'. See: journalctl -u %s\n",
                        unit, result, unit);
                return EXIT_ERRORS;
        }
        *ret_unit = TAKE_PTR(unit);
        return EXIT_OK;
}

/* ---- 4. policyd has applied the group ---- */

typedef struct ScopeState {
        char *cgroup;
        GPtrArray *groups;  /* char*: the scope's groups, sorted as policyd sends them */
        GPtrArray *pending; /* char*: "KNOB: what is missing", of rows not applied yet */
} ScopeState;

static void scope_state_done(ScopeState *st) {
        g_clear_pointer(&st->cgroup, g_free);
        g_clear_pointer(&st->groups, g_ptr_array_unref);
        g_clear_pointer(&st->pending, g_ptr_array_unref);
}

/* One Explain: > 0 when the scope is in group and every row is applied, 0
 * when not yet, or an exit code (negated) for an error that waiting will
 * not cure. */
static int scope_state_read(sd_bus *bus, const char *unit, const char *group, ScopeState *st) {
        g_autoptr(sd_bus_message) reply = NULL;
        g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) knobs = g_ptr_array_new_with_free_func(g_free);
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *unit_read, *cgroup;
        bool member = false;
        int r;

        r = call_raw(bus, POLICYD_BUS_INTERFACE, "Explain", &error, &reply, "s", unit);
        if (r < 0) {
                /* policyd has not read the new unit yet. */
                bool later = sd_bus_error_has_name(&error, POLICYD_ERROR_NO_SUCH_TARGET);
                int code = later ? 0 : -report_call_error("exec", "Explain", &error, r);
                sd_bus_error_free(&error);
                return code;
        }
        r = read_explain_reply(reply, &unit_read, &cgroup, groups, knobs);
        if (r < 0)
                return -bad_reply("Explain", r);

        scope_state_done(st);
        st->cgroup = g_strdup(cgroup);
        st->groups = g_ptr_array_new_with_free_func(g_free);
        st->pending = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < groups->len; i += 2) {
                const char *name = g_ptr_array_index(groups, i);
                g_ptr_array_add(st->groups, g_strdup(name));
                member |= streq(name, group);
        }
        for (guint i = 0; i < knobs->len; i += _KNOB_FIELDS) {
                const char *const *k = (const char *const *) knobs->pdata + i;
                if (!exec_explain_row_applied(k[KNOB_BACKEND], k[KNOB_REQUESTED], k[KNOB_EFFECTIVE], k[KNOB_NOTE]))
                        g_ptr_array_add(st->pending, g_strdup_printf("%s is %s, not %s", k[KNOB_NAME],
                                                                     isempty(k[KNOB_EFFECTIVE]) ? "unset"
                                                                                               : k[KNOB_EFFECTIVE],
                                                                     k[KNOB_REQUESTED]));
        }
        return member && st->pending->len == 0;
}

/* Polls Explain until policyd has applied the group to the scope. Not in
 * the group in time is an error; knobs still not applied then are
 * reported, and CMD runs: policyd applies what it can, as for any unit. */
static int wait_applied(sd_bus *bus, const char *unit, const char *group, ScopeState *st) {
        uint64_t deadline = now_usec() + EXEC_WAIT_USEC, pause = 10000;
        int r;

        for (;;) {
                r = scope_state_read(bus, unit, group, st);
                if (r < 0)
                        return -r;
                if (r > 0)
                        return EXIT_OK;
                if (now_usec() >= deadline)
                        break;
                g_usleep(pause);
                pause = MIN(pause * 2, 200000);
        }

        if (!st->groups || !g_ptr_array_find_with_equal_func(st->groups, group, g_str_equal, NULL)) {
                fprintf(stderr, "policyd did not put %s in group %s within %u s. See: journalctl -u policyd\n",
                        unit, group, (unsigned) (EXEC_WAIT_USEC / G_USEC_PER_SEC));
                return EXIT_ERRORS;
        }
        for (guint i = 0; i < st->pending->len; i++)
                fprintf(stderr, "Warning: %s: policyd did not apply %s within %u s; running the command anyway.\n",
                        unit, (const char *) g_ptr_array_index(st->pending, i),
                        (unsigned) (EXEC_WAIT_USEC / G_USEC_PER_SEC));
        return EXIT_OK;
}

/* ---- 5. the process-level knobs ---- */

/* The scope's groups as policyd has them, in set: group, and the others
 * from GetGroup. */
static int scope_groups(sd_bus *bus, PolicyGroup *group, const ScopeState *st, PolicySet *set) {
        policy_set_add(set, group);
        for (guint i = 0; i < st->groups->len; i++) {
                const char *name = g_ptr_array_index(st->groups, i);
                PolicyGroup *g = NULL;
                int code;

                if (policy_set_get(set, name))
                        continue;
                code = get_group(bus, name, &g);
                if (code != EXIT_OK)
                        return code;
                policy_set_add(set, g);
        }
        return EXIT_OK;
}

/* The file the kernel will show as /proc/PID/exe for CMD, for
 * Executable=, as the process layer matches it; NULL when not found (the
 * exec then fails). A script shows its interpreter there instead. */
static char *command_executable(const char *command) {
        g_autofree char *found = strchr(command, '/') ? g_strdup(command) : g_find_program_in_path(command);
        return found ? realpath(found, NULL) : NULL;
}

/* What the process layer wants for a process of the scope running exe. */
static void scope_want(const PolicySet *set, const ScopeState *st, const char *exe, ProcessWant *ret) {
        g_autoptr(GPtrArray) memberships = g_ptr_array_new_with_free_func(g_free);

        assert(set && st && st->groups && ret);
        for (guint i = 0; i < st->groups->len; i++) {
                Membership *mb = g_new0(Membership, 1);
                mb->group = g_ptr_array_index(st->groups, i); /* borrowed */
                mb->source = MEMBERSHIP_RUNTIME;
                g_ptr_array_add(memberships, mb);
        }
        process_want_for(set, memberships, exe, ret);
}

/* Sets what it can, says what it cannot, as the generator leaves out of a
 * unit what systemd would fail its start for; *c keeps only what is set. */
static void make_calls(ExecCalls *c) {
        char policy[512] = "?";

        /* exec_calls_for() keeps the group of each value. */
        assert(c);
        assert(c->ksm < 0 || c->ksm_group);
        assert((!c->has_mempolicy && !c->mempolicy_problem) || c->mempolicy_group);
        if (c->ksm >= 0 && prctl(PR_SET_MEMORY_MERGE, (unsigned long) c->ksm, 0UL, 0UL, 0UL) < 0) {
                /* EINVAL: before 6.4, or without CONFIG_KSM; then off is off. */
                if (c->ksm)
                        fprintf(stderr, "Warning: KSM=yes of group %s is not applied: %s\n", c->ksm_group,
                                errno == EINVAL ? "the kernel has no per-process KSM (Linux 6.4 with CONFIG_KSM)"
                                                : g_strerror(errno));
                c->ksm = -1;
        }

        if (c->mempolicy_problem) {
                fprintf(stderr, "Warning: NUMAPolicy= of group %s is not applied: %s\n", c->mempolicy_group,
                        c->mempolicy_problem);
        } else if (c->has_mempolicy) {
                size_t words;
                unsigned long maxnode = mempolicy_maxnode(&c->mempolicy, &words);
                /* The calling thread's policy, which execve() keeps. */
                if (syscall(SYS_set_mempolicy, c->mempolicy.mode, words > 0 ? c->mempolicy.nodemask : NULL,
                            maxnode) < 0) {
                        int e = errno;
                        (void) mempolicy_format_numa_maps(&c->mempolicy, policy, sizeof(policy));
                        fprintf(stderr, "Warning: the mempolicy %s of group %s is not applied: set_mempolicy: %s\n",
                                policy, c->mempolicy_group,
                                e == EINVAL ? "invalid here (nodes without memory?)" : g_strerror(e));
                        c->has_mempolicy = false;
                }
        }
}

/* ---- the verb ---- */

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ExecArguments, exec_arguments_done)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ProcessWant, process_want_clear)

int verb_exec(int argc, char **argv) {
        g_auto(ExecArguments) a = {};
        g_autoptr(sd_bus) bus = NULL;
        g_autoptr(PolicyGroup) group = NULL;
        g_autoptr(PolicySet) set = policy_set_new();
        g_autofree char *error = NULL, *unit = NULL, *exe = NULL;
        g_auto(ProcessWant) want = { .knobs.ksm = -1 };
        ScopeState st = {};
        ExecCalls calls;
        int code;

        if (exec_arguments_parse(argc, argv, &a, &error) < 0) {
                fprintf(stderr, "%s\n", error);
                return EXIT_USAGE;
        }
        if (a.help) {
                exec_help();
                return EXIT_OK;
        }
        if (arg_json) {
                fprintf(stderr, "exec prints no JSON: drop --json.\n");
                return EXIT_USAGE;
        }

        code = connect_system_bus(&bus);
        if (code != EXIT_OK)
                return code;
        code = get_group(bus, a.group, &group);
        if (code != EXIT_OK)
                return code;
        /* policyd allows Assign to root only (AllowSelfAssign= is about the
         * user.policy.request xattr): say so before making a scope. */
        if (geteuid() != 0) {
                fprintf(stderr,
                        "Permission denied: 'policyctl exec' puts a new scope in group %s with policyd's Assign, "
                        "which needs root.\n",
                        a.group);
                return EXIT_ACCESS_DENIED;
        }

        code = start_scope(bus, &a, &unit);
        if (code != EXIT_OK)
                return code;
        code = call(bus, "exec", POLICYD_BUS_INTERFACE, "Assign", NULL, "ss", unit, a.group);
        if (code != EXIT_OK)
                return code;
        code = wait_applied(bus, unit, a.group, &st);
        if (code == EXIT_OK)
                code = scope_groups(bus, TAKE_PTR(group), &st, set);
        if (code != EXIT_OK) {
                /* The scope goes when we exit; the assignment with it, or now. */
                sd_bus_error unassign_error = SD_BUS_ERROR_NULL;
                (void) call_raw(bus, POLICYD_BUS_INTERFACE, "Unassign", &unassign_error, NULL, "ss", unit, a.group);
                sd_bus_error_free(&unassign_error);
                scope_state_done(&st);
                return code;
        }

        exe = command_executable(a.command[0]);
        scope_want(set, &st, exe, &want);
        if (exec_calls_for(&want, &calls) < 0)
                fprintf(stderr, "Warning: the mempolicy %s of group %s is not applied: policyctl cannot read it\n",
                        want.knobs.mempolicy, want.mempolicy_group);
        make_calls(&calls);
        if (!a.quiet) {
                g_autoptr(GString) line = g_string_new(NULL);
                g_autofree char *what = exec_calls_describe(&calls);
                g_string_append_printf(line, "Running as unit: %s in group%s ", unit, st.groups->len > 1 ? "s" : "");
                for (guint i = 0; i < st.groups->len; i++)
                        g_string_append_printf(line, "%s%s", i > 0 ? ", " : "",
                                               (const char *) g_ptr_array_index(st.groups, i));
                if (!isempty(what))
                        g_string_append_printf(line, " (%s)", what);
                fprintf(stderr, "%s\n", line->str);
        }
        scope_state_done(&st);

        /* Nothing of ours goes on into CMD. */
        g_clear_pointer(&bus, sd_bus_flush_close_unref);
        fflush(NULL);
        execvp(a.command[0], a.command);
        int e = errno;
        fprintf(stderr, "Failed to execute %s: %s\n", a.command[0], g_strerror(e));
        return e == ENOENT ? EXIT_COMMAND_NOT_FOUND : EXIT_CANNOT_EXECUTE;
}
