#!/bin/sh
# As root, in a private directory: a fresh clone (committed state) in a mode-0700 directory
# builds, and `toolgen build` — the README's first command, without `make deps` — tests every
# tool in the sandbox, although the unprivileged user tool code runs as cannot traverse the
# path (docs/sandbox.md#running-as-root); the README's `toolgen pack --dev` and `make install`
# work there too. Skipped, check by check, when not root (CI runs as root).
. tests/lib.sh

skip_unless "needs root: it checks the unprivileged user toolgen switches to" test "$(id -u)" = 0

PRIV=$(mktemp -d)            # mode 0700, owned by root
# a signal stops the script too (a trap alone would clean up and carry on)
trap 'rm -rf "$TMP" "$PRIV"' EXIT
trap 'rm -rf "$TMP" "$PRIV"; exit 130' INT
trap 'rm -rf "$TMP" "$PRIV"; exit 143' TERM
need "clone the repository" git clone -q "$(pwd)" "$PRIV/repo"
expect_eq "the clone's directory stays private" "$(stat -c %a "$PRIV")" 700
# the README's `make deps && make -j` (not the sanitizer flavour a surrounding `make test
# SANITIZE=1` would pass down through MAKEFLAGS); make deps finds the packages installed
run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE sh -c 'cd "$1" && make deps && make -j2' - "$PRIV/repo"
expect_rc "make deps && make in the clone" 0
expect_out "make deps installs nothing from npm" "make deps: the Debian packages it needs are installed"
# make test-deps there, with the test peers this checkout has (no download)
if [ -d tests/npm/node_modules ]; then
    ln -s "$(cd tests/npm/node_modules && pwd -P)" "$PRIV/repo/tests/npm/node_modules"
    run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL sh -c 'cd "$1" && make test-deps' - "$PRIV/repo"
    expect_rc "make test-deps in a private directory" 0
    expect_out "it finds the test peers" "make test-deps: the test peers in tests/npm are installed"
fi
run sh -c 'cd "$1" && bin/toolgen build' - "$PRIV/repo"
expect_rc "toolgen build in a private directory" 0
case "$ERR$OUT" in
*"sandbox unavailable"*) bad "build: the sandbox was unavailable" ;;
*) ok "build: the sandbox was available" ;;
esac
expect_out "the tools were tested in the sandbox" "group_and_count_by_columns: 12/12 tests passed"
expect_out "node tools too" "csv_column_stats: 9/9 tests passed"
run sh -c 'cd "$1" && bin/toolgen run group_and_count_by_columns --json --arg file_path=data/tips.csv --arg group_by_columns="[\"day\"]"' - "$PRIV/repo"
expect_rc "toolgen run in a private directory" 0
expect_out "ran under bubblewrap" '"isolation": "bwrap"'
# the README's bundle command, and make install, in the same private clone
run sh -c 'cd "$1" && bin/toolgen pack --dev' - "$PRIV/repo"
expect_rc "toolgen pack --dev in a private directory" 0
run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SANITIZE sh -c 'cd "$1" && make -s install PREFIX="$2"' - "$PRIV/repo" "$PRIV/inst"
expect_rc "make install from a private directory" 0
run sh -c 'cd "$1" && env -u TOOLGEN_DATADIR "$2/bin/toolgen" lint' - "$PRIV/repo" "$PRIV/inst"
expect_rc "the installed toolgen lints the clone" 0
expect_eq "nothing was made readable" "$(stat -c %a "$PRIV")" 700
finish root-private
