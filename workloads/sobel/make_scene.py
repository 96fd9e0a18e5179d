#!/usr/bin/env python3
"""Writes scene.pgm, the sobel input: a deterministic 250x200 synthetic picture (gradient sky,
a disc, a tilted box, stripes and light noise) so the edge image shows recognisable contours.
With --large also scene_large.pgm, that picture tiled 2x2 (500x400) for sobel_large.yaml."""
import math
import random
import sys

WIDTH, HEIGHT = 250, 200


def pixel(x, y, rng):
    value = 40 + 80 * y / HEIGHT  # vertical gradient background
    if (x - 70) ** 2 + (y - 80) ** 2 < 45 ** 2:
        value = 210
    u, v = (x - 170) * math.cos(0.4) + (y - 120) * math.sin(0.4), -(x - 170) * math.sin(0.4) + (y - 120) * math.cos(0.4)
    if abs(u) < 40 and abs(v) < 25:
        value = 20
    if y > 170 and (x // 8) % 2 == 0:
        value = 240
    return max(0, min(255, round(value + rng.gauss(0, 4))))


def main():
    rng = random.Random(6)
    data = bytes(pixel(x, y, rng) for y in range(HEIGHT) for x in range(WIDTH))
    with open("scene.pgm", "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % (WIDTH, HEIGHT) + data)
    if "--large" in sys.argv[1:]:
        rows = [data[y * WIDTH:(y + 1) * WIDTH] * 2 for y in range(HEIGHT)]
        with open("scene_large.pgm", "wb") as out:
            out.write(b"P5\n%d %d\n255\n" % (2 * WIDTH, 2 * HEIGHT) + b"".join(rows) * 2)


if __name__ == "__main__":
    main()
