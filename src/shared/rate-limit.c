/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>

#include "rate-limit.h"

#define MICRO UINT64_C(1000000)

/* One token, in the bucket's units: µs × per_sec (tokens × 1 000 000 ×
 * period), so that what comes back in each µs is a whole number. */
static uint64_t token_of(const TokenBucketRate *rate) {
        return MICRO * (rate->period_sec > 0 ? rate->period_sec : 1);
}

/* The tokens b holds at now_usec, in token_of() units: what it had, plus
 * what came back since, up to a full bucket. */
static uint64_t level_at(const TokenBucketRate *rate, const TokenBucket *b, uint64_t now_usec) {
        assert(rate->burst > 0 && rate->per_sec > 0 && rate->period_sec <= 3600);
        /* burst < 2^32, × 10^6 × 3600 < 2^64 */
        const uint64_t full = (uint64_t) rate->burst * token_of(rate);

        if (!b->used)
                return full;
        if (now_usec <= b->last_usec || b->micro_tokens >= full)
                return b->micro_tokens < full ? b->micro_tokens : full;
        /* per_sec units come back a µs; no overflow: the elapsed time is
         * cut at what fills the bucket. */
        uint64_t elapsed = now_usec - b->last_usec, room = full - b->micro_tokens;
        if (elapsed >= room / rate->per_sec + 1)
                return full;
        uint64_t level = b->micro_tokens + elapsed * rate->per_sec;
        return level < full ? level : full;
}

bool token_bucket_take(TokenBucket *b, const TokenBucketRate *rate, uint64_t now_usec) {
        uint64_t level = level_at(rate, b, now_usec);

        /* A clock that went back keeps the newer time, so that nothing is
         * counted twice when it comes forward again. */
        if (!b->used || now_usec > b->last_usec)
                b->last_usec = now_usec;
        b->used = true;
        b->micro_tokens = level;
        if (level < token_of(rate))
                return false;
        b->micro_tokens -= token_of(rate);
        return true;
}

bool token_bucket_full(const TokenBucket *b, const TokenBucketRate *rate, uint64_t now_usec) {
        return level_at(rate, b, now_usec) >= (uint64_t) rate->burst * token_of(rate);
}

uint64_t token_bucket_wait_usec(const TokenBucket *b, const TokenBucketRate *rate, uint64_t now_usec) {
        uint64_t level = level_at(rate, b, now_usec);

        if (level >= token_of(rate))
                return 0;
        return (token_of(rate) - level + rate->per_sec - 1) / rate->per_sec;
}

bool held_back_take(HeldBackBucket *h, const TokenBucketRate *rate, uint64_t now_usec, bool *ret_say) {
        /* Full again: whatever was said was of an earlier burst. */
        if (token_bucket_full(&h->bucket, rate, now_usec))
                h->said = false;
        if (token_bucket_take(&h->bucket, rate, now_usec)) {
                *ret_say = false;
                return true;
        }
        *ret_say = !h->said;
        h->said = true;
        return false;
}
