#!/bin/sh
# The review page (`toolgen run TOOL --html`, docs/lifecycle.md "Presentation") of the README's
# offline story, "average tip by day": the reading of the request, the result once (a table
# whose numbers are rounded and right-aligned, and a bar chart, since the rows have a category
# and a value), the tool summary without empty headings, and the two questions with the exact
# commands. Headless Chromium reads the DOM and takes screenshots at a phone's width (390 px)
# and a desktop's (1280 px): the chart's four bars are drawn side by side within the window,
# nothing is cut off at its right edge, and the approval box is on the page.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs tool code as an unprivileged user when toolgen is root
HERE=$(pwd)
R=$TMP/repo
T=mean_tip_by_day
mkdir -p "$R/data" "$R/manifests"
cp data/tips.csv "$R/data/"
"$TG" -C "$R" new "average tip by day" --data data/tips.csv >/dev/null 2>&1 &&
    "$TG" -C "$R" build >/dev/null 2>&1 && "$TG" -C "$R" stage $T >/dev/null 2>&1 ||
    echo "generating and staging $T failed" >&2
run "$TG" -C "$R" run $T --arg file_path=data/tips.csv --html "$TMP/review.html"
expect_rc "the staged run writes the page" 0
expect_out "the terminal counts the rows read, not the groups" "**Rows Processed**: 244"

# What a reader sees: the page's text (not its markup or titles), and a few counts.
cat >"$TMP/page.py" <<'EOF'
import re, sys
from html.parser import HTMLParser

class Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.skip = [], 0
    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("title", "style")
    def handle_endtag(self, tag):
        self.skip -= tag in ("title", "style")
    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)

page = sys.stdin.read()
p = Text()
p.feed(page)
text = " ".join(" ".join(p.text).split())
print("tables", page.count("<table"))
print("num-cells", len(re.findall(r'<td class="num"', page)))
print("bars", page.count('class="tg-bar"'))
print("pre", page.count("<pre"))
print("text", text)
EOF
page() { python3 "$TMP/page.py" <"$1"; }
line() { printf '%s\n' "$OUT" | awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }'; }
if command -v chromium >/dev/null 2>&1; then
    CHROME="chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run"
    $CHROME --dump-dom "file://$TMP/review.html" >"$TMP/dom.html" 2>/dev/null
else
    RC=0 OUT= ERR=
    bad "chromium is not installed: run \`make deps\` (Debian package chromium)"
    cp "$TMP/review.html" "$TMP/dom.html"
fi
run page "$TMP/dom.html"
expect_eq "the result is shown once: one table" "$(line tables)" 1
expect_eq "its numbers are right-aligned" "$(line num-cells)" 4
expect_eq "a bar chart of the four days" "$(line bars)" 4
expect_eq "no Markdown source in a <pre>: only the four commands" "$(line pre)" 4
TEXT=$(line text)
for s in "Mean of tip per day" "The request, as the tool reads it" "file_path = data/tips.csv" \
    "group_by = [\"day\"]" "2.735" "3.255" "mean_tip by day" "244 rows of data/tips.csv read, 244 used." \
    "Rows processed 244" "Limitations" \
    "1. Is this output correct for your current analysis?" \
    "toolgen feedback $T --output \"Yes\"" "toolgen feedback $T --output \"No: ...\"" \
    "2. Should I save this as a reusable tool for future analyses?" \
    "toolgen feedback $T --decision \"Approve\" toolgen promote $T" \
    "toolgen reject $T --notes \"...\""; do
    case "$TEXT" in *"$s"*) ok ;; *) RC=0 OUT="$TEXT" ERR= && bad "the page says: $s" ;; esac
done
for s in "2.734736842105263" "| --- |" "## " "Sample rows" "Assumptions"; do
    case "$TEXT" in *"$s"*) RC=0 OUT="$TEXT" ERR= && bad "the page does not say: $s" ;; *) ok ;; esac
done
run grep -c 'title="2.734736842105263"' "$TMP/review.html"
expect_eq "the exact value is kept in the cell's title" "$OUT" 1
run grep -c -E '<script|<link|src=|url\(' "$TMP/review.html"
expect_eq "self-contained: nothing fetched" "$OUT" 0

# Screenshots: a phone and a desktop.
if [ -n "${CHROME:-}" ]; then
    for w in 390 1280; do
        $CHROME --window-size=$w,2800 --screenshot="$TMP/shot$w.png" "file://$TMP/review.html" \
            >/dev/null 2>&1
        run python3 "$HERE/tests/png_layout.py" "$TMP/shot$w.png" 4C72B0 FFFBEA
        expect_eq "$w px: the screenshot's width" "$(line size | cut -d' ' -f1)" $w
        set -- $(line 4C72B0) # count x0 y0 x1 y1 runs
        [ "${1:-0}" -gt 20000 ] && ok || bad "$w px: the bars are drawn (blue: ${1:-0})"
        expect_eq "$w px: four bars side by side" "${6:-0}" 4
        [ "${4:--1}" -lt $((w - 16)) ] && ok || bad "$w px: the chart fits the window (right edge ${4:-})"
        wide=$((w < 800 ? w / 2 : 400)) # scaled down to a phone, not shrunk on a desktop
        [ $((${4:-0} - ${2:-0})) -gt $wide ] && ok || bad "$w px: the chart uses the width ($2 .. $4)"
        set -- $(line FFFBEA)
        [ "${1:-0}" -gt 100000 ] && ok || bad "$w px: the approval box is drawn (${1:-0})"
        expect_eq "$w px: nothing cut off at the right edge" "$(line edge)" 0
    done
fi

finish review-page
