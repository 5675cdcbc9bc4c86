#!/bin/sh
# Requests once answered wrong, end to end against pandas: the reading shown, reuse only of a
# tool that covers every part of it, nothing dropped (tests/gen/reading_gen.py).
exec /usr/bin/python3 tests/gen/reading_gen.py
