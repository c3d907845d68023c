# Shared by the stand-ins for the vendors' CLIs (claude, opencode, agy). Sourced, not run.
#
# A test chooses what the stand-in does with MACE_STANDIN_SCENARIO (success, tool,
# rate_limit, auth, billing, invalid, server, output_limit) and where it records what it
# was given with MACE_STANDIN_RECORD: its argv (one argument a line), its standard input
# and the MCP configuration it found, then the MCP exchange when it used a tool.

scenario=${MACE_STANDIN_SCENARIO:-success}
record=${MACE_STANDIN_RECORD:-/dev/null}

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
# notifications/initialized, tools/list, then tools/call of the first tool with
# {"text": "hello from the agent"}. Prints the text of the tool's answer.
use_first_tool() {
  coproc MCP { "$@" 2>>"$record.mcp-stderr"; }
  local init list call name
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"standin","version":"1.0"}}}' >&"${MCP[1]}"
  read -r init <&"${MCP[0]}"
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&"${MCP[1]}"
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >&"${MCP[1]}"
  read -r list <&"${MCP[0]}"
  name=$(jq -r '.result.tools[0].name' <<<"$list")
  jq -cn --arg n "$name" \
    '{jsonrpc:"2.0",id:3,method:"tools/call",params:{name:$n,arguments:{text:"hello from the agent"}}}' \
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
