#!/bin/sh
# `toolgen run --out DIR`: the files a call wrote are copied into DIR and its result names the
# copies (values and Markdown links), never the sandbox's private working directory
# (docs/emit.md, "Artifacts"). Without --out the result is the tool's own.
. tests/lib.sh

PY=/usr/bin/python3
# As root, tool code runs as an unprivileged user that must reach the work directories.
chmod 755 "$TMP"
mkdir -p "$TMP/tmp"
chmod 1777 "$TMP/tmp"
TMPDIR=$TMP/tmp
export TMPDIR

field() { # EXPR over the envelope d (the last run's stdout)
    printf '%s' "$OUT" | $PY -c 'import json,sys
d=json.load(sys.stdin)
v=eval(sys.argv[1])
print(json.dumps(v) if not isinstance(v,str) else v)' "$1" 2>/dev/null
}

CALL="--arg file_path=data/tips.csv --arg category_column=day"
run "$TG" run bar_chart_by_group $CALL --json --out "$TMP/charts"
expect_rc "run --out: the call succeeds" 0
expect_eq "run --out: chart_file names the copy" "$(field "d['result']['chart_file']")" \
    "$TMP/charts/bar_chart.png"
expect_eq "run --out: data_file names the copy" "$(field "d['result']['data_file']")" \
    "$TMP/charts/bar_chart_data.csv"
md=$(field "d['result']['summary_markdown']")
case "$md" in
*"]($TMP/charts/bar_chart.png)"*) ok ;;
*) bad "run --out: the summary's image link does not name the copy: $md" ;;
esac
chart=$(field "d['result']['chart_file']")
if [ -s "$chart" ]; then ok; else bad "run --out: $chart is not there"; fi
expect_eq "run --out: the envelope still lists the files as the tool wrote them" \
    "$(field "[f['path'] for f in d['files']]")" \
    '["bar_chart.png", "bar_chart_data.csv", "visualization_manifest.json"]'

# Markdown output: the printed summary links the copy too; a relative DIR stays relative.
rel=$(realpath -m --relative-to="$(pwd)" "$TMP/rel/out")
run "$TG" run bar_chart_by_group $CALL --out "$rel"
expect_rc "run --out (Markdown): the call succeeds" 0
expect_out "run --out (Markdown): the image link names the copy" "]($rel/bar_chart.png)"
if [ -s "$TMP/rel/out/bar_chart.png" ]; then ok; else bad "run --out: $rel/bar_chart.png is not there"; fi

# Without --out nothing is rewritten: the result is the tool's own.
run "$TG" run bar_chart_by_group $CALL --json
expect_rc "run without --out: the call succeeds" 0
expect_eq "run without --out: chart_file as the tool gave it" \
    "$(field "d['result']['chart_file']")" "bar_chart.png"

finish cli-run-out
