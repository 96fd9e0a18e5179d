#!/usr/bin/env python3
"""Writes image.pgm, the edge_filter input: a deterministic 192x192 gray picture (diagonal gradient, concentric
rings, a bright frame, a checker patch, a dark bar) with LCG noise; integer arithmetic only, so any Python
writes the same bytes. `make_image.py SIZE OUT` draws the same picture at SIZE x SIZE into OUT (the shapes
scale with it; 192 gives image.pgm's bytes): image_250.pgm is the paper-scale input (robust-simd.txt Table II's
500x500 image, a quarter per WPU)."""

import sys

SIZE = 192


class Lcg:
    def __init__(self, seed):
        self.state = seed

    def next(self, bound):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % bound


def pixel(x, y, rng):
    x, y = x * 192 // SIZE, y * 192 // SIZE  # the picture is drawn on a 192x192 canvas
    value = 30 + (x + y) * 100 // (2 * 192)  # diagonal gradient background
    r2 = (x - 60) ** 2 + (y - 64) ** 2
    if r2 < 44 ** 2 and (r2 // 150) % 2 == 0:  # concentric rings
        value = 200
    if 110 <= x < 176 and 20 <= y < 90 and not (120 <= x < 166 and 30 <= y < 80):  # hollow frame
        value = 235
    if 100 <= x < 180 and 110 <= y < 180 and ((x // 10) + (y // 10)) % 2 == 0:  # checker patch
        value = 15
    if 10 <= x < 90 and 140 <= y < 152:  # dark bar
        value = 5
    return max(0, min(255, value + rng.next(9) - 4))


def main():
    global SIZE
    out_name = "image.pgm"
    if len(sys.argv) == 3:
        SIZE, out_name = int(sys.argv[1]), sys.argv[2]
    rng = Lcg(15)
    data = bytes(pixel(x, y, rng) for y in range(SIZE) for x in range(SIZE))
    with open(out_name, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % (SIZE, SIZE) + data)


if __name__ == "__main__":
    main()
