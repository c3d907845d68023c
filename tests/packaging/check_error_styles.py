#!/usr/bin/env python3
"""Each layer throws only what docs/architecture.md says it throws.

The layer table's last column ("how it reports errors") names, in backquotes, the
exceptions a folder may throw. Every `throw X(...)` / `throw X{...}` in that folder's
sources must name one of them; `throw f(...)` where f is a function of the folder that
makes the exception (`ValueError bad(...)`) counts as the type f returns. A rethrow
(`throw;`, `throw e;` of a caught object) is not a new error and is not checked.

  check_error_styles.py SOURCE_ROOT      exit 1 naming each throw the table does not allow
"""
import pathlib
import re
import sys

THROW = re.compile(r"\bthrow\s+([A-Za-z_][\w:]*)(\s*\.\s*(\w+))?\s*([({])")
CODE_SPAN = re.compile(r"`([^`]+)`")


def last(name):
    return name.split("::")[-1]


def layer_rules(architecture):
    """{folder: set of allowed exception names (last component)} from the layer table."""
    rules = {}
    for line in architecture.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4:
            continue
        folder = CODE_SPAN.fullmatch(cells[0])
        if not folder or not folder.group(1).endswith("/"):
            continue
        names = {last(span) for span in CODE_SPAN.findall(cells[-1])}
        if folder.group(1).startswith(("daemon/", "client/")):
            rules[folder.group(1).rstrip("/")] = names
    return rules


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def factory_types(sources):
    """{function name: the type it returns} for the folder's functions whose return type
    is an exception class or std::..._error, so `throw bad(...)` is resolved."""
    types = {}
    definition = re.compile(
        r"(?:^|\n)\s*(?:\[\[\w+\]\]\s*)?(?:static\s+|inline\s+)*([A-Za-z_][\w:]*)\s+(?:\w+::)*(\w+)\s*\(")
    for text in sources.values():
        for m in definition.finditer(text):
            ret, name = m.group(1), m.group(2)
            if ret in ("return", "throw", "else", "new", "delete", "case", "void", "auto"):
                continue
            types.setdefault(name, ret)
    return types


def lambda_types(text):
    """{lambda name: the type it returns} for `auto f = [..](..) -> T {` and for
    `auto f = [..] { return T(...)`, the file's own exception makers."""
    types = {}
    for m in re.finditer(r"auto\s+(\w+)\s*=\s*\[[^\]]*\]\s*(\([^)]*\))?\s*(->\s*([\w:]+))?\s*\{"
                         r"\s*(return\s+([\w:]+)\s*[({])?", text):
        made = m.group(4) or m.group(6)
        if made:
            types[m.group(1)] = made
    return types


def check(root):
    root = pathlib.Path(root)
    rules = layer_rules((root / "docs" / "architecture.md").read_text())
    problems = []
    for folder, allowed in sorted(rules.items()):
        directory = root / folder
        if not directory.is_dir():
            continue
        sources = {
            p: strip_comments(p.read_text(errors="replace"))
            for p in sorted(directory.rglob("*"))
            if p.suffix in (".cc", ".h")
        }
        makers = factory_types(sources)
        for path, text in sources.items():
            local = lambda_types(text)
            for m in THROW.finditer(text):
                name = m.group(3) or m.group(1)
                thrown = last(name)
                if thrown[0].islower() and not name.startswith("std::"):
                    # A function that makes the exception (or a method of an object that does).
                    maker = local.get(thrown) or makers.get(thrown)
                    if maker is None:
                        continue  # a rethrow of a caught object: not a new error
                    thrown = last(maker)
                if thrown not in allowed:
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(
                        f"{path.relative_to(root)}:{line}: throws {thrown}, which "
                        f"docs/architecture.md does not name for {folder}/ "
                        f"(it names: {', '.join(sorted(allowed)) or 'nothing'})")
    return rules, problems


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rules, problems = check(sys.argv[1])
    if not rules:
        print("error: no layer table found in docs/architecture.md", file=sys.stderr)
        return 1
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"error styles: {len(rules)} folders, every throw as docs/architecture.md says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
