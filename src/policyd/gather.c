/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>

#include "assign.h"
#include "gather.h"
#include "swap-tier-pass.h"
#include "log.h"
#include "manager.h"
#include "state-store.h"
#include "unit-file.h"
#include "unit-lookup.h"
#include "unit-plan.h"
#include "util.h"

void candidate_data_clear(CandidateData *d) {
        g_strfreev(d->slices);
        if (d->xattrs)
                g_ptr_array_unref(d->xattrs);
        if (d->runtime)
                g_ptr_array_unref(d->runtime);
        if (d->excluded)
                g_ptr_array_unref(d->excluded);
        g_strfreev(d->self_requests);
        g_free(d->attributes_seen);
}

/* user.* xattrs of a cgroup as "name=value", through its open directory,
 * sorted: as matching sees them (cgroup_record_xattr_input()). Only those
 * some group reads (names: policy_set_xattr_names()), the only ones
 * matching looks at, each by name: systemd's user.invocation_id and
 * user.delegate are not read at every change, and no list is read first
 * (a syscall on the path of every focus change). Left out too: policyd's
 * own names, which are never matched. */
static GPtrArray *read_user_xattrs(int fd, char *const *names, const CgroupRecord *record) {
        GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

        for (char *const *name = names; name && *name; name++) {
                char value[4096];
                if (!g_str_has_prefix(*name, "user.") || g_str_has_prefix(*name, POLICY_XATTR_PREFIX))
                        continue;
                ssize_t k = fgetxattr(fd, *name, value, sizeof(value) - 1);
                if (k < 0)
                        continue;
                value[k] = '\0';
                const char *input = cgroup_record_xattr_input(record, *name, value);
                if (input)
                        g_ptr_array_add(out, g_strconcat(*name, "=", input, NULL));
        }
        g_ptr_array_sort(out, strcmp_ptr);
        g_ptr_array_add(out, NULL);
        return out;
}

/* NSS is asked once per uid and reload, not on every apply: it may be slow,
 * or fail under the unit's sandbox. */
static const char *user_name_of(Manager *m, uid_t uid) {
        gpointer key = GUINT_TO_POINTER(uid + 1); /* 0 is no key for a direct hash */
        char *name = g_hash_table_lookup(m->user_names, key);

        if (!name && !g_hash_table_contains(m->user_names, key)) {
                struct passwd pw, *result = NULL;
                char buf[4096];
                if (getpwuid_r(uid, &pw, buf, sizeof(buf), &result) == 0 && result)
                        name = g_strdup(pw.pw_name);
                g_hash_table_insert(m->user_names, key, name);
        }
        return name;
}

/* The group names of the runtime entries of table that apply to s now: a
 * user's only while the target is still theirs (assign.h). */
static GPtrArray *runtime_groups(GHashTable *table, const Subject *s, const Candidate *c) {
        g_autoptr(GPtrArray) entries = runtime_assignments_for(table, s, c->owner_known, c->owner_uid);
        GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

        for (guint i = 0; i + 1 < entries->len; i++)
                g_ptr_array_add(out, g_strdup(((const RuntimeAssignment *) g_ptr_array_index(entries, i))->group));
        g_ptr_array_add(out, NULL);
        return out;
}

/* The groups the unit's files name, read once for each set of files:
 * a warning about them is logged when they are read, not at every apply. */
static void read_unit_groups(Subject *s) {
        g_autoptr(Diagnostics) diags = diagnostics_new();

        if (s->unit_groups_read)
                return;
        g_clear_pointer(&s->unit_groups, g_strfreev);
        (void) unit_file_read_policy_groups(s->unit, s->fragment, (const char *const *) s->dropins,
                                            subject_file_reader(s), &s->unit_groups, diags);
        for (guint i = 0; i < diags->items->len; i++) {
                const Diagnostic *diag = g_ptr_array_index(diags->items, i);
                /* A user's unit files are the user's input (config-trust.h). */
                log_context_id(log_diagnostic_message_id(diag, s->user_unit), LOG_WARNING, 0, subject_name(s), NULL,
                               diag->file, diag->line, "%s:%u: %s", strempty(diag->file), diag->line, diag->message);
        }
        s->unit_groups_read = true;
}

static uint64_t now_monotonic_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* What matching reads of a cgroup's attributes and owner, as one string to
 * compare: of the xattrs, only those some group's XAttr= names (the only
 * ones read_user_xattrs() reads), so that systemd's user.invocation_id,
 * new at each start, changes nothing. */
static char *attributes_seen(const CandidateData *d, const char *request) {
        GString *out = g_string_new(NULL);

        if (d->c.owner_known)
                g_string_append_printf(out, "owner=%" PRIu32 "\n", d->c.owner_uid);
        /* No printf for the rest: this runs at every focus change. */
        for (const char *const *x = d->c.xattrs; x && *x; x++) {
                g_string_append(out, *x);
                g_string_append_c(out, '\n');
        }
        if (request) {
                g_string_append(out, POLICY_REQUEST_XATTR "=");
                g_string_append(out, request);
                g_string_append_c(out, '\n');
        }
        return g_string_free(out, false);
}

void gather_attributes(Subject *s, int cgroup_fd, CandidateData *d) {
        Manager *m = s->manager;
        _cleanup_close_ int own_fd = -1;
        struct stat st;
        int fd = cgroup_fd;

        /* One open directory for the owner and every xattr. */
        if (fd < 0) {
                g_autofree char *path = g_build_filename(m->cgroup_root, s->cgroup, NULL);
                fd = own_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        }
        if (fd >= 0 && fstat(fd, &st) >= 0) {
                d->c.owner_known = true;
                d->c.owner_uid = st.st_uid;
        }

        /* Below a delegation boundary, whoever the cgroup was handed to can
         * write any user.* xattr (systemd-oomd trusts them only on root's
         * cgroups): there they are the owner's input, and select only
         * groups with AllowSelfAssign=yes (resolve.c). */
        if (d->c.owner_known) {
                d->xattrs = read_user_xattrs(fd, m->xattr_names, s->record);
                d->c.xattrs = (const char *const *) d->xattrs->pdata;
                d->c.xattrs_untrusted = d->c.owner_uid != 0;
        }
        d->c.now_usec = now_monotonic_usec();

        /* Self-requests are honoured only on a delegated cgroup, and only as
         * written by its owner: systemd hands the directory to the unit's
         * user when Delegate=yes. A user's on a system unit's own cgroup
         * (its delegation root) is refused in resolve.c, with their
         * xattrs there: delegation_root_refuses(). */
        char request[1024];
        ssize_t k = fd >= 0 ? fgetxattr(fd, POLICY_REQUEST_XATTR, request, sizeof(request) - 1) : -1;
        if (k > 0) {
                request[k] = '\0';
                d->self_requests = g_strsplit_set(request, ", ", -1);
                d->c.self_requests = (const char *const *) d->self_requests;
                d->c.self_request_trusted =
                        streq_ptr(g_hash_table_lookup(s->unit_properties, "Delegate"), "yes") && d->c.owner_known;
        }
        d->attributes_seen = attributes_seen(d, k > 0 ? request : NULL);
}

void gather_candidate(Subject *s, CandidateData *d) {
        Manager *m = s->manager;

        /* Read already, by a caller that compared them (attr-watch.c). */
        if (!d->attributes_seen)
                gather_attributes(s, -1, d);

        d->slices = unit_slice_chain(s->slice);
        d->c.unit = s->unit;
        d->c.slices = (const char *const *) d->slices;
        d->c.cgroup = s->cgroup;
        d->c.user = s->user;
        if (s->user_unit) {
                d->c.user_manager = true;
                d->c.manager_uid = s->manager_uid;
                d->c.user = user_name_of(m, s->manager_uid);
        }
        if (d->c.owner_known)
                d->c.owner_name = user_name_of(m, d->c.owner_uid);

        /* A user's unit files are the user's to write: PolicyGroup= there
         * would let them pick any group. policyd-generator reads PID 1's. */
        if (s->unit && !s->user_unit) {
                read_unit_groups(s);
                d->c.unit_groups = (const char *const *) s->unit_groups;
        }

        d->runtime = runtime_groups(m->assignments, s, &d->c);
        d->excluded = runtime_groups(m->exclusions, s, &d->c);
        d->c.runtime_groups = (const char *const *) d->runtime->pdata;
        d->c.runtime_excluded = (const char *const *) d->excluded->pdata;
}

PlanFlags gather_plan_flags(Subject *s) {
        g_autofree char *controllers = NULL;

        /* Systemd's units: its properties. PID 1 enables cpuset for
         * AllowedMemoryNodes=; a user's manager cannot. */
        PlanFlags flags = s->user_unit ? PLAN_SYSTEMD_MANAGED | PLAN_USER_MANAGER : 0;

        /* -.slice, or "/" named as a cgroup: no knob file there. */
        if (streq_ptr(s->cgroup, "/"))
                flags |= PLAN_ROOT_CGROUP;
        if (s->unit && !s->user_unit)
                return flags | PLAN_SYSTEMD_MANAGED;
        if (isempty(s->cgroup) ||
            cgroup_read_value(s->manager->cgroup_root, s->cgroup, BACKEND_CGROUP_FILE, "cgroup.controllers",
                              &controllers) < 0)
                return flags;
        g_auto(GStrv) names = g_strsplit_set(controllers, " \n", -1);
        return flags | (g_strv_contains((const char *const *) names, "cpuset") ? 0 : PLAN_NO_CPUSET);
}

/* Gathers, then resolves: the groups and desired state now, and what the
 * cgroup's attributes said. */
static int gather_resolve(Subject *s, CandidateData *d, Resolution **ret, char **ret_attributes_seen) {
        int r;

        gather_candidate(s, d);
        r = resolve_candidate(s->manager->policies, &d->c, ret);
        if (r >= 0 && ret_attributes_seen)
                *ret_attributes_seen = TAKE_PTR(d->attributes_seen);
        return r;
}

static bool has_generated_dropin(const Subject *s) {
        for (char **d = s->dropins; d && *d; d++)
                if (unit_dropin_is_generated(*d))
                        return true;
        return false;
}

/* The administrator's values of names, from the unit's files, for the
 * unit plan (which asks for them where it decides what to restore): read
 * once (may_read) and kept in s->admin_values until the files change.
 * Without may_read, NULL when one of them is not kept. */
static GHashTable *admin_values(Subject *s, char *const *names, bool may_read) {
        g_autoptr(GHashTable) admin = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                                            (GDestroyNotify) g_ptr_array_unref);

        if (!s->admin_values)
                s->admin_values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) g_ptr_array_unref);
        for (char *const *n = names; n && *n; n++) {
                gpointer cached;
                if (!g_hash_table_lookup_extended(s->admin_values, *n, NULL, &cached)) {
                        if (!may_read)
                                return NULL;
                        GPtrArray *assignments = NULL;
                        /* Missing from admin: its files could not be read
                         * (unit-plan.h). Not kept: the next pass tries again. */
                        if (unit_file_read_property(s->unit, s->fragment, (const char *const *) s->dropins,
                                                    subject_file_reader(s), *n, &assignments) < 0)
                                continue;
                        cached = assignments;
                        g_hash_table_replace(s->admin_values, g_strdup(*n), cached);
                }
                g_hash_table_replace(admin, g_strdup(*n), g_ptr_array_ref(cached));
        }
        return TAKE_PTR(admin);
}

int gather_unit_plan(Subject *s, const CgroupPlan *plan, GatherFlags flags, UnitPlan **ret) {
        g_autoptr(GHashTable) admin = NULL;
        g_autoptr(UnitPlan) up = NULL;
        UnitPlanInput in = {
                .plan = plan,
                .properties = s->unit_properties,
                .records = s->property_records,
                .relied = s->relied_properties,
                .flags = (s->manager->dry_run ? UNIT_PLAN_DRY_RUN : 0) |
                         (s->properties_stale ? UNIT_PLAN_PROPERTIES_STALE : 0) |
                         (has_generated_dropin(s) ? UNIT_PLAN_GENERATED_DROPIN : 0),
        };
        int r;

        assert(s->unit);
        r = unit_plan_build(&in, &up);
        if (r >= 0 && up->read == UNIT_PLAN_READ_ADMIN &&
            (admin = admin_values(s, up->read_names, !(flags & GATHER_NO_FILE_READS)))) {
                in.admin = admin;
                g_clear_pointer(&up, unit_plan_free);
                r = unit_plan_build(&in, &up);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(up);
        return 0;
}

void subject_plan_clear(SubjectPlan *p) {
        g_clear_pointer(&p->resolution, resolution_free);
        g_clear_pointer(&p->cgroup, cgroup_plan_free);
        g_clear_pointer(&p->unit, unit_plan_free);
        g_clear_pointer(&p->attributes_seen, g_free);
        *p = (SubjectPlan) {};
}

int gather_revert_plan(Subject *s, SubjectPlan *ret) {
        _cleanup_(subject_plan_clear) SubjectPlan p = {};

        assert(s->unit);
        p.cgroup = cgroup_plan_new();
        p.unit_error = gather_unit_plan(s, p.cgroup, 0, &p.unit);
        *ret = p;
        p = (SubjectPlan) {};
        return 0;
}

int gather_subject_plan(Subject *s, CandidateData *d, GatherFlags flags, SubjectPlan *ret) {
        _cleanup_(subject_plan_clear) SubjectPlan p = {};
        int r;

        assert(ret);
        r = gather_resolve(s, d, &p.resolution, &p.attributes_seen);
        if (r < 0)
                return r;
        p.flags = gather_plan_flags(s);
        g_auto(GStrv) startup_widen = s->tiers_widen ? NULL
                : swap_tier_pass_startup_widening(s->manager->swap_tiers, s->cgroup);
        p.cgroup_error = cgroup_plan_build_widened(p.resolution, s->manager->facts, p.flags,
                                                   s->tiers_widen ?: startup_widen, &p.cgroup);
        if (p.cgroup_error >= 0 && s->unit)
                p.unit_error = gather_unit_plan(s, p.cgroup, flags, &p.unit);
        *ret = p;
        p = (SubjectPlan) {};
        return 0;
}
