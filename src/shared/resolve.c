/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <fnmatch.h>

#include "resolve.h"
#include "util.h"

/* Ours: the daemon writes the group tag here and reads self-requests from
 * here, so no policy may set it, and no [Match] may key on it (matching our
 * own tag would make membership stick once applied; matching the request
 * would bypass AllowSelfAssign=). */
#define RESERVED_XATTR_PREFIX "user.policy."

static const char *const membership_source_names[_MEMBERSHIP_SOURCE_MAX] = {
        [MEMBERSHIP_RUNTIME] = "runtime",
        [MEMBERSHIP_UNIT_FILE] = "unit-file",
        [MEMBERSHIP_SELF_REQUEST] = "self-request",
        [MEMBERSHIP_MATCH] = "match",
};

const char *membership_source_to_string(MembershipSource s) {
        if ((int) s < 0 || s >= _MEMBERSHIP_SOURCE_MAX)
                return NULL;
        return membership_source_names[s];
}

/* ---- ownership ---- */

static Membership *membership_free(Membership *m) {
        if (!m)
                return NULL;
        g_free(m->group);
        g_free(m);
        return NULL;
}
DEFINE_FREE_NOTIFY(membership_free, Membership)

static ResolvedAttribute *resolved_attribute_free(ResolvedAttribute *a) {
        if (!a)
                return NULL;
        g_free(a->name);
        g_free(a->value);
        g_free(a->group);
        provenance_clear(&a->source);
        g_free(a);
        return NULL;
}
DEFINE_FREE_NOTIFY(resolved_attribute_free, ResolvedAttribute)

static ResolveNote *resolve_note_free(ResolveNote *n) {
        if (!n)
                return NULL;
        g_free(n->group);
        g_free(n);
        return NULL;
}
DEFINE_FREE_NOTIFY(resolve_note_free, ResolveNote)

static void resolved_knob_clear(ResolvedKnob *k) {
        assert(k);
        knob_value_clear(&k->value);
        g_clear_pointer(&k->group, g_free);
        provenance_clear(&k->source);
        g_clear_pointer(&k->overridden, g_ptr_array_unref);
        k->set = false;
}

static Resolution *resolution_new(void) {
        Resolution *r = g_new0(Resolution, 1);

        r->memberships = g_ptr_array_new_with_free_func(membership_free_notify);
        r->attributes = g_ptr_array_new_with_free_func(resolved_attribute_free_notify);
        r->notes = g_ptr_array_new_with_free_func(resolve_note_free_notify);
        r->focus_deadline_usec = FOCUS_UNSET;
        /* Never NULL, so readers need not check: empty when nobody lost. */
        for (int k = 0; k < _KNOB_MAX; k++)
                r->knobs[k].overridden = g_ptr_array_new_with_free_func(g_free);
        return r;
}

Resolution *resolution_free(Resolution *r) {
        if (!r)
                return NULL;
        g_clear_pointer(&r->memberships, g_ptr_array_unref);
        for (int k = 0; k < _KNOB_MAX; k++)
                resolved_knob_clear(&r->knobs[k]);
        g_clear_pointer(&r->attributes, g_ptr_array_unref);
        g_clear_pointer(&r->notes, g_ptr_array_unref);
        g_free(r);
        return NULL;
}

/* ---- [Match] ---- */

/* The exact comparison first: unit and cgroup names may carry systemd's
 * "\x2d" escapes, which fnmatch() would read as quoting the 'x'. */
static bool glob_matches(const char *pattern, const char *s) {
        return streq(pattern, s) || fnmatch(pattern, s, 0) == 0;
}

static bool match_unit(const char *pattern, const Candidate *c) {
        return c->unit && glob_matches(pattern, c->unit);
}

static bool match_slice(const char *pattern, const Candidate *c) {
        for (const char *const *s = c->slices; s && *s; s++)
                if (glob_matches(pattern, *s))
                        return true;
        return false;
}

static bool match_cgroup(const char *pattern, const Candidate *c) {
        /* No FNM_PATHNAME: a '*' also matches '/', so one pattern selects
         * a whole subtree. */
        return glob_matches(pattern, c->cgroup);
}

static bool match_user(const char *word, const Candidate *c) {
        uint32_t uid;

        if (parse_uid(word, &uid) >= 0 &&
            ((c->owner_known && c->owner_uid == uid) || (c->user_manager && c->manager_uid == uid)))
                return true;
        /* Names as given, and a numeric User= spelled the same way. No NSS
         * here: the caller puts the owner's name in owner_name. */
        return streq_ptr(word, c->user) || streq_ptr(word, c->owner_name);
}

static bool match_xattr(const char *word, const Candidate *c) {
        const char *eq = strchr(word, '=');
        size_t n = eq ? (size_t) (eq - word) : strlen(word);

        if (g_str_has_prefix(word, RESERVED_XATTR_PREFIX))
                return false;

        for (const char *const *x = c->xattrs; x && *x; x++) {
                const char *xeq = strchr(*x, '=');
                size_t xn = xeq ? (size_t) (xeq - *x) : strlen(*x);

                if (xn != n || strncmp(*x, word, n) != 0)
                        continue;
                if (!eq || streq(eq + 1, xeq ? xeq + 1 : ""))
                        return true;
        }
        return false;
}

bool policy_group_reads_focus(const PolicyGroup *g) {
        assert(g);
        return g->match_focused >= 0 || g->match_inactive_usec != FOCUS_UNSET;
}

/* What user.xdg.inactive-since says: "-1" while the app has focus, else
 * the CLOCK_MONOTONIC µs at which it lost it (as Mutter writes it). */
typedef enum FocusState {
        FOCUS_NONE,      /* no such xattr, or not a value Mutter writes */
        FOCUS_FOCUSED,
        FOCUS_INACTIVE,
} FocusState;

static FocusState focus_state(const Candidate *c, uint64_t *ret_since) {
        const size_t n = strlen(FOCUS_XATTR);

        for (const char *const *x = c->xattrs; x && *x; x++) {
                const char *v = *x + n + 1;
                uint64_t since;
                if (strncmp(*x, FOCUS_XATTR, n) != 0 || (*x)[n] != '=')
                        continue;
                if (streq(v, "-1"))
                        return FOCUS_FOCUSED;
                if (!g_ascii_isdigit(v[0]) || !g_ascii_string_to_unsigned(v, 10, 0, UINT64_MAX - 1, &since, NULL))
                        return FOCUS_NONE;
                *ret_since = since;
                return FOCUS_INACTIVE;
        }
        return FOCUS_NONE;
}

static bool match_focus(const PolicyGroup *g, const Candidate *c) {
        uint64_t since = 0;
        FocusState st = focus_state(c, &since);

        if (g->match_focused >= 0 && st != (g->match_focused ? FOCUS_FOCUSED : FOCUS_INACTIVE))
                return false;
        if (g->match_inactive_usec != FOCUS_UNSET) {
                if (st != FOCUS_INACTIVE)
                        return false;
                /* A time ahead of ours: it just lost focus. */
                uint64_t inactive = c->now_usec > since ? c->now_usec - since : 0;
                if (inactive < g->match_inactive_usec)
                        return false;
        }
        return true;
}

/* When the group's InactiveFor= starts to hold for c, if it does not yet
 * and will; FOCUS_UNSET otherwise. */
static uint64_t focus_deadline(const PolicyGroup *g, const Candidate *c) {
        uint64_t since = 0;

        if (g->match_inactive_usec == FOCUS_UNSET || focus_state(c, &since) != FOCUS_INACTIVE)
                return FOCUS_UNSET;
        if (since > FOCUS_UNSET - 1 - g->match_inactive_usec)
                return FOCUS_UNSET;
        uint64_t at = since + g->match_inactive_usec;
        return at > c->now_usec ? at : FOCUS_UNSET;
}

bool policy_set_reads_attributes(const PolicySet *set) {
        GHashTableIter it;
        gpointer value;

        assert(set);

        g_hash_table_iter_init(&it, set->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const PolicyGroup *g = value;
                if (g->allow_self_assign || policy_group_reads_focus(g))
                        return true;
                for (guint i = 0; g->match_xattrs && i < g->match_xattrs->len; i++)
                        if (!isempty(g_ptr_array_index(g->match_xattrs, i)))
                                return true;
        }
        return false;
}

char **policy_set_xattr_names(const PolicySet *set) {
        g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        GPtrArray *names = g_ptr_array_new();
        GHashTableIter it;
        gpointer value;

        assert(set);
        g_hash_table_iter_init(&it, set->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const PolicyGroup *g = value;
                if (policy_group_reads_focus(g))
                        g_hash_table_add(seen, g_strdup(FOCUS_XATTR));
                for (guint i = 0; g->match_xattrs && i < g->match_xattrs->len; i++) {
                        const char *word = g_ptr_array_index(g->match_xattrs, i);
                        if (!isempty(word))
                                g_hash_table_add(seen, g_strndup(word, strcspn(word, "=")));
                }
        }
        g_hash_table_iter_init(&it, seen);
        while (g_hash_table_iter_next(&it, &value, NULL))
                g_ptr_array_add(names, g_strdup(value));
        g_ptr_array_sort(names, strcmp_ptr);
        g_ptr_array_add(names, NULL);
        return (char **) g_ptr_array_free(names, FALSE);
}

typedef bool (*MatchWord)(const char *word, const Candidate *c);

static bool match_any(const GPtrArray *words, MatchWord f, const Candidate *c) {
        assert(words);
        assert(f);
        for (guint i = 0; i < words->len; i++) {
                const char *w = g_ptr_array_index(words, i);
                if (!isempty(w) && f(w, c))
                        return true;
        }
        return false;
}

bool policy_group_matches(const PolicyGroup *g, const Candidate *c) {
        assert(g);
        assert(c);

        /* Executable= is per process and takes no part here. */
        const struct {
                const GPtrArray *words;
                MatchWord f;
        } keys[] = {
                { g->match_units, match_unit },
                { g->match_slices, match_slice },
                { g->match_cgroups, match_cgroup },
                { g->match_users, match_user },
                { g->match_xattrs, match_xattr },
        };
        bool any_key = false;

        /* The owner's own attributes may only select groups that let it
         * join them (DESIGN §8). */
        bool attributes_usable = !c->xattrs_untrusted || g->allow_self_assign;

        if (!c->cgroup)
                return false;
        /* A user names the units of their own manager: a group written for
         * PID 1's postgresql.service must not reach theirs by the name. */
        if (g->match_manager != MATCH_MANAGER_ANY &&
            c->user_manager != (g->match_manager == MATCH_MANAGER_USER))
                return false;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                if (!keys[i].words || keys[i].words->len == 0)
                        continue;
                any_key = true;
                if (keys[i].f == match_xattr && !attributes_usable)
                        return false;
                if (!match_any(keys[i].words, keys[i].f, c))
                        return false;
        }
        if (policy_group_reads_focus(g)) {
                any_key = true;
                if (!attributes_usable || !match_focus(g, c))
                        return false;
        }
        return any_key;
}

bool policy_group_matches_on_facts(const PolicyGroup *g, const Candidate *c) {
        assert(c);
        Candidate facts = {
                .unit = c->unit,
                .slices = c->slices,
                .cgroup = c->cgroup,
                .owner_known = c->owner_known,
                .owner_uid = c->owner_uid,
                .owner_name = c->owner_name,
                .user = c->user,
                .user_manager = c->user_manager,
                .manager_uid = c->manager_uid,
                .xattrs_untrusted = true,
                .now_usec = c->now_usec,
        };
        return policy_group_matches(g, &facts);
}

bool candidate_is_delegation_root(const Candidate *c) {
        assert(c);
        return c->unit && !c->user_manager && !(c->owner_known && c->owner_uid == 0);
}

bool delegation_root_refuses(const PolicyGroup *g, MembershipSource source, const Candidate *c) {
        if (!candidate_is_delegation_root(c))
                return false;
        switch (source) {
        case MEMBERSHIP_SELF_REQUEST:
                return true;
        case MEMBERSHIP_MATCH:
                /* Only the owner's xattrs and focus are theirs. */
                return c->xattrs_untrusted && !policy_group_matches_on_facts(g, c);
        default:
                return false;
        }
}

/* ---- membership ---- */

static void note_add(Resolution *r, ResolveNoteKind kind, MembershipSource source, const char *group) {
        assert(r);
        assert(group);

        for (guint i = 0; i < r->notes->len; i++) {
                const ResolveNote *n = g_ptr_array_index(r->notes, i);
                if (n->kind == kind && n->source == source && streq(n->group, group))
                        return;
        }

        ResolveNote *n = g_new0(ResolveNote, 1);
        n->kind = kind;
        n->source = source;
        n->group = g_strdup(group);
        g_ptr_array_add(r->notes, n);
}

static bool set_is_masked(const PolicySet *set, const char *name) {
        for (guint i = 0; set->masked && i < set->masked->len; i++)
                if (streq(g_ptr_array_index(set->masked, i), name))
                        return true;
        return false;
}

/* members: group name (owned by the set) → MembershipSource + 1. Keeps the
 * strongest source, whatever the order of calls. */
static void member_add(GHashTable *members, const PolicyGroup *g, MembershipSource source) {
        gpointer old;

        assert(members);
        assert(g);
        assert((unsigned) source < _MEMBERSHIP_SOURCE_MAX);

        old = g_hash_table_lookup(members, g->name);

        if (old && GPOINTER_TO_INT(old) - 1 <= (int) source)
                return;
        g_hash_table_insert(members, g->name, GINT_TO_POINTER((int) source + 1));
}

static void add_named(const PolicySet *set, Resolution *r, GHashTable *members, const char *const *names,
                      MembershipSource source) {
        for (const char *const *n = names; n && *n; n++) {
                const PolicyGroup *g;

                if (isempty(*n))
                        continue;
                g = policy_set_get(set, *n);
                if (!g) {
                        note_add(r, set_is_masked(set, *n) ? RESOLVE_NOTE_MASKED_GROUP : RESOLVE_NOTE_UNKNOWN_GROUP,
                                 source, *n);
                        continue;
                }
                member_add(members, g, source);
        }
}

static void add_self_requests(const PolicySet *set, Resolution *r, GHashTable *members, const Candidate *c) {
        for (const char *const *n = c->self_requests; n && *n; n++) {
                const PolicyGroup *g;

                if (isempty(*n))
                        continue;
                /* The request comes from whoever owns the cgroup: unknown,
                 * masked and not-allowed groups are all just refused. */
                g = policy_set_get(set, *n);
                if (!c->self_request_trusted || !g || !g->allow_self_assign) {
                        note_add(r, RESOLVE_NOTE_SELF_REQUEST_REFUSED, MEMBERSHIP_SELF_REQUEST, *n);
                        continue;
                }
                if (delegation_root_refuses(g, MEMBERSHIP_SELF_REQUEST, c)) {
                        note_add(r, RESOLVE_NOTE_DELEGATION_ROOT, MEMBERSHIP_SELF_REQUEST, *n);
                        continue;
                }
                member_add(members, g, MEMBERSHIP_SELF_REQUEST);
        }
}

/* Order does not matter here (the members are sorted once, below), so the
 * groups are not sorted for every candidate. */
static void add_matches(const PolicySet *set, Resolution *r, GHashTable *members, const Candidate *c) {
        GHashTableIter it;
        gpointer value;

        g_hash_table_iter_init(&it, set->groups);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const PolicyGroup *g = value;
                if (!policy_group_matches(g, c))
                        continue;
                if (delegation_root_refuses(g, MEMBERSHIP_MATCH, c))
                        note_add(r, RESOLVE_NOTE_DELEGATION_ROOT, MEMBERSHIP_MATCH, g->name);
                else
                        member_add(members, g, MEMBERSHIP_MATCH);
        }
}

/* ---- merging ---- */

/* Where several member groups set one thing, the highest Priority wins and a
 * tie goes to the name last in lexical order. Callers walk the groups in
 * name order, so a later group wins a tie. */
bool policy_group_beats(const PolicyGroup *challenger, const PolicyGroup *holder) {
        assert(challenger);
        if (!holder)
                return true;
        if (challenger->priority != holder->priority)
                return challenger->priority > holder->priority;
        return strcmp(challenger->name, holder->name) > 0;
}

static void merge_knobs(Resolution *r, const GPtrArray *groups) {
        assert(r);
        assert(groups);

        for (int k = 0; k < _KNOB_MAX; k++) {
                ResolvedKnob *out = &r->knobs[k];
                const PolicyGroup *winner = NULL;

                for (guint i = 0; i < groups->len; i++) {
                        const PolicyGroup *g = g_ptr_array_index(groups, i);
                        if (g->knobs[k].set && policy_group_beats(g, winner))
                                winner = g;
                }
                if (!winner)
                        continue;

                out->set = true;
                knob_value_copy(&out->value, &winner->knobs[k].value);
                out->group = g_strdup(winner->name);
                provenance_set(&out->source, winner->knobs[k].source.file, winner->knobs[k].source.line);
                for (guint i = 0; i < groups->len; i++) {
                        const PolicyGroup *g = g_ptr_array_index(groups, i);
                        if (g != winner && g->knobs[k].set)
                                g_ptr_array_add(out->overridden, g_strdup(g->name));
                }
        }
}

typedef struct AttributeChoice {
        const PolicyGroup *group;
        const AttributeSetting *setting;
} AttributeChoice;

static int resolved_attribute_compare(const void *a, const void *b) {
        const ResolvedAttribute *x = *(const ResolvedAttribute *const *) a;
        const ResolvedAttribute *y = *(const ResolvedAttribute *const *) b;
        return strcmp(x->name, y->name);
}

static void merge_attributes(Resolution *r, const GPtrArray *groups) {
        /* name (owned by the group's setting) → AttributeChoice* */
        g_autoptr(GHashTable) chosen = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
        GHashTableIter it;
        gpointer value;

        for (guint i = 0; i < groups->len; i++) {
                const PolicyGroup *g = g_ptr_array_index(groups, i);

                for (guint j = 0; g->attributes && j < g->attributes->len; j++) {
                        const AttributeSetting *a = g_ptr_array_index(g->attributes, j);
                        AttributeChoice *cur;

                        if (isempty(a->name) || g_str_has_prefix(a->name, RESERVED_XATTR_PREFIX))
                                continue;

                        cur = g_hash_table_lookup(chosen, a->name);
                        if (!cur) {
                                cur = g_new0(AttributeChoice, 1);
                                g_hash_table_insert(chosen, a->name, cur);
                        } else if (cur->group != g && !policy_group_beats(g, cur->group))
                                continue;
                        /* Within one group, the later assignment wins. The key
                         * stays the first setting's name, alive as long as the set. */
                        cur->group = g;
                        cur->setting = a;
                }
        }

        g_hash_table_iter_init(&it, chosen);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const AttributeChoice *choice = value;
                ResolvedAttribute *out = g_new0(ResolvedAttribute, 1);

                out->name = g_strdup(choice->setting->name);
                out->value = g_strdup(strempty(choice->setting->value));
                out->group = g_strdup(choice->group->name);
                provenance_set(&out->source, choice->setting->source.file, choice->setting->source.line);
                g_ptr_array_add(r->attributes, out);
        }
        g_ptr_array_sort(r->attributes, resolved_attribute_compare);
}

/* ---- resolving ---- */

int resolve_candidate(const PolicySet *set, const Candidate *c, Resolution **ret) {
        g_autoptr(Resolution) r = NULL;
        g_autoptr(GHashTable) members = NULL;
        g_autoptr(GPtrArray) names = NULL;
        g_autoptr(GPtrArray) groups = NULL;
        GHashTableIter it;
        gpointer key;

        if (!set || !c || !ret)
                return -EINVAL;
        if (!c->cgroup || c->cgroup[0] != '/')
                return -EINVAL;

        r = resolution_new();
        members = g_hash_table_new(g_str_hash, g_str_equal);

        /* Only the candidate's own data counts: membership is not inherited
         * from parent cgroups or slices (DESIGN §5). */
        add_named(set, r, members, c->runtime_groups, MEMBERSHIP_RUNTIME);
        add_named(set, r, members, c->unit_groups, MEMBERSHIP_UNIT_FILE);
        add_self_requests(set, r, members, c);
        add_matches(set, r, members, c);

        for (const char *const *n = c->runtime_excluded; n && *n; n++)
                g_hash_table_remove(members, *n);

        names = g_ptr_array_sized_new(g_hash_table_size(members));
        g_hash_table_iter_init(&it, members);
        while (g_hash_table_iter_next(&it, &key, NULL))
                g_ptr_array_add(names, key);
        g_ptr_array_sort(names, strcmp_ptr);
        groups = g_ptr_array_sized_new(names->len);
        for (guint i = 0; i < names->len; i++) {
                const char *name = g_ptr_array_index(names, i);
                Membership *m = g_new0(Membership, 1);

                m->group = g_strdup(name);
                m->source = (MembershipSource) (GPOINTER_TO_INT(g_hash_table_lookup(members, name)) - 1);
                assert((unsigned) m->source < _MEMBERSHIP_SOURCE_MAX);
                g_ptr_array_add(r->memberships, m);
                /* member_add() took the name from a group of the set. */
                const PolicyGroup *g = policy_set_get(set, name);
                assert(g);
                g_ptr_array_add(groups, (gpointer) g);
        }

        merge_knobs(r, groups);
        merge_attributes(r, groups);

        /* Only for groups that will match then: their other keys too. */
        g_hash_table_iter_init(&it, set->groups);
        gpointer value;
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const PolicyGroup *g = value;
                Candidate then = *c;
                then.now_usec = focus_deadline(g, c);
                if (then.now_usec != FOCUS_UNSET && policy_group_matches(g, &then) &&
                    !delegation_root_refuses(g, MEMBERSHIP_MATCH, &then))
                        r->focus_deadline_usec = MIN(r->focus_deadline_usec, then.now_usec);
        }

        *ret = TAKE_PTR(r);
        return 0;
}

char *membership_list_tag(const GPtrArray *memberships) {
        GString *tag = g_string_new(NULL);

        for (guint i = 0; memberships && i < memberships->len; i++) {
                const Membership *m = g_ptr_array_index(memberships, i);
                if (i > 0)
                        g_string_append_c(tag, ',');
                g_string_append(tag, m->group);
        }
        return g_string_free(tag, FALSE);
}

bool membership_list_has(const GPtrArray *memberships, const char *group) {
        for (guint i = 0; memberships && group && i < memberships->len; i++) {
                const Membership *m = g_ptr_array_index(memberships, i);
                if (streq(m->group, group))
                        return true;
        }
        return false;
}

char *resolution_group_tag(const Resolution *r) {
        return membership_list_tag(r ? r->memberships : NULL);
}

bool resolution_has_group(const Resolution *r, const char *group) {
        return membership_list_has(r ? r->memberships : NULL, group);
}
