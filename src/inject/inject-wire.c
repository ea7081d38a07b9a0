/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject-wire.h"

#define KEY_MAX 32

static bool is_key_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* What a bare value may hold: printable ASCII but space, '"' and '\'. */
static bool is_bare_char(char c) {
        return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

int inject_wire_next(const char **p, const char *end, char *key, size_t key_size, char *value, size_t value_size) {
        const char *s;
        size_t n = 0;

        assert(p && *p && end);
        assert(key && key_size > 0 && value && value_size > 0);
        s = *p;
        if (s >= end)
                return 0;
        while (s < end && is_key_char(*s)) {
                if (n + 1 >= key_size)
                        return -ENOBUFS;
                key[n++] = *s++;
        }
        if (n == 0 || s >= end || *s != '=')
                return -EINVAL;
        key[n] = '\0';
        s++;

        n = 0;
        if (s < end && *s == '"') {
                for (s++;; s++) {
                        char c;

                        if (s >= end)
                                return -EINVAL;  /* no closing quote */
                        c = *s;
                        if (c == '"')
                                break;
                        if ((unsigned char) c < 0x20 || c == 0x7f)
                                return -EINVAL;
                        if (c == '\\') {
                                if (++s >= end)
                                        return -EINVAL;
                                switch (*s) {
                                case '"':
                                case '\\':
                                        c = *s;
                                        break;
                                case 'n':
                                        c = '\n';
                                        break;
                                case 't':
                                        c = '\t';
                                        break;
                                case 'x': {
                                        int hi = s + 1 < end ? hex_digit(s[1]) : -1;
                                        int lo = s + 2 < end ? hex_digit(s[2]) : -1;
                                        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                                                return -EINVAL;  /* no NUL inside a value */
                                        c = (char) (hi << 4 | lo);
                                        s += 2;
                                        break;
                                }
                                default:
                                        return -EINVAL;
                                }
                        }
                        if (n + 1 >= value_size)
                                return -ENOBUFS;
                        value[n++] = c;
                }
                s++;  /* the closing quote */
        } else {
                while (s < end && is_bare_char(*s)) {
                        if (n + 1 >= value_size)
                                return -ENOBUFS;
                        value[n++] = *s++;
                }
                if (n == 0)
                        return -EINVAL;  /* an empty value is written "" */
        }
        value[n] = '\0';

        /* One space, then another token; or the end. */
        if (s < end) {
                if (*s != ' ' || s + 1 >= end || s[1] == ' ')
                        return -EINVAL;
                s++;
        }
        *p = s;
        return 1;
}

__attribute__((format(printf, 2, 3)))
static int request_error(InjectWireRequest *r, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(r->error, sizeof(r->error), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* Digits only, no sign, no leading zero, from 1 to max. */
static int parse_positive(const char *s, long max, long *ret) {
        long n = 0;

        if (s[0] < '1' || s[0] > '9')
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -EINVAL;
                n = n * 10 + (*s - '0');
                if (n > max)
                        return -ERANGE;
        }
        *ret = n;
        return 0;
}

enum {
        SEEN_PID = 1 << 0,
        SEEN_KSM = 1 << 1,
        SEEN_MEMPOLICY = 1 << 2,
        SEEN_TIMEOUT = 1 << 3,
        SEEN_QUERY = 1 << 4,
        SEEN_MIGRATE = 1 << 5,
        SEEN_FOR_UID = 1 << 6,
        SEEN_ENSURE = 1 << 7,
        SEEN_MEMPOLICY_IF = 1 << 8,
};

/* A uid: "0", or digits without a leading zero, below (uid_t) -1. */
static int parse_uid_value(const char *s, uid_t *ret) {
        long n;

        if (strcmp(s, "0") == 0) {
                *ret = 0;
                return 0;
        }
        if (parse_positive(s, (long) UINT32_MAX - 1, &n) < 0)
                return -EINVAL;
        *ret = (uid_t) n;
        return 0;
}

int inject_wire_parse_request(const char *data, size_t size, InjectWireRequest *ret) {
        char key[KEY_MAX], value[INJECT_WIRE_LINE_MAX];
        const char *p = data, *end;
        unsigned seen = 0;
        int r;

        assert(ret);
        assert(data || size == 0);
        *ret = (InjectWireRequest) {
                .req = { .ksm = -1, .timeout_usec = INJECT_WIRE_TIMEOUT_MS_DEFAULT * 1000ULL },
        };
        if (size == 0)
                return request_error(ret, "empty request");
        if (size > INJECT_WIRE_LINE_MAX)
                return request_error(ret, "request longer than %d bytes", INJECT_WIRE_LINE_MAX);
        if (data[size - 1] != '\n')
                return request_error(ret, "request not ended by a newline");
        end = data + size - 1;
        if (memchr(data, '\n', size - 1))
                return request_error(ret, "more than one line");
        if (memchr(data, '\0', size))
                return request_error(ret, "NUL byte in the request");

        while ((r = inject_wire_next(&p, end, key, sizeof(key), value, sizeof(value))) > 0) {
                unsigned bit;
                long n;

                if (strcmp(key, "pid") == 0)
                        bit = SEEN_PID;
                else if (strcmp(key, "ksm") == 0)
                        bit = SEEN_KSM;
                else if (strcmp(key, "mempolicy") == 0)
                        bit = SEEN_MEMPOLICY;
                else if (strcmp(key, "timeout_ms") == 0)
                        bit = SEEN_TIMEOUT;
                else if (strcmp(key, "query") == 0)
                        bit = SEEN_QUERY;
                else if (strcmp(key, "migrate") == 0)
                        bit = SEEN_MIGRATE;
                else if (strcmp(key, "for_uid") == 0)
                        bit = SEEN_FOR_UID;
                else if (strcmp(key, "ensure") == 0)
                        bit = SEEN_ENSURE;
                else if (strcmp(key, "mempolicy_if") == 0)
                        bit = SEEN_MEMPOLICY_IF;
                else
                        return request_error(ret, "unknown key '%s'", key);
                if (seen & bit)
                        return request_error(ret, "%s= given twice", key);
                seen |= bit;

                switch (bit) {
                case SEEN_PID:
                        if (parse_positive(value, INT32_MAX, &n) < 0)
                                return request_error(ret, "pid= takes a PID, not '%.40s'", value);
                        ret->pid = (pid_t) n;
                        break;
                case SEEN_KSM:
                        if (strcmp(value, "-") == 0)
                                ret->req.ksm = -1;
                        else if (strcmp(value, "0") == 0 || strcmp(value, "1") == 0)
                                ret->req.ksm = value[0] - '0';
                        else
                                return request_error(ret, "ksm= takes 1, 0 or -, not '%.40s'", value);
                        break;
                case SEEN_MEMPOLICY:
                        if (strcmp(value, "-") == 0)
                                break;
                        if (mempolicy_parse(value, &ret->req.mempolicy) < 0)
                                return request_error(ret, "mempolicy= takes a SPEC or -, not '%.40s'", value);
                        ret->req.set_mempolicy = true;
                        break;
                case SEEN_TIMEOUT:
                        if (parse_positive(value, INJECT_WIRE_TIMEOUT_MS_MAX, &n) < 0)
                                return request_error(ret, "timeout_ms= takes 1 to %d, not '%.40s'",
                                                     INJECT_WIRE_TIMEOUT_MS_MAX, value);
                        ret->req.timeout_usec = (uint64_t) n * 1000;
                        break;
                case SEEN_QUERY:
                        if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
                                return request_error(ret, "query= takes 1 or 0, not '%.40s'", value);
                        ret->query = value[0] == '1';
                        break;
                case SEEN_MIGRATE:
                        if (mempolicy_parse_nodes(value, ret->migrate_nodes) < 0)
                                return request_error(ret, "migrate= takes a node list, not '%.40s'", value);
                        ret->migrate = true;
                        break;
                case SEEN_FOR_UID:
                        if (parse_uid_value(value, &ret->req.acting_uid) < 0)
                                return request_error(ret, "for_uid= takes a uid, not '%.40s'", value);
                        break;
                case SEEN_ENSURE:
                        if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0)
                                return request_error(ret, "ensure= takes 1 or 0, not '%.40s'", value);
                        ret->ensure = value[0] == '1';
                        break;
                case SEEN_MEMPOLICY_IF:
                        if (mempolicy_parse(value, &ret->mempolicy_if) < 0)
                                return request_error(ret, "mempolicy_if= takes a SPEC, not '%.40s'", value);
                        ret->has_mempolicy_if = true;
                        break;
                }
        }
        if (r == -ENOBUFS)
                return request_error(ret, "key too long");
        if (r < 0)
                return request_error(ret, "malformed key=value at byte %zu", (size_t) (p - data));
        if (!(seen & SEEN_PID))
                return request_error(ret, "no pid=");
        /* A migration stops nothing and takes no time box: it goes alone. */
        if (ret->migrate && (seen & ~(unsigned) (SEEN_PID | SEEN_MIGRATE | SEEN_FOR_UID)))
                return request_error(ret, "migrate= takes no ksm=, mempolicy=, timeout_ms=, query= or ensure=");
        if (ret->query && ret->ensure)
                return request_error(ret, "query=1 takes no ensure=1");
        if (ret->has_mempolicy_if && (!ret->ensure || !ret->req.set_mempolicy))
                return request_error(ret, "mempolicy_if= goes with ensure=1 and a mempolicy=");
        if (ret->query && (ret->req.ksm >= 0 || ret->req.set_mempolicy))
                return request_error(ret, "query=1 takes no ksm= or mempolicy=");
        /* Reading changes nothing: it acts for no one. */
        if (ret->query && (seen & SEEN_FOR_UID))
                return request_error(ret, "query=1 takes no for_uid=");
        if (!ret->query && !ret->migrate && ret->req.ksm < 0 && !ret->req.set_mempolicy)
                return request_error(ret, "nothing to do: ksm=- and mempolicy=-");
        return 0;
}

/* A growing line in a caller's buffer; an overflow is reported at the end. */
typedef struct Line {
        char *buf;
        size_t size, off;
        bool overflow;
} Line;

__attribute__((format(printf, 2, 3)))
static void line_printf(Line *l, const char *fmt, ...) {
        va_list ap;
        int k;

        if (l->overflow)
                return;
        /* Each write leaves room for the terminating NUL, or sets overflow. */
        assert(l->buf && l->off < l->size);
        va_start(ap, fmt);
        k = vsnprintf(l->buf + l->off, l->size - l->off, fmt, ap);
        va_end(ap);
        if (k < 0 || (size_t) k >= l->size - l->off)
                l->overflow = true;
        else
                l->off += (size_t) k;
}

/* key="value", escaped so that the line stays one line: " and \ get a
 * backslash, control characters are \n, \t or \xHH, and other bytes (UTF-8
 * in a path) go as they are. */
static void line_quoted(Line *l, const char *key, const char *value) {
        assert(key && value);
        line_printf(l, " %s=\"", key);
        for (const unsigned char *c = (const unsigned char *) value; *c; c++) {
                if (*c == '"' || *c == '\\')
                        line_printf(l, "\\%c", *c);
                else if (*c == '\n')
                        line_printf(l, "\\n");
                else if (*c == '\t')
                        line_printf(l, "\\t");
                else if (*c < 0x20 || *c == 0x7f)
                        line_printf(l, "\\x%02x", *c);
                else
                        line_printf(l, "%c", *c);
        }
        line_printf(l, "\"");
}

/* key=value, quoted only when it must be (a space, a quote, ...). */
static void line_value(Line *l, const char *key, const char *value) {
        bool bare;

        assert(key && value);
        bare = value[0] != '\0';

        for (const char *c = value; *c && bare; c++)
                bare = is_bare_char(*c);
        if (bare)
                line_printf(l, " %s=%s", key, value);
        else
                line_quoted(l, key, value);
}

static int line_finish(Line *l) {
        line_printf(l, "\n");
        return l->overflow ? -ENOBUFS : 0;
}

int inject_wire_format_request(const InjectWireRequest *w, char *buf, size_t size) {
        Line l = { buf, size, 0, false };
        char spec[INJECT_WIRE_LINE_MAX];
        const InjectRequest *req = &w->req;

        if (w->pid <= 0 || req->ksm < -1 || req->ksm > 1)
                return -EINVAL;
        if (w->migrate) {
                if (w->query || req->ksm >= 0 || req->set_mempolicy ||
                    mempolicy_format_nodes(w->migrate_nodes, spec, sizeof(spec)) < 0 || !spec[0])
                        return -EINVAL;
                line_printf(&l, "pid=%d migrate=%s", (int) w->pid, spec);
                if (req->acting_uid != 0)
                        line_printf(&l, " for_uid=%u", (unsigned) req->acting_uid);
                return line_finish(&l);
        }
        if (req->acting_uid == PROCESS_TRUST_UID_NONE)
                return -EINVAL;
        if (w->query) {
                if (req->ksm >= 0 || req->set_mempolicy || req->acting_uid != 0 || w->ensure)
                        return -EINVAL;
                line_printf(&l, "pid=%d query=1", (int) w->pid);
                return line_finish(&l);
        }
        if (req->set_mempolicy && mempolicy_format(&req->mempolicy, spec, sizeof(spec)) < 0)
                return -EINVAL;
        line_printf(&l, "pid=%d ksm=%s mempolicy=%s timeout_ms=%llu", (int) w->pid,
                    req->ksm < 0 ? "-" : req->ksm ? "1" : "0", req->set_mempolicy ? spec : "-",
                    (unsigned long long) (req->timeout_usec ? req->timeout_usec / 1000
                                                            : INJECT_WIRE_TIMEOUT_MS_DEFAULT));
        if (req->acting_uid != 0)
                line_printf(&l, " for_uid=%u", (unsigned) req->acting_uid);
        if (w->has_mempolicy_if && (!w->ensure || !req->set_mempolicy))
                return -EINVAL;
        if (w->ensure)
                line_printf(&l, " ensure=1");
        if (w->has_mempolicy_if) {
                if (mempolicy_format(&w->mempolicy_if, spec, sizeof(spec)) < 0)
                        return -EINVAL;
                line_printf(&l, " mempolicy_if=%s", spec);
        }
        return line_finish(&l);
}

/* What went wrong, for a human: which syscall, and its errno. */
static void describe_failure(const InjectReport *rep, char *buf, size_t size) {
        const char *what = "";
        int e = -rep->error;

        if (rep->migrate && rep->migrate_result < 0) {
                what = "migrate_pages: ";
                e = (int) -rep->migrate_result;
        } else if (rep->ksm_result < 0) {
                what = "prctl(PR_SET_MEMORY_MERGE): ";
                e = (int) -rep->ksm_result;
        } else if (rep->mempolicy_error < 0) {
                what = "set_mempolicy: ";
                e = (int) -rep->mempolicy_error;
        } else if (e == ETIME)
                what = "time box ran out: ";
        if (e <= 0) {
                snprintf(buf, size, "%s", what);
                return;
        }
        const char *name = strerrorname_np(e);
        snprintf(buf, size, "%s%s (%s)", what, name ? name : "?", strerror(e));
}

/* Which knobs' system calls ran, in a thread at least: with ensure=1, those
 * the helper found to differ. */
static const char *knobs_set(const InjectReport *rep) {
        bool ksm = rep && !rep->migrate && rep->ksm_result != 1;
        bool mempolicy = rep && (rep->mempolicy_applied > 0 || rep->mempolicy_error != 0);

        return ksm && mempolicy ? "ksm,mempolicy" : ksm ? "ksm" : mempolicy ? "mempolicy" : "-";
}

int inject_wire_format_reply(pid_t pid, const InjectReport *rep, const InjectQuery *q, const char *error,
                             char *buf, size_t size) {
        Line l = { buf, size, 0, false };
        char text[256] = "";
        const char *outcome = "error", *insn = "-";

        if (pid > 0)
                line_printf(&l, "pid=%d", (int) pid);
        else
                line_printf(&l, "pid=-");

        if (rep) {
                outcome = inject_outcome_to_string(rep->outcome);
                if (rep->outcome == INJECT_FAILED)
                        describe_failure(rep, text, sizeof(text));
                /* Whether anything was written to run a syscall in the
                 * target (even one that never ran), through which instruction. */
                if (rep->wrote || rep->ksm_result != 1 || rep->mempolicy_applied > 0 || rep->mempolicy_error != 0)
                        insn = rep->insn_in_place ? "in-place" : "vdso";
        } else if (q)
                outcome = "queried";
        else
                snprintf(text, sizeof(text), "%s", error ? error : "");

        /* The injector's own report: an outcome and a refusal of its enums. */
        assert(outcome);
        line_printf(&l, " outcome=%s", outcome);
        line_quoted(&l, "reason", rep && rep->outcome == INJECT_REFUSED ? inject_refusal_to_string(rep->refusal) : "");
        line_quoted(&l, "error", text);
        line_quoted(&l, "exe", q ? q->exe : "-");
        line_printf(&l, " threads=%u in_syscall=%u signals_passed=%u retries=%u insn=%s verified_ksm=%s",
                    rep ? rep->threads : 0, rep ? rep->threads_in_syscall : 0, rep ? rep->signals_passed : 0,
                    rep ? rep->retries : 0, insn, !q || q->ksm < 0 ? "-" : q->ksm ? "yes" : "no");
        line_value(&l, "verified_mempolicy", q && q->mempolicy[0] ? q->mempolicy : "-");
        line_printf(&l, " stuck=%d", rep && rep->stuck ? 1 : 0);
        if (rep && rep->migrate && rep->outcome == INJECT_APPLIED)
                line_printf(&l, " not_moved=%ld", rep->migrate_result);
        else
                line_printf(&l, " not_moved=-");
        line_printf(&l, " set=%s", knobs_set(rep));
        return line_finish(&l);
}

int inject_wire_get(const char *line, const char *key, char *buf, size_t size) {
        char k[KEY_MAX], value[INJECT_WIRE_LINE_MAX];
        const char *p = line, *end = line + strcspn(line, "\n");
        int r;

        while ((r = inject_wire_next(&p, end, k, sizeof(k), value, sizeof(value))) > 0) {
                if (strcmp(k, key) != 0)
                        continue;
                if (strlen(value) >= size)
                        return -ENOBUFS;
                strcpy(buf, value);
                return 0;
        }
        return r < 0 ? -EINVAL : -ENOENT;
}
