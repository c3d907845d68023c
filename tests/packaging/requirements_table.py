#!/usr/bin/env python3
"""The requirements traceability table (docs/requirements.md) against the tests.

A test names the requirement it checks in a comment: `REQ-<AREA>-<n>`, a range
`REQ-<AREA>-<n>..<m>` or a list `REQ-<AREA>-<n>, <m>, <k>`. The table lists every requirement with the files under tests/ and
bench/ that name it. `--check` (the `requirements` test) fails when the two disagree: a
requirement a test names that the table lacks, a file missing from a row or listed in one
without naming it, or a requirement with neither a test nor a note saying why.
`--write` rewrites the tests column from the tests, keeping each requirement's text and
note; `--spec FILE` adds rows for requirements the table lacks, with their text from the
specification (`REQ-X-n: text` lines).

    tests/packaging/requirements_table.py --check SOURCE_ROOT
    tests/packaging/requirements_table.py --write SOURCE_ROOT [--spec requirements.txt]
"""
import argparse
import os
import re
import sys

TABLE = os.path.join('docs', 'requirements.md')
SCANNED = ('tests', 'bench')
AREAS = [
    ('PLAN', 'Planning'), ('EXEC', 'Parallel task execution'),
    ('VER', 'Integration and verification'), ('FAIL', 'Failure analysis and re-planning'),
    ('BUD', 'Budgets, workload checksums and run status'), ('REPLAY', 'Deterministic replay'),
    ('EVAL', 'Evaluation'), ('PLAT', 'Platform'), ('TOOL', 'Toolchain'),
]
# One mention: REQ-AREA-n, optionally followed by `..m` (a range) or `, m, k` (a list).
MENTION = re.compile(r'REQ-([A-Z]+)-(\d+)((?:\.\.\d+)|(?:, \d+(?![\d.]))*)')
ROW = re.compile(r'^\| (REQ-[A-Z]+-\d+) \| (.*?) \| (.*?) \| (.*?) \|$')
HEADER = ('| requirement | what it asks | tests that name it | how this version reads it |\n'
          '|---|---|---|---|')
PREAMBLE = '''# Requirements traceability

MACE's requirements are those of its specification, identified `REQ-<AREA>-<n>`. Each row
gives the requirement, the test files that name it (a test names the requirement it checks
in a comment), and, where this version reads a requirement differently from its first
version or does not test it, why. The `requirements` test checks the table against the
tests, and `tests/packaging/requirements_table.py --write` updates it (see
[Development](development.md#what-the-suites-check-by-subject)).
'''


def id_key(req):
    area, number = req.split('-')[1:]
    order = [a for a, _ in AREAS]
    return (order.index(area) if area in order else len(order), area, int(number))


def mentions_in(text):
    found = set()
    for match in MENTION.finditer(text):
        area, first, tail = match.group(1), int(match.group(2)), match.group(3)
        numbers = {first}
        if tail.startswith('..'):
            numbers |= set(range(first, int(tail[2:]) + 1))
        elif tail:
            numbers |= {int(n) for n in re.findall(r'\d+', tail)}
        found |= {f'REQ-{area}-{n}' for n in numbers}
    return found


def scan(root):
    """requirement -> sorted files (relative to root) that name it"""
    named = {}
    for top in SCANNED:
        for directory, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.join(directory, name)
                try:
                    with open(path, encoding='utf-8') as f:
                        text = f.read()
                except (UnicodeDecodeError, OSError):
                    continue  # binary corpus entries, sockets
                rel = os.path.relpath(path, root)
                for req in mentions_in(text):
                    named.setdefault(req, set()).add(rel)
    return {req: sorted(files) for req, files in named.items()}


def files_cell(files):
    return ', '.join(f'[{f}](../{f})' for f in files)


def cell_files(cell):
    return re.findall(r'\]\(\.\./([^)]+)\)', cell)


def read_table(root):
    rows = {}
    path = os.path.join(root, TABLE)
    if not os.path.exists(path):
        return rows
    with open(path, encoding='utf-8') as f:
        for line in f:
            match = ROW.match(line.rstrip('\n'))
            if match:
                req, text, tests, note = match.groups()
                rows[req] = {'text': text, 'tests': cell_files(tests), 'note': note}
    return rows


def read_spec(path):
    spec = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            match = re.match(r'^(REQ-[A-Z]+-\d+): (.*)$', line.strip())
            if match:
                spec[match.group(1)] = match.group(2).replace('|', '\\|')
    return spec


def render(rows):
    out = [PREAMBLE]
    for area, title in AREAS:
        ids = sorted((r for r in rows if r.split('-')[1] == area), key=id_key)
        if not ids:
            continue
        out.append(f'## {title}\n\n{HEADER}')
        for req in ids:
            row = rows[req]
            out.append(f"| {req} | {row['text']} | {files_cell(row['tests'])} | {row['note']} |")
        out.append('')
    return '\n'.join(out)


def check(root):
    rows, named = read_table(root), scan(root)
    problems = []
    for req, files in sorted(named.items(), key=lambda kv: id_key(kv[0])):
        if req not in rows:
            problems.append(f'{req} is named by {", ".join(files)} but is not in {TABLE}')
            continue
        for f in sorted(set(files) - set(rows[req]['tests'])):
            problems.append(f'{req}: {f} names it but its row does not list it')
    for req, row in rows.items():
        for f in sorted(set(row['tests']) - set(named.get(req, []))):
            problems.append(f'{req}: its row lists {f}, which does not name it')
        if req not in named and row['note'].strip() in ('', '—'):
            problems.append(f'{req}: no test names it and its row does not say why')
    for problem in problems:
        print(f'{TABLE}: {problem}', file=sys.stderr)
    if problems:
        print('run tests/packaging/requirements_table.py --write to update the tests column',
              file=sys.stderr)
        return 1
    print(f'{len(rows)} requirements, {sum(1 for r in rows if r in named)} named by tests')
    return 0


def write(root, spec_path):
    rows, named = read_table(root), scan(root)
    spec = read_spec(spec_path) if spec_path else {}
    for req, text in spec.items():
        rows.setdefault(req, {'text': text, 'tests': [], 'note': '—'})
    for req in named:
        rows.setdefault(req, {'text': '', 'tests': [], 'note': '—'})
    for req, row in rows.items():
        row['tests'] = named.get(req, [])
    with open(os.path.join(root, TABLE), 'w', encoding='utf-8') as f:
        f.write(render(rows))
    return 0


def main():
    parser = argparse.ArgumentParser()
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--check', action='store_true')
    mode.add_argument('--write', action='store_true')
    parser.add_argument('--spec')
    parser.add_argument('root')
    args = parser.parse_args()
    return check(args.root) if args.check else write(args.root, args.spec)


if __name__ == '__main__':
    sys.exit(main())
