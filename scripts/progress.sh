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

# The file a new login shell of the user's reads first, where a PATH line belongs.
login_profile() {
  case ${SHELL##*/} in
    zsh) echo "$HOME/.zprofile" ;;
    bash)
      for f in "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.profile"; do
        [ -e "$f" ] && { echo "$f"; return; }
      done
      echo "$HOME/.profile" ;;
    *) echo "$HOME/.profile" ;;
  esac
}

# How to run `mace` from any shell: linked into ~/.local/bin (made when missing), and
# whether a new login shell finds it there, tried with one; else the line to add, and where.
# Then whether that shell finds this maced by itself.
say_how_to_use_mace() {
  local binary=$1 socket=$2 default_socket=$3 bin=$HOME/.local/bin
  local found
  # A new shell that finds no maced is the case to say, not a failure.
  found=$(env -u MACE_SOCKET "$binary" version 2>/dev/null | sed -n 's/^maced .* at \(.*\)$/\1/p' || true)
  echo "To use mace from any shell:"
  if [ -e "$bin/mace" ] && [ ! -L "$bin/mace" ]; then
    echo "  $bin/mace is a file of yours, left alone; run $binary, or:"
    echo "  export PATH=\"$(dirname "$binary"):\$PATH\""
  else
    mkdir -p "$bin"
    ln -sfn "$binary" "$bin/mace"
    # What a new login shell finds, asked of one: with nothing of this shell's environment
    # but HOME, USER and SHELL, as after a new login.
    local login_shell=${SHELL:-/bin/bash} in_new_login
    in_new_login=$(env -i HOME="$HOME" USER="${USER:-$(id -un)}" SHELL="$login_shell" TERM=dumb \
      "$login_shell" -l -c 'command -v mace' 2>/dev/null </dev/null || true)
    if [ "$in_new_login" = "$bin/mace" ]; then
      echo "  mace is linked into $bin, which a new login shell has on its PATH."
      case ":$PATH:" in
        *":$bin:"*) ;;
        *) echo "  In this shell: export PATH=\"$bin:\$PATH\"" ;;
      esac
    else
      echo "  mace is linked into $bin, which a new login shell does not have on its PATH. Add it:"
      echo "    echo 'export PATH=\"\$HOME/.local/bin:\$PATH\"' >> $(login_profile)"
      echo "  and in this shell: export PATH=\"$bin:\$PATH\""
    fi
  fi
  if [ "$found" = "$socket" ]; then
    echo "  It finds this maced by itself ($socket)."
  else
    echo "  export MACE_SOCKET=$socket   # without it, mace looks for maced at $default_socket and the usual places"
  fi
}

# The manual pages of the build tree DIR linked into ~/.local/share/man, where man finds
# them once ~/.local/bin is on PATH (man-db looks beside each PATH directory).
link_manual_pages() {
  local dir=$1 man=$HOME/.local/share/man
  [ -f "$dir/mace.1" ] || return 0
  mkdir -p "$man/man1" "$man/man8"
  ln -sfn "$dir/mace.1" "$man/man1/mace.1"
  ln -sfn "$dir/maced.8" "$man/man8/maced.8"
  echo "Manual pages: man mace, man maced (linked into $man)."
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
