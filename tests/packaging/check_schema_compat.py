#!/usr/bin/env python3
"""Fails when schema/mace.capnp breaks a client built against the last released schema.

    check_schema_compat.py RELEASED CURRENT [--selftest]

Both files are read through `capnp compile -ocapnp`, which prints each struct's fields with
their ordinals, types, defaults and places in the message. A client of RELEASED keeps
working only if, in CURRENT:

  - every struct, enum and interface of RELEASED is still there, an interface with its ID
    (a call names the interface by it);
  - every field keeps its name, ordinal, type, default and place (renumbered, retyped or
    moved, an old client reads the wrong bytes), and no ordinal is given to another field;
  - every enumerant keeps its ordinal;
  - every method keeps its ordinal, and its parameters and results begin with the
    released ones, unchanged (new ones may only be added at the end).

Anything added is fine. Prints each break, one per line, and exits 1 if there is one.
--selftest checks the checker on small schemas of its own.
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

FIELD = re.compile(r"^(\w+) @(\d+) :(.+?)(?: = (.+?))?;\s*#\s*(.*)$")
ENUMERANT = re.compile(r"^(\w+) @(\d+);")
METHOD = re.compile(r"^(\w+) @(\d+) \((.*?)\)(?: -> (?:\((.*?)\)|(\w+)))?;")
OPEN = re.compile(r"^(struct|enum|interface) (\w+) @(0x[0-9a-f]+)")
ANON = re.compile(r"^(?:(\w+) :)?(union|group)\b")


def canonical(path):
    """capnp's own reading of the schema file, one declaration per line."""
    out = subprocess.run(
        ["capnp", "compile", "-ocapnp", "-I/usr/include", "-I/usr/local/include", str(path)],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"check_schema_compat: capnp cannot read {path}:\n{out.stderr}")
    return out.stdout


def declarations(text):
    """{kind: {scope: {...}}}: fields by scope ("Run", "SpecSource.union"), enumerants,
    methods and the interfaces' IDs."""
    fields, enums, methods, ids = {}, {}, {}, {}
    scope = []  # [(kind, name)]
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("$") or line.startswith("@0x") \
                or line.startswith("const ") or line.startswith("using "):
            continue
        if line.startswith("}"):
            if scope:
                scope.pop()
            continue
        opened = OPEN.match(line)
        if opened:
            kind, name, ident = opened.groups()
            scope.append((kind, name))
            path = ".".join(n for _, n in scope)
            ids[path] = (kind, ident)
            continue
        anon = ANON.match(line)
        if anon and line.endswith("{") or (anon and "{" in line):
            scope.append(("group", anon.group(1) or anon.group(2)))
            continue
        path = ".".join(n for _, n in scope)
        kind = scope[-1][0] if scope else ""
        if kind == "enum":
            m = ENUMERANT.match(line)
            if m:
                enums.setdefault(path, {})[m.group(1)] = int(m.group(2))
        elif kind == "interface":
            m = METHOD.match(line)
            if m:
                results = params(m.group(4) or "") if m.group(5) is None else [("", m.group(5))]
                methods.setdefault(path, {})[m.group(1)] = (int(m.group(2)), params(m.group(3)), results)
        else:
            m = FIELD.match(line)
            if m:
                name, ordinal, type_, default, place = m.groups()
                fields.setdefault(path, {})[name] = (int(ordinal), type_, default or "", place.strip())
    return fields, enums, methods, ids


def params(text):
    """"a :Text, b :List(X)" as [("a", "Text"), ("b", "List(X)")]."""
    out, depth, current = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        depth += c == "("
        depth -= c == ")"
        current += c
    if current.strip():
        out.append(current)
    return [tuple(p.strip().split(" :", 1)) for p in out]


def breaks(released_text, current_text):
    old_f, old_e, old_m, old_ids = declarations(released_text)
    new_f, new_e, new_m, new_ids = declarations(current_text)
    found = []
    for path, (kind, ident) in old_ids.items():
        if path not in new_ids:
            found.append(f"{kind} {path} is gone")
        elif kind == "interface" and new_ids[path][1] != ident:
            found.append(f"interface {path} changed its ID from {ident} to {new_ids[path][1]}")
    for path, old in old_f.items():
        new = new_f.get(path, {})
        by_ordinal = {v[0]: k for k, v in new.items()}
        for name, (ordinal, type_, default, place) in old.items():
            if name not in new:
                taken = by_ordinal.get(ordinal)
                found.append(f"{path}.{name} @{ordinal} is gone" + (f" (@{ordinal} is now {taken})" if taken else ""))
                continue
            n_ordinal, n_type, n_default, n_place = new[name]
            if n_ordinal != ordinal:
                found.append(f"{path}.{name} was renumbered from @{ordinal} to @{n_ordinal}")
            if n_type != type_:
                found.append(f"{path}.{name} was retyped from {type_} to {n_type}")
            if n_default != default:
                found.append(f"{path}.{name} changed its default from {default or '(none)'} to {n_default or '(none)'}")
            if n_place != place and n_ordinal == ordinal and n_type == type_:
                found.append(f"{path}.{name} moved in the message from {place} to {n_place}")
    for path, old in old_e.items():
        new = new_e.get(path, {})
        for name, ordinal in old.items():
            if name not in new:
                found.append(f"enumerant {path}.{name} @{ordinal} is gone")
            elif new[name] != ordinal:
                found.append(f"enumerant {path}.{name} was renumbered from @{ordinal} to @{new[name]}")
    for path, old in old_m.items():
        new = new_m.get(path, {})
        for name, (ordinal, ins, outs) in old.items():
            if name not in new:
                found.append(f"method {path}.{name} @{ordinal} is gone")
                continue
            n_ordinal, n_ins, n_outs = new[name]
            if n_ordinal != ordinal:
                found.append(f"method {path}.{name} was renumbered from @{ordinal} to @{n_ordinal}")
            if n_ins[:len(ins)] != ins:
                found.append(f"method {path}.{name}'s parameters changed: ({fmt(ins)}) is now ({fmt(n_ins)})")
            if n_outs[:len(outs)] != outs:
                found.append(f"method {path}.{name}'s results changed: ({fmt(outs)}) is now ({fmt(n_outs)})")
    return found


def fmt(ps):
    return ", ".join(f"{n} :{t}" for n, t in ps)


def selftest():
    base = """@0xd0a1b2c3d4e5f601;
struct A { x @0 :UInt32; y @1 :Text; u :union { p @2 :Bool; q @3 :Text; } }
enum E { a @0; b @1; }
interface I { m @0 (a :Text) -> (b :UInt32); }
"""
    cases = {
        "added field, enumerant, method and result": (base.replace("y @1 :Text;", "y @1 :Text; z @4 :Bool;")
                                                      .replace("b @1;", "b @1; c @2;")
                                                      .replace("-> (b :UInt32);", "-> (b :UInt32, c :Text); n @1 () -> ();"), []),
        "renumbered": (base.replace("x @0 :UInt32; y @1 :Text;", "x @1 :UInt32; y @0 :Text;"), ["renumbered"]),
        "retyped": (base.replace("x @0 :UInt32", "x @0 :UInt64"), ["retyped"]),
        "field gone": (base.replace("y @1 :Text;", "").replace("q @3", "q @1"), ["gone"]),
        "enumerant renumbered": (base.replace("a @0; b @1;", "b @0; a @1;"), ["renumbered"]),
        "result retyped": (base.replace("-> (b :UInt32)", "-> (b :Text)"), ["results changed"]),
        "union member retyped": (base.replace("q @3 :Text", "q @3 :Data"), ["retyped"]),
    }
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        old = Path(d) / "old.capnp"
        old.write_text(base)
        old_text = canonical(old)
        for name, (text, expected) in cases.items():
            new = Path(d) / "new.capnp"
            new.write_text(text)
            got = breaks(old_text, canonical(new))
            ok = (not expected and not got) or (expected and all(any(e in g for g in got) for e in expected))
            if not ok:
                failed += 1
                print(f"selftest {name}: expected {expected or 'no break'}, got {got}")
    if failed:
        sys.exit(1)
    print(f"check_schema_compat selftest: {len(cases)} cases as expected")


def main():
    if "--selftest" in sys.argv:
        selftest()
        return
    if len(sys.argv) != 3:
        sys.exit("usage: check_schema_compat.py RELEASED CURRENT [--selftest]")
    found = breaks(canonical(sys.argv[1]), canonical(sys.argv[2]))
    for b in found:
        print(f"{sys.argv[2]}: {b} (clients built against {sys.argv[1]} would break)")
    if found:
        sys.exit(1)
    print(f"{sys.argv[2]} keeps every field, enumerant and method of {sys.argv[1]}")


if __name__ == "__main__":
    main()
