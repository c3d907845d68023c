#!/usr/bin/env python3
"""Every relative link of README.md and docs/**/*.md must lead somewhere.

A link `[text](path)` must name a file or folder that exists, relative to the page; with
`#anchor` (or an anchor alone, on the same page) the Markdown file it names must have a
heading whose GitHub anchor is that. Links with a scheme (https:, mailto:, man:) are not
followed. Code spans and fenced code blocks are not read for links.

    tests/packaging/check_doc_links.py SOURCE_ROOT
"""
import os
import re
import sys

LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def lines_outside_fences(text):
    """(line number, line) of the text outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split('\n'), 1):
        marker = re.match(r'(`{3,}|~{3,})', line.lstrip())
        if marker and fence is None:
            fence = marker.group(1)
        elif marker and marker.group(1).startswith(fence):
            fence = None
        elif fence is None:
            yield number, line


def anchor_of(heading):
    """GitHub's anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r'`', '', heading.strip().lower())
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        seen, found = {}, set()
        for _, line in lines_outside_fences(text):
            match = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if match:
                base = anchor_of(match.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f'{base}-{count}')
        cache[path] = found
    return cache[path]


def pages(root):
    yield os.path.join(root, 'README.md')
    for directory, subdirs, files in os.walk(os.path.join(root, 'docs')):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith('.md'):
                yield os.path.join(directory, name)


def check_page(page, root):
    problems = []
    with open(page, encoding='utf-8') as f:
        text = f.read()
    for number, line in lines_outside_fences(text):
        for match in LINK.finditer(re.sub(r'(`+).+?\1', '', line)):
            target = match.group(1)
            if SCHEME.match(target):
                continue
            path_part, _, anchor = target.partition('#')
            where = f'{os.path.relpath(page, root)}:{number}: {target}'
            destination = os.path.normpath(os.path.join(os.path.dirname(page), path_part)) \
                if path_part else page
            if not os.path.realpath(destination).startswith(os.path.realpath(root) + os.sep):
                problems.append(f'{where}: leads outside the repository')
            elif not os.path.exists(destination):
                problems.append(f'{where}: no such file')
            elif anchor and destination.endswith('.md') and anchor not in anchors(destination):
                problems.append(f'{where}: {os.path.relpath(destination, root)} has no heading #{anchor}')
    return problems


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    problems = []
    for page in pages(root):
        problems += check_page(page, root)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print('every relative link of README.md and docs/ resolves')
    return 0


if __name__ == '__main__':
    sys.exit(main())
