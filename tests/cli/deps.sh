#!/bin/sh
# make deps installs Debian packages only — the main job needs no npm registry —; the test peers
# install with the test command (make test-deps, which make test runs), saying what and why;
# a registry that cannot be reached fails with a message naming the step. The package tools are
# stand-ins on PATH here, so nothing is installed and no network is used.
. tests/lib.sh

F="$TMP/fake"
mkdir -p "$F"
# every package installed; npm records that it ran
cat >"$F/dpkg-query" <<'EOF'
#!/bin/sh
printf 'install ok installed'
EOF
cat >"$F/npm" <<EOF
#!/bin/sh
echo "npm \$*" >>"$TMP/npm.log"
exit 0
EOF
chmod +x "$F/dpkg-query" "$F/npm"
M() { run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$F:$PATH" make --no-print-directory "$@"; }

M deps
expect_rc "make deps" 0
expect_out "make deps says the packages are there" "make deps: the Debian packages it needs are installed"
if [ -e "$TMP/npm.log" ]; then bad "make deps ran npm: $(cat "$TMP/npm.log")"; else ok; fi

# make test runs make test-deps (a dry run lists its steps)
M -n test
expect_out "make test installs the test peers first" "build-aux/deps.sh npm test-deps tests/npm"

# test-deps in a folder without node_modules: says what it installs and why, then runs npm
mkdir -p "$TMP/peers"
cp tests/npm/package.json tests/npm/package-lock.json "$TMP/peers/"
M test-deps NPM_DIR="$TMP/peers"
expect_rc "make test-deps" 0
expect_out "it says what it installs" "make test-deps: installing the test peers into $TMP/peers from the npm registry"
expect_out "and why" "the official tools the tests check toolgen's output with"
expect_out "and that the main job does not need them" "toolgen and its main job (toolgen build) do not need them"
run cat "$TMP/npm.log"
expect_out "npm install ran, with its errors shown" "npm install --no-audit --no-fund --loglevel=error"

# the npm registry cannot be reached: the real npm against a closed port
rm -f "$F/npm"
if command -v npm >/dev/null 2>&1; then
    M test-deps NPM_DIR="$TMP/peers" npm_config_registry=http://127.0.0.1:9/ \
        npm_config_fetch_retries=0 npm_config_cache="$TMP/npm-cache"
    if [ "$RC" -ne 0 ]; then ok; else bad "test-deps passed without a registry"; fi
    expect_err "the failing step is named, with the registry" "make test-deps: step \`npm install\` in $TMP/peers failed"
    expect_err "... and what to check" "the npm registry http://127.0.0.1:9/ cannot be reached"
else
    echo "deps: npm missing, the unreachable-registry case is skipped"
fi

# a Debian package is missing and the mirrors cannot be reached
cat >"$F/dpkg-query" <<'EOF'
#!/bin/sh
exit 1
EOF
cat >"$F/apt-get" <<'EOF'
#!/bin/sh
case "$*" in
*update*) echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'" >&2; exit 0 ;;
*) echo "E: Unable to locate package gcc" >&2; exit 100 ;;
esac
EOF
printf '#!/bin/sh\nexec "$@"\n' >"$F/sudo"
chmod +x "$F/dpkg-query" "$F/apt-get" "$F/sudo"
M deps
expect_rc "make deps without a mirror" 2
expect_out "it says what it installs" "make deps: installing the missing Debian packages"
expect_err "the failing step is named" "make deps: step \`"
expect_err "... it is apt-get install" "apt-get install gcc make"
expect_err "... and what to check" "check the network"
cat >"$F/apt-get" <<'EOF'
#!/bin/sh
echo "E: Could not open lock file /var/lib/apt/lists/lock" >&2; exit 100
EOF
M deps
expect_rc "make deps: apt-get update fails" 2
expect_err "the failing step is named" "apt-get update\` failed (exit 100): the Debian mirrors of /etc/apt/sources.list cannot be reached"

finish cli-deps
