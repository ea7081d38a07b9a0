/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A token bucket: up to burst calls at once, then rate a second. Pure:
 * the caller passes the time (CLOCK_MONOTONIC, in µs). policyd keeps one
 * per caller uid for its D-Bus write methods (policyd(8), SECURITY): a
 * user's Assign flood became a SetUnitProperties flood at PID 1. */

#include <stdbool.h>
#include <stdint.h>

typedef struct TokenBucketRate {
        unsigned burst;      /* calls at once, from a full bucket (> 0) */
        unsigned per_sec;    /* tokens back a second (> 0), or a period_sec */
        unsigned period_sec; /* per_sec tokens come back every this many seconds; 0: 1 (at most 3600) */
} TokenBucketRate;

typedef struct TokenBucket {
        uint64_t micro_tokens; /* tokens × 1 000 000 × the rate's period_sec (or 1) */
        uint64_t last_usec;    /* when micro_tokens was last brought up to date */
        bool used;             /* false: a new bucket, full */
} TokenBucket;

/* Takes one token at now_usec: true when there was one (the call may go
 * on), false when the caller is over the limit. A clock that goes back
 * adds nothing. */
bool token_bucket_take(TokenBucket *b, const TokenBucketRate *rate, uint64_t now_usec);

/* Whether b is full again at now_usec (a table of buckets drops those). */
bool token_bucket_full(const TokenBucket *b, const TokenBucketRate *rate, uint64_t now_usec);

/* µs until b has a token again at now_usec; 0 when it has one now. */
uint64_t token_bucket_wait_usec(const TokenBucket *b, const TokenBucketRate *rate, uint64_t now_usec);

/* A bucket whose refusals are said once a burst: policyd holds back the
 * injector requests that a user's moves into their cgroups cause
 * (process-inject.c), and says so in the journal once, not per event. */
typedef struct HeldBackBucket {
        TokenBucket bucket;
        bool said;         /* the holding back was said, since the bucket was last full */
} HeldBackBucket;

/* As token_bucket_take(); when it refuses, *ret_say is true for the first
 * refusal since the bucket was last full (a new burst), else false. */
bool held_back_take(HeldBackBucket *h, const TokenBucketRate *rate, uint64_t now_usec, bool *ret_say);
