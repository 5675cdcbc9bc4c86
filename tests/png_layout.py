#!/usr/bin/env python3
"""png_layout.py FILE.png RRGGBB...: where things are drawn in a screenshot, for the layout
checks of tests/cli/review_page.sh. Prints "size W H"; then per colour "RRGGBB N X0 Y0 X1 Y1 R":
its pixel count, bounding box (-1s when absent) and the most separate horizontal runs of it on
one row (four bars side by side: 4); then "edge N": the pixels that are not white in the
rightmost four columns (content cut off at the right edge of the window)."""
import struct
import sys

from png_colors import pixels


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        width, height = struct.unpack(">II", f.read(24)[16:24])
    want = [bytes.fromhex(c.lstrip("#")) for c in sys.argv[2:]]
    stats = {c: [0, width, height, -1, -1, 0] for c in want}
    runs = dict.fromkeys(want, 0)
    edge, prev = 0, None
    for i, px in enumerate(pixels(path)):
        x, y = i % width, i // width
        if x == 0:
            for c in want:
                stats[c][5] = max(stats[c][5], runs[c])
                runs[c] = 0
            prev = None
        if x >= width - 4 and px != b"\xff\xff\xff":
            edge += 1
        if px in stats:
            s = stats[px]
            s[0] += 1
            s[1], s[2], s[3], s[4] = min(s[1], x), min(s[2], y), max(s[3], x), max(s[4], y)
            if prev != px:
                runs[px] += 1
        prev = px
    print("size", width, height)
    for c in want:
        n, x0, y0, x1, y1, r = stats[c]
        r = max(r, runs[c])
        print(c.hex().upper(), n, *(x0, y0, x1, y1) if n else (-1, -1, -1, -1), r)
    print("edge", edge)


main()
