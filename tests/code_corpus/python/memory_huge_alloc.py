# expect: MemoryError
buf = bytearray(16 * 1024 ** 3)
