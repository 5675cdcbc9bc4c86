#!/bin/sh
# deps.sh — what `make deps` and `make test-deps` install, each step named when it fails.
#
#   deps.sh debian TARGET PKG... [-- CMD:PKG...]
#       installs the Debian packages that are missing (a CMD:PKG pair: PKG when the command CMD
#       is missing, for what a machine may have from elsewhere, e.g. Node.js from nodesource),
#       with apt-get, through sudo unless run as root
#   deps.sh npm TARGET DIR
#       installs the npm packages of DIR/package.json (its package-lock.json) into
#       DIR/node_modules unless they are there already
#
# TARGET names the make target in the messages. Exit status: 0 done, 1 a step failed (the
# message names it, and what to check).
set -u

say() { printf 'make %s: %s\n' "$target" "$*"; }
fail() { printf 'make %s: %s\n' "$target" "$*" >&2; exit 1; }

debian() {
    missing=""
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $1"
        shift
    done
    [ $# -gt 0 ] && shift
    for c in "$@"; do
        command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c#*:}"
    done
    if [ -z "$missing" ]; then
        say "the Debian packages it needs are installed"
        return 0
    fi
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    say "installing the missing Debian packages with ${sudo:-root's} apt-get:$missing"
    $sudo apt-get update -qq ||
        fail "step \`${sudo:+sudo }apt-get update\` failed (exit $?): the Debian mirrors of /etc/apt/sources.list cannot be reached${sudo:+, or sudo was refused}; check the network (or the proxy), then run make $target again"
    # shellcheck disable=SC2086 # the package list is split on purpose
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing ||
        fail "step \`${sudo:+sudo }apt-get install$missing\` failed (exit $?): a package could not be downloaded or installed (apt says which above; a mirror that cannot be reached makes apt-get update warn first); check the network, then run make $target again"
}

npm_peers() {
    dir=$1
    if [ -d "$dir/node_modules" ] && (cd "$dir" && npm ls --depth=0 >/dev/null 2>&1); then
        say "the test peers in $dir are installed"
        return 0
    fi
    registry=$(cd "$dir" && npm config get registry 2>/dev/null)
    say "installing the test peers into $dir from the npm registry ${registry:-(npm's default)}:"
    say "  the official tools the tests check toolgen's output with (MCP SDKs, Inspector and"
    say "  conformance suite, the mcpb CLI, OpenAI and Anthropic SDKs, TypeScript, Node.js 22;"
    say "  about 470 MB, once). toolgen and its main job (toolgen build) do not need them."
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error) ||
        fail "step \`npm install\` in $dir failed (exit $?): the npm registry ${registry:-(npm's default)} cannot be reached or refused a package (npm says which above); check the network (or set npm_config_registry to a mirror), then run make $target again"
}

mode=${1:-}
target=${2:-deps}
[ $# -ge 2 ] && shift 2
case $mode in
debian) debian "$@" ;;
npm) npm_peers "$@" ;;
*) echo "usage: deps.sh debian TARGET PKG... [-- CMD:PKG...] | npm TARGET DIR" >&2; exit 2 ;;
esac
