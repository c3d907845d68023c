#!/usr/bin/env bash
# A task's gate workloads side by side (docs/operating-maced.md#workloads-side-by-side),
# measured in one run on a real, patched checkout: ten of OpenPiton's pico diags on the
# pico 1x1 model, three ways, alternating ROUNDS times (default 2):
#
#   serial loop   `sims -vlt_run` of each diag, one after another, each in a fresh directory,
#                 on the model MACE built: the baseline;
#   MACE, 1       a maced run of the ten with "parallel_workloads": 1 (as MACE did before);
#   MACE          the same run with maced's default: as many at once as the task's share
#                 of the machine.
#
# Every verdict and cycle count of each MACE run is compared with the serial loop's; a
# difference fails the bench. Printed: each round's wall seconds and the ratios against the
# serial loop of the same round.
#
#   bench/parallel_workloads.sh CHECKOUT [BUILD_DIR]   (BUILD_DIR default: build)
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 CHECKOUT [BUILD_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
checkout=$(cd "$1" && pwd)
build=${2:-build}
[[ $build = /* ]] || build=$root/$build
rounds=${ROUNDS:-2}
diags=(add.S and.S beq.S bge.S blt.S bne.S jal.S lw.S or.S sw.S)
for d in "${diags[@]}"; do
  [[ -f $checkout/piton/verif/diag/assembly/riscv/pico/$d ]] || { echo "no pico diag $d in $checkout" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/mace-parallel-bench.XXXXXX")
maced_pid=
cleanup() {
  [[ -n $maced_pid ]] && kill "$maced_pid" 2>/dev/null && wait "$maced_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
printf '{"checkouts": [{"path": "%s"}]}\n' "$checkout" >"$work/maced.json"
"$build/daemon/maced/maced" --state-dir "$work/state" --socket "$work/maced.sock" \
  --config "$work/maced.json" --workloads "$root/workloads" >"$work/maced.log" 2>&1 &
maced_pid=$!
mace() { "$build/client/mace" --socket "$work/maced.sock" "$@"; }
for _ in $(seq 100); do [[ -S $work/maced.sock ]] && break; sleep 0.1; done

list=$(printf '"%s", ' "${diags[@]}")
# run PARALLEL: one MACE run of the ten; prints its wall seconds, leaves its status JSON.
run() {
  local extra=""
  [[ $1 != default ]] && extra=", \"parallel_workloads\": $1"
  printf '{"core": "pico", "mesh": [1, 1], "backend": "direct", "objective": "ten pico diags",
           "workloads": [%s], "waveform": false%s}\n' "${list%, }" "$extra" >"$work/spec.json"
  local id
  id=$(mace submit "$work/spec.json" | head -1)
  mace watch "$id" >/dev/null || { echo "parallel_workloads.sh: run $id did not pass" >&2; mace status "$id" >&2; exit 1; }
  mace --json status "$id" >"$work/status.json"
  python3 - "$work/status.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["run"]
print("%.2f" % ((r["finished_at_ms"] - r["started_at_ms"]) / 1000.0))
EOF
}
# The verdicts and cycles of the last run: "diag verdict cycles" lines.
mace_verdicts() {
  python3 - "$work/status.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tasks"]:
    for r in t["results"]:
        print(r["workload"], r["verdict"], r.get("cycles"))
EOF
}

# The model, built (or reused) by a first run, whose build ID the serial loop runs on.
run 1 >/dev/null
model=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"][0]["build_id"])' "$work/status.json")
echo "model $model on $checkout; ${#diags[@]} diags; $(nproc) CPUs"

# serial: the plain loop; prints its wall seconds, writes "diag verdict cycles" lines.
serial() {
  local start end d dir line
  start=$(date +%s.%N)
  : >"$work/serial.txt"
  for d in "${diags[@]}"; do
    dir=$work/serial/$d
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && env -i HOME="$HOME" PATH=/usr/bin:/bin bash -c \
      "export PITON_ROOT='$checkout'; source '$checkout/piton/piton_settings.bash' >/dev/null 2>&1;
       sims -sys=manycore -x_tiles=1 -y_tiles=1 -vlt_run -pico -build_id=$model \
            -rv32_target_triple=riscv64-unknown-elf $d" >/dev/null 2>&1)
    line=$(grep -a -m1 -E '^ *[0-9]+ ?: Simulation -> ' "$dir/sim.log" || true)
    case $line in
      *PASS*) echo "$d pass $(( ${line%%[ :]*} / 500 ))" ;;
      *) echo "$d other -" ;;
    esac >>"$work/serial.txt"
  done
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

declare -a s1 m1 mp
for r in $(seq "$rounds"); do
  s=$(serial)
  a=$(run 1)
  mace_verdicts | sort >"$work/mace1.txt"
  b=$(run default)
  mace_verdicts | sort >"$work/macep.txt"
  sort "$work/serial.txt" >"$work/serial.sorted"
  for f in mace1 macep; do
    if ! diff -u "$work/serial.sorted" "$work/$f.txt" >"$work/$f.diff"; then
      echo "parallel_workloads.sh: round $r: $f's verdicts or cycles differ from the serial loop's:" >&2
      cat "$work/$f.diff" >&2
      exit 1
    fi
  done
  printf 'round %d: serial loop %6.2f s   MACE 1 at a time %6.2f s (%.2f x)   MACE side by side %6.2f s (%.2f x)\n' \
    "$r" "$s" "$a" "$(echo "$a / $s" | bc -l)" "$b" "$(echo "$b / $s" | bc -l)"
done
echo "every verdict and cycle count of both MACE runs equals the serial loop's"
