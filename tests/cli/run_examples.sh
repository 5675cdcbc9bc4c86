#!/bin/sh
# `toolgen run` on every runnable example tool of manifests/ reproduces its recorded example
# outputs and passes its tests: the same checks as tests/examples/check_examples.py, but every
# call goes through toolgen's runner and the sandbox (tests/sandbox/run_examples.py).
exec /usr/bin/python3 tests/sandbox/run_examples.py
