#!/bin/sh
# toolgen init --from-python (docs/cli.md#init-from-python): the standard library's textwrap
# becomes lint-clean draft manifests whose build passes and is byte-stable, and whose tools run
# (`toolgen run` of shorten and dedent); a module file of the test's own (annotated functions,
# defaults, doctests, a list result, *args, a dict result, a parameter without a JSON form)
# gives the schemas, examples and tests the signatures and docstrings say, and builds green;
# re-running updates drafts and keeps a reviewed manifest; the hints file selects and renames;
# a missing module, an import that raises and a module without functions are refused, with
# nothing written.
. tests/lib.sh

PY=/usr/bin/python3
need "$PY" "python3"
"$PY" -c "import yaml" 2>/dev/null || setup_failed "python3-yaml is needed to read the drafts (apt-get install python3-yaml)"
tree_sum() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs cat | cksum); }
field() { # MANIFEST PYTHON-EXPRESSION-ON-m: prints its value as JSON (python3-yaml reads it)
    "$PY" -c "import json,sys,yaml; m=yaml.safe_load(open(sys.argv[1])); print(json.dumps($2, sort_keys=True))" "$1"
}

# ---- textwrap (the standard library) ----
P=$TMP/tw
run "$TG" init --from-python textwrap "$P"
expect_rc "textwrap: drafted" 0
expect_out "the folder became a repository first" "made a toolgen repository first"
expect_out "5 tools" "drafted 5 tools from textwrap"
for t in dedent fill indent shorten wrap; do
    expect_out "created $t" "created    $t"
done
expect_not_out "a class (TextWrapper) is not a tool" "text_wrapper"
M=$P/manifests
expect_eq "every draft has status draft" "$(cat $M/*/tool.manifest.yaml | grep -c '^status: draft$')" 5
expect_eq "every draft runs in the python runtime" "$(cat $M/*/tool.manifest.yaml | grep -c '^  runtime: python$')" 5
grep -q '^    textwrap.shorten(\*\*args)\|    value = textwrap.shorten(\*\*args)$' "$M/shorten/tool.py" && ok || bad "shorten's tool.py calls textwrap.shorten"
grep -q 'return {"result": value}' "$M/shorten/tool.py" && ok || bad "a str result is wrapped as {result: ...}"
grep -q '^description: Collapse and truncate the given text to fit in the given width.$' "$M/shorten/tool.manifest.yaml" &&
    ok || bad "the docstring's first paragraph is the description"
grep -q 'kwargs is not exposed' "$M/shorten/tool.manifest.yaml" && ok || bad "**kwargs is left out, said in docs.limitations"
grep -q 'predicate is not exposed' "$M/indent/tool.manifest.yaml" && ok || bad "indent's predicate (a callable defaulting to None) is left out, said"
grep -q 'result: "Hello \[...\]"' "$M/shorten/tool.manifest.yaml" && ok || bad "shorten's doctest became an example, its output wrapped"
grep -q 'name: doctest_2' "$M/shorten/tool.manifest.yaml" && ok || bad "shorten's second doctest became an example too"
grep -q '^      default: 70$' "$M/wrap/tool.manifest.yaml" && ok || bad "wrap's width=70 became a default"
grep -q 'textwrap\]$' "$P/toolgen.yaml" && ok || bad "toolgen.yaml's static_check allows importing textwrap"
expect_out "the config change is reported" "added      static_check.allowed_imports"

run "$TG" -C "$P" lint
expect_rc "textwrap drafts lint clean" 0
run "$TG" -C "$P" build
expect_rc "textwrap: build (static check, examples and doctests run as tests)" 0
expect_out "shorten's doctests pass" "shorten: 4/4 tests passed"
first=$(tree_sum "$P/generated")
rm -rf "$P/generated" "$P/.toolgen"
run "$TG" -C "$P" build
expect_eq "textwrap: a second clean build gives the same generated/" "$(tree_sum "$P/generated")" "$first"

run "$TG" -C "$P" run shorten --input '{"text": "The quick brown fox jumps over the lazy dog", "width": 21}' --json
expect_rc "shorten runs" 0
expect_out "shorten gives textwrap's answer" '"result": "The quick brown [...]"'
run "$TG" -C "$P" run dedent --input '{"text": "    a\n      b\n    c"}' --json
expect_rc "dedent runs" 0
expect_out "dedent gives textwrap's answer" '"result": "a\n  b\nc"'

# re-running: unchanged drafts; a reviewed one kept; an edited draft rewritten
before=$(tree_sum "$M")
run "$TG" init --from-python textwrap "$P"
expect_rc "re-run" 0
expect_out "re-run: nothing changed" "unchanged  shorten"
expect_eq "re-run: the drafts are byte-identical" "$(tree_sum "$M")" "$before"
expect_eq "re-run: the import is allowed once" "$(grep -c '^static_check:' "$P/toolgen.yaml")" 1
sed -i 's/^status: draft$/status: staged/' "$M/dedent/tool.manifest.yaml"
echo "# my edit" >>"$M/dedent/tool.py"
sed -i 's/^title: textwrap.fill$/title: Fill/' "$M/fill/tool.manifest.yaml"
run "$TG" init --from-python textwrap "$P"
expect_out "a reviewed manifest is kept" "kept       dedent (status staged"
grep -q '# my edit' "$M/dedent/tool.py" && ok || bad "a reviewed tool's code is left as it is"
expect_out "an edited draft is rewritten, saying what changed" "updated    fill: changed title"
grep -q '^title: textwrap.fill$' "$M/fill/tool.manifest.yaml" && ok || bad "the edited draft is drafted anew"

# ---- a module file of our own ----
L=$TMP/src
mkdir -p "$L"
cat >"$L/mylib.py" <<'EOF'
"""A small library for the test."""
from typing import Literal, Optional

__all__ = ["add", "scale", "words", "total", "stats", "pick", "Thing", "use_thing"]


def add(a: int, b: int = 2) -> int:
    """Add two integers.

    The second one defaults to two.

    >>> add(1, 2)
    3
    >>> add(a=5)
    7
    """
    return a + b


def scale(values: list[float], factor: float = 1.0, label: Optional[str] = None) -> dict:
    """Scale a list of numbers.

    >>> scale([1.0, 2.5], factor=2.0)
    {'values': [2.0, 5.0], 'label': None}
    """
    return {"values": [v * factor for v in values], "label": label}


def words(text: str, lower: bool = False) -> list[str]:
    """Split text into words.

    >>> words("Hello big World", lower=True)
    ['hello', 'big', 'world']
    """
    return (text.lower() if lower else text).split()


def total(*numbers: int) -> int:
    """Sum any number of integers."""
    return sum(numbers)


def stats(data: dict[str, int]) -> Optional[int]:
    """The largest value.

    >>> stats({"a": 1, "b": 3})
    4
    """
    return max(data.values()) if data else None


def pick(mode: Literal["a", "b"] = "a") -> str:
    """Echo the mode."""
    return mode


class Thing:
    """Not a tool."""


def use_thing(t: Thing) -> str:
    """Needs a Thing."""
    return str(t)


def _private(x: int) -> int:
    return x
EOF
Q=$TMP/own
run "$TG" init --from-python "$L/mylib.py" "$Q"
expect_rc "mylib.py: drafted" 0
expect_out "mylib: 6 tools" "drafted 6 tools"
expect_out "a function taking a class instance is left out, saying why" "use_thing: parameter t has no JSON form"
expect_not_out "a private function is not a tool" "_private"
N=$Q/manifests
[ -f "$N/add/mylib.py" ] && cmp -s "$N/add/mylib.py" "$L/mylib.py" && ok || bad "the module file is copied beside tool.py"
grep -q '^import mylib$' "$N/add/tool.py" && ok || bad "tool.py imports the copied module"
expect_eq "add: input schema from annotations and defaults" \
    "$(field "$N/add/tool.manifest.yaml" "m['input_schema']")" \
    '{"additionalProperties": false, "properties": {"a": {"description": "Parameter a of mylib.add.", "type": "integer"}, "b": {"default": 2, "description": "Parameter b of mylib.add.", "type": "integer"}}, "required": ["a"], "type": "object"}'
expect_eq "add: an int result is wrapped" \
    "$(field "$N/add/tool.manifest.yaml" "m['output_schema']")" \
    '{"additionalProperties": false, "properties": {"result": {"description": "The function'"'"'s return value.", "type": "integer"}}, "required": ["result"], "type": "object"}'
expect_eq "add: description and what_it_does from the docstring" \
    "$(field "$N/add/tool.manifest.yaml" "[m['description'], m['docs']['what_it_does'].split(chr(10))[-1]]")" \
    '["Add two integers.", "The second one defaults to two."]'
expect_eq "add: examples from the doctests" \
    "$(field "$N/add/tool.manifest.yaml" "[(e['input'], e['output']) for e in m['examples']]")" \
    '[[{"a": 1, "b": 2}, {"result": 3}], [{"a": 5}, {"result": 7}]]'
expect_eq "add: tests from the doctests" \
    "$(field "$N/add/tool.manifest.yaml" "[(t['name'], t['expect']) for t in m['tests']]")" \
    '[["doctest_1", {"output": {"result": 3}}], ["doctest_2", {"output": {"result": 7}}]]'
expect_eq "scale: list[float], Optional[str] and a dict result (not wrapped)" \
    "$(field "$N/scale/tool.manifest.yaml" "[m['input_schema']['properties']['values']['items'], m['input_schema']['properties']['label']['type'], m['output_schema'], m['examples'][0]['output']]")" \
    '[{"type": "number"}, ["string", "null"], {"type": "object"}, {"label": null, "values": [2, 5]}]'
grep -q '    return value$' "$N/scale/tool.py" && ok || bad "a dict result is returned as it is"
expect_eq "words: a list result, wrapped; its doctest an example" \
    "$(field "$N/words/tool.manifest.yaml" "[m['output_schema']['properties']['result']['type'], m['output_schema']['properties']['result']['items'], m['examples'][0]['output']]")" \
    '["array", {"type": "string"}, {"result": ["hello", "big", "world"]}]'
expect_eq "total: *numbers left out, said in docs.limitations" \
    "$(field "$N/total/tool.manifest.yaml" "[m['input_schema']['properties'], m['docs']['limitations']]")" \
    '[{}, ["*numbers is not exposed: the tool passes the named parameters only."]]'
expect_eq "total: an example computed by a call on illustrative arguments" \
    "$(field "$N/total/tool.manifest.yaml" "[m['examples'][0]['name'], m['examples'][0]['output']]")" \
    '["illustrative", {"result": 0}]'
expect_eq "stats: a doctest whose output is wrong is no example, and is said" \
    "$(field "$N/stats/tool.manifest.yaml" "[m['examples'][0]['name'], 'gave 3, not 4' in m['docs']['limitations'][0]]")" \
    '["illustrative", true]'
expect_eq "pick: a Literal annotation is an enum" \
    "$(field "$N/pick/tool.manifest.yaml" "m['input_schema']['properties']['mode']['enum']")" '["a", "b"]'
run "$TG" -C "$Q" lint
expect_rc "mylib drafts lint clean" 0
run "$TG" -C "$Q" build
expect_rc "mylib: build passes its tests" 0
expect_out "add: its doctests pass" "add: 4/4 tests passed"
run "$TG" -C "$Q" run words --input '{"text": "A b C"}' --json
expect_out "words runs from the copy" '"result": [
      "A",'

# a changed module file: the copy and its hash in tool.py follow on a re-run
sed -i 's/return a + b/return a + b + 0/' "$L/mylib.py"
run "$TG" init --from-python "$L/mylib.py" "$Q"
expect_out "a changed module updates the drafts" "updated    add: changed tool.py, mylib.py"

# the hints file selects and renames by function name
H=$TMP/hinted
mkdir -p "$H"
printf 'include:\n  - operation: add\n  - path: "w*"\nrename:\n  add: add_numbers\n' >"$H/toolgen.hints.yaml"
run "$TG" init --from-python "$L/mylib.py" "$H"
expect_rc "hints: drafted" 0
expect_out "hints: 2 tools" "drafted 2 tools"
expect_out "hints: renamed" "created    add_numbers"
expect_out "hints: a function not included is left out" "scale: not included by the hints file"

# a function now left out: its draft is reported stale and left in place; --dry-run writes nothing
printf 'exclude:\n  - operation: words\n' >"$Q/toolgen.hints.yaml"
before=$(tree_sum "$Q")
run "$TG" init --from-python "$L/mylib.py" "$Q" --dry-run
expect_rc "dry run" 0
expect_out "dry run: says what it would draft" "would draft 5 tools"
expect_out "dry run: the excluded function is listed" "words: excluded by the hints file"
expect_out "dry run: its earlier draft is stale" "stale      words (its function is gone from the module or left out"
expect_eq "dry run: nothing written" "$(tree_sum "$Q")" "$before"

# a function that aborts its process, or whose answer changes from call to call, gets a
# placeholder example, said in its limitations and a warning; the others are drafted as usual
cat >"$L/odd.py" <<'EOF'
import os
import time


def crash() -> int:
    """Abort the process."""
    os.abort()


def now() -> float:
    """The time."""
    return time.time()


def fine(x: int = 1) -> int:
    """Return x."""
    return x


def a_function_with_a_rather_long_name(x: int = 1) -> int:
    """Return x."""
    return x
EOF
run "$TG" init --from-python "$L/odd.py" "$TMP/odd" --name-budget 16
expect_rc "odd.py: drafted" 0
expect_out "odd.py: 4 tools" "drafted 4 tools"
long=$(ls "$TMP/odd/manifests" | grep '^a_funct')
printf '%s' "$long" | grep -Eq '^a_funct_[0-9a-f]{8}$' && ok || bad "a name over --name-budget is cut with a hash suffix (got '$long')"
grep -q "^name: $long\$" "$TMP/odd/manifests/$long/tool.manifest.yaml" && ok || bad "the cut name is the manifest's name"
expect_err "odd.py: the placeholders are counted" "2 drafts have a placeholder example"
grep -q 'the call ended the process' "$TMP/odd/manifests/crash/tool.manifest.yaml" && ok || bad "an aborting function: said in docs.limitations"
grep -q 'two calls gave different answers' "$TMP/odd/manifests/now/tool.manifest.yaml" && ok || bad "a changing answer: said in docs.limitations"
grep -q '^  - name: illustrative$' "$TMP/odd/manifests/fine/tool.manifest.yaml" && ok || bad "the module's other functions are drafted"

# more than 40 tools: a warning naming the count
i=0
while [ $i -lt 41 ]; do printf 'def f%d(x: int) -> int:\n    """Return x."""\n    return x\n\n\n' $i; i=$((i + 1)); done >"$L/many.py"
run "$TG" init --from-python "$L/many.py" "$TMP/many"
expect_rc "41 functions: drafted" 0
expect_err "41 functions: a warning names the count" "41 tools would be exposed: more than 40"

# ---- bad input: a clear error, nothing written ----
bad_module() { # NAME MODULE EXPECTED-IN-STDERR
    run "$TG" init --from-python "$2" "$TMP/bad-out"
    expect_rc "$1: refused" 2
    expect_err "$1: says why and what to do" "$3"
    expect_err "$1: says nothing was written" "Nothing was written"
    [ ! -e "$TMP/bad-out" ] && ok || { bad "$1: nothing written"; rm -rf "$TMP/bad-out"; }
}
bad_module "a missing module" no_such_module_xyz "no module named 'no_such_module_xyz'"
printf 'import no_such_dependency_xyz\n\ndef f(x: int) -> int:\n    return x\n' >"$L/broken.py"
bad_module "a module whose import fails" "$L/broken.py" "importing broken failed: ModuleNotFoundError"
printf 'raise RuntimeError("boom at import")\n' >"$L/raises.py"
bad_module "a module whose import raises" "$L/raises.py" "importing raises raised RuntimeError: boom at import"
printf 'X = 1\n\nclass A:\n    pass\n\ndef _hidden():\n    pass\n' >"$L/empty.py"
bad_module "a module without public functions" "$L/empty.py" "has no public function"
bad_module "not a .py file" "$L/nothing.py" "not a .py file"
bad_module "not a module name" "os;rm" "is not a module name"
run "$TG" init --from-python textwrap "$TMP/bad-out" --read-only
expect_rc "an option of --from-openapi is refused" 2

run "$TG" init --help
expect_out "init --help names --from-python" "--from-python MODULE"
finish cli-init-from-python
