#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The message catalog (catalog/policygroups.catalog) against the source.

Every MESSAGE_ID_* of src/shared/message-ids.h is 32 lower-case hex digits,
unique, used by a log call, listed in policyd(8), and has one catalog
entry; every entry is one of them, with the headers journalctl -x shows, and names only fields that
log.c sends. Where journalctl is installed (even with another init), the
catalog is also compiled with "journalctl --root=DIR --update-catalog" and
listed back, as a package's trigger would.

Usage: test-catalog.py SOURCE_ROOT     (TAP on stdout)
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ID_RE = re.compile(r'^[0-9a-f]{32}$')


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, ok, what, detail=''):
        self.n += 1
        if not ok:
            self.failed += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', self.n, what))
        if not ok and detail:
            for line in str(detail).splitlines():
                print('# ' + line)

    def skip(self, what, why):
        self.n += 1
        print('ok %d - %s # SKIP %s' % (self.n, what, why))

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def header_ids(text):
    """[(name, id)] of the #defines of message-ids.h."""
    return re.findall(r'^#define\s+(MESSAGE_ID_[A-Z0-9_]+)\s+"([^"]*)"', text, re.M)


def parse_catalog(text):
    """[(id, headers [(key, value)], body, line)]; raises ValueError on a
    line that sd-journal's catalog parser would refuse."""
    entries = []
    cur = None
    in_headers = False
    for n, line in enumerate(text.split('\n'), 1):
        if line.startswith('#'):
            continue
        if line.startswith('-- '):
            fields = line[3:].split()
            if not fields or len(fields) > 2 or not ID_RE.match(fields[0]):
                raise ValueError('line %d: bad entry header %r' % (n, line))
            cur = [fields[0], [], [], n]
            entries.append(cur)
            in_headers = True
            continue
        if cur is None:
            if line.strip():
                raise ValueError('line %d: text before the first entry' % n)
            continue
        if in_headers:
            if not line.strip():
                in_headers = False
                continue
            m = re.match(r'^([A-Za-z][A-Za-z-]*): (.+)$', line)
            if not m:
                raise ValueError('line %d: bad header line %r' % (n, line))
            cur[1].append((m.group(1), m.group(2)))
        else:
            cur[2].append(line)
    return [(e[0], e[1], '\n'.join(e[2]).strip(), e[3]) for e in entries]


def main():
    root = sys.argv[1]
    tap = Tap()
    ids_h = read(os.path.join(root, 'src/shared/message-ids.h'))
    catalog_path = os.path.join(root, 'catalog/policygroups.catalog')
    catalog = read(catalog_path)
    log_c = read(os.path.join(root, 'src/shared/log.c'))

    defined = header_ids(ids_h)
    tap.check(len(defined) > 0, 'message-ids.h defines MESSAGE_ID_* ids')
    bad = [(name, v) for name, v in defined if not ID_RE.match(v)]
    tap.check(not bad, 'every id is 32 lower-case hex digits', bad)
    values = [v for _, v in defined]
    dup = sorted({v for v in values if values.count(v) > 1})
    tap.check(not dup, 'no id is defined twice', dup)

    # Every id is used by a log call; no id is written out anywhere else.
    sources = {}
    for top, _, files in os.walk(os.path.join(root, 'src')):
        for name in files:
            if name.endswith(('.c', '.h')):
                path = os.path.join(top, name)
                sources[os.path.relpath(path, root)] = read(path)
    for name, value in defined:
        users = [p for p, text in sources.items()
                 if p != 'src/shared/message-ids.h' and re.search(r'\b%s\b' % name, text)]
        tap.check(bool(users), '%s is used' % name)
    literal = [p for p, text in sources.items()
               if p != 'src/shared/message-ids.h' and any(v in text for v in values)]
    tap.check(not literal, 'ids appear only in message-ids.h', literal)

    # policyd(8) lists them, under JOURNAL.
    man = read(os.path.join(root, 'man/policyd.8.scd'))
    in_man = set(re.findall(r'^\|\s+([0-9a-f]{32})$', man, re.M))
    tap.check(in_man == set(values), 'policyd(8) lists every id, and no other',
              'missing: %s\nextra: %s' % (sorted(set(values) - in_man), sorted(in_man - set(values))))

    try:
        entries = parse_catalog(catalog)
        tap.check(True, 'the catalog parses')
    except ValueError as e:
        tap.check(False, 'the catalog parses', e)
        return tap.done()

    cat_ids = [e[0] for e in entries]
    dup = sorted({i for i in cat_ids if cat_ids.count(i) > 1})
    tap.check(not dup, 'no catalog entry is there twice (journalctl keeps one silently)', dup)
    tap.check(set(cat_ids) == set(values), 'the catalog has an entry for every id, and no other',
              'missing: %s\nextra: %s' % (sorted(set(values) - set(cat_ids)),
                                          sorted(set(cat_ids) - set(values))))

    # The fields log.c can send ("NAME=%..."), and those journald adds.
    sent = set(re.findall(r'"([A-Z][A-Z0-9_]*)=%', log_c))
    for required in ('UNIT', 'OBJECT_SYSTEMD_UNIT', 'MESSAGE_ID'):
        tap.check(required in sent, 'log.c sends %s=' % required)
    names = {v: n for n, v in defined}
    for ident, headers, body, line in entries:
        what = '%s (%s, line %d)' % (names.get(ident, '?'), ident, line)
        keys = [k for k, _ in headers]
        problems = []
        for key in ('Subject', 'Defined-By', 'Support'):
            if keys.count(key) != 1:
                problems.append('%d %s: headers' % (keys.count(key), key))
        if 'Documentation' not in keys:
            problems.append('no Documentation:')
        if dict(headers).get('Defined-By') != 'policygroups':
            problems.append('Defined-By: is not policygroups')
        if not body:
            problems.append('no explanation')
        text = dict(headers).get('Subject', '') + '\n' + body
        unknown = sorted(set(re.findall(r'@([A-Za-z0-9_]+)@', text)) - sent)
        if unknown:
            problems.append('fields log.c never sends: %s' % unknown)
        tap.check(not problems, 'entry %s is complete' % what, '\n'.join(problems))

    journalctl = shutil.which('journalctl')
    if not journalctl:
        tap.skip('journalctl --update-catalog takes the catalog', 'no journalctl')
        return tap.done()
    with tempfile.TemporaryDirectory(prefix='test-catalog-') as tmp:
        d = os.path.join(tmp, 'usr/lib/systemd/catalog')
        os.makedirs(d)
        shutil.copy(catalog_path, d)
        p = subprocess.run([journalctl, '--root=' + tmp, '--update-catalog'],
                           capture_output=True, text=True, check=False)
        tap.check(p.returncode == 0 and not p.stderr.strip(),
                  'journalctl --update-catalog takes the catalog',
                  'exit %d: %s' % (p.returncode, p.stderr))
        p = subprocess.run([journalctl, '--root=' + tmp, '--list-catalog'],
                           capture_output=True, text=True, check=False)
        listed = {}
        for line in p.stdout.splitlines():
            ident, _, rest = line.partition(' ')
            listed[ident] = rest
        missing = [i for i in values if not listed.get(i, '').startswith('policygroups: ')]
        tap.check(p.returncode == 0 and not missing, 'journalctl --list-catalog lists every id',
                  'exit %d, missing %s\n%s' % (p.returncode, missing, p.stdout + p.stderr))
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
