#!/bin/bash
# The documentation checks must fail when they should: a broken link, a missing heading, a
# link out of the repository, a test file missing from the requirements table, a row
# listing a file that does not name its requirement and a layer throwing what its row of
# the architecture page does not name are each reported, in a tree made here.
set -euo pipefail
root=${MACE_SOURCE_ROOT:?MACE_SOURCE_ROOT is not set (run with meson test)}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/docs" "$tree/tests/core" "$tree/bench"
fail=0
expect() {  # expect WHAT OUTPUT: OUTPUT must hold WHAT
  if ! grep -qF -- "$1" <<<"$2"; then
    echo "not reported: $1"; echo "$2"; fail=1
  fi
}

cat >"$tree/README.md" <<'MD'
# Top
See [the page](docs/page.md#a-section), [gone](docs/gone.md), [no heading](docs/page.md#nowhere),
[out](../../etc/passwd), [self](#top) and `[in code](nothing.md)`.
```
[in a fence](nothing.md)
```
MD
printf '# Page\n\n## A section\n' >"$tree/docs/page.md"
out=$("$root/tests/packaging/check_doc_links.py" "$tree" 2>&1) && { echo "broken links passed"; fail=1; }
expect 'README.md:2: docs/gone.md: no such file' "$out"
expect 'docs/page.md has no heading #nowhere' "$out"
expect '../../etc/passwd: leads outside the repository' "$out"
[ "$(grep -c 'README.md' <<<"$out")" -eq 3 ] || { echo "wrong count:"; echo "$out"; fail=1; }

# Spelt through a variable, so that this file names no requirement itself.
req=REQ
printf "// ${req}-PLAN-1\n" >"$tree/tests/core/a_test.cc"
printf "// ${req}-PLAN-2..3\n" >"$tree/tests/core/b_test.cc"
"$root/tests/packaging/requirements_table.py" --write "$tree" >/dev/null
"$root/tests/packaging/requirements_table.py" --check "$tree" >/dev/null \
  || { echo "a table just written does not check"; fail=1; }
expect "${req}-PLAN-3 |  | [tests/core/b_test.cc](../tests/core/b_test.cc)" "$(cat "$tree/docs/requirements.md")"
printf "// ${req}-PLAN-1 ${req}-PLAN-9\n" >"$tree/tests/core/b_test.cc"
out=$("$root/tests/packaging/requirements_table.py" --check "$tree" 2>&1) && { echo "stale table passed"; fail=1; }
expect "${req}-PLAN-1: tests/core/b_test.cc names it but its row does not list it" "$out"
expect "${req}-PLAN-2: its row lists tests/core/b_test.cc, which does not name it" "$out"
expect "${req}-PLAN-9 is named by tests/core/b_test.cc but is not in docs/requirements.md" "$out"

# Error styles: a layer throws a type its row names, one made by a helper function, one made
# by a lambda, rethrows; and one type its row does not name.
mkdir -p "$tree/daemon/store"
cat >"$tree/docs/architecture.md" <<'MD'
| folder | what | may use | how it reports errors |
|---|---|---|---|
| `daemon/store/` | the store | `os` | throws `store::Error` |
MD
cat >"$tree/daemon/store/a.cc" <<'CC'
// throw std::logic_error("in a comment: not code");
Error made(int rc);
void f() { throw Error("x"); }
void g() { throw made(1); }
void h() { auto fail = [&] { return Error("y"); }; throw fail(); }
void i() { try { f(); } catch (Error& e) { throw e; } }
void j() { throw std::runtime_error("not in the row"); }
CC
out=$("$root/tests/packaging/check_error_styles.py" "$tree" 2>&1) && { echo "an unnamed throw passed"; fail=1; }
expect 'daemon/store/a.cc:7: throws runtime_error' "$out"
[ "$(grep -c 'throws' <<<"$out")" -eq 1 ] || { echo "wrong count:"; echo "$out"; fail=1; }
exit $fail
