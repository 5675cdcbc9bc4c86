#!/usr/bin/env python3
"""png_colors.py FILE.png RRGGBB...: prints, for each colour, how many pixels of the PNG have
exactly that colour ("RRGGBB N" per line). A dependency-free PNG reader (8-bit RGB/RGBA, no
interlace: what headless Chromium writes) for tests/cli/present.sh, which checks that the charts
of a presentation page were really drawn."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, i = zlib.decompress(idat), width * bpp, bytearray(width * bpp), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield from (bytes(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line


def main():
    want = {bytes.fromhex(c.lstrip("#")): c for c in sys.argv[2:]}
    counts = dict.fromkeys(want, 0)
    for px in pixels(sys.argv[1]):
        if px in counts:
            counts[px] += 1
    for k, name in want.items():
        print(name, counts[k])


if __name__ == "__main__":
    main()
