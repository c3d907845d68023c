#!/usr/bin/env bash
# `meson install --destdir` of this build, then what a packager gets: the binaries, the
# systemd units naming the configured paths (ExecStart the installed maced), the manual
# pages mace(1) and maced(8) (rendered without a warning, every command in mace(1)), bash
# completion that completes every command and flag,
# and `systemd-analyze verify` of the installed units with their man: references checked.
# Exit 77 (meson's "skipped") when a tool is missing, saying which.
set -euo pipefail
build=${MACE_BUILD_ROOT:?run through meson test}
for tool in systemd-analyze man python3; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >/dev/null

option() {
  meson introspect "$build" --buildoptions |
    python3 -c "import json,sys; print(next(o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'))"
}
prefix=$(option prefix)
join() { [[ $2 == /* ]] && echo "$2" || echo "$1/$2"; }
sbindir=$(join "$prefix" "$(option sbindir)")
bindir=$(join "$prefix" "$(option bindir)")
mandir=$(join "$prefix" "$(option mandir)")
datadir=$(join "$prefix" "$(option datadir)")
units=$dest$prefix/lib/systemd/system

fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -x $dest$sbindir/maced ]] || fail "no $sbindir/maced"
[[ -x $dest$bindir/mace ]] || fail "no $bindir/mace"
for unit in maced.service maced.socket; do
  [[ -f $units/$unit ]] || fail "no $unit in $prefix/lib/systemd/system"
  ! grep -n '@[a-z]*@' "$units/$unit" || fail "$unit has an unfilled @placeholder@"
done
grep -qx "ExecStart=$sbindir/maced --config .*" "$units/maced.service" ||
  fail "ExecStart does not name $sbindir/maced: $(grep ExecStart "$units/maced.service")"
echo "units name $sbindir/maced"

# The pages render, and groff has nothing to say about them.
for page in man1/mace.1 man8/maced.8; do
  file=$dest$mandir/$page
  [[ -f $file ]] || fail "no $mandir/$page"
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$file" 2>&1 >/dev/null || true)
  [[ -z $warnings ]] || fail "$page: $warnings"
  rendered=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$file" 2>/dev/null)
  grep -q "^NAME" <<<"$rendered" || fail "$page renders without a NAME section"
done
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$dest$mandir/man1/mace.1" 2>/dev/null | grep -- "--follow" >/dev/null ||
  fail "mace(1) does not describe logs --follow"
echo "man pages render without warnings"

# Completion: commands, a command's flags.
completion=$dest$datadir/bash-completion/completions/mace
[[ -f $completion ]] || fail "no bash completion"
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mace; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$completion" "$@"
}
[[ $(complete_words mace lo) == logs ]] || fail "mace lo<TAB> is not logs"
# grep reads every word offered: -q would stop at the first and, under pipefail, fail the
# pipeline whenever the completion was still writing (--follow, then --file).
complete_words mace logs RUN --f | grep -x -- --follow >/dev/null || fail "mace logs RUN --f<TAB> lacks --follow"
echo "bash completion completes"

# Every command: its own --help, its entry in mace(1), completion; no page with an unfilled
# @PLACEHOLDER@.
"$(dirname "$0")/check_commands_documented.py" "$dest$bindir/mace" "$dest$mandir/man1/mace.1" \
  "$dest$mandir/man8/maced.8" "$completion" || fail "a command is not documented or completed"

# verify, man pages checked (the default --man=yes), against the installed tree: --root
# finds ExecStart's maced under it, MANPATH the installed pages. The targets our units
# name (sockets.target, ...) come from this machine's systemd, copied under the root.
mkdir -p "$dest/usr/lib/systemd/system"
cp -a -n /usr/lib/systemd/system/. "$dest/usr/lib/systemd/system/"
out=$(MANPATH=$dest$mandir systemd-analyze verify --root="$dest" \
  "$units/maced.socket" "$units/maced.service" 2>&1) || { echo "$out"; fail "systemd-analyze verify"; }
if grep -E "maced\.(service|socket)" <<<"$out"; then fail "systemd-analyze verify warned"; fi
echo "installed units verified, man pages checked"
