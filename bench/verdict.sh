#!/usr/bin/env bash
# Times the verdict parser (read_verdict, via verdict_bench) against `grep -c 'Simulation ->'`
# on the same 1 GiB sim.log, twice: a transcript that ends in PASS, and one with a FAIL line
# in the middle as well. Both tools read the file from the page cache (it was just written
# and is read once more before timing; nothing is dropped), they take turns RUNS times, and
# the best wall time and the best CPU time (user + system) of each count, so the figures
# compare reading and scanning, not the disk.
#
#   bench/verdict.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/bench/verdict_bench)
#
# Environment: RUNS (default 5), SIZE_MIB (default 1024), TMPDIR (where the file goes; it
# needs SIZE_MIB of free space and is deleted afterwards).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build=$root/$build
bench=$build/bench/verdict_bench
runs=${RUNS:-5}
size_mib=${SIZE_MIB:-1024}
target_bytes=$((size_mib * 1024 * 1024))

if [[ ! -x $bench ]]; then
  echo "verdict.sh: $bench not found; build it with: ninja -C $build bench/verdict_bench" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/verdict-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One short pico run's transcript, about 65,000 lines: testbench chatter with time stamps,
# hex addresses and data, a few "->" that are not markers (NoC hops, cache state changes),
# and at the end the per-thread idle notices. No verdict line: only the file's end has one.
awk -v lines=65000 'BEGIN {
  srand(7);
  print "Verilator run of cmp_top (manycore 1x1, pico), +TIMEOUT=1000000 +max_cycle=1500000";
  print "MEM: loading mem.image: 4096 lines, 65536 bytes";
  t = 5000;
  for (i = 0; i < lines; i++) {
    t += 250;
    r = i % 64;
    a = int(rand() * 4294967295);
    d = int(rand() * 4294967295);
    if (r < 30)
      printf "%d: [pico0] pc=0x%08x insn=0x%08x rd=x%d val=0x%08x\n", t, a % 65536 + 2147483648, d, i % 32, a;
    else if (r < 50)
      printf "%d : L15: tile0 thr%d req LOAD_RQ addr=0x%010x data=0x%08x%08x mshr=%d\n", t, i % 4, a * 16, d, a, i % 8;
    else if (r < 60)
      printf "%d : L2: bank%d addr=0x%010x way=%d state M->S hit=%d\n", t, i % 4, a * 64, i % 4, i % 2;
    else if (r < 62)
      printf "%d : noc1 -> noc2 tile(0,0) flit=0x%08x%08x hdr=%d\n", t, a, d, i % 3;
    else
      printf "Info: cycle %d, mem-rd 0x%08x -- ok\n", t / 250, a;
  }
  for (th = 0; th < 4; th++) printf "Info: spc(0) thread(%d) -> timeout happen\n", th;
  print "- /piton/build/manycore/rel-0.1/pc_cmp.tmp.v:1775: Verilog $finish";
}' >"$work/run.log"

block_bytes=$(stat -c %s "$work/run.log")
blocks=$(((target_bytes + block_bytes - 1) / block_bytes))

# make_log FILE WITH_FAIL: `blocks` transcripts end to end, a FAIL line after half of them if
# asked, and the PASS line last.
make_log() {
  local file=$1 with_fail=$2 i
  : >"$file"
  for ((i = 0; i < blocks; i++)); do
    cat "$work/run.log" >>"$file"
    if ((with_fail && i == blocks / 2)); then
      echo "4498250 : Simulation -> FAIL(HIT BAD TRAP)" >>"$file"
    fi
  done
  echo "7110750: Simulation -> PASS (HIT GOOD TRAP)" >>"$file"
}

# timed CMD...: "WALL CPU" of one run of CMD in milliseconds (CPU = user + system). Both
# are reported: on a busy machine the wall time mostly measures the other processes, the
# CPU time still measures the tool. Output goes to a file, not /dev/null: GNU grep notices
# /dev/null and stops at the first match, as with -q, which would skip half of the FAIL file.
timed() {
  local TIMEFORMAT='%3R %3U %3S' t
  t=$({ time "$@" >"$work/out" 2>&1; } 2>&1)
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%d %d\n", a[1] * 1000 + 0.5, (a[2] + a[3]) * 1000 + 0.5 }'
}

mbps() { awk -v b="$1" -v ms="$2" 'BEGIN { if (ms < 1) ms = 1; printf "%.0f", b / ms / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b < 1) b = 1; printf "%.2fx", a / b }'; }

measure() {
  local label=$1 with_fail=$2 expect=$3 file=$work/sim.log
  make_log "$file" "$with_fail"
  local bytes verdict count
  bytes=$(stat -c %s "$file")
  cat "$file" >/dev/null  # into the page cache, for both tools alike

  verdict=$("$bench" "$file" | sed -n 's/^verdict=//p')
  count=$(grep -c 'Simulation ->' "$file" || true)
  if [[ $verdict != "$expect" ]]; then
    echo "verdict.sh: $label: verdict_bench says '$verdict', expected '$expect'" >&2
    exit 1
  fi

  # The two tools take turns, so a change in the machine's load hits both alike.
  local our_wall=0 our_cpu=0 grep_wall=0 grep_cpu=0 i w u
  for ((i = 0; i < runs; i++)); do
    read -r w u < <(timed "$bench" "$file")
    if ((our_wall == 0 || w < our_wall)); then our_wall=$w; fi
    if ((our_cpu == 0 || u < our_cpu)); then our_cpu=$u; fi
    read -r w u < <(timed grep -c 'Simulation ->' "$file")
    if ((grep_wall == 0 || w < grep_wall)); then grep_wall=$w; fi
    if ((grep_cpu == 0 || u < grep_cpu)); then grep_cpu=$u; fi
  done
  printf '%s: %d MiB, verdict_bench says %s, grep -c counts %s lines\n' "$label" $((bytes / 1024 / 1024)) "$verdict" "$count"
  printf '  wall  verdict_bench %6s MB/s   grep -c %6s MB/s   ratio %s\n' \
    "$(mbps "$bytes" "$our_wall")" "$(mbps "$bytes" "$grep_wall")" "$(ratio "$grep_wall" "$our_wall")"
  printf '  cpu   verdict_bench %6s MB/s   grep -c %6s MB/s   ratio %s\n' \
    "$(mbps "$bytes" "$our_cpu")" "$(mbps "$bytes" "$grep_cpu")" "$(ratio "$grep_cpu" "$our_cpu")"
  rm -f "$file"
}

echo "sim.log of $blocks x $(wc -l <"$work/run.log")-line transcripts ($block_bytes bytes each)," \
  "best of $runs warm-cache runs each; MB = 10^6 bytes; ratio = grep time / verdict_bench time" \
  "(above 1: verdict_bench is faster); load average $(cut -d' ' -f1-3 /proc/loadavg)"
measure "PASS at the end" 0 pass
measure "FAIL mid-file, PASS at the end" 1 fail
