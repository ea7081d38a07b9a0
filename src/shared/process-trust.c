/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "process-trust.h"

ProcessTrustVerdict process_trust_check(uid_t acting_uid, const ProcessCreds *creds) {
        if (acting_uid == 0)
                return PROCESS_TRUST_ALLOWED;
        if (acting_uid == PROCESS_TRUST_UID_NONE)
                return PROCESS_TRUST_NO_USER;
        for (size_t i = 0; i < 4; i++)
                if (creds->uid[i] != acting_uid)
                        return PROCESS_TRUST_OTHER_UID;
        for (size_t i = 1; i < 4; i++)
                if (creds->gid[i] != creds->gid[0])
                        return PROCESS_TRUST_SETGID;
        if (creds->cap_permitted != 0 || creds->cap_effective != 0 || creds->cap_ambient != 0)
                return PROCESS_TRUST_CAPABILITIES;
        if (!creds->dumpable)
                return PROCESS_TRUST_NOT_DUMPABLE;
        return PROCESS_TRUST_ALLOWED;
}

const char *process_trust_verdict_to_string(ProcessTrustVerdict v) {
        static const char *const table[_PROCESS_TRUST_VERDICT_MAX] = {
                [PROCESS_TRUST_ALLOWED] = NULL,
                [PROCESS_TRUST_NO_USER] = "no user to act for",
                [PROCESS_TRUST_OTHER_UID] = "not the user's own: another uid (another user's, or setuid)",
                [PROCESS_TRUST_SETGID] = "not the user's own: its gids differ (setgid)",
                [PROCESS_TRUST_CAPABILITIES] = "not the user's own: it holds capabilities",
                [PROCESS_TRUST_NOT_DUMPABLE] = "not the user's own: not dumpable",
        };
        return (unsigned) v < _PROCESS_TRUST_VERDICT_MAX ? table[v] : "?";
}

/* "Uid:\t1000\t1000\t1000\t1000": four decimal ids, nothing after. */
static int parse_ids(const char *v, uint32_t ret[4]) {
        for (size_t i = 0; i < 4; i++) {
                char *end;
                unsigned long n;

                v += strspn(v, " \t");
                if (*v < '0' || *v > '9')
                        return -EINVAL;
                errno = 0;
                n = strtoul(v, &end, 10);
                if (errno != 0 || n > UINT32_MAX)
                        return -EINVAL;
                ret[i] = (uint32_t) n;
                v = end;
        }
        v += strspn(v, " \t");
        return *v == '\n' || *v == '\0' ? 0 : -EINVAL;
}

/* "CapEff:\t000001ffffffffff": 16 hex digits. */
static int parse_caps(const char *v, uint64_t *ret) {
        char *end;
        unsigned long long n;

        v += strspn(v, " \t");
        if (!((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f')))
                return -EINVAL;
        errno = 0;
        n = strtoull(v, &end, 16);
        if (errno != 0)
                return -EINVAL;
        end += strspn(end, " \t");
        if (*end != '\n' && *end != '\0')
                return -EINVAL;
        *ret = n;
        return 0;
}

int process_creds_parse_status(const char *text, ProcessCreds *ret) {
        ProcessCreds c = {};
        uint32_t ids[4];
        unsigned seen = 0;

        for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                const char *colon = strchr(line, ':'), *nl = strchr(line, '\n');
                size_t klen;
                int r = 0;

                if (!colon || (nl && colon > nl))
                        continue;
                klen = (size_t) (colon - line);
#define KEY(k) (klen == strlen(k) && strncmp(line, k, klen) == 0)
                if (KEY("Uid")) {
                        r = parse_ids(colon + 1, ids);
                        for (size_t i = 0; r >= 0 && i < 4; i++)
                                c.uid[i] = (uid_t) ids[i];
                        seen |= 1;
                } else if (KEY("Gid")) {
                        r = parse_ids(colon + 1, ids);
                        for (size_t i = 0; r >= 0 && i < 4; i++)
                                c.gid[i] = (gid_t) ids[i];
                        seen |= 2;
                } else if (KEY("CapPrm")) {
                        r = parse_caps(colon + 1, &c.cap_permitted);
                        seen |= 4;
                } else if (KEY("CapEff")) {
                        r = parse_caps(colon + 1, &c.cap_effective);
                        seen |= 8;
                } else if (KEY("CapAmb"))
                        r = parse_caps(colon + 1, &c.cap_ambient);
#undef KEY
                if (r < 0)
                        return r;
        }
        if (seen != 15)
                return -EINVAL;
        *ret = c;
        return 0;
}
