/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include <glib.h>

#include "policy-values.h"
#include "util.h"

static void test_size_suffixes_are_base_1024(void) {
        static const struct {
                const char *in;
                uint64_t out;
        } ok[] = {
                { "0", 0 },           { "123", 123 },
                { "1K", 1024 },       { "1M", 1048576 },
                { "2G", 2147483648 }, { "1T", UINT64_C(1) << 40 },
                { "1.5G", 1610612736 }, { "1G 512M", 1610612736 },
                { " 4K", 4096 },      { "10B", 10 },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
                uint64_t v = 0;
                g_assert_cmpint(parse_size(ok[i].in, &v, NULL), ==, 0);
                g_assert_cmpuint(v, ==, ok[i].out);
        }
}

static void test_size_rejections_say_why(void) {
        static const struct {
                const char *in;
                const char *why_contains;
        } bad[] = {
                { "", "empty" },        { "2Q", "suffix" },   { "-1", "negative" },
                { "G", "digit" },       { "1.G", "decimal" }, { "99999999999E", "too large" },
                { "1e9", "suffix" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                uint64_t v = 42;
                const char *why = NULL;
                g_assert_cmpint(parse_size(bad[i].in, &v, &why), <, 0);
                g_assert_nonnull(why);
                if (!strstr(why, bad[i].why_contains))
                        g_error("'%s': reason '%s' does not mention '%s'", bad[i].in, why, bad[i].why_contains);
                g_assert_cmpuint(v, ==, 42); /* untouched on failure */
        }
}

/* The cases of systemd's own test of parse_sec(), but "infinity", which
 * InactiveFor= refuses. */
static void test_timespan_as_systemd(void) {
        static const struct {
                const char *in;
                uint64_t usec;
        } good[] = {
                { "5s", 5000000 },
                { "5s500ms", 5500000 },
                { " 5s 500ms  ", 5500000 },
                { " 5.5s  ", 5500000 },
                { " 5.5s 0.5ms ", 5500500 },
                { " .22s ", 220000 },
                { " .50y ", UINT64_C(31557600000000) / 2 },
                { "2.5", 2500000 },
                { ".7", 700000 },
                { "23us", 23 },
                { "23\xce\xbcs", 23 },
                { "23\xc2\xb5s", 23 },
                { "+3.1s", 3100000 },
                { "3.1s.2", 3300000 },
                { "3.1 .2", 3300000 },
                { "3.1 sec .2 sec", 3300000 },
                { "3.1 sec 1.2 sec", 4300000 },
                { "30s", 30000000 },
                { "5min", 300000000 },
                { "5m", 300000000 },
                { "2M", UINT64_C(2) * 2629800000000 },
                { "1h 30min", UINT64_C(5400000000) },
                { "1 week", UINT64_C(604800000000) },
                { "0", 0 },
                { "1s\r\n2s", 3000000 },
                { "18446744073709551614us", UINT64_MAX - 1 },
        };
        static const char *const bad[] = {
                " xyz ", "", " ", " . ", " 5. ", ".s ", "-5s ", "-0.3s ", "-0.0s ", "-0.-0s ", "0.-0s ", "3.-0s ",
                "infinity", " infinity .7", ".3 infinity", "3.+1s", "3. 1s", "3.s", "12.34.56", "12..34", "..1234",
                "1234..", "11111111111111y", "5 x", "5x", "+.5", "+", "++5",
                /* would wrap, or reach UINT64_MAX, which stands for infinity */
                "584542.9y", "18446744073709551609us 6us", "18446744073709551615us", "18446744073709551616",
        };

        for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
                uint64_t v = 42;
                const char *why = NULL;
                if (parse_timespan(good[i].in, &v, &why) < 0)
                        g_error("'%s' refused: %s", good[i].in, why);
                if (v != good[i].usec)
                        g_error("'%s': %" G_GUINT64_FORMAT " us, not %" G_GUINT64_FORMAT, good[i].in, v, good[i].usec);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                uint64_t v = 42;
                const char *why = NULL;
                if (parse_timespan(bad[i], &v, &why) >= 0)
                        g_error("'%s' accepted as %" G_GUINT64_FORMAT " us", bad[i], v);
                g_assert_nonnull(why);
                g_assert_cmpuint(v, ==, 42);
        }
        uint64_t v;
        g_assert_cmpint(parse_timespan("1.1111111111111y", &v, NULL), ==, 0);
}

static void test_timespan_format_round_trips(void) {
        static const uint64_t values[] = { 0, 1, 999, 1000, 1500000, 30000000, 5400000000, 86400000000 + 1,
                                           UINT64_C(31557600000000) };
        static const struct {
                uint64_t usec;
                const char *text;
        } spelled[] = { { 0, "0" }, { 30000000, "30s" }, { 5400000000, "1h 30min" }, { 1500000, "1s 500ms" } };

        for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
                g_autofree char *text = format_timespan(values[i]);
                uint64_t back = 0;
                g_assert_cmpint(parse_timespan(text, &back, NULL), ==, 0);
                g_assert_cmpuint(back, ==, values[i]);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(spelled); i++) {
                g_autofree char *text = format_timespan(spelled[i].usec);
                g_assert_cmpstr(text, ==, spelled[i].text);
        }
}

static void test_memory_limit_kinds(void) {
        MemoryLimit l;
        g_assert_cmpint(parse_memory_limit("infinity", &l, NULL), ==, 0);
        g_assert_cmpint(l.kind, ==, MEMORY_LIMIT_INFINITY);
        g_assert_cmpint(parse_memory_limit("50%", &l, NULL), ==, 0);
        g_assert_cmpint(l.kind, ==, MEMORY_LIMIT_PERCENT);
        g_assert_cmpuint(l.permyriad, ==, 5000);
        g_assert_cmpint(parse_memory_limit("12.5%", &l, NULL), ==, 0);
        g_assert_cmpuint(l.permyriad, ==, 1250);
        g_assert_cmpint(parse_memory_limit("125\u2030", &l, NULL), ==, 0);
        g_assert_cmpuint(l.permyriad, ==, 1250);
        g_assert_cmpint(parse_memory_limit("2G", &l, NULL), ==, 0);
        g_assert_cmpint(l.kind, ==, MEMORY_LIMIT_BYTES);
        g_assert_cmpint(parse_memory_limit("101%", &l, NULL), ==, -ERANGE);
        g_assert_cmpint(parse_memory_limit("1.234%", &l, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_memory_limit("Infinity", &l, NULL), <, 0);
}

static void test_memory_limit_round_trips_through_format(void) {
        const char *in[] = { "2G", "1536M", "123", "50%", "12.50%", "infinity" };
        for (size_t i = 0; i < G_N_ELEMENTS(in); i++) {
                MemoryLimit l;
                g_assert_cmpint(parse_memory_limit(in[i], &l, NULL), ==, 0);
                g_autofree char *s = format_memory_limit(&l);
                g_assert_cmpstr(s, ==, in[i]);
        }
}

/* policyd-generator and policyd both call this; a disagreement makes
 * policyd override the generator's drop-in at runtime (issue 7, class 8). */
static void test_memory_limit_to_bytes_table(void) {
        static const uint64_t tib = UINT64_C(1) << 40;
        static const struct {
                const char *limit;
                uint64_t swap_total, page_size;
                int r;
                uint64_t bytes;
                const char *systemd;
        } table[] = {
                /* 10% of 1572856 KiB is 161060454.4 bytes: whole pages, not whole KiB. */
                { "10%", UINT64_C(1572856) * 1024, 4096, 0, 161058816, "161058816" },
                { "10%", UINT64_C(1572856) * 1024, 65536, 0, 161021952, "161021952" },
                { "50%", UINT64_C(8) << 30, 4096, 0, UINT64_C(4) << 30, "4294967296" },
                { "12.5%", UINT64_C(1) << 30, 4096, 0, UINT64_C(128) << 20, "134217728" },
                { "1250\u2031", UINT64_C(1) << 30, 4096, 0, UINT64_C(128) << 20, "134217728" },
                { "0%", UINT64_C(8) << 30, 4096, 0, 0, "0" },
                { "100%", UINT64_C(8) << 30, 4096, 0, UINT64_C(8) << 30, "8589934592" },
                { "100%", (UINT64_C(8) << 30) + 1000, 4096, 0, UINT64_C(8) << 30, "8589934592" },
                /* No swap, or less than a page's share: 0, never a partial page. */
                { "10%", 0, 4096, 0, 0, "0" },
                { "0.01%", 4096 * 9999, 4096, 0, 0, "0" },
                { "0.01%", 4096 * 10000, 4096, 0, 4096, "4096" },
                /* Totals whose product with 10000 overflows 64 bits. */
                { "50%", 64 * tib * 1024, 4096, 0, 32 * tib * 1024, "36028797018963968" },
                { "100%", UINT64_MAX, 4096, 0, UINT64_MAX - 4095, "18446744073709547520" },
                { "99.99%", UINT64_MAX, 4096, 0, UINT64_C(18444899399302176768), "18444899399302176768" },
                /* Only a page size of 1 could reach UINT64_MAX, which means infinity. */
                { "100%", UINT64_MAX, 1, -ERANGE, 0, NULL },
                { "10%", 1000, 0, -EINVAL, 0, NULL },
                /* Bytes stay as written, as systemd keeps them; infinity is UINT64_MAX. */
                { "1000", 0, 4096, 0, 1000, "1000" },
                { "2G", 0, 4096, 0, UINT64_C(2) << 30, "2147483648" },
                { "infinity", 0, 4096, 0, UINT64_MAX, "infinity" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
                const char *limit = table[i].limit;
                g_autofree char *spelled = NULL;
                MemoryLimit l;
                uint64_t bytes = 42;
                int r;

                g_assert_cmpint(parse_memory_limit(limit, &l, NULL), ==, 0);
                r = memory_limit_to_bytes(&l, table[i].swap_total, table[i].page_size, &bytes);
                if (r != table[i].r || (r == 0 && bytes != table[i].bytes))
                        g_error("%s of %" G_GUINT64_FORMAT " (page %" G_GUINT64_FORMAT "): expected %d/%" G_GUINT64_FORMAT
                                ", got %d/%" G_GUINT64_FORMAT,
                                limit, table[i].swap_total, table[i].page_size, table[i].r, table[i].bytes, r, bytes);
                if (r < 0)
                        g_assert_cmpuint(bytes, ==, 42); /* untouched on failure */

                r = format_memory_limit_for_systemd(&l, table[i].swap_total, table[i].page_size, &spelled);
                g_assert_cmpint(r, ==, table[i].r);
                g_assert_cmpstr(spelled, ==, table[i].systemd);

                /* The generator writes format_size() of the same bytes: systemd
                 * must read it back as exactly that number. */
                if (r == 0 && table[i].bytes != UINT64_MAX) {
                        g_autofree char *human = format_size(table[i].bytes);
                        uint64_t back = 0;
                        g_assert_cmpint(parse_size(human, &back, NULL), ==, 0);
                        g_assert_cmpuint(back, ==, table[i].bytes);
                }
        }
}

static void test_booleans_in_every_systemd_spelling(void) {
        const char *yes[] = { "1", "yes", "YES", "y", "true", "t", "on", "On" };
        const char *no[] = { "0", "no", "n", "false", "f", "off", "OFF" };
        const char *bad[] = { "", "2", "yess", "enable", " yes" };
        bool b;
        for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
                g_assert_cmpint(parse_boolean(yes[i], &b, NULL), ==, 0);
                g_assert_true(b);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(no); i++) {
                g_assert_cmpint(parse_boolean(no[i], &b, NULL), ==, 0);
                g_assert_false(b);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
                g_assert_cmpint(parse_boolean(bad[i], &b, NULL), ==, -EINVAL);
}

static void test_numa_node_lists(void) {
        NumaNodeMask m;
        g_assert_cmpint(parse_numa_nodes("0-1,3", &m, NULL), ==, 0);
        g_assert_true(numa_node_mask_test(&m, 0));
        g_assert_true(numa_node_mask_test(&m, 1));
        g_assert_false(numa_node_mask_test(&m, 2));
        g_assert_true(numa_node_mask_test(&m, 3));
        g_autofree char *s = format_numa_nodes(&m);
        g_assert_cmpstr(s, ==, "0-1,3");

        g_assert_cmpint(parse_numa_nodes("5 7 6", &m, NULL), ==, 0);
        g_autofree char *s2 = format_numa_nodes(&m);
        g_assert_cmpstr(s2, ==, "5-7");

        g_assert_cmpint(parse_numa_nodes("1023", &m, NULL), ==, 0);
        g_assert_cmpint(parse_numa_nodes("1024", &m, NULL), ==, -ERANGE);
        g_assert_cmpint(parse_numa_nodes("3-1", &m, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_numa_nodes("", &m, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_numa_nodes("a", &m, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_numa_nodes("1-", &m, NULL), ==, -EINVAL);
}

static void test_numa_policy_names(void) {
        for (int p = 0; p < _NUMA_POLICY_MAX; p++) {
                NumaPolicy q;
                g_assert_cmpint(parse_numa_policy(numa_policy_to_string((NumaPolicy) p), &q, NULL), ==, 0);
                g_assert_cmpint(q, ==, p);
        }
        NumaPolicy q;
        g_assert_cmpint(parse_numa_policy("Bind", &q, NULL), ==, -EINVAL);
}

static void test_priority_range(void) {
        unsigned p;
        g_assert_cmpint(parse_priority("0", &p, NULL), ==, 0);
        g_assert_cmpint(parse_priority("1000", &p, NULL), ==, 0);
        g_assert_cmpuint(p, ==, 1000);
        g_assert_cmpint(parse_priority("1001", &p, NULL), ==, -ERANGE);
        g_assert_cmpint(parse_priority("+5", &p, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_priority("5 ", &p, NULL), ==, -EINVAL);
}

static void test_globs(void) {
        g_assert_cmpint(validate_glob("app-*.scope", NULL), ==, 0);
        g_assert_cmpint(validate_glob("[ab]*.service", NULL), ==, 0);
        g_assert_cmpint(validate_glob("[]]x", NULL), ==, 0);
        g_assert_cmpint(validate_glob("[!a]x", NULL), ==, 0);
        g_assert_cmpint(validate_glob("x\\*", NULL), ==, 0);
        g_assert_cmpint(validate_glob("[ab", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_glob("x\\", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_glob("", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_glob("a\tb", NULL), ==, -EINVAL);
}

static void test_xattr_assignments(void) {
        g_autofree char *name = NULL, *value = NULL;
        g_assert_cmpint(parse_xattr_assignment("user.slo.class=latency", &name, &value, NULL), ==, 0);
        g_assert_cmpstr(name, ==, "user.slo.class");
        g_assert_cmpstr(value, ==, "latency");
        g_clear_pointer(&name, g_free);
        g_clear_pointer(&value, g_free);
        g_assert_cmpint(parse_xattr_assignment("user.flag", &name, &value, NULL), ==, 0);
        g_assert_cmpstr(value, ==, "");
        g_assert_cmpint(parse_xattr_assignment("user.a=b=c", NULL, NULL, NULL), ==, 0);
        g_assert_cmpint(parse_xattr_assignment("trusted.x=1", NULL, NULL, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_xattr_assignment("user.=1", NULL, NULL, NULL), ==, -EINVAL);
        g_assert_cmpint(parse_xattr_assignment("user.a b=1", NULL, NULL, NULL), ==, -EINVAL);
}

static void test_group_and_tier_names(void) {
        g_assert_cmpint(validate_group_name("foreground", NULL), ==, 0);
        g_assert_cmpint(validate_group_name("a.b-c_1", NULL), ==, 0);
        g_assert_cmpint(validate_group_name("", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_group_name("a,b", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_group_name(".hidden", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_group_name("a/b", NULL), ==, -EINVAL);
        g_assert_cmpint(validate_tier_name("fast", NULL), ==, 0);
        g_assert_cmpint(validate_tier_name("fa st", NULL), ==, -EINVAL);

        /* What swap tiers v10 takes (mm/swap_tier.c, swap_tier_validate_name()):
         * isalnum() or '_', any of them first, shorter than MAX_TIERNAME (16). */
        static const struct {
                const char *name;
                int r;
        } tiers[] = {
                { "fast_1", 0 },
                { "_slow", 0 },
                { "0zram", 0 },
                { "A", 0 },
                { "abcdefghijklmno", 0 },              /* 15: the longest */
                { "abcdefghijklmnop", -ENAMETOOLONG }, /* 16 */
                { "fast-1", -EINVAL },                 /* the kernel refuses '-' */
                { "fa:st", -EINVAL },
                { "fa.st", -EINVAL },
                { "f\xc3\xa4st", -EINVAL },
                { "", -EINVAL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(tiers); i++) {
                const char *why = NULL;
                int r = validate_tier_name(tiers[i].name, &why);
                if (r != tiers[i].r)
                        g_error("validate_tier_name(\"%s\") = %d (%s), expected %d", tiers[i].name, r, strempty(why),
                                tiers[i].r);
        }
}

static void test_uids(void) {
        uint32_t u;
        g_assert_cmpint(parse_uid("0", &u), ==, 0);
        g_assert_cmpint(parse_uid("1001", &u), ==, 0);
        g_assert_cmpuint(u, ==, 1001);
        g_assert_cmpint(parse_uid("4294967295", &u), <, 0);
        g_assert_cmpint(parse_uid("65535", &u), <, 0);
        g_assert_cmpint(parse_uid("-1", &u), <, 0);
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/values/size-suffixes-are-base-1024", test_size_suffixes_are_base_1024);
        g_test_add_func("/values/size-rejections-say-why", test_size_rejections_say_why);
        g_test_add_func("/values/timespan-as-systemd", test_timespan_as_systemd);
        g_test_add_func("/values/timespan-format-round-trips", test_timespan_format_round_trips);
        g_test_add_func("/values/memory-limit-kinds", test_memory_limit_kinds);
        g_test_add_func("/values/memory-limit-round-trips", test_memory_limit_round_trips_through_format);
        g_test_add_func("/values/memory-limit-to-bytes", test_memory_limit_to_bytes_table);
        g_test_add_func("/values/booleans-in-every-systemd-spelling", test_booleans_in_every_systemd_spelling);
        g_test_add_func("/values/numa-node-lists", test_numa_node_lists);
        g_test_add_func("/values/numa-policy-names", test_numa_policy_names);
        g_test_add_func("/values/priority-range", test_priority_range);
        g_test_add_func("/values/globs", test_globs);
        g_test_add_func("/values/xattr-assignments", test_xattr_assignments);
        g_test_add_func("/values/group-and-tier-names", test_group_and_tier_names);
        g_test_add_func("/values/uids", test_uids);
        return g_test_run();
}
