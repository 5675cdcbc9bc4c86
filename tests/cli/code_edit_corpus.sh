#!/bin/sh
# The code-edit corpus (tests/code_edit_corpus/README.md): 40 snippet tasks in python,
# javascript, c and shell, each with the model's recorded answers, replayed through the
# code-edit toolset's tools with llm.provider replay and no server (corpus.py records the
# answers into the cache first, through a loopback server). Each task states the status and
# rounds toolgen must end with; a regression in checking (a verdict changed) or in repair (a
# round more or less) fails its task, as does a "verified" claim on code the corpus marks
# malformed. bench/code_edit_corpus.sh prints the table of docs/code-edit.md from the same run.
. tests/lib.sh
chmod 755 "$TMP" # the sandbox runs the checker as an unprivileged user when toolgen is root
python3 tests/code_edit_corpus/corpus.py "$TG" "$TMP" --tsv >"$TMP/rows" 2>"$TMP/corpus.err" ||
    { ERR=$(cat "$TMP/corpus.err"); setup_failed "the corpus did not replay"; }

expect_eq "the corpus: 40 tasks" "$(grep -c . "$TMP/rows")" 40
for lang in py js c sh; do
    expect_eq "the corpus: 10 $lang tasks" "$(grep -c "^$lang[0-9]" "$TMP/rows")" 10
done
TAB=$(printf '\t')
while IFS=$TAB read -r id status rounds verified want_status want_rounds false_verified same; do
    expect_eq "$id: status and rounds" "$status $rounds" "$want_status $want_rounds"
    case $want_status in failure) want_verified=false ;; *) want_verified=true ;; esac
    expect_eq "$id: verified" "$verified" "$want_verified"
    expect_eq "$id: no false \"verified\" claim" "$false_verified" false
    expect_eq "$id: the replay answered as the recording did" "$same" true
done <"$TMP/rows"

finish cli-code-edit-corpus
