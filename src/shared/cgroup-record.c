/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>

#include "cgroup-record.h"
#include "util.h"

/* A file name under /run/policyd or a cgroup directory. */
#define NAME_MAX_LEN 255U

AppliedItem *applied_item_free(AppliedItem *i) {
        if (!i)
                return NULL;
        g_free(i->target);
        g_free(i->previous);
        g_free(i->written);
        g_free(i);
        return NULL;
}
DEFINE_FREE_NOTIFY(applied_item_free, AppliedItem)

static char *digest_of(const char *value) {
        g_autofree char *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, value, -1);
        return g_strconcat(CGROUP_RECORD_DIGEST_PREFIX, hex, NULL);
}

void applied_item_set_previous(AppliedItem *it, bool present, const char *value) {
        assert(it);
        g_clear_pointer(&it->previous, g_free);
        it->had_previous = present;
        it->previous_is_digest = present && it->backend == BACKEND_XATTR && value &&
                                 strlen(value) > CGROUP_RECORD_PREVIOUS_MAX;
        if (present)
                it->previous = it->previous_is_digest ? digest_of(value) : g_strdup(strempty(value));
}

bool applied_item_previous_is(const AppliedItem *it, bool present, const char *value) {
        assert(it);
        if (!it->had_previous || !present)
                return it->had_previous == present;
        if (!it->previous_is_digest)
                return streq_ptr(it->previous, value);
        g_autofree char *digest = digest_of(strempty(value));
        return streq_ptr(it->previous, digest);
}

bool applied_item_can_restore(const AppliedItem *it) {
        assert(it);
        return !it->previous_is_digest;
}

CgroupRecord *cgroup_record_new(const char *cgroup) {
        CgroupRecord *r = g_new0(CgroupRecord, 1);
        r->cgroup = g_strdup(cgroup);
        r->items = g_ptr_array_new_with_free_func(applied_item_free_notify);
        return r;
}

CgroupRecord *cgroup_record_free(CgroupRecord *r) {
        if (!r)
                return NULL;
        g_free(r->cgroup);
        if (r->items)
                g_ptr_array_unref(r->items);
        g_free(r);
        return NULL;
}

AppliedItem *cgroup_record_find(const CgroupRecord *r, Backend b, const char *target, guint *ret_index) {
        for (guint i = 0; r && i < r->items->len; i++) {
                AppliedItem *it = g_ptr_array_index(r->items, i);
                if (it->backend == b && streq(it->target, target)) {
                        if (ret_index)
                                *ret_index = i;
                        return it;
                }
        }
        return NULL;
}

const char *cgroup_record_xattr_input(const CgroupRecord *r, const char *name, const char *current) {
        const AppliedItem *it = cgroup_record_find(r, BACKEND_XATTR, name, NULL);

        if (!it || !streq_ptr(it->written, current))
                return current;
        return it->had_previous && !it->previous_is_digest ? it->previous : NULL;
}

int cgroup_path_validate(const char *cgroup) {
        if (isempty(cgroup) || cgroup[0] != '/' || strlen(cgroup) >= 4096)
                return -EINVAL;
        if (streq(cgroup, "/"))
                return 0;

        for (const char *p = cgroup + 1;;) {
                const char *slash = strchrnul(p, '/');
                size_t len = (size_t) (slash - p);

                if (len == 0 || len > NAME_MAX_LEN)
                        return -EINVAL; /* "//", a trailing "/", or too long */
                if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
                        return -EINVAL;
                for (const char *c = p; c < slash; c++)
                        if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                return -EINVAL;
                if (*slash == '\0')
                        return 0;
                p = slash + 1;
        }
}

/* Targets come from plans and from records read back from /run: an xattr
 * must be user.*, a file a plain name in the cgroup directory. */
bool cgroup_record_target_is_valid(Backend b, const char *target) {
        size_t len;

        if (isempty(target) || (len = strlen(target)) > NAME_MAX_LEN)
                return false;
        if (b == BACKEND_XATTR) {
                if (!g_str_has_prefix(target, "user.") || len == strlen("user."))
                        return false;
                for (const char *c = target; *c; c++)
                        if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                return false;
                return true;
        }
        if (b == BACKEND_CGROUP_FILE) {
                if (target[0] == '.')
                        return false;
                for (const char *c = target; *c; c++)
                        if (!g_ascii_isalnum(*c) && !strchr("._-", *c))
                                return false;
                return true;
        }
        return false;
}

/* The escapes g_strescape() produces, and nothing else: g_strcompress()
 * warns on a trailing backslash, and this text may be corrupted. */
static int unescape(const char *s, char **ret) {
        g_autoptr(GString) out = g_string_new(NULL);

        for (const char *p = s; *p; p++) {
                if (*p != '\\') {
                        if ((unsigned char) *p < 0x20)
                                return -EBADMSG;
                        g_string_append_c(out, *p);
                        continue;
                }
                p++;
                switch (*p) {
                case 'b': g_string_append_c(out, '\b'); break;
                case 'f': g_string_append_c(out, '\f'); break;
                case 'n': g_string_append_c(out, '\n'); break;
                case 'r': g_string_append_c(out, '\r'); break;
                case 't': g_string_append_c(out, '\t'); break;
                case 'v': g_string_append_c(out, '\v'); break;
                case '\\': g_string_append_c(out, '\\'); break;
                case '"': g_string_append_c(out, '"'); break;
                case '0' ... '7': {
                        unsigned v = 0;
                        for (int n = 0; n < 3 && *p >= '0' && *p <= '7'; n++, p++)
                                v = v * 8 + (unsigned) (*p - '0');
                        p--;
                        if (v == 0 || v > 0xff)
                                return -EBADMSG; /* no NUL inside a C string */
                        g_string_append_c(out, (char) v);
                        break;
                }
                default:
                        return -EBADMSG; /* includes a trailing backslash */
                }
        }
        *ret = g_string_free(TAKE_PTR(out), FALSE);
        return 0;
}

static const char *record_kind(Backend b) {
        return b == BACKEND_XATTR ? "xattr" : "file";
}

/* s as g_strescape() writes it, copied as it is when nothing in it needs
 * an escape (the usual case): every record save serializes, and one is on
 * the path of every focus change. */
static void append_escaped(GString *out, const char *s) {
        assert(out && s);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p < 0x20 || *p >= 0x7f || *p == '\\' || *p == '"') {
                        g_autofree char *escaped = g_strescape(s, NULL);
                        g_string_append(out, escaped);
                        return;
                }
        g_string_append(out, s);
}

static const char *previous_mark(const AppliedItem *it) {
        return it->previous_is_digest ? "d" : it->had_previous ? "1" : "0";
}

static void append_item(GString *out, const AppliedItem *it) {
        assert(it);
        /* Only the cgroup's own items are recorded; only an xattr's previous
         * value is ever kept as a digest (applied_item_set_previous()). */
        assert(it->backend == BACKEND_XATTR || it->backend == BACKEND_CGROUP_FILE);
        assert(!it->previous_is_digest || (it->had_previous && it->backend == BACKEND_XATTR));
        g_string_append(out, record_kind(it->backend));
        g_string_append_c(out, '\t');
        append_escaped(out, strempty(it->target));
        g_string_append_c(out, '\t');
        g_string_append(out, previous_mark(it));
        g_string_append_c(out, '\t');
        append_escaped(out, it->had_previous ? strempty(it->previous) : "");
        g_string_append_c(out, '\t');
        append_escaped(out, strempty(it->written));
}

char *applied_item_serialize(const AppliedItem *it) {
        GString *out = g_string_sized_new(128);
        append_item(out, it);
        return g_string_free(out, FALSE);
}

char *cgroup_record_serialize(const CgroupRecord *r) {
        GString *out = g_string_sized_new(256);

        if (!r)
                return g_string_free(out, FALSE);

        g_string_append(out, "cgroup\t");
        append_escaped(out, strempty(r->cgroup));
        g_string_append_c(out, '\n');
        for (guint i = 0; r->items && i < r->items->len; i++) {
                append_item(out, g_ptr_array_index(r->items, i));
                g_string_append_c(out, '\n');
        }
        return g_string_free(out, FALSE);
}

/* "sha256:" and 64 lowercase hex digits, as digest_of() writes it. */
static bool is_digest(const char *s) {
        if (!g_str_has_prefix(s, CGROUP_RECORD_DIGEST_PREFIX))
                return false;
        s += strlen(CGROUP_RECORD_DIGEST_PREFIX);
        if (strlen(s) != 64)
                return false;
        for (; *s; s++)
                if (!g_ascii_isxdigit(*s) || g_ascii_isupper(*s))
                        return false;
        return true;
}

int applied_item_parse(const char *line, AppliedItem **ret) {
        g_auto(GStrv) f = NULL;
        g_autoptr(AppliedItem) it = NULL;
        int r;

        assert(line && ret);
        f = g_strsplit(line, "\t", -1);
        it = g_new0(AppliedItem, 1);

        if (g_strv_length(f) != 5)
                return -EBADMSG;

        if (streq(f[0], "xattr"))
                it->backend = BACKEND_XATTR;
        else if (streq(f[0], "file"))
                it->backend = BACKEND_CGROUP_FILE;
        else
                return -EBADMSG;

        if (streq(f[2], "1"))
                it->had_previous = true;
        else if (streq(f[2], "d"))
                it->had_previous = it->previous_is_digest = true;
        else if (!streq(f[2], "0"))
                return -EBADMSG;
        /* Only an xattr's value is kept as a digest, and only a digest is. */
        if (it->previous_is_digest && (it->backend != BACKEND_XATTR || !is_digest(f[3])))
                return -EBADMSG;
        /* A knob file always has a value before ours. */
        if (it->backend == BACKEND_CGROUP_FILE && !it->had_previous)
                return -EBADMSG;
        if (!it->had_previous && !streq(f[3], ""))
                return -EBADMSG;

        r = unescape(f[1], &it->target);
        if (r < 0)
                return r;
        if (!cgroup_record_target_is_valid(it->backend, it->target))
                return -EBADMSG;
        if (it->had_previous) {
                r = unescape(f[3], &it->previous);
                if (r < 0)
                        return r;
        }
        r = unescape(f[4], &it->written);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(it);
        return 0;
}

int cgroup_record_parse(const char *text, CgroupRecord **ret) {
        g_autoptr(CgroupRecord) rec = NULL;
        g_auto(GStrv) lines = NULL;
        g_autofree char *cgroup = NULL;
        guint n;
        int r;

        if (!text || !ret)
                return -EBADMSG;

        lines = g_strsplit(text, "\n", -1);
        n = g_strv_length(lines);
        if (n > 0 && streq(lines[n - 1], ""))
                n--; /* the final newline */
        if (n == 0 || !g_str_has_prefix(lines[0], "cgroup\t"))
                return -EBADMSG;

        r = unescape(lines[0] + strlen("cgroup\t"), &cgroup);
        if (r < 0)
                return r;
        if (cgroup_path_validate(cgroup) < 0)
                return -EBADMSG;
        rec = cgroup_record_new(cgroup);

        for (guint i = 1; i < n; i++) {
                g_autoptr(AppliedItem) it = NULL;

                r = applied_item_parse(lines[i], &it);
                if (r < 0)
                        return r;
                if (cgroup_record_find(rec, it->backend, it->target, NULL))
                        return -EBADMSG;
                g_ptr_array_add(rec->items, TAKE_PTR(it));
        }

        *ret = TAKE_PTR(rec);
        return 0;
}
