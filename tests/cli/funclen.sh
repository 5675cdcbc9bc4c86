#!/bin/sh
# No function in toolgen/ over 120 lines (tests/funclen.py), and the checker finds one that is.
. tests/lib.sh

run python3 tests/funclen.py
expect_rc "no function over 120 lines in toolgen/" 0

mkdir -p "$TMP/tree/base"
{ echo 'int too_long(void)'; echo '{'; i=0; while [ $i -lt 130 ]; do echo '    (void)0;'; i=$((i + 1)); done
  echo '    return 0;'; echo '}'; } >"$TMP/tree/base/long.c"
run python3 tests/funclen.py "$TMP/tree"
expect_rc "a 133-line function is reported" 1
expect_out "a 133-line function is reported" "base/long.c:1: too_long"

finish cli-funclen
