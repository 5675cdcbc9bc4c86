#!/bin/sh
# The built-in generator end to end: 59 intents over 9 datasets generated, run in the sandbox
# and checked against pandas; the manifests lint clean and build with their tests; refusals.
exec /usr/bin/python3 tests/gen/builtin_gen.py
