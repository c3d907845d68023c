# Shared by the stand-ins for the vendors' CLIs (claude, opencode, agy). Sourced, not run.
#
# A test chooses what the stand-in does with MACE_STANDIN_SCENARIO (success, tool,
# rate_limit, auth, billing, invalid, server, output_limit) and where it records what it
# was given with MACE_STANDIN_RECORD: its argv (one argument a line), its standard input
# and the MCP configuration it found, then the MCP exchange when it used a tool.
#
# For whole runs, where one maced makes several calls (tests/daemon/cli_run_test.cc):
# - MACE_STANDIN_REPLY: what `success` answers instead of "PONG"; `tool` answers it on a
#   line after the tool's answer (a plan, say).
# - MACE_STANDIN_QUEUE: a directory of files, one taken (and removed) per call in name
#   order; its first line is that call's scenario, the lines after it (if any) its reply.
#   An empty or missing queue falls back to MACE_STANDIN_SCENARIO and MACE_STANDIN_REPLY.
# - MACE_STANDIN_TOOL, MACE_STANDIN_TOOL_ARGS: the tool `tool` calls (default: the first
#   the server lists) and its arguments (default {"text": "hello from the agent"}).
# - MACE_STANDIN_COST: the cost claude and opencode report for a call (default 0.0123 and
#   0.00042, as below); MACE_STANDIN_COST_BASIS: claude's modelUsage costBasis ("list";
#   "unknown" is what Claude Code says for a model it has no price for).
#
# Only agy is still a stand-in in the whole-run tests of the real CLIs: Google publishes
# no `agy` on npm or Debian. claude and opencode run for real against a fake Messages API
# (tests/daemon/real_cli_run_test.cc); these stand-ins remain for the cheap, scripted
# checks of tests/llm and tests/daemon/cli_run_test.cc, and print what the real CLIs print
# (Claude Code 2.1.332, opencode 1.18.33).

scenario=${MACE_STANDIN_SCENARIO:-success}
record=${MACE_STANDIN_RECORD:-/dev/null}
reply=${MACE_STANDIN_REPLY:-PONG}
reply_given=${MACE_STANDIN_REPLY:+yes}
if [[ -n ${MACE_STANDIN_QUEUE:-} && -d $MACE_STANDIN_QUEUE ]]; then
  next=$(find "$MACE_STANDIN_QUEUE" -maxdepth 1 -type f | LC_ALL=C sort | head -n 1)
  if [[ -n $next ]]; then
    scenario=$(head -n 1 "$next")
    queued_reply=$(tail -n +2 "$next")
    if [[ -n $queued_reply ]]; then reply=$queued_reply; reply_given=yes; fi
    rm -f -- "$next"
  fi
fi

# The `tool` scenario's answer: the tool's text, then the scripted reply when there is one.
tool_answer() {  # $1: what the tool said
  if [[ -n $reply_given ]]; then
    printf 'The tool answered: %s\n%s' "$1" "$reply"
  else
    printf 'The tool answered: %s' "$1"
  fi
}

record_call() {  # $1: the MCP configuration file ("" for none); then the argv
  local config=$1
  shift
  {
    echo "---argv---"
    printf '%s\n' "$@"
    echo "---stdin---"
    cat
    echo
    echo "---config---"
    if [[ -n $config && -f $config ]]; then cat "$config"; echo; fi
  } >>"$record"
}

# Starts the MCP server `command args...` and does what an agent does: initialize,
# notifications/initialized, tools/list, then tools/call of the first tool (or
# MACE_STANDIN_TOOL) with {"text": "hello from the agent"} (or MACE_STANDIN_TOOL_ARGS).
# Prints the text of the tool's answer.
use_first_tool() {
  coproc MCP { "$@" 2>>"$record.mcp-stderr"; }
  local init list call name arguments
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"standin","version":"1.0"}}}' >&"${MCP[1]}"
  read -r init <&"${MCP[0]}"
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&"${MCP[1]}"
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >&"${MCP[1]}"
  read -r list <&"${MCP[0]}"
  name=${MACE_STANDIN_TOOL:-$(jq -r '.result.tools[0].name' <<<"$list")}
  arguments=${MACE_STANDIN_TOOL_ARGS:-}
  [[ -n $arguments ]] || arguments='{"text":"hello from the agent"}'
  jq -cn --arg n "$name" --argjson a "$arguments" \
    '{jsonrpc:"2.0",id:3,method:"tools/call",params:{name:$n,arguments:$a}}' \
    >&"${MCP[1]}"
  read -r call <&"${MCP[0]}"
  eval "exec ${MCP[1]}>&-"
  wait "$MCP_PID"
  {
    echo "---mcp---"
    printf '%s\n' "$init" "$list" "$call"
  } >>"$record"
  jq -r '.result.content[0].text' <<<"$call"
}
