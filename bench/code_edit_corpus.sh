#!/bin/sh
# bench/code_edit_corpus.sh — the code-edit corpus's table (docs/code-edit.md, "Measured: the
# corpus"): per language and in all, the well-formed rate of the model's first answers (the
# checker's verdict on them) and after verification and repair (the final status success or
# no_change_needed, and verified), the answers asked, the repairs that worked, and false
# "verified" claims. The answers are recorded into the cache through a loopback server and then
# replayed with llm.provider replay and no server (tests/code_edit_corpus/corpus.py); the
# replay is what is measured. tests/cli/code_edit_corpus.sh asserts the same run per task.
#
# $TOOLGEN (default bin/toolgen). Work files go to $BENCH_DIR (default
# bench/work/code_edit_corpus/, git-ignored). Not a test: run it by hand.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TG=${TOOLGEN:-$ROOT/bin/toolgen}
case "$TG" in /*) ;; *) TG=$ROOT/$TG ;; esac
[ -x "$TG" ] || make -j2 >/dev/null
WORK=${BENCH_DIR:-$ROOT/bench/work/code_edit_corpus}
rm -rf "$WORK"
mkdir -p "$WORK"
chmod 755 "$WORK" # the sandbox runs the checker as an unprivileged user when toolgen is root
python3 tests/code_edit_corpus/corpus.py "$TG" "$WORK" --table
