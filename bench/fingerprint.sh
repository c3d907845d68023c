#!/usr/bin/env bash
# Times the source fingerprint (source_fingerprint(), via fingerprint_bench) against plain
# `git status --porcelain` on the same checkout. Each command is a fresh process, run RUNS
# times, the two alternating so that a burst of load on a shared machine hits both alike;
# the best of each counts, so both run with a warm page cache and the figures compare work,
# not the disk. CPU time (user + system, children included) is reported beside wall time:
# on a loaded machine it is the steadier figure. The fingerprint's own work is one
# `git status --porcelain=v2 -z --untracked-files=all` plus hashing the files it names, so
# both ratios should stay near 1 on a checkout with few changes.
#
#   bench/fingerprint.sh CHECKOUT [BUILD_DIR]   (default: build; needs
#                                                BUILD_DIR/bench/fingerprint_bench)
#
# Environment: RUNS (default 20).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 CHECKOUT [BUILD_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
checkout=$(cd "$1" && pwd)
build=${2:-build}
[[ $build = /* ]] || build=$root/$build
bench=$build/bench/fingerprint_bench
runs=${RUNS:-20}

if [[ ! -x $bench ]]; then
  echo "fingerprint.sh: $bench not found; build it with: ninja -C $build bench/fingerprint_bench" >&2
  exit 2
fi

# measure CMD...: "WALL_MS CPU_MS" of one run, output discarded.
measure() {
  local TIMEFORMAT='%3R %3U %3S' line
  line=$({ time "$@" >/dev/null; } 2>&1)
  awk '{ printf "%d %d\n", $1 * 1000 + 0.5, ($2 + $3) * 1000 + 0.5 }' <<<"$line"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'; }

"$bench" "$checkout" >/dev/null  # warm the page cache for both alike
files=$(git -C "$checkout" ls-files | wc -l)
changed=$(git -C "$checkout" status --porcelain --untracked-files=all | wc -l)
report=$("$bench" "$checkout")

ours_wall=0 ours_cpu=0 theirs_wall=0 theirs_cpu=0
for ((i = 0; i < runs; i++)); do
  read -r wall cpu < <(measure "$bench" "$checkout")
  if ((i == 0 || wall < ours_wall)); then ours_wall=$wall; fi
  if ((i == 0 || cpu < ours_cpu)); then ours_cpu=$cpu; fi
  read -r wall cpu < <(measure git -C "$checkout" status --porcelain)
  if ((i == 0 || wall < theirs_wall)); then theirs_wall=$wall; fi
  if ((i == 0 || cpu < theirs_cpu)); then theirs_cpu=$cpu; fi
done

echo "checkout $checkout: $files tracked files, $changed changed or untracked;" \
  "best of $runs alternating runs, each a fresh process"
echo "$report" | sed -n 's/^\(digest\|changes\|ariane\)=/  &/p'
printf '%-24s best wall %5d ms   best CPU %5d ms\n' "git status --porcelain" "$theirs_wall" "$theirs_cpu"
printf '%-24s best wall %5d ms   best CPU %5d ms\n' "fingerprint_bench" "$ours_wall" "$ours_cpu"
printf 'ratio (fingerprint / git status): wall %s, CPU %s\n' \
  "$(ratio "$ours_wall" "$theirs_wall")" "$(ratio "$ours_cpu" "$theirs_cpu")"
