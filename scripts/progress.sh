# What the quick start says as it goes and at its end (sourced by scripts/quickstart.sh):
# each long step named with the time it took, a build's steps counted, and how to go on.

if [ -t 1 ]; then progress_tty=1; else progress_tty=; fi

human_seconds() {  # 7 -> "7 s", 189 -> "3 min 9 s"
  local s=$1
  if [ "$s" -lt 60 ]; then echo "$s s"; else echo "$((s / 60)) min $((s % 60)) s"; fi
}

step() {
  step_name=$1
  step_started=$SECONDS
  echo "==> $step_name"
}

step_done() {
  echo "    done in $(human_seconds $((SECONDS - step_started)))"
}

# Reads a meson/ninja build's output, keeps all of it in LOG and shows a count of the
# build's steps instead: in place on a terminal, every tenth of the way on a pipe.
count_build_steps() {
  local log=$1
  : >"$log"
  awk -v logfile="$log" -v tty="$progress_tty" '
    { print >> logfile; fflush(logfile) }
    match($0, /^\[[0-9]+\/[0-9]+\]/) {
      split(substr($0, 2, RLENGTH - 2), n, "/")
      done = n[1] + 0; total = n[2] + 0
      if ($0 ~ / Compiling /) objects++
      text = sprintf("%d of %d build steps, %d object%s compiled", done, total, objects,
                     objects == 1 ? "" : "s")
      if (tty) { printf "\r\033[K    %s", text; fflush() }
      else if (done == total || int(done * 10 / total) != int((done - 1) * 10 / total)) {
        print "    " text; fflush()
      }
      shown = 1
    }
    /^ninja: no work to do/ { print "    already built"; shown = 0 }
    END { if (tty && shown) printf "\n" }
  '
}

# Two lines: how to run `mace` from any shell, and whether it finds this maced by itself.
say_how_to_use_mace() {
  local binary=$1 socket=$2 default_socket=$3 bin=$HOME/.local/bin on_path=
  case ":$PATH:" in *":$bin:"*) on_path=1 ;; esac
  local found
  # A new shell that finds no maced is the case to say, not a failure.
  found=$(env -u MACE_SOCKET "$binary" version 2>/dev/null | sed -n 's/^maced .* at \(.*\)$/\1/p' || true)
  echo "To use mace from any shell:"
  # Debian's ~/.profile puts ~/.local/bin on PATH at login when the folder exists.
  local at_login=
  grep -qs '\.local/bin' "$HOME/.profile" && at_login=1
  if { [ -n "$on_path" ] || [ -n "$at_login" ]; } && { [ ! -e "$bin/mace" ] || [ -L "$bin/mace" ]; }; then
    mkdir -p "$bin"
    ln -sfn "$binary" "$bin/mace"
    if [ -n "$on_path" ]; then
      echo "  mace is linked into $bin, which is on your PATH."
    else
      echo "  mace is linked into $bin, on your PATH from your next login; in this shell:"
      echo "  export PATH=\"$bin:\$PATH\""
    fi
  else
    echo "  export PATH=\"$(dirname "$binary"):\$PATH\""
  fi
  if [ "$found" = "$socket" ]; then
    echo "  It finds this maced by itself ($socket)."
  else
    echo "  export MACE_SOCKET=$socket   # without it, mace looks for maced at $default_socket and the usual places"
  fi
}

# A command and what it is for, the comments of several lined up.
hint() {
  printf '  %-48s  # %s\n' "$1" "$2"
}

# What to look at next, for the state the run is in.
say_what_next() {
  local run=$1 state=$2
  echo "Next:"
  case $state in
    passed)
      hint "mace report $run -o run.html" "the whole run as one page"
      hint "mace logs $run --build" "the Verilator build's log"
      ;;
    queued)
      echo "  the run waits for an OpenPiton checkout: set MACE_PITON_ROOT to one and run"
      echo "  scripts/quickstart.sh again, or cancel it: mace cancel $run"
      ;;
    running)
      hint "mace watch $run" "follow it to its end"
      hint "mace cancel $run" "stop it"
      ;;
    *)
      hint "mace status $run" "why it ended $state"
      hint "mace logs $run --build" "the build's log"
      ;;
  esac
  hint "mace list" "every run; docs/client.md has every command"
}
