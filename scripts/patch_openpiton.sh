#!/usr/bin/env bash
# shellcheck disable=SC2016  # single-quoted arguments below are perl programs
# patch_openpiton.sh CHECKOUT -- make an OpenPiton checkout build and run with
# MACE's toolchain (Verilator 5 with --no-timing, Debian's riscv64-unknown-elf GCC).
# REQ-PLAT-6: run once on every checkout before its first build. Idempotent.
#
#   scripts/patch_openpiton.sh [--only STEP] CHECKOUT
#
# STEP (default: all five, in order): testbench (the Verilator 5 fix every diag needs),
# tile (the Generic Tile and each tile's first request), coverage (the testbench main
# writes coverage.dat), wave (a traced model writes a window of the waveform), pal
# (sparc .pal diags without /usr/tmp).
#
# Exit codes: 0 patched or already patched, 1 usage or internal error,
#             2 not an OpenPiton checkout, 3 a file is not the version we know.
#
# What needs no patch, because MACE passes it on sims' command line:
#   -vlt_build_args=--no-timing             Verilator 5 stops with NEEDTIMINGOPT otherwise
#   -rv32_target_triple=riscv64-unknown-elf sims defaults to riscv32-unknown-elf; it adds
#                                           -march=rv32ima -mabi=ilp32 itself
set -euo pipefail

only=
if [[ ${1:-} == --only ]]; then
    case ${2:-} in
        testbench|tile|coverage|wave|pal) only=$2; shift 2 ;;
        *) echo "$0: --only takes testbench, tile, coverage, wave or pal" >&2; exit 1 ;;
    esac
fi
if [[ $# -ne 1 ]]; then
    echo "usage: $0 [--only testbench|tile|coverage|wave|pal] OPENPITON_CHECKOUT" >&2
    exit 1
fi
root=${1%/}
# wanted STEP: whether this run applies STEP.
wanted() { [[ -z $only || $only == "$1" ]]; }

tb=piton/verif/env/manycore/ciop_iob.v.pyv
tile=piton/design/chip/tile/rtl/tile.v.pyv
top=piton/tools/verilator/my_top.cpp
pal=piton/tools/local/pal/1.13/bin/pal
for f in piton/piton_settings.bash piton/tools/bin/sims "$tb" "$tile" "$top"; do
    if [[ ! -f "$root/$f" ]]; then
        echo "error: $root is not an OpenPiton checkout (missing $f)" >&2
        exit 2
    fi
done

# patch_file FILE PERL: PERL sees the whole file in $_ and edits it, reporting
# its changes on file handle LOG; it exits 10 if the file is already patched and
# 3 if it does not recognise the file. The file is replaced only on success.
patch_file() {
    local file=$1 tmp rc=0
    tmp=$(mktemp "$file.XXXXXX")
    perl -0777 -ne 'open(LOG, ">&=", 3) or die; '"$2"' print;' "$file" 3>&1 >"$tmp" || rc=$?
    case $rc in
        0)  chmod --reference="$file" "$tmp" && mv "$tmp" "$file" ;;
        10) rm -f "$tmp"; echo "$file: already patched" ;;
        3)  rm -f "$tmp"
            echo "error: $file is not the version this script knows; left unchanged" >&2
            exit 3 ;;
        *)  rm -f "$tmp"; echo "error: patching $file failed (perl exit $rc)" >&2; exit 1 ;;
    esac
}

# 1. Testbench fix for Verilator 5. In ciop_iob.v.pyv the clocked always blocks
#    that fill and drain the IOB output FIFO (out_buffer / out_buffer_val: reset
#    loop, write on iob_buffer_val, clear on noc_out_rdy && noc_out_val) use
#    blocking '='. Verilator 5 schedules them so the IOB never delivers its first
#    packet and every diag of every core ends at max cycles. Make them '<='.
#    Each edited line is matched exactly, once in the file, inside its block
#    (from the anchor to the next top-level "always"/"endmodule").
wanted testbench && patch_file "$root/$tb" '
    my $wr = qr/^always \@ \(posedge `CHIP\.clk_muxed\)\n/m;   # write-port block
    my $rd = qr/^    if \(noc_out_rdy && noc_out_val\)\n/m;     # read-port clear
    my @edits = (
        [$wr, q{out_buffer[i] = 0;}],
        [$wr, qq{out_buffer_val[i] = 1\x27b0;}],
        [$wr, q{out_buffer[out_write_index + 1] = iob_buffer_data[63:0];}],
        [$wr, q{out_buffer[out_write_index] = iob_buffer_data[127:64];}],
        [$wr, qq{out_buffer_val[out_write_index] = 1\x27b1;}],
        [$wr, qq{out_buffer_val[out_write_index + 1] = 1\x27b1;}],
        [$rd, qq{out_buffer_val[out_read_index] = 1\x27b0;}],
    );
    my (@todo, $done, @log);
    for my $e (@edits) {
        my ($anchor, $old) = @$e;
        (my $new = $old) =~ s/ = / <= /;
        my ($o, $n) = (quotemeta $old, quotemeta $new);
        my $n_old = () = /^[ \t]+$o[ \t]*$/mg;
        my $n_new = () = /^[ \t]+$n[ \t]*$/mg;
        if    ($n_old == 0 && $n_new == 1) { $done++ }
        elsif ($n_old == 1 && $n_new == 0) { push @todo, [$anchor, $o, $old, $new] }
        else                               { exit 3 }
    }
    exit 10 if !@todo;
    exit 3 if $done;                    # partly patched: not a state we made
    for my $t (@todo) {
        my ($anchor, $o, $old, $new) = @$t;
        pos = undef;
        /$anchor/g or exit 3;
        my $start = pos;
        /\G(.*?)^(?:always|endmodule)\b/msg or exit 3;
        my ($block, $len) = ($1, length $1);
        $block =~ s/^([ \t]+)$o([ \t]*)$/$1$new$2/m or exit 3;
        substr($_, $start, $len) = $block;
        push @log, "$ARGV: $old  ->  $new\n";
    }
    print LOG @log;                     # only once every edit has applied
'

# 2. The Generic Tile (docs/generic-core.md). In the PICORV32_TILE branch of
#    tile.v.pyv: (a) when MACE_GENERIC_CORE is defined (MACE passes
#    -config_rtl=MACE_GENERIC_CORE for the core generic) the tile instantiates
#    mace_generic_wrapper, a per-core wrapper MACE's run writes into the checkout,
#    in place of picorv32 (same instance name and ports, so pico_l15_transducer
#    and the testbench's `PICO_CORE<n> references stay as they are); (b) every
#    tile prints its first memory request, so MACE can check it against the core
#    descriptor's reset vector (REQ-VER-17). The print must be a fixed part of the
#    tile, not of the wrapper a run's agent writes, or the agent could fake it.
wanted tile && patch_file "$root/$tile" '
    my $inst = "    picorv32 core(\n";
    my $after = "    pico_reset pico_reset(\n";
    if (index($_, "MACE_GENERIC_CORE") >= 0) {
        exit 10 if index($_, "MACE first request") >= 0;
        exit 3;                         # partly patched: not a state we made
    }
    my $i = index($_, $inst);
    exit 3 if $i < 0 || index($_, $inst, $i + 1) >= 0;
    substr($_, $i, length $inst) =
        "`ifdef MACE_GENERIC_CORE\n" .
        "    // MACE (scripts/patch_openpiton.sh): the Generic Tile hosts the run\x27s core\n" .
        "    // through its wrapper, which presents PicoRV32\x27s memory interface.\n" .
        "    mace_generic_wrapper core(\n" .
        "`else\n" .
        $inst .
        "`endif\n";
    my $j = index($_, $after);
    exit 3 if $j < 0 || index($_, $after, $j + 1) >= 0;
    substr($_, $j, 0) =
        "`ifndef SYNTHESIS\n" .
        "    // MACE (scripts/patch_openpiton.sh): each tile\x27s first memory request (REQ-VER-17).\n" .
        "    reg mace_first_request_seen;\n" .
        "    always @(posedge clk_gated) begin\n" .
        "        if (!rst_n_f)\n" .
        "            mace_first_request_seen <= 1\x27b0;\n" .
        "        else if (pico_transducer_mem_valid && !mace_first_request_seen) begin\n" .
        "            mace_first_request_seen <= 1\x27b1;\n" .
        "            \$display(\"MACE first request: tile %0d address 0x%08h\", flat_tileid, pico_transducer_mem_addr);\n" .
        "        end\n" .
        "    end\n" .
        "`endif\n\n";
    print LOG "$ARGV: PICORV32_TILE hosts mace_generic_wrapper under MACE_GENERIC_CORE and prints each tile\x27s first request\n";
'

# 3. Line coverage (REQ-EXEC-6). A model built with Verilator's --coverage-line
#    counts what it executes, but the testbench's C++ main (my_top.cpp) never writes
#    the counts out. When the model is built with coverage (Verilator's makefile
#    defines VM_COVERAGE=1 then, 0 otherwise) the main now writes coverage.dat into
#    the run directory once the simulation finishes, which MACE merges over a task's
#    workloads with verilator_coverage. A model built without coverage is unchanged.
wanted coverage && patch_file "$root/$top" '
    my $marker = "MACE (scripts/patch_openpiton.sh): a model built with coverage";
    exit 10 if index($_, $marker) >= 0;
    my $inc = "#include \"verilated.h\"\n";
    my $loop = "while (!Verilated::gotFinish()) { tick(); }\n";
    my $i = index($_, $inc);
    exit 3 if $i < 0 || index($_, $inc, $i + 1) >= 0;
    my $j = index($_, $loop);
    exit 3 if $j < 0 || index($_, $loop, $j + 1) >= 0;
    substr($_, $j + length $loop, 0) =
        "\n#if VM_COVERAGE\n" .
        "// $marker writes what it\n" .
        "// covered into the run directory, for verilator_coverage to merge.\n" .
        "Verilated::threadContextp()->coveragep()->write(\"coverage.dat\");\n" .
        "#endif\n";
    substr($_, $i + length $inc, 0) = "#if VM_COVERAGE\n#include \"verilated_cov.h\"\n#endif\n";
    print LOG "$ARGV: a model built with coverage writes coverage.dat when the simulation ends\n";
'

# 4. The waveform around a failure (docs/failures.md). OpenPiton's main can trace
#    (VERILATOR_VCD) only the whole run, every signal, into one VCD. A model built with
#    Verilator's --trace (its makefile then defines VM_TRACE=1) now traces only when the
#    environment names a file, and only a window of simulation time, so MACE can
#    re-simulate a failed workload and keep the cycles before the failure:
#      MACE_WAVE_FILE       the VCD to write (unset: nothing is traced)
#      MACE_WAVE_FROM/_TO   the window, in simulation time (the verdict line's unit)
#      MACE_WAVE_MAX_BYTES  the file stops growing past about this many bytes (0: no limit)
#      MACE_WAVE_DEPTH      hierarchy levels traced (default 99: every level)
#    When tracing stops the main writes MACE_WAVE_FILE.status, one line:
#      from=<time> to=<time> last=<last time dumped> end=window|size|finish
#    A model built without --trace is unchanged.
wanted wave && patch_file "$root/$top" '
    my $marker = "MACE (scripts/patch_openpiton.sh): a model built with --trace";
    exit 10 if index($_, $marker) >= 0;
    my $inc = "#include \"verilated.h\"\n";
    my $tick = "void tick() {\n";
    my $dump = "#ifdef VERILATOR_VCD\n    tfp->dump(main_time);\n#endif\n";
    my $new = "top = new Vcmp_top;\n";
    my $loop = "while (!Verilated::gotFinish()) { tick(); }\n";
    for my $once ($inc, $tick, $new, $loop) {
        my $i = index($_, $once);
        exit 3 if $i < 0 || index($_, $once, $i + 1) >= 0;
    }
    my $dumps = () = /\Q$dump\E/g;
    exit 3 if $dumps != 2;
    s/\Q$loop\E/$loop#if VM_TRACE\nmace_wave_end("finish");\n#endif\n/;
    s/\Q$new\E/#if VM_TRACE\nVerilated::traceEverOn(true);\n#endif\n$new#if VM_TRACE\nmace_wave_prepare();\n#endif\n/;
    s/\Q$dump\E/$dump#if VM_TRACE\n    mace_wave_dump();\n#endif\n/g;
    my $code = <<"CODE";
#if VM_TRACE
// $marker traces a window of the
// simulation into the VCD that MACE_WAVE_FILE names, for MACE to keep the cycles before a
// failure (scripts/patch_openpiton.sh says which variables steer it).
static VerilatedVcdC* mace_wave = 0;
static const char* mace_wave_file = 0;
static int mace_wave_state = 0;  // 0 before the window, 1 tracing, 2 done
static uint64_t mace_wave_from = 0, mace_wave_to = 0, mace_wave_max = 0, mace_wave_last = 0;
static uint64_t mace_wave_dumps = 0;
static uint64_t mace_wave_number(const char* name, uint64_t fallback) {
    const char* text = getenv(name);
    return text && *text ? strtoull(text, 0, 10) : fallback;
}
static void mace_wave_prepare() {
    mace_wave_file = getenv("MACE_WAVE_FILE");
    if (!mace_wave_file || !*mace_wave_file) { mace_wave_file = 0; return; }
    mace_wave_from = mace_wave_number("MACE_WAVE_FROM", 0);
    mace_wave_to = mace_wave_number("MACE_WAVE_TO", UINT64_MAX);
    mace_wave_max = mace_wave_number("MACE_WAVE_MAX_BYTES", 0);
    mace_wave = new VerilatedVcdC;
    top->trace(mace_wave, (int)mace_wave_number("MACE_WAVE_DEPTH", 99));
}
static void mace_wave_end(const char* why) {
    if (!mace_wave_file || mace_wave_state == 2) return;
    if (mace_wave_state == 1) mace_wave->close();
    mace_wave_state = 2;
    std::string status = std::string(mace_wave_file) + ".status";
    if (FILE* out = fopen(status.c_str(), "w")) {
        fprintf(out, "from=%llu to=%llu last=%llu end=%s\\n", (unsigned long long)mace_wave_from,
                (unsigned long long)mace_wave_to, (unsigned long long)mace_wave_last, why);
        fclose(out);
    }
}
static void mace_wave_dump() {
    if (!mace_wave_file || mace_wave_state == 2 || main_time < mace_wave_from) return;
    if (mace_wave_state == 0) {
        mace_wave->open(mace_wave_file);
        mace_wave_state = 1;
    }
    mace_wave->dump(main_time);
    mace_wave_last = main_time;
    if (main_time >= mace_wave_to) return mace_wave_end("window");
    if (mace_wave_max && ++mace_wave_dumps % 256 == 0) {
        mace_wave->flush();
        struct stat st;
        if (stat(mace_wave_file, &st) == 0 && (uint64_t)st.st_size > mace_wave_max)
            mace_wave_end("size");
    }
}
#endif

CODE
    s/\Q$tick\E/$code$tick/;
    s/\Q$inc\E/$inc#if VM_TRACE\n#include "verilated_vcd_c.h"\n#include <sys\/stat.h>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>\n#include <string>\n#endif\n/;
    print LOG "$ARGV: a model built with --trace writes the window of the waveform MACE_WAVE_FILE asks for\n";
'

# 5. pal, the preprocessor of sparc .pal diags, puts its temporaries in a
#    hard-coded /usr/tmp, which Debian lacks and only root can create. Use
#    $TMPDIR, else /tmp. Only .pal diags need it; .s/.S/.c diags do not run pal.
wanted pal || exit 0
[[ -f "$root/$pal" ]] || { echo "$root/$pal: not present, skipped"; exit 0; }
patch_file "$root/$pal" '
    my @log;
    for my $ext (qw(pp pl)) {
        my $lhs = "\$infile_$ext=  ";
        my $old = qq{"/usr/tmp/\$name.\$\$.$ext";};
        my $new = qq{(\$ENV{TMPDIR} || "/tmp") . "/\$name.\$\$.$ext";};
        next if index($_, $lhs . $new) >= 0 && index($_, $old) < 0;
        my $i = index($_, $lhs . $old);
        exit 3 if $i < 0 || index($_, $old, $i + length($lhs . $old)) >= 0;
        substr($_, $i + length $lhs, length $old) = $new;
        push @log, "$ARGV: $lhs$old  ->  $lhs$new\n";
    }
    exit 10 if !@log;
    print LOG @log;
'
