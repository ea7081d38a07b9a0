/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib.h>

#include "policy-values.h"
#include "util.h"

static int fail(const char **ret_why, const char *why, int r) {
        if (ret_why)
                *ret_why = why;
        return r;
}

int parse_boolean(const char *s, bool *ret, const char **ret_why) {
        /* The same spellings as systemd's parse_boolean(). */
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

        assert(s && ret);
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (g_ascii_strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (g_ascii_strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        return fail(ret_why, "not a boolean (use yes/no, true/false, on/off, 1/0)", -EINVAL);
}

/* Reads "123" or "1.5" into whole and a fraction scaled to 1e9, rejecting
 * signs and exponents, which strtod would accept. */
static int parse_decimal(const char **p, uint64_t *ret_whole, uint64_t *ret_frac_nano, const char **ret_why) {
        assert(p && *p && ret_whole && ret_frac_nano);
        const char *s = *p;
        uint64_t whole = 0, frac = 0, scale = 100000000;

        if (!g_ascii_isdigit(*s))
                return fail(ret_why, "does not start with a digit", -EINVAL);
        for (; g_ascii_isdigit(*s); s++) {
                if (whole > (UINT64_MAX - 9) / 10)
                        return fail(ret_why, "number too large", -ERANGE);
                whole = whole * 10 + (uint64_t) (*s - '0');
        }
        if (*s == '.') {
                s++;
                if (!g_ascii_isdigit(*s))
                        return fail(ret_why, "no digits after the decimal point", -EINVAL);
                for (; g_ascii_isdigit(*s); s++) {
                        frac += (uint64_t) (*s - '0') * scale;
                        scale /= 10;
                }
        }
        *p = s;
        *ret_whole = whole;
        *ret_frac_nano = frac;
        return 0;
}

#define USEC_PER_SEC UINT64_C(1000000)

/* systemd's units, in its order: the first whose name starts the rest of
 * the word wins ("ms" is not "m" followed by "s"). */
static const struct {
        const char *name;
        uint64_t usec;
} time_units[] = {
        { "seconds", USEC_PER_SEC },
        { "second", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "s", USEC_PER_SEC },
        { "minutes", 60 * USEC_PER_SEC },
        { "minute", 60 * USEC_PER_SEC },
        { "min", 60 * USEC_PER_SEC },
        { "months", 2629800 * USEC_PER_SEC },
        { "month", 2629800 * USEC_PER_SEC },
        { "M", 2629800 * USEC_PER_SEC },
        { "years", 31557600 * USEC_PER_SEC },
        { "year", 31557600 * USEC_PER_SEC },
        { "y", 31557600 * USEC_PER_SEC },
        { "weeks", 7 * 86400 * USEC_PER_SEC },
        { "week", 7 * 86400 * USEC_PER_SEC },
        { "w", 7 * 86400 * USEC_PER_SEC },
        { "days", 86400 * USEC_PER_SEC },
        { "day", 86400 * USEC_PER_SEC },
        { "d", 86400 * USEC_PER_SEC },
        { "hours", 3600 * USEC_PER_SEC },
        { "hour", 3600 * USEC_PER_SEC },
        { "hr", 3600 * USEC_PER_SEC },
        { "h", 3600 * USEC_PER_SEC },
        { "msec", 1000 },
        { "ms", 1000 },
        { "m", 60 * USEC_PER_SEC },
        { "usec", 1 },
        { "us", 1 },
        { "\xc2\xb5s", 1 }, /* µs, MICRO SIGN */
        { "\xce\xbcs", 1 }, /* μs, GREEK SMALL LETTER MU */
};

static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Terms of [+]DIGITS[.DIGITS][UNIT], with blanks between; ".5" is a
 * number, "5." and "3.s" are not. A term without a unit must end at a
 * blank or the end: "12.34.56" is refused, "3.1s.2" is 3.3s. */
int parse_timespan(const char *s, uint64_t *ret_usec, const char **ret_why) {
        const char *p = s;
        uint64_t total = 0;
        bool any = false;

        assert(s && ret_usec);
        while (is_space(*p))
                p++;
        if (g_str_has_prefix(p, "infinity"))
                return fail(ret_why, "infinity is not allowed here", -EINVAL);
        while (*p) {
                const char *digits, *frac = NULL;
                uint64_t whole = 0, unit = USEC_PER_SEC;
                bool has_unit = false;

                if (*p == '+' && !g_ascii_isdigit(*++p))
                        return fail(ret_why, "not a number", -EINVAL);
                for (digits = p; g_ascii_isdigit(*p); p++) {
                        uint64_t d = (uint64_t) (*p - '0');
                        if (whole > (UINT64_MAX - d) / 10)
                                return fail(ret_why, "time span too large", -ERANGE);
                        whole = whole * 10 + d;
                }
                if (*p == '.') {
                        frac = ++p;
                        while (g_ascii_isdigit(*p))
                                p++;
                        if (p == frac)
                                return fail(ret_why, "no digits after the decimal point", -EINVAL);
                } else if (p == digits)
                        return fail(ret_why, *p == '-' ? "negative time span" : "not a number", -EINVAL);
                while (is_space(*p))
                        p++;
                for (size_t i = 0; i < ELEMENTSOF(time_units); i++)
                        if (g_str_has_prefix(p, time_units[i].name)) {
                                unit = time_units[i].usec;
                                p += strlen(time_units[i].name);
                                has_unit = true;
                                break;
                        }
                if (!has_unit && *p && !is_space(p[-1]))
                        return fail(ret_why, "unknown time unit (use us, ms, s, min, h, d, w, M or y)", -EINVAL);
                /* UINT64_MAX stands for infinity, as in systemd: no sum may
                 * reach it. */
                if (whole >= UINT64_MAX / unit)
                        return fail(ret_why, "time span too large", -ERANGE);
                uint64_t term = whole * unit;
                /* Each decimal a tenth of the one before, rounded down as it goes. */
                uint64_t scale = unit;
                for (const char *f = frac; f && g_ascii_isdigit(*f); f++) {
                        scale /= 10;
                        uint64_t add = scale * (uint64_t) (*f - '0');
                        if (add >= UINT64_MAX - term)
                                return fail(ret_why, "time span too large", -ERANGE);
                        term += add;
                }
                if (term >= UINT64_MAX - total)
                        return fail(ret_why, "time span too large", -ERANGE);
                total += term;
                any = true;
                while (is_space(*p))
                        p++;
        }
        if (!any)
                return fail(ret_why, "empty time span", -EINVAL);
        *ret_usec = total;
        return 0;
}

char *format_timespan(uint64_t usec) {
        static const struct {
                const char *name;
                uint64_t usec;
        } units[] = {
                { "d", 86400 * USEC_PER_SEC }, { "h", 3600 * USEC_PER_SEC }, { "min", 60 * USEC_PER_SEC },
                { "s", USEC_PER_SEC },         { "ms", 1000 },              { "us", 1 },
        };
        GString *out = g_string_new(NULL);

        if (usec == 0)
                return g_string_free(g_string_append(out, "0"), false);
        for (size_t i = 0; i < ELEMENTSOF(units) && usec > 0; i++) {
                uint64_t n = usec / units[i].usec;
                if (n == 0)
                        continue;
                g_string_append_printf(out, "%s%" PRIu64 "%s", out->len > 0 ? " " : "", n, units[i].name);
                usec -= n * units[i].usec;
        }
        return g_string_free(out, false);
}

int parse_size(const char *s, uint64_t *ret, const char **ret_why) {
        /* systemd's parse_size() with base 1024: B K M G T P E suffixes, an
         * optional fraction, and several terms may be summed ("1G 512M"). */
        static const struct {
                char suffix;
                uint64_t factor;
        } table[] = {
                { 'E', UINT64_C(1) << 60 }, { 'P', UINT64_C(1) << 50 }, { 'T', UINT64_C(1) << 40 },
                { 'G', UINT64_C(1) << 30 }, { 'M', UINT64_C(1) << 20 }, { 'K', UINT64_C(1) << 10 },
                { 'B', 1 },
        };
        uint64_t total = 0;
        const char *p = s;
        int r;

        assert(s && ret);
        while (g_ascii_isspace(*p))
                p++;
        if (*p == '\0')
                return fail(ret_why, "empty size", -EINVAL);
        if (*p == '-')
                return fail(ret_why, "negative size", -ERANGE);

        while (*p) {
                uint64_t whole, frac, factor = 1;

                r = parse_decimal(&p, &whole, &frac, ret_why);
                if (r < 0)
                        return r;
                while (g_ascii_isspace(*p))
                        p++;
                if (*p && !g_ascii_isdigit(*p)) {
                        size_t i;
                        for (i = 0; i < ELEMENTSOF(table); i++)
                                if (*p == table[i].suffix)
                                        break;
                        if (i >= ELEMENTSOF(table))
                                return fail(ret_why, "unknown size suffix (use K, M, G, T, P or E, base 1024)",
                                            -EINVAL);
                        factor = table[i].factor;
                        p++;
                }
                if (whole > UINT64_MAX / factor)
                        return fail(ret_why, "size too large", -ERANGE);
                uint64_t part = whole * factor + (uint64_t) ((double) frac / 1e9 * (double) factor);
                if (part > UINT64_MAX - total)
                        return fail(ret_why, "size too large", -ERANGE);
                total += part;
                while (g_ascii_isspace(*p))
                        p++;
        }

        *ret = total;
        return 0;
}

int parse_permyriad(const char *s, unsigned *ret, const char **ret_why) {
        /* "%" takes two decimals, "‰" one, "‱" none, as systemd does. */
        static const struct {
                const char *sign;
                unsigned digits;
        } table[] = { { "%", 2 }, { "\u2030", 1 }, { "\u2031", 0 } };
        const char *p = s;
        uint64_t value = 0;
        unsigned decimals = 0;
        bool point = false;

        assert(s && ret);
        if (!g_ascii_isdigit(*p))
                return fail(ret_why, "percentage does not start with a digit", -EINVAL);
        for (; g_ascii_isdigit(*p) || *p == '.'; p++) {
                if (*p == '.') {
                        if (point)
                                return fail(ret_why, "two decimal points", -EINVAL);
                        point = true;
                        continue;
                }
                if (value > 100000000)
                        return fail(ret_why, "percentage out of range (0..100%)", -ERANGE);
                value = value * 10 + (uint64_t) (*p - '0');
                if (point)
                        decimals++;
        }

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                if (!streq(p, table[i].sign))
                        continue;
                if (decimals > table[i].digits)
                        return fail(ret_why, "too many decimals for a percentage", -EINVAL);
                for (unsigned d = decimals; d < table[i].digits; d++)
                        value *= 10;
                if (value > PERMYRIAD_MAX)
                        return fail(ret_why, "percentage out of range (0..100%)", -ERANGE);
                *ret = (unsigned) value;
                return 0;
        }
        return fail(ret_why, "not a percentage", -EINVAL);
}

int parse_memory_limit(const char *s, MemoryLimit *ret, const char **ret_why) {
        MemoryLimit l = {};
        int r;

        assert(s && ret);
        if (streq(s, "infinity")) {
                l.kind = MEMORY_LIMIT_INFINITY;
        } else if (g_str_has_suffix(s, "%") || g_str_has_suffix(s, "\u2030") || g_str_has_suffix(s, "\u2031")) {
                r = parse_permyriad(s, &l.permyriad, ret_why);
                if (r < 0)
                        return r;
                l.kind = MEMORY_LIMIT_PERCENT;
        } else {
                r = parse_size(s, &l.bytes, ret_why);
                if (r < 0)
                        return r;
                l.kind = MEMORY_LIMIT_BYTES;
        }
        *ret = l;
        return 0;
}

static int parse_unsigned_strict(const char *s, uint64_t max, uint64_t *ret) {
        uint64_t v = 0;

        assert(s && ret);
        if (!g_ascii_isdigit(*s))
                return -EINVAL;
        for (; *s; s++) {
                if (!g_ascii_isdigit(*s))
                        return -EINVAL;
                v = v * 10 + (uint64_t) (*s - '0');
                if (v > max)
                        return -ERANGE;
        }
        *ret = v;
        return 0;
}

int parse_priority(const char *s, unsigned *ret, const char **ret_why) {
        uint64_t v;
        int r = parse_unsigned_strict(s, PRIORITY_MAX, &v);
        if (r == -ERANGE)
                return fail(ret_why, "priority out of range (0..1000)", r);
        if (r < 0)
                return fail(ret_why, "priority is not a whole number", r);
        *ret = (unsigned) v;
        return 0;
}

int parse_uid(const char *s, uint32_t *ret) {
        uint64_t v;
        /* (uid_t) -1 and the 16-bit overflow uid are not users. */
        int r = parse_unsigned_strict(s, UINT32_MAX - 1, &v);
        if (r < 0)
                return r;
        if (v == 65535)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

static const char *const numa_policy_names[_NUMA_POLICY_MAX] = {
        [NUMA_POLICY_DEFAULT] = "default",
        [NUMA_POLICY_PREFERRED] = "preferred",
        [NUMA_POLICY_BIND] = "bind",
        [NUMA_POLICY_INTERLEAVE] = "interleave",
        [NUMA_POLICY_WEIGHTED_INTERLEAVE] = "weighted-interleave",
        [NUMA_POLICY_LOCAL] = "local",
};

int parse_numa_policy(const char *s, NumaPolicy *ret, const char **ret_why) {
        assert(s && ret);
        for (int i = 0; i < _NUMA_POLICY_MAX; i++)
                if (streq(s, numa_policy_names[i])) {
                        *ret = (NumaPolicy) i;
                        return 0;
                }
        return fail(ret_why,
                    "unknown NUMA policy (use default, preferred, bind, interleave, weighted-interleave or local)",
                    -EINVAL);
}

const char *numa_policy_to_string(NumaPolicy p) {
        if ((int) p < 0 || p >= _NUMA_POLICY_MAX)
                return NULL;
        return numa_policy_names[p];
}

int parse_numa_nodes(const char *s, NumaNodeMask *ret, const char **ret_why) {
        assert(s && ret);
        NumaNodeMask m = {};
        g_auto(GStrv) words = g_strsplit_set(s, ", \t", -1);

        for (char **w = words; *w; w++) {
                uint64_t lo, hi;
                char *dash;

                if (**w == '\0')
                        continue;
                dash = strchr(*w, '-');
                if (dash) {
                        *dash = '\0';
                        if (parse_unsigned_strict(*w, UINT32_MAX, &lo) < 0 ||
                            parse_unsigned_strict(dash + 1, UINT32_MAX, &hi) < 0)
                                return fail(ret_why, "not a node number or range (like 0-1,3)", -EINVAL);
                        if (lo > hi)
                                return fail(ret_why, "range is reversed", -EINVAL);
                } else {
                        if (parse_unsigned_strict(*w, UINT32_MAX, &lo) < 0)
                                return fail(ret_why, "not a node number or range (like 0-1,3)", -EINVAL);
                        hi = lo;
                }
                if (hi >= NUMA_NODES_MAX)
                        return fail(ret_why, "node number too large (the kernel allows 0..1023)", -ERANGE);
                for (uint64_t n = lo; n <= hi; n++)
                        numa_node_mask_set(&m, (unsigned) n);
        }
        if (numa_node_mask_is_empty(&m))
                return fail(ret_why, "no node given", -EINVAL);
        *ret = m;
        return 0;
}

bool numa_node_mask_is_empty(const NumaNodeMask *m) {
        assert(m);
        for (size_t i = 0; i < ELEMENTSOF(m->bits); i++)
                if (m->bits[i])
                        return false;
        return true;
}

bool numa_node_mask_equal(const NumaNodeMask *a, const NumaNodeMask *b) {
        assert(a && b);
        return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

char *format_numa_nodes(const NumaNodeMask *m) {
        GString *out = g_string_new(NULL);

        assert(m);
        for (unsigned n = 0; n < NUMA_NODES_MAX; n++) {
                unsigned end;
                if (!numa_node_mask_test(m, n))
                        continue;
                for (end = n; end + 1 < NUMA_NODES_MAX && numa_node_mask_test(m, end + 1); end++)
                        ;
                if (out->len > 0)
                        g_string_append_c(out, ',');
                if (end == n)
                        g_string_append_printf(out, "%u", n);
                else
                        g_string_append_printf(out, "%u-%u", n, end);
                n = end;
        }
        return g_string_free(out, FALSE);
}

int validate_glob(const char *s, const char **ret_why) {
        int depth = 0;

        if (isempty(s))
                return fail(ret_why, "empty pattern", -EINVAL);
        for (const char *p = s; *p; p++) {
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return fail(ret_why, "pattern contains a control character", -EINVAL);
                if (*p == '\\') {
                        if (p[1] == '\0')
                                return fail(ret_why, "pattern ends in a lone backslash", -EINVAL);
                        p++;
                } else if (*p == '[' && depth == 0) {
                        depth = 1;
                        /* "[]…]" and "[!]…]": the first ']' is literal */
                        if (p[1] == '!' || p[1] == '^')
                                p++;
                        if (p[1] == ']')
                                p++;
                } else if (*p == ']' && depth == 1) {
                        depth = 0;
                }
        }
        if (depth != 0)
                return fail(ret_why, "unbalanced '[' in pattern", -EINVAL);
        return 0;
}

static bool xattr_name_char_ok(char c) {
        return g_ascii_isalnum(c) || strchr("._-:@+", c);
}

int parse_xattr_assignment(const char *s, char **ret_name, char **ret_value, const char **ret_why) {
        assert(s);
        const char *eq = strchr(s, '=');
        g_autofree char *name = eq ? g_strndup(s, (gsize) (eq - s)) : g_strdup(s);
        const char *value = eq ? eq + 1 : "";

        if (!g_str_has_prefix(name, "user.") || name[5] == '\0')
                return fail(ret_why, "attribute name must be user.NAME (only user.* xattrs are written)",
                            -EINVAL);
        if (strlen(name) > 255)
                return fail(ret_why, "attribute name longer than 255 bytes", -ENAMETOOLONG);
        for (const char *p = name; *p; p++)
                if (!xattr_name_char_ok(*p))
                        return fail(ret_why, "attribute name has a character other than A-Z a-z 0-9 . _ - : @ +",
                                    -EINVAL);
        if (strlen(value) > 65536)
                return fail(ret_why, "attribute value longer than 64 KiB", -E2BIG);
        if (!g_utf8_validate(value, -1, NULL))
                return fail(ret_why, "attribute value is not valid UTF-8", -EINVAL);

        if (ret_name)
                *ret_name = TAKE_PTR(name);
        if (ret_value)
                *ret_value = g_strdup(value);
        return 0;
}

int validate_group_name(const char *s, const char **ret_why) {
        /* Group names go into a comma-separated xattr and into file names. */
        if (isempty(s))
                return fail(ret_why, "empty group name", -EINVAL);
        if (strlen(s) > 64)
                return fail(ret_why, "group name longer than 64 characters", -ENAMETOOLONG);
        if (!g_ascii_isalnum(s[0]))
                return fail(ret_why, "group name must start with a letter or digit", -EINVAL);
        for (const char *p = s; *p; p++)
                if (!g_ascii_isalnum(*p) && !strchr("_-.", *p))
                        return fail(ret_why, "group name may only contain A-Z a-z 0-9 _ - .", -EINVAL);
        return 0;
}

/* Swap tiers v10, swap_tier_validate_name(): isalnum() or '_', the first
 * character included, and shorter than MAX_TIERNAME (16). The kernel's
 * isalnum() also takes Latin-1 letters (bytes 0xc0-0xff); a name has to be
 * UTF-8 here, so those stay out. */
int validate_tier_name(const char *s, const char **ret_why) {
        if (isempty(s))
                return fail(ret_why, "empty tier name", -EINVAL);
        for (const char *p = s; *p; p++)
                if (!g_ascii_isalnum(*p) && *p != '_')
                        return fail(ret_why, "tier name may only contain A-Z a-z 0-9 _", -EINVAL);
        if (strlen(s) > SWAP_TIER_NAME_MAX)
                return fail(ret_why, "tier name longer than 15 characters (the kernel's limit)", -ENAMETOOLONG);
        return 0;
}

char *format_size(uint64_t bytes) {
        static const char suffixes[] = "KMGTPE";

        for (int i = (int) sizeof(suffixes) - 2; i >= 0; i--) {
                uint64_t factor = UINT64_C(1) << (10 * (i + 1));
                if (bytes >= factor && bytes % factor == 0)
                        return g_strdup_printf("%" PRIu64 "%c", bytes / factor, suffixes[i]);
        }
        return g_strdup_printf("%" PRIu64, bytes);
}

char *format_memory_limit(const MemoryLimit *l) {
        assert(l);
        switch (l->kind) {
        case MEMORY_LIMIT_INFINITY:
                return g_strdup("infinity");
        case MEMORY_LIMIT_PERCENT:
                if (l->permyriad % 100 == 0)
                        return g_strdup_printf("%u%%", l->permyriad / 100);
                return g_strdup_printf("%u.%02u%%", l->permyriad / 100, l->permyriad % 100);
        case MEMORY_LIMIT_BYTES:
                return format_size(l->bytes);
        }
        return g_strdup("?");
}

uint64_t page_size(void) {
        long s = sysconf(_SC_PAGESIZE);
        return s > 0 ? (uint64_t) s : 4096;
}

int memory_limit_to_bytes(const MemoryLimit *l, uint64_t swap_total, uint64_t page_size, uint64_t *ret) {
        unsigned __int128 share;

        if (!l || !ret || page_size == 0)
                return -EINVAL;
        switch (l->kind) {
        case MEMORY_LIMIT_INFINITY:
                *ret = UINT64_MAX;
                return 0;
        case MEMORY_LIMIT_BYTES:
                *ret = l->bytes;
                return 0;
        case MEMORY_LIMIT_PERCENT:
                if (l->permyriad > PERMYRIAD_MAX)
                        return -EINVAL;
                /* At most swap_total: 128 bits hold the product, no overflow. */
                share = (unsigned __int128) swap_total * l->permyriad / PERMYRIAD_MAX;
                share -= share % page_size;
                if (share >= UINT64_MAX)
                        return -ERANGE; /* would read as infinity */
                *ret = (uint64_t) share;
                return 0;
        }
        return -EINVAL;
}

int format_memory_limit_for_systemd(const MemoryLimit *l, uint64_t swap_total, uint64_t page_size, char **ret) {
        uint64_t bytes;
        int r;

        if (!ret)
                return -EINVAL;
        r = memory_limit_to_bytes(l, swap_total, page_size, &bytes);
        if (r < 0)
                return r;
        *ret = bytes == UINT64_MAX ? g_strdup("infinity") : g_strdup_printf("%" PRIu64, bytes);
        return 0;
}

bool memory_limit_equal(const MemoryLimit *a, const MemoryLimit *b) {
        assert(a && b);
        if (a->kind != b->kind)
                return false;
        switch (a->kind) {
        case MEMORY_LIMIT_INFINITY:
                return true;
        case MEMORY_LIMIT_PERCENT:
                return a->permyriad == b->permyriad;
        case MEMORY_LIMIT_BYTES:
                return a->bytes == b->bytes;
        }
        return false;
}
