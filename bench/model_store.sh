#!/usr/bin/env bash
# Building each model once (docs/model-store.md), measured side by side in one run on two real checkouts with the same sources
# (A with or without models, B a copy; B's mace_* model directories are removed as it goes):
#
#   1. the pico 1x1 model on checkout B: a cold build against a store hit (A published it);
#   2. a narrowing of a task with two changes (L1D and L1.5 halved): narrowing builds the
#      task with each change undone and with both undone, i.e. three models. Without: all
#      built from nothing. With the store and ccache (warmed by the task's own build, as in
#      a run): the default model comes from the store (step 1 put it there), the other two
#      are compiled through ccache. Then the same narrowing in another run (a retry, a
#      replay) on another checkout takes all three from the store;
#   3. a rebuild after a one-line RTL edit (an `initial $display` in picorv32.v), with and
#      without ccache (ccache warm from the unedited build);
#   4. two pico 1x1 builds at once (one per checkout): peak memory of all their processes
#      and the most compilers running at once, with sims' unbounded `make -j` against the
#      bound the local executor gives each (jobs = CPUs / 2 builds).
#
#   bench/model_store.sh CHECKOUT_A CHECKOUT_B [BUILD_DIR]   (BUILD_DIR default: build; needs
#                                                           BUILD_DIR/bench/model_build_bench)
# Each figure is one build on a machine that may be shared: read ratios, not seconds. CPU
# time (user + system of everything a build ran) is printed beside wall time: on a loaded
# machine it is the steadier figure. SECTIONS="1 3" runs only those sections.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 CHECKOUT_A CHECKOUT_B [BUILD_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
build=${3:-build}
[[ $build = /* ]] || build=$root/$build
bench=$build/bench/model_build_bench
[[ -x $bench ]] || { echo "model_store.sh: build $bench first (meson compile -C $build bench)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/mace-model-store-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
store=$work/store
cache=$work/ccache
cpus=$(nproc)
half_l1d=4096
half_l15=4096

# ccache's hits and misses so far in the bench's cache: "HITS MISSES".
ccache_counts() {
  CCACHE_DIR=$cache ccache --print-stats 2>/dev/null |
    awk '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
         $1 == "cache_miss" { m = $2 } END { printf "%d %d\n", h, m }'
}

# run LABEL CHECKOUT ARGS...: one build; prints and remembers its seconds as secs[LABEL],
# and for a build through ccache how many of its compiles hit.
declare -A secs cpu
run() {
  local label=$1 checkout=$2
  shift 2
  local out before after cached=""
  before=$(ccache_counts)
  out=$("$bench" "$checkout" "$@") || { echo "model_store.sh: $label failed" >&2; exit 1; }
  after=$(ccache_counts)
  secs[$label]=$(sed -n 's/^seconds=//p' <<<"$out")
  cpu[$label]=$(sed -n 's/^cpu_seconds=//p' <<<"$out")
  if [[ " $* " == *" --ccache="* ]]; then
    cached=$(awk -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " ");
      h = y[1] - x[1]; m = y[2] - x[2]; if (h + m > 0) printf ", ccache: %d of %d compiles hit", h, h + m }')
  fi
  printf '  %-44s %8.1f s wall %8.1f s CPU  (%s%s)\n' "$label" "${secs[$label]}" "${cpu[$label]}" \
    "$(sed -n 's/^source=//p' <<<"$out")" "$cached"
  grep '^note=' <<<"$out" | sed 's/^/    /' || true
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }

echo "machine: $cpus CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
sections=${SECTIONS:-1 2 3 4}
wanted() { [[ " $sections " == *" $1 "* ]]; }

if wanted 1; then
echo
echo "1. pico 1x1 on a second checkout"
run "A: build or reuse, publish to the store" "$a" --store="$store"
run "B: cold build, no store" "$b" --fresh
run "B: store hit" "$b" --fresh --store="$store"
echo "  => cold / store hit: $(ratio "${secs[B: cold build, no store]}" "${secs[B: store hit]}") wall, $(ratio "${cpu[B: cold build, no store]}" "${cpu[B: store hit]}") CPU"

fi

if wanted 2; then
echo
echo "2. narrowing a task with two changes (L1D $half_l1d, L1.5 $half_l15)"
# Narrowing rebuilds the task with each change undone, then with all undone (the default
# model), on the run's checkouts (docs/failures.md).
run "A: the task's own build (warms ccache)" "$a" --fresh --l1d=$half_l1d --l15=$half_l15 --ccache="$cache"
run "B without: L1D undone" "$b" --fresh --l15=$half_l15
run "B without: L1.5 undone" "$b" --fresh --l1d=$half_l1d
run "B without: both undone" "$b" --fresh
run "B with store+ccache: L1D undone" "$b" --fresh --l15=$half_l15 --ccache="$cache" --store="$store"
run "B with store+ccache: L1.5 undone" "$b" --fresh --l1d=$half_l1d --ccache="$cache" --store="$store"
run "B with store+ccache: both undone" "$b" --fresh --ccache="$cache" --store="$store"
run "A again (another run): L1D undone" "$a" --fresh --l15=$half_l15 --ccache="$cache" --store="$store"
run "A again (another run): L1.5 undone" "$a" --fresh --l1d=$half_l1d --ccache="$cache" --store="$store"
run "A again (another run): both undone" "$a" --fresh --ccache="$cache" --store="$store"
total() { awk 'BEGIN { t = 0; for (i = 1; i < ARGC; i++) t += ARGV[i]; printf "%.1f", t }' "$@"; }
without=$(total "${secs[B without: L1D undone]}" "${secs[B without: L1.5 undone]}" "${secs[B without: both undone]}")
with=$(total "${secs[B with store+ccache: L1D undone]}" "${secs[B with store+ccache: L1.5 undone]}" "${secs[B with store+ccache: both undone]}")
again=$(total "${secs[A again (another run): L1D undone]}" "${secs[A again (another run): L1.5 undone]}" "${secs[A again (another run): both undone]}")
without_cpu=$(total "${cpu[B without: L1D undone]}" "${cpu[B without: L1.5 undone]}" "${cpu[B without: both undone]}")
with_cpu=$(total "${cpu[B with store+ccache: L1D undone]}" "${cpu[B with store+ccache: L1.5 undone]}" "${cpu[B with store+ccache: both undone]}")
echo "  => narrowing's builds without: $without s; with store and ccache: $with s ($(ratio "$without" "$with")); the same narrowing in another run: $again s ($(ratio "$without" "$again"))"
echo "     CPU without: $without_cpu s; with store and ccache: $with_cpu s ($(ratio "$without_cpu" "$with_cpu"))"

fi

if wanted 3; then
echo
echo "3. rebuild after a one-line RTL edit"
pico=$b/piton/design/chip/tile/pico/rtl/picorv32.v
cp -p "$pico" "$work/picorv32.v.orig"
restore() { cp -p "$work/picorv32.v.orig" "$pico"; }
trap 'restore; rm -rf "$work"' EXIT
run "B: unedited, through ccache (warms it)" "$b" --fresh --ccache="$cache"
line=$(grep -n '^module picorv32 ' "$pico" | head -1 | cut -d: -f1)
close=$(awk -v from="$line" 'NR > from && /\);/ { print NR; exit }' "$pico")
sed -i "${close}a\\	initial \$display(\"mace bench: a one-line edit\");" "$pico"
run "B: edited, without ccache" "$b" --fresh
run "B: edited, through ccache" "$b" --fresh --ccache="$cache"
restore
echo "  => without / with ccache: $(ratio "${secs[B: edited, without ccache]}" "${secs[B: edited, through ccache]}") wall, $(ratio "${cpu[B: edited, without ccache]}" "${cpu[B: edited, through ccache]}") CPU"

fi

if wanted 4; then
echo
echo "4. two pico 1x1 builds at once"
# concurrent JOBS: both builds, sampling every process under them every 0.2 s; prints the
# peak of their summed RSS (MiB) and the most compilers (cc1plus) alive at once.
concurrent() {
  local jobs=$1
  "$bench" "$a" --fresh --jobs="$jobs" >"$work/a.out" &
  local pa=$!
  "$bench" "$b" --fresh --jobs="$jobs" >"$work/b.out" &
  local pb=$!
  python3 - "$pa" "$pb" <<'EOF'
import os, sys, time
roots = {int(p) for p in sys.argv[1:]}
peak_kib = 0
peak_cc = 0
def snapshot():
    parent, rss, name = {}, {}, {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open(f'/proc/{pid}/stat') as f:
                stat = f.read()
            with open(f'/proc/{pid}/status') as f:
                status = f.read()
        except OSError:
            continue
        p = int(pid)
        fields = stat[stat.rfind(')') + 2:].split()
        parent[p] = int(fields[1])
        name[p] = stat[stat.find('(') + 1:stat.rfind(')')]
        rss[p] = next((int(l.split()[1]) for l in status.splitlines() if l.startswith('VmRSS:')), 0)
    return parent, rss, name
while any(os.path.exists(f'/proc/{p}') and open(f'/proc/{p}/stat').read().split()[2] != 'Z' for p in roots):
    parent, rss, name = snapshot()
    members = set()
    for p in parent:
        q, seen = p, 0
        while q > 1 and seen < 64:
            if q in roots:
                members.add(p)
                break
            q = parent.get(q, 0)
            seen += 1
    peak_kib = max(peak_kib, sum(rss[p] for p in members))
    peak_cc = max(peak_cc, sum(1 for p in members if name[p] == 'cc1plus'))
    time.sleep(0.2)
print(f"{peak_kib // 1024} {peak_cc}")
EOF
  wait "$pa" || { echo "model_store.sh: a concurrent build failed" >&2; exit 1; }
  wait "$pb" || { echo "model_store.sh: a concurrent build failed" >&2; exit 1; }
}
bound=$(( cpus / 2 > 0 ? cpus / 2 : 1 ))
read -r unbounded_mib unbounded_cc < <(concurrent 0)
echo "  unbounded make -j:         peak $unbounded_mib MiB, at most $unbounded_cc compilers at once"
read -r bounded_mib bounded_cc < <(concurrent "$bound")
echo "  bounded to -j$bound per build:  peak $bounded_mib MiB, at most $bounded_cc compilers at once (bound: $((bound * 2)))"
echo "  => peak memory unbounded / bounded: $(ratio "$unbounded_mib" "$bounded_mib")"
fi
