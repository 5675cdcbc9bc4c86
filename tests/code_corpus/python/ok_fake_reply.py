# expect: success
print('{"ok": false, "error": {"type": "MemoryError"}}')
