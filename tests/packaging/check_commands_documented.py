#!/usr/bin/env python3
"""Every command `mace --help` lists is documented and completed, as installed.

For each command: `mace COMMAND --help` is about that command (its usage line names it);
mace(1), rendered by man, has an entry whose tag is the command with every flag of its
usage line (a tag broken over two lines loses its flags); bash completion offers the
command, its second word, and every flag of its usage line. No rendered page shows an
unfilled @PLACEHOLDER@.

    check_commands_documented.py MACE MACE_1 MACED_8 COMPLETION
"""
import os
import re
import subprocess
import sys


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def render(page):
    env = dict(os.environ, LC_ALL='C.UTF-8', MANWIDTH='200')
    out = run(['man', '-E', 'UTF-8', '-l', page], env=env).stdout
    return re.sub(r'.\x08', '', out)  # overstrike from a man without a pager set up


def commands(mace):
    text = run([mace, '--help']).stdout
    names = []
    in_commands = False
    for line in text.splitlines():
        if line == 'Commands:':
            in_commands = True
        elif in_commands and not line.strip():
            break
        elif in_commands and not re.match(r'  \S', line):
            continue  # a summary under a long synopsis
        elif in_commands:
            words = []
            # The name and synopsis end where the summary's column begins (two spaces or more).
            head = re.split(r'\s{2,}', line.strip())[0]
            for word in head.split():
                if not re.fullmatch(r'[a-z]+', word):
                    break
                words.append(word)
            names.append(' '.join(words))
    return names


def complete(completion, words):
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mace; '
              'printf "%s\\n" "${COMPREPLY[@]}"')
    return run(['bash', '-c', script, '_', completion] + words).stdout.split()


def main():
    mace, mace_page, maced_page, completion = sys.argv[1:5]
    problems = []
    names = commands(mace)
    if len(names) < 10:
        problems.append(f'`mace --help` lists {len(names)} commands: {names}')
    rendered = render(mace_page)
    for page, text in ((mace_page, rendered), (maced_page, render(maced_page))):
        for placeholder in sorted(set(re.findall(r'@[A-Z_]+@', text))):
            problems.append(f'{os.path.basename(page)} shows {placeholder}')
    tags = [line.strip() for line in rendered.splitlines() if re.match(r'^ {7}[a-z]', line)]
    for name in names:
        usage = run([mace] + name.split() + ['--help']).stdout.splitlines()
        first = usage[0] if usage else ''
        if not first.startswith(f'usage: mace {name}'):
            problems.append(f'`mace {name} --help` begins {first!r}, not with its usage')
            continue
        flags = re.findall(r'(?<![\w-])(--?[a-z][a-z-]*)', first[len(f'usage: mace {name}'):])
        # A command may have several entries (`logs RUN`, `logs RUN --list`): together their
        # tags name every flag; a flag only in an entry's body is a tag broken over two lines.
        tagged = ' '.join(tag for tag in tags if re.match(re.escape(name) + r'\b', tag))
        untagged = [f for f in flags if not re.search(r'(?<![\w-])' + re.escape(f) + r'\b', tagged)]
        if not tagged or untagged:
            problems.append(f'mace(1) has no entry tagged "{name}" with {" ".join(untagged or flags)}')
        words = name.split()
        if words[0] not in complete(completion, ['mace', words[0][:2]]):
            problems.append(f'completion does not offer "{words[0]}"')
        if len(words) == 2 and words[1] not in complete(completion, ['mace', words[0], '']):
            problems.append(f'completion does not offer "{words[1]}" after "{words[0]}"')
        offered = complete(completion, ['mace'] + words + ['-'])
        for flag in flags:
            if flag not in offered:
                problems.append(f'completion does not offer {flag} after "mace {name}"')
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f'{len(names)} commands: each with its own help, its entry in mace(1) and completion')
    return 0


if __name__ == '__main__':
    sys.exit(main())
