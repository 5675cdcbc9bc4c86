#!/bin/sh
# toolgen init --from-openapi (docs/cli.md#init-from-openapi): the Petstore in OpenAPI 3.0 (YAML)
# and 3.1 (JSON) and GitHub's api.github.com document (1223 operations, deep $refs) become
# lint-clean draft manifests with unique names within the budget, whose build is byte-stable;
# a drafted Petstore tool calls a stand-in of the service on loopback (tests/cli/petstore_api.py)
# through `toolgen run` and through `serve --dev`; bad documents are refused, naming the place,
# with nothing written; re-running updates drafts, says what changed, and leaves a reviewed
# manifest as it is; a hints file selects, renames and describes operations; overrides survive
# re-running.
. tests/lib.sh

PY=/usr/bin/python3
need "$PY" "python3"
D=tests/testdata/openapi
tree_sum() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs cat | cksum); }
names_ok() { # DIR BUDGET: every tool folder is a snake_case name within BUDGET
    for n in $(ls "$1/manifests"); do
        case $n in .gitkeep) continue ;; esac
        if [ ${#n} -gt "$2" ] || ! printf '%s' "$n" | grep -Eq '^[a-z][a-z0-9_]*$'; then
            echo "$n"; return 1
        fi
        grep -q "^name: $n\$" "$1/manifests/$n/tool.manifest.yaml" || { echo "$n: name differs"; return 1; }
    done
}

# ---- Petstore 3.0 (YAML) ----
P=$TMP/pets
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$P"
expect_rc "petstore 3.0: drafted" 0
expect_out "the folder became a repository first" "made a toolgen repository first"
expect_out "7 tools" "drafted 7 tools"
for t in list_pets create_pets show_pet_by_id remove_pet find_pets; do
    expect_out "created $t" "created    $t"
done
expect_out "x-toolgen exclude leaves an operation out" "GET /pets/{petId}/owner: excluded"
expect_out "x-mcp: false leaves an operation out" "GET /internal/health: excluded"
expect_out "a body that is not JSON: left out, saying why" "PUT /pets/{petId}/photo: its request body is application/octet-stream"
expect_err "plain http to a remote server becomes https, with a warning" "the drafts use https://petstore.swagger.io/v1"
expect_err "the recursive Owner schema was cut" "1 \$refs were cut: recursive"
M=$P/manifests
expect_eq "every draft has status draft" "$(cat $M/*/tool.manifest.yaml | grep -c '^status: draft$')" 7
expect_eq "names collide: the second gets a hash suffix" \
    "$(ls $M | grep -c '^find_pets_[0-9a-f]\{8\}$')" 1
long=$(ls $M | grep '^list_all_the_owners')
[ ${#long} -le 48 ] && printf '%s' "$long" | grep -q '_[0-9a-f]\{8\}$' && ok ||
    bad "a long operationId is cut to 48 with a hash ($long)"
names_ok "$P" 48 && ok || bad "petstore names within 48 and equal to their folders"
grep -q 'cut here (docs/cli.md#init-from-openapi)' $M/list_all_the_owners*/tool.manifest.yaml && ok ||
    bad "the cut is marked in the schema"
L=$M/list_pets/tool.manifest.yaml
grep -q '^risk: low$' $L && grep -q '^  read_only: true$' $L && ok || bad "GET: risk low, read_only"
grep -q '^risk: high$' $M/remove_pet/tool.manifest.yaml && ok || bad "DELETE: risk high"
grep -q '^risk: medium$' $M/create_pets/tool.manifest.yaml &&
    grep -q '^  read_only: false$' $M/create_pets/tool.manifest.yaml && ok || bad "POST: risk medium, not read_only"
grep -q '^    wrap: result$' $L && ok || bad "an array answer is wrapped as {result}"
sed -n '/^output_schema/,/^error_codes/p' $M/show_pet_by_id/tool.manifest.yaml | grep -A3 '^    tag:' |
    grep -q '"null"' && ok ||
    bad "3.0 nullable: true becomes a type with null in the output schema"
grep -q 'readOnly' $M/create_pets/tool.manifest.yaml && ! sed -n '/^input_schema/,/^output_schema/p' $M/create_pets/tool.manifest.yaml | grep -q '  id:' &&
    ok || bad "a readOnly property (id) is not among the request's properties"
grep -q 'exclusiveMinimum: 0' $M/create_pets/tool.manifest.yaml && ! grep -q 'discriminator\|xml:\|nullable' $M/create_pets/tool.manifest.yaml &&
    ok || bad "3.0 keywords converted (exclusiveMinimum) or dropped (discriminator, xml, nullable)"
expect_eq "named request examples become examples and tests" \
    "$(grep -c '^  - name: \(cat\|dog\)$' $M/create_pets/tool.manifest.yaml)" 4
grep -q 'when_not_to_use: "The API marks this operation deprecated' $M/find_pets/tool.manifest.yaml && ok ||
    bad "a deprecated operation says so"
grep -q '^  - name: illustrative$' $M/find_pets/tool.manifest.yaml && ok ||
    bad "without a document example, an illustrative one made from the schema"
grep -q 'X-Request-ID: "{X_Request_ID}"' $L && ok || bad "a header parameter is mapped to an identifier"
grep -q 'env: SWAGGER_PETSTORE_API_TOKEN' $L && ok || bad "bearer auth from the security scheme"
run "$TG" -C "$P" lint
expect_rc "petstore 3.0 drafts lint clean" 0

# the build is byte-stable
run "$TG" -C "$P" build
expect_rc "petstore: build" 0
first=$(tree_sum "$P/generated")
rm -rf "$P/generated" "$P/.toolgen"
run "$TG" -C "$P" build
expect_eq "petstore: a second clean build gives the same generated/" "$(tree_sum "$P/generated")" "$first"

# ---- a drafted tool against the service on loopback ----
"$PY" tests/cli/petstore_api.py "$TMP/api.port" "$TMP/api.log" &
API=$!
trap 'kill $API 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for test -s "$TMP/api.port"
ORIGIN=http://127.0.0.1:$(cat "$TMP/api.port")
export SWAGGER_PETSTORE_API_TOKEN=tok-pets-0042
run env TOOLGEN_HTTP_ORIGIN_LIST_PETS=$ORIGIN "$TG" -C "$P" run list_pets --arg limit=2 \
    --arg X_Request_ID=req-7 --json
expect_rc "list_pets runs against the service" 0
expect_out "the answer, wrapped as result" '"name": "Tom"'
expect_eq "GET with the query, the bearer token and the header" "$(tail -1 "$TMP/api.log")" \
    "GET /v1/pets?limit=2|Bearer tok-pets-0042|req-7|"
run env TOOLGEN_HTTP_ORIGIN_CREATE_PETS=$ORIGIN "$TG" -C "$P" run create_pets \
    --input '{"body": {"name": "Kit", "tag": null}}' --json
expect_rc "create_pets posts the body" 0
expect_out "the created pet" '"id": 4'
expect_eq "the JSON body was sent whole" "$(tail -1 "$TMP/api.log")" \
    'POST /v1/pets|Bearer tok-pets-0042||{"name":"Kit","tag":null}'
run env TOOLGEN_HTTP_ORIGIN_SHOW_PET_BY_ID=$ORIGIN "$TG" -C "$P" run show_pet_by_id --input '{"petId": "99"}' --json
expect_rc "an unknown pet fails" 1
expect_out "404 is NOT_FOUND" '"code": "NOT_FOUND"'
run env TOOLGEN_HTTP_ORIGIN_REMOVE_PET=$ORIGIN "$TG" -C "$P" run remove_pet --input '{"petId": "1"}' --json
expect_rc "remove_pet: a 204 answer without a body" 0
expect_out "is the empty text" '"text": ""'

# ---- the drafts served (`serve --dev`) to a client, calling the service on loopback ----
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_pets","arguments":{"limit":2}}}' \
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"show_pet_by_id","arguments":{"petId":"99"}}}' \
    >"$TMP/serve.jsonl"
run env TOOLGEN_HTTP_ORIGIN_LIST_PETS=$ORIGIN TOOLGEN_HTTP_ORIGIN_SHOW_PET_BY_ID=$ORIGIN \
    "$TG" -C "$P" serve --dev <"$TMP/serve.jsonl"
expect_rc "serve --dev: the drafts served" 0
printf '%s\n' "$OUT" | "$PY" -c '
import json, sys
r = {m.get("id"): m for m in map(json.loads, sys.stdin) if "id" in m}
names = {t["name"] for t in r[2]["result"]["tools"]}
assert {"list_pets", "create_pets", "show_pet_by_id", "remove_pet"} <= names, names
pets = r[3]["result"]
assert not pets.get("isError") and [p["name"] for p in pets["structuredContent"]["result"]] == ["Rex", "Tom"], pets
miss = r[4]["result"]
assert miss.get("isError") and "NOT_FOUND" in miss["content"][0]["text"], miss
' >"$TMP/served.out" 2>&1
RC=$? OUT=$(cat "$TMP/served.out") ERR=""
expect_rc "served: tools/list has the drafts, list_pets answers, an unknown pet is NOT_FOUND" 0

# ---- re-running: drafts updated, a reviewed manifest kept ----
sed 's/^status: draft$/status: staged/' $M/show_pet_by_id/tool.manifest.yaml >"$TMP/s" &&
    cat "$TMP/s" >$M/show_pet_by_id/tool.manifest.yaml
kept=$(cksum <$M/show_pet_by_id/tool.manifest.yaml)
mkdir -p "$TMP/edited"
sed -e 's/summary: List all pets/summary: List the pets/' \
    -e 's/summary: Info for a specific pet/summary: One pet/' "$D/petstore-3.0.yaml" >"$TMP/edited/petstore-3.0.yaml"
run "$TG" init --from-openapi "$TMP/edited/petstore-3.0.yaml" "$P"
expect_rc "re-run" 0
expect_out "an edited operation updates its draft, naming what changed" "updated    list_pets: changed title, docs"
expect_out "the others are unchanged" "unchanged  create_pets"
expect_out "the staged manifest is kept" "kept       show_pet_by_id (status staged"
expect_eq "and not touched" "$(cksum <$M/show_pet_by_id/tool.manifest.yaml)" "$kept"
grep -q '^title: List the pets$' $L && ok || bad "the draft has the new title"
sed '1d' $M/remove_pet/tool.manifest.yaml >"$TMP/s" && cat "$TMP/s" >$M/remove_pet/tool.manifest.yaml
mine=$(cksum <$M/remove_pet/tool.manifest.yaml)
run "$TG" init --from-openapi "$TMP/edited/petstore-3.0.yaml" "$P"
expect_out "a draft not made by init --from-openapi is kept" "kept       remove_pet (a draft not made by init --from-openapi"
expect_eq "and not touched" "$(cksum <$M/remove_pet/tool.manifest.yaml)" "$mine"
printf 'exclude:\n  - operation: findPets\n' >"$TMP/edited/hints.yaml"
run "$TG" init --from-openapi "$TMP/edited/petstore-3.0.yaml" "$P" --hints "$TMP/edited/hints.yaml"
expect_out "a draft whose operation is now left out is reported stale" "stale      find_pets_3e9b619b (its operation is gone"
[ -e $M/find_pets_3e9b619b/tool.manifest.yaml ] && ok || bad "and left as it is"

# ---- --read-only, --name-budget ----
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$TMP/ro" --read-only
expect_rc "--read-only" 0
expect_out "writers are left out" "POST /pets: not a read (--read-only)"
[ ! -e "$TMP/ro/manifests/create_pets" ] && [ ! -e "$TMP/ro/manifests/remove_pet" ] && ok ||
    bad "--read-only drafts no writer"
expect_eq "only GETs drafted" "$(cat $TMP/ro/manifests/*/tool.manifest.yaml | grep -c '^    method: GET$')" \
    "$(ls $TMP/ro/manifests | grep -vc gitkeep)"
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$TMP/b20" --name-budget 20
expect_rc "--name-budget 20" 0
names_ok "$TMP/b20" 20 && ok || bad "names within a budget of 20"
run "$TG" -C "$TMP/b20" lint
expect_rc "short names lint clean" 0

# ---- a hints file: selection, renames, descriptions; unused entries reported ----
H=$TMP/hinted
mkdir -p "$H"
cat >"$H/toolgen.hints.yaml" <<'YAML'
include:
  - tag: pets
  - path: /search*
  - operation: showOwner
exclude:
  - method: POST
  - tag: nothing
rename:
  listPets: pets_list
  nope: x_y
descriptions:
  showOwner: The owner of a pet, by the pet's id.
YAML
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$H"
expect_rc "DIR/toolgen.hints.yaml is read" 0
expect_out "5 tools" "drafted 5 tools"
expect_out "a rename" "created    pets_list"
expect_out "an include rule wins over x-toolgen exclude" "created    show_owner"
expect_out "an exclude rule" "POST /pets: excluded by the hints file"
expect_out "not included" "GET /owners: not included by the hints file"
expect_err "an exclude rule that matches nothing is reported" 'exclude rule {"tag":"nothing"} matches no operation'
expect_err "a rename that matches nothing is reported" "rename entry 'nope' matches no drafted operation"
grep -q "^description: \"The owner of a pet, by the pet's id.\"$" "$H/manifests/show_owner/tool.manifest.yaml" &&
    ok || bad "a description from the hints"
printf 'include:\n  - tags: pets\n' >"$TMP/bad-hints.yaml"
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$TMP/bh" --hints "$TMP/bad-hints.yaml"
expect_rc "a bad hints file is refused" 2
expect_err "naming the line and the member" 'bad-hints.yaml:2:5: /include/0/tags: property "tags" is not allowed'
[ ! -e "$TMP/bh" ] && ok || bad "a bad hints file: nothing written"

# ---- Petstore 3.1 (JSON) ----
run "$TG" init --from-openapi "$D/petstore-3.1.json" "$TMP/p31"
expect_rc "petstore 3.1: drafted" 0
expect_out "3 tools" "drafted 3 tools"
run "$TG" -C "$TMP/p31" lint
expect_rc "petstore 3.1 drafts lint clean" 0
grep -q 'url: "http://localhost:8080/v1/pets"' "$TMP/p31/manifests/list_pets/tool.manifest.yaml" && ok ||
    bad "server variables at their defaults; http to localhost kept"
grep -q 'header: X-Api-Key' "$TMP/p31/manifests/list_pets/tool.manifest.yaml" && ok || bad "an apiKey header scheme"
grep -A4 'name: from_openapi' "$TMP/p31/manifests/list_pets/tool.manifest.yaml" | grep -q 'limit: 2' && ok ||
    bad "a parameter's examples give the example's arguments"
run env TOOLGEN_HTTP_ORIGIN_SHOW_PET_BY_ID=$ORIGIN "$TG" -C "$TMP/p31" run show_pet_by_id --input '{"petId": "2"}' --json
expect_rc "a 3.1 tool runs against the service" 0
expect_out "the answer with its null tag" '"tag": null'

# ---- bad documents: refused, naming the place, nothing written ----
bad_doc() { # NAME FILE-CONTENT EXPECTED-IN-STDERR [OPTIONS]
    printf '%s\n' "$2" >"$TMP/bad.yaml"
    run "$TG" init --from-openapi "$TMP/bad.yaml" "$TMP/bad-out" $4
    expect_rc "$1: refused" 2
    expect_err "$1: says where and what" "$3"
    expect_err "$1: says nothing was written" "Nothing was written"
    [ ! -e "$TMP/bad-out" ] && ok || { bad "$1: nothing written"; rm -rf "$TMP/bad-out"; }
}
HEAD='openapi: 3.0.3
info: {title: T, version: "1"}
servers: [{url: "https://api.example.com"}]'
bad_doc "a dangling \$ref" "$HEAD
paths:
  /a:
    get:
      responses:
        '200':
          description: x
          content:
            application/json:
              schema: {\$ref: '#/components/schemas/Nope'}" \
    "bad.yaml:12:15: /paths/~1a/get/responses/200/content/application~1json/schema: \$ref '#/components/schemas/Nope' points at nothing"
bad_doc "an external \$ref" "$HEAD
paths:
  /a:
    get:
      responses:
        '200': {\$ref: 'other.yaml#/R'}" "--allow-external-refs"
bad_doc "a URL \$ref even when allowed" "$HEAD
paths:
  /a:
    get:
      responses:
        '200':
          description: x
          content:
            application/json:
              schema: {\$ref: 'https://evil.example/s.json'}" "URLs are never fetched" --allow-external-refs
bad_doc "Swagger 2.0" 'swagger: "2.0"
info: {title: T, version: "1"}
paths: {}' "/swagger: Swagger 2.0 is not read"
bad_doc "a relative server" 'openapi: 3.1.0
info: {title: T, version: "1"}
servers: [{url: /api}]
paths: {/a: {get: {responses: {"200": {description: x}}}}}' "pass --base-url"
bad_doc "an undeclared path parameter" "$HEAD
paths: {'/a/{id}': {get: {responses: {'200': {description: x}}}}}" "the path's parameter {id} is not declared"
bad_doc "a bad x-toolgen name" "$HEAD
paths: {/a: {get: {x-toolgen: {name: Bad-Name}, responses: {'200': {description: x}}}}}" \
    "x-toolgen name 'Bad-Name' must be snake_case"
bad_doc "a schema that breaks JSON Schema" "$HEAD
paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: text}}], responses: {'200': {description: x}}}}}" \
    "/paths/~1a/get/parameters/0/schema/type: \`type\` must be one of array, boolean"
bad_doc "a pattern JSON Schema cannot use" "$HEAD
paths: {/a: {get: {parameters: [{name: q, in: query, schema: {type: string, pattern: '(['}}], responses: {'200': {description: x}}}}}" \
    "/paths/~1a/get/parameters/0/schema/pattern: \`pattern\` is not a regular expression"
bad_doc "responses that are not a mapping" "$HEAD
paths: {/a: {get: {responses: [x]}}}" "/paths/~1a/get/responses: \`responses\` must be a mapping"
bad_doc "not YAML" "openapi: [" "bad.yaml:"

# an external $ref to a file beside the document, when allowed
mkdir -p "$TMP/ext"
printf '%s\n' "$HEAD" 'paths:' '  /a:' '    get:' '      responses:' "        '200':" \
    '          description: x' '          content:' '            application/json:' \
    "              schema: {\$ref: 'schemas.yaml#/Thing'}" >"$TMP/ext/api.yaml"
printf 'Thing: {type: object, properties: {id: {$ref: "#/Id"}}}\nId: {type: integer}\n' >"$TMP/ext/schemas.yaml"
run "$TG" init --from-openapi "$TMP/ext/api.yaml" "$TMP/ext-out" --allow-external-refs
expect_rc "--allow-external-refs follows a file beside the document" 0
grep -A3 '^    id:' "$TMP/ext-out/manifests/get_a/tool.manifest.yaml" | grep -q 'type: integer' && ok ||
    bad "and its own local \$refs"

# a few kilobytes of $refs that would inline to gigabytes: cut at the size budget
"$PY" - "$TMP/bomb.json" <<'PY'
import json, sys
s = {f"L{i}": {"type": "object", "properties": {f"p{j}": {"$ref": f"#/components/schemas/L{i + 1}"}
                                                for j in range(8)}} for i in range(30)}
s["L30"] = {"type": "string"}
ok = {"200": {"description": "x", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}}
json.dump({"openapi": "3.1.0", "info": {"title": "Bomb", "version": "1"},
           "servers": [{"url": "https://api.example.com"}], "components": {"schemas": s},
           "paths": {f"/a{k}": {"get": {"responses": ok}} for k in range(3)}}, open(sys.argv[1], "w"))
PY
run "$TG" init --from-openapi "$TMP/bomb.json" "$TMP/bomb"
expect_rc "a \$ref bomb is drafted within the budget" 0
expect_err "saying that references were cut" "past the size budget"
expect_eq "its drafts stay small" "$(du -sm "$TMP/bomb/manifests" | awk '{print ($1 < 40)}')" 1
run "$TG" -C "$TMP/bomb" lint
expect_rc "and lint clean" 0

# ---- a large real document: GitHub's REST API ----
G=$TMP/github
run "$TG" init --from-openapi "$D/api.github.com.json" "$G"
expect_rc "api.github.com: drafted" 0
expect_out "1223 operations" "drafted 1223 tools"
expect_err "a warning names the count past 40" "1223 tools would be exposed: more than 40"
case $ERR in *"were cut"*) bad "nothing of GitHub's document is cut" ;; *) ok ;; esac
names_ok "$G" 48 && ok || bad "github names within 48 and equal to their folders"
expect_eq "names unique" "$(ls "$G/manifests" | sort | uniq -d | wc -l)" 0
run "$TG" -C "$G" lint
expect_rc "1223 drafts lint clean" 0
run "$TG" -C "$G" build
expect_rc "github: build" 0
first=$(tree_sum "$G/generated")
rm -rf "$G/generated" "$G/.toolgen"
run "$TG" -C "$G" build
expect_eq "github: a second clean build gives the same generated/" "$(tree_sum "$G/generated")" "$first"
run "$TG" init --from-openapi "$D/api.github.com.json" "$G" --dry-run
expect_out "a re-run changes nothing" "unchanged  repos_get"
expect_not_out "no draft is rewritten" "updated "

# ---- overrides: a person's change to a draft survives re-running ----
mkdir -p "$P/overrides"
printf 'description: Every pet in the store, a page at a time.\nrisk: medium\n' >"$P/overrides/list_pets.yaml"
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$P"
expect_out "an override: the draft rewritten with it" "updated    list_pets: changed "
L=$P/manifests/list_pets/tool.manifest.yaml
expect_eq "an override: its members in the manifest" \
    "$(grep -c '^description: Every pet in the store, a page at a time.$\|^risk: medium$' "$L")" 2
expect_eq "an override: the header says so" "$(grep -c '^# With overrides/list_pets.yaml applied' "$L")" 1
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$P"
expect_out "an override: a re-run leaves it unchanged" "unchanged  list_pets"
run "$TG" -C "$P" lint
expect_rc "an override: the drafts still lint" 0
before=$(cat "$P"/manifests/*/tool.manifest.yaml | cksum)
printf -- '- not a mapping\n' >"$P/overrides/list_pets.yaml"
printf 'risk: high\n' >"$P/overrides/create_pets.yaml"
run "$TG" init --from-openapi "$D/petstore-3.0.yaml" "$P"
expect_rc "a bad override: a usage error" 2
expect_err "a bad override: its file named" "overrides/list_pets.yaml:1:1: an override is a mapping"
expect_eq "a bad override: nothing written, the other override neither" \
    "$(cat "$P"/manifests/*/tool.manifest.yaml | cksum)" "$before"

finish init_openapi
