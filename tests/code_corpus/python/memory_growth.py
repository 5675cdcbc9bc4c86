# expect: MemoryError
chunks = []
while True:
    chunks.append(bytearray(10 ** 8))
