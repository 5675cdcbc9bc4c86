"""Fails in one chosen way per call, so that each error class has a test."""

import os
import sys

from toolgen_helpers import ToolError


def run(kind: str, file_path: str = None) -> dict:
    if kind == "ok":
        return {"kind": kind}
    if kind == "print_memoryerror_ok":
        # Error-like text on stdout and stderr must not change a successful call.
        print("Traceback (most recent call last):\nMemoryError")
        print("FATAL ERROR: JavaScript heap out of memory", file=sys.stderr)
        return {"kind": kind}
    if kind == "print_memoryerror_value_error":
        print("MemoryError: out of memory\nTIMEOUT\nFORBIDDEN")
        raise ValueError("the value is wrong")
    if kind == "stderr_memoryerror_exit":
        print("Traceback (most recent call last):\nMemoryError", file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)
    if kind == "key_error":
        return {"kind": {"a": 1}["region"]}
    if kind == "type_error":
        return {"kind": "total: " + 3}
    if kind == "value_error":
        raise ValueError("Column(s) not found in data/ok.csv: region. Available columns: name, value")
    if kind == "file_not_found":
        open("data/not_mounted.csv").read()
    if kind == "permission":
        with open("/usr/share/toolgen-test", "w") as f:
            f.write("x")
    if kind == "network":
        import socket
        socket.create_connection(("10.255.255.1", 80), timeout=2)
    if kind == "module_missing":
        import allowed_but_not_installed  # noqa: F401
    if kind == "module_not_allowed":
        import definitely_not_a_module_xyz  # noqa: F401
    if kind == "empty_data":
        import pandas as pd
        pd.read_csv(file_path)
    if kind == "recursion":
        def f(n):
            return f(n + 1)
        f(0)
    if kind == "system_exit":
        sys.exit(3)
    if kind == "exit_no_reply":
        os._exit(3)
    if kind == "segfault":
        import ctypes
        ctypes.string_at(0)
    if kind == "tool_error_code":
        raise ToolError("CONFLICT", "the record was changed by someone else")
    if kind == "timeout_error":
        raise TimeoutError("gave up waiting")
    if kind == "not_json":
        return {"kind": float("nan")}
    if kind == "not_object":
        return [kind]
    if kind == "output_schema":
        return {"kind": 42}
    if kind == "process_limit":
        while True:  # uncaught: fork fails with EAGAIN under RLIMIT_NPROC
            if os.fork() == 0:
                import time
                time.sleep(30)
                os._exit(0)
    if kind == "files_limit":
        handles = []
        while True:  # uncaught: EMFILE under RLIMIT_NOFILE
            handles.append(open("/dev/null"))
    if kind == "viz_invalid":
        import json
        with open("visualization_manifest.json", "w") as f:
            json.dump({"version": "1.0", "outputs": [
                {"id": "t", "type": "histogram", "dataFile": "nowhere.csv"}]}, f)
        return {"kind": kind}
    if kind == "runtime_error":
        raise RuntimeError("something broke")
    raise ValueError(f"unknown kind {kind}")
