#!/bin/sh
# The layer rules of toolgen/ (tests/layers.py, docs/architecture.md): the tree obeys them, and
# the checker catches each kind of violation in a copy of the tree.
. tests/lib.sh

run python3 tests/layers.py
expect_rc "the tree obeys the layer rules" 0
expect_out "the tree obeys the layer rules" "ok"

# inject LINE into FILE of a fresh copy of the tree, then check the copy
inject() { # FILE LINE
    rm -rf "$TMP/tree"
    cp -r toolgen "$TMP/tree"
    printf '%s\n' "$2" >>"$TMP/tree/$1"
    run python3 tests/layers.py --root "$TMP/tree"
}

inject base/util.c '#include "cli/cli.h"'
expect_rc "upward include" 1
expect_out "upward include" 'base/util.c:'
expect_out "upward include" '"cli/cli.h" points up'

inject run/toolrun.c '#include "emit/emit.h"'
expect_rc "undeclared sibling" 1
expect_out "undeclared sibling" 'reaches into an undeclared sibling'

inject emit/emit.c '#include "buf.h"'
expect_rc "unqualified include" 1
expect_out "unqualified include" 'not path-qualified'

inject cli/main.c '#include "engine/build_int.h"'
expect_rc "private header" 1
expect_out "private header" 'private to engine/'

inject run/sandbox.c '#include <git2.h>'
expect_rc "external library outside its wrapper" 1
expect_out "external library outside its wrapper" 'only lifecycle/gitcommit.c, lifecycle/gitinit.c, lifecycle/gitrev.c, lifecycle/gitstatus.c may'

inject model/lint.c '#include "model/nonexistent.h"'
expect_rc "missing header" 1
expect_out "missing header" 'does not exist'

inject engine/build.c 'static int f(void) { return chdir("/"); }'
expect_rc "chdir in the library" 1
expect_out "chdir in the library" 'changes the working directory'
expect_out "chdir in the library" 'engine/build.c:'

inject cli/main.c 'static int g(int fd) { return fchdir(fd); }'
expect_rc "chdir in the command layer" 1
expect_out "chdir in the command layer" 'cli/main.c:'

rm -rf "$TMP/tree"; cp -r toolgen "$TMP/tree"; echo 'int x;' >"$TMP/tree/stray.c"
run python3 tests/layers.py --root "$TMP/tree"
expect_rc "file outside a layer" 1
expect_out "file outside a layer" 'stray.c:1: not in a layer folder'

rm -rf "$TMP/tree"; cp -r toolgen "$TMP/tree"; cp "$TMP/tree/base/buf.h" "$TMP/tree/model/buf.h"
run python3 tests/layers.py --root "$TMP/tree"
expect_rc "duplicate file name" 1
expect_out "duplicate file name" 'names are unique'

finish cli-layers
