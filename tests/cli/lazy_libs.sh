#!/bin/sh
# libcurl, libxml2 and libmicrohttpd are loaded when first needed, not linked (Makefile,
# net/curlload.h, base/html.c, serve/mhdload.h): toolgen starts and does its offline work on a
# machine where they cannot be loaded, and a command that needs one says which package to
# install. Each library is hidden by an empty file bound over it in a mount namespace of its own
# (bubblewrap, the sandbox's own tool), the rest of the machine as it is.
. tests/lib.sh

lib_path() { # SONAME: where the dynamic loader finds it
    ldconfig -p | awk -v n="$1" '$1 == n && /x86-64|AArch64|64bit/ {print $NF; exit}'
}
# hidden SONAME CMD...: runs CMD with SONAME an empty file
hidden() {
    _lib=$(lib_path "$1")
    shift
    [ -n "$_lib" ] || setup_failed "the dynamic loader does not know $1"
    run bwrap --dev-bind / / --ro-bind /dev/null "$_lib" --chdir "$PWD" -- "$@"
}

readelf -d "$TG" >"$TMP/dyn" 2>/dev/null || setup_failed "readelf cannot read $TG"
for lib in libcurl libxml2 libmicrohttpd; do
    if grep -q "NEEDED.*\[$lib\.so" "$TMP/dyn"; then
        bad "toolgen does not link $lib (it loads it)"
    else
        ok
    fi
done

hidden libcurl.so.4 "$TG" lint
expect_rc "lint without libcurl" 0
hidden libmicrohttpd.so.12 "$TG" diff --check HEAD HEAD
expect_rc "diff without libmicrohttpd" 0

hidden libcurl.so.4 env EXCHANGE_API_TOKEN=test-token "$TG" run get_exchange_rate \
    --arg base=USD --arg target=EUR
expect_rc "an http tool without libcurl" 1
expect_err "an http tool without libcurl" "cannot load libcurl"
expect_err "an http tool without libcurl" "install Debian's libcurl4"

hidden libmicrohttpd.so.12 "$TG" serve --http 127.0.0.1:0
expect_rc "serve --http without libmicrohttpd" 3
expect_err "serve --http without libmicrohttpd" "cannot load libmicrohttpd"
expect_err "serve --http without libmicrohttpd" "libmicrohttpd12"

finish lazy-libs
