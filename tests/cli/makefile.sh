#!/bin/sh
# make prints one short line per file it builds (V=1: the whole command; -s: nothing), and the README's
# set-up commands build in parallel.
. tests/lib.sh

M() { run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "$@"; }
M BUILD="$TMP/b" "$TMP/b/obj/base/zip.o"
expect_rc "make one object" 0
expect_eq "one short line" "$OUT" "  CC   toolgen/base/zip.c"
M BUILD="$TMP/b" -W toolgen/base/zip.c V=1 "$TMP/b/obj/base/zip.o"
expect_rc "make V=1" 0
expect_out "V=1: the whole compiler command" " -std=c11 -Wall -Wextra -Werror"
expect_out "... of that file" "-c -o $TMP/b/obj/base/zip.o toolgen/base/zip.c"
M BUILD="$TMP/b" -W toolgen/base/zip.c -s "$TMP/b/obj/base/zip.o"
expect_rc "make -s" 0
expect_eq "make -s prints nothing" "$OUT" ""

run grep -c '^make deps && make -j"$(nproc)" && ' README.md
expect_eq "both README set-up commands use -j" "$OUT" 2

finish cli-makefile
