# tests/mcp/lib.sh — what the MCP server tests share (source it after tests/lib.sh): message
# schemas per revision and their validation with toolgen validate, and the children of a process.

# The schemas of both revisions, and a wrapper per revision: an error, a server notification
# (progress, list changes, a subscription's acknowledgement), or a result whose type is picked
# by its members (a plain Result would accept anything).
SCHEMAS=tests/testdata/mcp-schema
wrapper() { # REVISION MEMBER TYPE: the handshake result of the revision
    mkdir -p "$TMP/$1"
    cp "$SCHEMAS/$1/schema.json" "$TMP/$1/schema.json"
    cat >"$TMP/$1/message.json" <<JSON
{
  "\$schema": "https://json-schema.org/draft/2020-12/schema",
  "anyOf": [
    {"\$ref": "schema.json#/\$defs/JSONRPCErrorResponse"},
    {"allOf": [{"\$ref": "schema.json#/\$defs/JSONRPCNotification"},
               {"\$ref": "schema.json#/\$defs/ServerNotification"}]},
    {"allOf": [
      {"\$ref": "schema.json#/\$defs/JSONRPCResultResponse"},
      {"if": {"properties": {"result": {"required": ["$2"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/$3"}}}},
      {"if": {"properties": {"result": {"required": ["tools"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/ListToolsResult"}}}},
      {"if": {"properties": {"result": {"required": ["content"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/CallToolResult"}}}},
      {"if": {"properties": {"result": {"required": ["resources"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/ListResourcesResult"}}}},
      {"if": {"properties": {"result": {"required": ["contents"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/ReadResourceResult"}}}},
      {"if": {"properties": {"result": {"required": ["resourceTemplates"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/ListResourceTemplatesResult"}}}},
      {"if": {"properties": {"result": {"required": ["prompts"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/ListPromptsResult"}}}},
      {"if": {"properties": {"result": {"required": ["messages"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/GetPromptResult"}}}},
      {"if": {"properties": {"result": {"required": ["completion"]}}},
       "then": {"properties": {"result": {"\$ref": "schema.json#/\$defs/CompleteResult"}}}}
    ]}
  ]
}
JSON
}
wrapper 2025-11-25 protocolVersion InitializeResult
wrapper 2026-07-28 supportedVersions DiscoverResult

# validate_log NAME REVISION FILE: every line of FILE is a valid message of REVISION
validate_log() {
    n=$(grep -c . "$3")
    run "$TG" validate --schema "$TMP/$2/message.json" --jsonl --errors <"$3"
    expect_rc "$1: $n messages valid ($2)" 0
    if [ "$n" -lt 1 ]; then bad "$1: no messages written"; fi
}

# descendant_named PID NAME: a process below PID, at any depth, whose command is NAME (its
# pid), or nothing: e.g. the `sleep` a call runs, beside the server's other children (warm
# workers, which start with the server)
descendant_named() {
    dn_level=$1 dn_found=""
    while [ -n "$dn_level" ] && [ -z "$dn_found" ]; do
        dn_next=""
        for dn_p in $dn_level; do
            for dn_c in $(children_of "$dn_p"); do
                { read -r dn_comm <"/proc/$dn_c/comm"; } 2>/dev/null || continue
                if [ "$dn_comm" = "$2" ]; then
                    dn_found=$dn_c
                    break
                fi
                dn_next="$dn_next $dn_c"
            done
            [ -n "$dn_found" ] && break
        done
        dn_level=$dn_next
    done
    printf '%s' "$dn_found"
}

# children_of PID: the processes whose parent is PID (from /proc: no procps needed)
children_of() {
    parent=$1
    for s in /proc/[0-9]*/stat; do
        # The process may end between the glob and the read: that is expected, so the shell's
        # own "cannot open" message (printed before a trailing 2>/dev/null applies) is hidden
        # by the braces. Builtins only: fast on a busy machine.
        { read -r line <"$s"; } 2>/dev/null || continue
        set -- ${line##*) } # the fields after "(comm)": state, ppid, ...
        [ "$2" = "$parent" ] || continue
        d=${s#/proc/}
        printf '%s ' "${d%/stat}"
    done
}
