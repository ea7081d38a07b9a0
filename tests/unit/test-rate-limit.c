/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The token bucket of policyd's D-Bus write methods (rate-limit.c): each
 * case is a list of calls at given times, and which of them may go on. */
#include <glib.h>

#include "rate-limit.h"

#define S UINT64_C(1000000)
#define MS UINT64_C(1000)

typedef struct Call {
        uint64_t at;  /* µs */
        bool want;    /* it may go on */
} Call;

typedef struct Case {
        const char *name;
        TokenBucketRate rate;
        Call calls[16];
        unsigned n;
} Case;

static void test_take(void) {
        static const Case cases[] = {
                { "a new bucket is full: burst calls at once, then none",
                  { 3, 1 },
                  { { 10 * S, true }, { 10 * S, true }, { 10 * S, true }, { 10 * S, false }, { 10 * S, false } },
                  5 },
                { "one token back a second at 1/s",
                  { 2, 1 },
                  { { 0, true }, { 0, true }, { 0, false }, { S - 1, false }, { S, true }, { S, false },
                    { 2 * S, true } },
                  7 },
                { "never more than burst, however long the caller waited",
                  { 2, 5 },
                  { { 0, true }, { 0, true }, { 3600 * S, true }, { 3600 * S, true }, { 3600 * S, false } },
                  5 },
                { "5/s: a token every 200 ms",
                  { 1, 5 },
                  { { 0, true }, { 100 * MS, false }, { 199 * MS, false }, { 200 * MS, true }, { 300 * MS, false },
                    { 400 * MS, true } },
                  6 },
                { "refused calls cost nothing",
                  { 1, 1 },
                  { { 0, true }, { 10 * MS, false }, { 20 * MS, false }, { 500 * MS, false }, { S, true } },
                  5 },
                { "a clock that goes back adds nothing, and counts nothing twice",
                  { 1, 1 },
                  { { 10 * S, true }, { 5 * S, false }, { 10 * S + 500 * MS, false }, { 11 * S, true } },
                  4 },
                { "a flood from one caller: burst, then the rate",
                  { 4, 2 },
                  { { 0, true }, { 0, true }, { 0, true }, { 0, true }, { 0, false }, { 100 * MS, false },
                    { 500 * MS, true }, { 600 * MS, false }, { S, true }, { S, false } },
                  10 },
                { "one token every 5 s (period_sec)",
                  { 2, 1, 5 },
                  { { 0, true }, { 0, true }, { 0, false }, { S, false }, { 5 * S - 1, false }, { 5 * S, true },
                    { 5 * S, false }, { 9 * S, false }, { 10 * S, true }, { 3600 * S, true }, { 3600 * S, true },
                    { 3600 * S, false } },
                  12 },
                { "3 tokens every 2 s",
                  { 3, 3, 2 },
                  { { 0, true }, { 0, true }, { 0, true }, { 0, false }, { 666 * MS, false }, { 667 * MS, true },
                    { 667 * MS, false } },
                  7 },
                { "huge times do not overflow, with the longest period",
                  { UINT32_MAX, 1, 3600 },
                  { { 0, true }, { UINT64_MAX - 1, true }, { UINT64_MAX, true } },
                  3 },
                { "huge times do not overflow",
                  { 1000, 1000 },
                  { { 0, true }, { UINT64_MAX - 1, true }, { UINT64_MAX, true } },
                  3 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const Case *c = &cases[i];
                TokenBucket b = {};
                for (unsigned j = 0; j < c->n; j++) {
                        bool got = token_bucket_take(&b, &c->rate, c->calls[j].at);
                        if (got != c->calls[j].want)
                                g_error("%s: call %u at %" G_GUINT64_FORMAT " µs: want %s, got %s", c->name, j + 1,
                                        c->calls[j].at, c->calls[j].want ? "allowed" : "refused",
                                        got ? "allowed" : "refused");
                }
        }
}

static void test_full_and_wait(void) {
        const TokenBucketRate rate = { 2, 4 };
        TokenBucket b = {};

        g_assert_true(token_bucket_full(&b, &rate, 0));
        g_assert_cmpuint(token_bucket_wait_usec(&b, &rate, 0), ==, 0);
        g_assert_true(token_bucket_take(&b, &rate, 0));
        g_assert_false(token_bucket_full(&b, &rate, 0));
        g_assert_true(token_bucket_take(&b, &rate, 0));
        /* Empty: a token in 250 ms at 4/s; full again in 500 ms. */
        g_assert_cmpuint(token_bucket_wait_usec(&b, &rate, 0), ==, 250 * MS);
        g_assert_cmpuint(token_bucket_wait_usec(&b, &rate, 100 * MS), ==, 150 * MS);
        g_assert_cmpuint(token_bucket_wait_usec(&b, &rate, 250 * MS), ==, 0);
        g_assert_false(token_bucket_full(&b, &rate, 499 * MS));
        g_assert_true(token_bucket_full(&b, &rate, 500 * MS));

        /* One every 5 s: empty, the next in 5 s, full (2) in 10. */
        const TokenBucketRate slow = { 2, 1, 5 };
        TokenBucket c = {};
        g_assert_true(token_bucket_take(&c, &slow, 0));
        g_assert_true(token_bucket_take(&c, &slow, 0));
        g_assert_cmpuint(token_bucket_wait_usec(&c, &slow, 0), ==, 5 * S);
        g_assert_cmpuint(token_bucket_wait_usec(&c, &slow, 4 * S), ==, S);
        g_assert_false(token_bucket_full(&c, &slow, 10 * S - 1));
        g_assert_true(token_bucket_full(&c, &slow, 10 * S));
}

/* cgroup.procs moves (process-watch.c): a refusal is said once a burst. */
static void test_held_back(void) {
        static const struct {
                const char *name;
                uint64_t at;
                bool go, say;
        } steps[] = {
                { "from a full bucket: go", 0, true, false },
                { "the second of burst 2: go", 0, true, false },
                { "the first held back: said", 0, false, true },
                { "held back again: not said again", 100 * MS, false, false },
                { "a token back at 1/s: go", S, true, false },
                { "empty again, same burst: not said", S, false, false },
                { "half full: still the same burst", 2 * S, true, false },
                { "held back, not full in between: not said", 2 * S, false, false },
                { "full again after 2 s: a new burst", 4 * S, true, false },
                { "second token", 4 * S, true, false },
                { "the new burst's first refusal: said", 4 * S, false, true },
        };
        const TokenBucketRate rate = { 2, 1 };
        HeldBackBucket h = {};

        for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
                bool say = !steps[i].say;
                bool go = held_back_take(&h, &rate, steps[i].at, &say);
                if (go != steps[i].go || say != steps[i].say)
                        g_error("%s: want go=%d say=%d, got go=%d say=%d", steps[i].name, steps[i].go, steps[i].say,
                                go, say);
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/rate-limit/take", test_take);
        g_test_add_func("/rate-limit/full-and-wait", test_full_and_wait);
        g_test_add_func("/rate-limit/held-back", test_held_back);
        return g_test_run();
}
