#!/bin/sh
# toolgen validate: exit codes, error places, YAML, JSONL mode, resources, formats.
. tests/lib.sh
T=$TMP

cat >"$T/person.schema.json" <<'JSON'
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1},
    "age": {"type": "integer", "minimum": 0},
    "email": {"type": "string", "format": "email"},
    "address": {"$ref": "address.schema.json"}
  },
  "required": ["name"],
  "additionalProperties": false
}
JSON
cat >"$T/address.schema.json" <<'JSON'
{"$schema": "https://json-schema.org/draft/2020-12/schema",
 "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
JSON
printf '{"name": "Ada", "age": 36}\n' >"$T/ok.json"
printf '{\n  "name": "Ada",\n  "age": "old"\n}\n' >"$T/bad.json"
printf 'name: Ada\nage: -1\nextra: 1\n' >"$T/bad.yaml"
printf 'name: Ada\naddress:\n  city: Paris\n' >"$T/ok.yaml"
printf '{"name": "Ada", "address": {"zip": "75001"}}\n' >"$T/badref.json"
printf '{"name": "Ada", "email": "not-an-email"}\n' >"$T/email.json"

run "$TG" validate --schema "$T/person.schema.json" "$T/ok.json"
expect_rc "valid instance" 0
expect_out "valid instance" "ok.json: valid"

run "$TG" validate --schema "$T/person.schema.json" "$T/bad.json"
expect_rc "invalid instance" 1
expect_out "invalid instance verdict" "bad.json: invalid"
expect_out "invalid instance place" "bad.json:3:3: /age:"
expect_out "invalid instance keyword" "/properties/age/type"

run "$TG" validate --schema "$T/person.schema.json" "$T/bad.yaml"
expect_rc "yaml invalid" 1
expect_out "yaml minimum place" "bad.yaml:2:1: /age:"
expect_out "yaml additional property" "extra"

run "$TG" validate --schema "$T/person.schema.json" "$T/ok.json" "$T/ok.yaml"
expect_rc "several valid (relative \$ref to a sibling file)" 0

run "$TG" validate --schema "$T/person.schema.json" "$T/badref.json"
expect_rc "error through \$ref" 1
expect_out "error through \$ref location" "/address"

run "$TG" validate --schema "$T/person.schema.json" "$T/email.json"
expect_rc "format is an annotation by default" 0
run "$TG" validate --format-assert --schema "$T/person.schema.json" "$T/email.json"
expect_rc "format asserted" 1
expect_out "format asserted message" "/email"

run sh -c "printf '{\"name\":\"Ada\"}\n' | '$TG' validate --schema '$T/person.schema.json'"
expect_rc "instance from stdin" 0

# JSONL: one verdict line per instance, in order; blank lines skipped; bad JSON is invalid.
printf '{"name":"a"}\n{"name":1}\n\n{"name":"b","age":2}\nnot json\n{}\n' >"$T/in.jsonl"
run sh -c "'$TG' validate --jsonl --schema '$T/person.schema.json' <'$T/in.jsonl'"
expect_rc "jsonl with invalid lines" 1
expect_eq "jsonl verdicts" "$(echo "$OUT" | tr '\n' ' ')" "valid invalid valid invalid invalid "
expect_err "jsonl parse error names the line" "stdin:5"

run sh -c "'$TG' validate --jsonl --errors --schema '$T/person.schema.json' <'$T/in.jsonl'"
expect_rc "jsonl --errors" 1
line2=$(echo "$OUT" | sed -n 2p)
case "$line2" in "invalid ["*) ok ;; *) bad "jsonl --errors line 2 starts with 'invalid [': $line2" ;; esac
json2=${line2#invalid }
if printf '%s' "$json2" | node -e 'const e=JSON.parse(require("fs").readFileSync(0,"utf8"));process.exit(e[0].instanceLocation==="/name"&&e[0].keywordLocation==="/properties/name/type"&&e[0].error.length>0?0:1)' 2>/dev/null; then ok; else bad "jsonl --errors JSON shape: $json2"; fi
expect_eq "jsonl --errors valid line" "$(echo "$OUT" | sed -n 1p)" "valid"

run sh -c "printf '{\"name\":\"a\"}\n{\"name\":\"b\"}\n' | '$TG' validate --jsonl --schema '$T/person.schema.json'"
expect_rc "jsonl all valid" 0

# Remote documents come from a resource map, never the network.
mkdir -p "$T/remote/defs"
printf '{"$defs": {"pos": {"type": "integer", "minimum": 1}}}\n' >"$T/remote/defs/common.json"
printf '{"$ref": "http://example.test/schemas/defs/common.json#/$defs/pos"}\n' >"$T/remote.schema.json"
printf '5\n' >"$T/five.json"
printf '0\n' >"$T/zero.json"
run "$TG" validate --resource-dir "http://example.test/schemas/=$T/remote" --schema "$T/remote.schema.json" "$T/five.json"
expect_rc "resource-dir valid" 0
run "$TG" validate --resource-dir "http://example.test/schemas/=$T/remote" --schema "$T/remote.schema.json" "$T/zero.json"
expect_rc "resource-dir invalid" 1
run "$TG" validate --schema "$T/remote.schema.json" "$T/five.json"
expect_rc "unresolvable remote ref is a schema error" 2
expect_err "unresolvable remote ref message" "example.test"

# Bad schemas and bad usage: exit 2 with a message that says what to do.
printf '{"type": 12}\n' >"$T/badschema.json"
run "$TG" validate --schema "$T/badschema.json" "$T/ok.json"
expect_rc "invalid schema" 2
expect_err "invalid schema place" "badschema.json:1:"
expect_err "invalid schema verdict" "not a valid JSON Schema"
printf '{"pattern": "(unclosed"}\n' >"$T/badregex.json"
run "$TG" validate --schema "$T/badregex.json" "$T/ok.json"
expect_rc "bad regex in schema" 2
printf '{"type": "object",\n' >"$T/truncated.json"
run "$TG" validate --schema "$T/truncated.json" "$T/ok.json"
expect_rc "unparseable schema" 2
expect_err "unparseable schema place" "truncated.json:"
run "$TG" validate "$T/ok.json"
expect_rc "missing --schema" 2
expect_err "missing --schema message" "--schema FILE is required"
run "$TG" validate --schema "$T/person.schema.json" --bogus "$T/ok.json"
expect_rc "unknown option" 2
run "$TG" validate --schema "$T/nope.json" "$T/ok.json"
expect_rc "missing schema file" 2
expect_err "missing schema file message" "nope.json"
run "$TG" validate --schema "$T/person.schema.json" "$T/missing.json"
expect_rc "missing instance file" 1
expect_err "missing instance message" "missing.json"
run "$TG" validate --resource-dir nonsense --schema "$T/person.schema.json" "$T/ok.json"
expect_rc "bad --resource-dir" 2

# Help, version, unknown commands.
run "$TG" help validate
expect_rc "help validate" 0
expect_out "help validate text" "--jsonl"
run "$TG" validate --help
expect_rc "validate --help" 0
run "$TG" --help
expect_rc "--help" 0
expect_out "--help lists validate" "validate"
run "$TG" --version
expect_rc "--version" 0
expect_out "--version text" "toolgen "
run "$TG" frobnicate
expect_rc "unknown command" 2
expect_err "unknown command message" "not a toolgen command"
run "$TG"
expect_rc "no command" 2

finish cli-validate
