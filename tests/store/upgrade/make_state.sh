#!/usr/bin/env bash
# make_state.sh COMMIT: builds MACE as it was at COMMIT, runs that maced on a fixture
# checkout the way a user would (a direct run that passes, one that fails, one planned by a
# model through a stand-in for Vertex, and an evaluation batch where that MACE has them),
# and keeps the state directory it wrote as tests/store/upgrade/v<schema>/:
#   mace.sql   the database as SQL text (sqlite3 .dump, then its user_version), with the
#              absolute paths of that run written @STATE@ and @CHECKOUT@
#   runs/      the runs' kept logs, as the evidence root held them (schema 12 on)
#   made_by    the commit, the schema version and when
# The upgrade tests (tests/store/upgrade_test.cc, tests/daemon/upgrade_test.cc) open each in
# the MACE of today. Run by hand, once per schema version, when a migration is added:
#   tests/store/upgrade/make_state.sh <the last commit of main before the new migration>
# Needs what a build needs, python3 and sqlite3.
set -euo pipefail

commit=${1:?usage: make_state.sh COMMIT}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d /tmp/mace-upgrade.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  git -C "$repo" worktree remove --force "$work/src" 2>/dev/null || true
  [[ -n ${MACE_KEEP_WORK-} ]] || rm -rf "$work"
}
trap cleanup EXIT
say() { printf 'make_state: %s\n' "$*" >&2; }

say "building $commit in $work"
git -C "$repo" worktree add --detach "$work/src" "$commit" >/dev/null 2>&1
meson setup "$work/build" "$work/src" >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
ninja -C "$work/build" daemon/maced/maced client/mace >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
maced=$work/build/daemon/maced/maced
mace_client=$work/build/client/mace

# The fixture checkout of that commit, as its tests make one: a git repository.
cp -r "$work/src/tests/fixtures/openpiton" "$work/checkout"
# Patched for Verilator 5 as that commit's tests patch it, where it had the option: later
# maceds refuse a checkout that is not.
if grep -q -- '--only' "$work/src/scripts/patch_openpiton.sh" 2>/dev/null; then
  "$work/src/scripts/patch_openpiton.sh" --only testbench "$work/checkout" >/dev/null
fi
(
  cd "$work/checkout"
  export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=f@mace.invalid GIT_COMMITTER_NAME=fixture \
    GIT_COMMITTER_EMAIL=f@mace.invalid GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  git -c init.defaultBranch=main init -q && git add -A && git commit -qm fixture
)

python3 "$here/fake_vertex.py" >"$work/vertex.port" &
pids+=($!)
for _ in $(seq 50); do [[ -s $work/vertex.port ]] && break; sleep 0.1; done
port=$(head -1 "$work/vertex.port")

printf '{"checkouts": [{"path": "%s"}]}\n' "$work/checkout" >"$work/maced.json"
MACE_VERTEX_ENDPOINT=http://127.0.0.1:$port MACE_VERTEX_ACCESS_TOKEN=fixture-token \
  GOOGLE_CLOUD_PROJECT=fixture GOOGLE_CLOUD_LOCATION=us-central1 \
  "$maced" --socket "$work/m.sock" --state-dir "$work/state" --config "$work/maced.json" \
  --workloads "$work/src/workloads" >"$work/maced.log" 2>&1 &
maced_pid=$!
pids+=($maced_pid)
for _ in $(seq 100); do [[ -S $work/m.sock ]] && break; sleep 0.1; done
mace() { "$mace_client" --socket "$work/m.sock" "$@"; }
control() { printf '%s\n' "$@" >"$work/checkout/.fake_sims/control"; }
mkdir -p "$work/checkout/.fake_sims"

run() {  # run NAME SPEC_JSON: submits, waits for the end, prints the run ID
  printf '%s\n' "$2" >"$work/$1.json"
  local id
  id=$(mace submit "$work/$1.json" | head -1)
  mace watch "$id" >/dev/null 2>&1 || true
  say "$1: $id $(mace status "$id" | head -3 | tr '\n' ' ')"
  echo "$id"
}
spec() {  # spec OBJECTIVE BACKEND [MORE]
  printf '{"core": "pico", "mesh": [1, 1], "backend": "%s", "objective": "upgrade fixture: %s",
    "workloads": ["add.S"], "budget": {"max_iterations": 2, "max_usd": 1.0}%s}' "$2" "$1" "${3-}"
}

control
run passed "$(spec 'a direct run that passes' direct)" >/dev/null
control run=fail
run failed "$(spec 'a direct run that fails' direct)" >/dev/null
run planned "$(spec 'planned by a model, and failing, so diagnosed' vertex)" >/dev/null
control
run planned_pass "$(spec 'planned by a model' vertex)" >/dev/null
if mace eval --help >/dev/null 2>&1 || mace help 2>&1 | grep -q '^ *eval'; then
  cat >"$work/suite.json" <<SUITE
{"suite": "upgrade", "tasks": [{"id": "defaults", "spec": $(spec 'an evaluation task' direct), "expert": {}}]}
SUITE
  if batch=$(mace eval submit "$work/suite.json" --methods mace 2>"$work/eval.err" | head -1) && [[ -n $batch ]]; then
    for _ in $(seq 300); do
      mace eval status "$batch" 2>/dev/null | head -1 | grep -q 'running' || break
      sleep 0.2
    done
    say "eval: $batch $(mace eval status "$batch" | head -1)"
  else
    say "eval submit refused: $(cat "$work/eval.err")"
  fi
fi

kill -TERM "$maced_pid"
wait "$maced_pid" || true

version=$(sqlite3 "$work/state/mace.db" 'PRAGMA user_version')
out=$here/v$version
rm -rf "$out"
mkdir -p "$out"
{
  sqlite3 "$work/state/mace.db" .dump
  echo "PRAGMA user_version=$version;"
} | sed -e "s#$work/state#@STATE@#g" -e "s#$work/checkout#@CHECKOUT@#g" -e "s#$work#@WORK@#g" >"$out/mace.sql"
if [[ -d $work/state/runs ]]; then cp -r "$work/state/runs" "$out/runs"; fi
printf 'commit %s\nschema %s\nmade %s\nmace %s\n' "$(git -C "$repo" rev-parse "$commit")" "$version" \
  "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" "$("$maced" --version)" >"$out/made_by"
say "schema $version: $(grep -c '^INSERT INTO' "$out/mace.sql") rows in $out"
