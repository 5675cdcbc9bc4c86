#!/bin/sh
# Staged execution and presentation (docs/lifecycle.md "Staged run", "Presentation"): a run of a
# STAGED tool stores run_artifacts.json and its files in the candidate and prints the seed's
# presentation; --html writes a self-contained page whose charts headless Chromium draws (a
# screenshot's pixels are counted per chart colour). The fixture tests/lifecycle/repo has one
# tool whose run writes a visualization manifest with a table, a bar, a line, a scatter and a pie.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
HERE=$(pwd)
R=$TMP/repo
T=chart_groups
C=$R/registry/staging/candidates/${T}_1.0.0
cp -r tests/lifecycle/repo "$R"
need "the fixture builds" "$TG" -C "$R" build

# -- before staging: a normal run, and --html is refused
run "$TG" -C "$R" run $T --arg file_path=data/sales.csv
expect_rc "unstaged run" 0
expect_not_out "unstaged run: no presentation" "Approval Required"
run "$TG" -C "$R" run $T --arg file_path=data/sales.csv --html "$TMP/x.html"
expect_rc "--html on an unstaged tool: usage" 2
expect_err "--html unstaged: says stage it" "toolgen stage $T"
[ ! -f "$TMP/x.html" ] && ok || bad "--html unstaged: no page written"

# -- the staged run: artifacts in the candidate, presentation on the terminal
"$TG" -C "$R" stage $T >/dev/null
run "$TG" -C "$R" run $T --arg file_path=data/sales.csv --html "$TMP/p.html"
expect_rc "staged run" 0
expect_out "presentation: results first" "## Analysis Results"
expect_out "presentation: the table" "| north | 21 |"
expect_out "presentation: summary" "### Tool Summary"
expect_out "presentation: rows" "**Rows Processed**: 6"
expect_out "presentation: quality" "1.00 (excellent), review priority high"
expect_out "presentation: assumptions" "- units are whole numbers"
expect_out "presentation: limitations" "- rows with an empty region are skipped"
expect_out "presentation: question 1" "Is this output correct for your current analysis?"
expect_out "presentation: question 2" "Should I save this as a reusable tool for future analyses?"
expect_err "says where it stored the run" "run_artifacts.json"
[ -f "$C/files/units.csv" ] && [ -f "$C/files/visualization_manifest.json" ] && ok ||
    bad "the run's files are kept in the candidate"
A=$C/run_artifacts.json
run python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print(a['rows_processed'], len(a['sample_rows']), a['files'][0], a['metadata']['limitations'][0], a['visualizations']['outputs'][1]['type'], a['execution_time_ms'] > 0)" "$A"
expect_out "run_artifacts.json fields" "6 4 files/rows.json rows with an empty region are skipped bar_chart True"

run "$TG" validate --schema schemas/run_artifacts.schema.json \
    --resource-dir https://toolgen.dev/schemas/=schemas "$A"
expect_rc "run_artifacts.json validates against its schema" 0

# -- the page is self-contained: nothing to fetch, no script
run grep -c -E '<script|<link|src=|url\(' "$TMP/p.html"
expect_out "page: nothing fetched" "0"
run grep -o -E 'https?://[^"]*' "$TMP/p.html"
expect_eq "page: only the SVG namespace" "$(printf '%s\n' "$OUT" | sort -u)" "http://www.w3.org/2000/svg"

# -- Chromium draws it: the DOM has each chart's elements, the screenshot their colours
if command -v chromium >/dev/null 2>&1; then
    CHROME="chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run"
    run $CHROME --dump-dom "file://$TMP/p.html"
    for el in 'class="tg-bar"' 'class="tg-line"' 'class="tg-point"' 'class="tg-slice"' 'class="tg-table"'; do
        expect_out "chromium DOM has $el" "$el"
    done
    expect_eq "chromium DOM: 4 bars" "$(printf '%s' "$OUT" | grep -o 'class="tg-bar"' | wc -l)" "4"
    expect_eq "chromium DOM: 4 slices" "$(printf '%s' "$OUT" | grep -o 'class="tg-slice"' | wc -l)" "4"
    run $CHROME --window-size=800,3200 --screenshot="$TMP/shot.png" "file://$TMP/p.html"
    [ -s "$TMP/shot.png" ] && ok || bad "chromium wrote a screenshot"
    run python3 "$HERE/tests/png_colors.py" "$TMP/shot.png" 4C72B0 DD8452 55A868 C44E52
    # bars + first pie slice (blue), second line + slice (orange), third and fourth slice
    n() { printf '%s\n' "$OUT" | awk -v c="$1" '$1 == c { print $2 }'; }
    [ "$(n 4C72B0)" -gt 50000 ] && ok || bad "screenshot: the bars are drawn (blue: $(n 4C72B0))"
    [ "$(n DD8452)" -gt 5000 ] && ok || bad "screenshot: orange drawn ($(n DD8452))"
    [ "$(n 55A868)" -gt 5000 ] && ok || bad "screenshot: green slice drawn ($(n 55A868))"
    [ "$(n C44E52)" -gt 1000 ] && ok || bad "screenshot: red slice drawn ($(n C44E52))"
else
    RC=0 OUT= ERR=
    bad "chromium is not installed: run \`make deps\` (Debian package chromium)"
fi

# -- bad input: an unwritable --html, a snapshot that no longer matches the code
run "$TG" -C "$R" run $T --arg file_path=data/sales.csv --html "$TMP/no/such/dir/p.html"
expect_rc "--html unwritable: environment exit" 3
expect_err "--html unwritable: names it" "--html"
cp "$R/manifests/$T/tool.py" "$TMP/tool.py.orig"
echo "# edited" >>"$R/manifests/$T/tool.py"
run "$TG" -C "$R" run $T --arg file_path=data/sales.csv
expect_rc "changed after staging: refused" 1
expect_err "changed after staging: says why" "changed since"
cp "$TMP/tool.py.orig" "$R/manifests/$T/tool.py"

# -- a promotion archives the run with the candidate
git -C "$R" init -q && git -C "$R" add -A >/dev/null &&
    git -C "$R" -c user.name=t -c user.email=t@e.org commit -qm init
"$TG" -C "$R" feedback $T --output "yes" >/dev/null
"$TG" -C "$R" feedback $T --decision "Approve" >/dev/null
run "$TG" -C "$R" promote $T
expect_rc "promote after a staged run" 0
run git -C "$R" show --name-only --format= HEAD
expect_out "commit archives the run's artifacts" "registry/archive/promoted/${T}_1.0.0/run_artifacts.json"
expect_out "commit archives the run's files" "registry/archive/promoted/${T}_1.0.0/files/units.csv"
[ ! -d "$C" ] && ok || bad "candidate folder gone after promotion"

finish present
