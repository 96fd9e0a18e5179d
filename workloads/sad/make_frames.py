#!/usr/bin/env python3
"""Writes reference.pgm and current.pgm, the sad inputs: two deterministic 64x48 8-bit frames of a
textured scene (gradient, blobs, stripes, noise). The current frame is the reference moved by
(+3, -2) pixels (edge pixels repeated where the motion uncovers the border) with fresh noise, so most
blocks have a clear best match at displacement (-3, +2)."""
import math
import random

WIDTH, HEIGHT = 64, 48
MOTION_X, MOTION_Y = 3, -2


def scene(x, y):
    value = 60 + 1.5 * x + 0.8 * y
    value += 50 * math.sin(x / 5.0) * math.cos(y / 7.0)
    if (x - 40) ** 2 + (y - 20) ** 2 < 10 ** 2:
        value = 220
    if 8 <= x < 20 and (y // 3) % 2 == 0:
        value = 30
    return value


def write(name, pixels):
    with open(name, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % (WIDTH, HEIGHT) + bytes(pixels))


def main():
    rng = random.Random(17)
    clamp = lambda v: max(0, min(255, round(v)))
    reference = [clamp(scene(x, y) + rng.gauss(0, 3)) for y in range(HEIGHT) for x in range(WIDTH)]
    current = []
    for y in range(HEIGHT):
        for x in range(WIDTH):
            sx = min(max(x - MOTION_X, 0), WIDTH - 1)
            sy = min(max(y - MOTION_Y, 0), HEIGHT - 1)
            current.append(clamp(reference[sy * WIDTH + sx] + rng.gauss(0, 3)))
    write("reference.pgm", reference)
    write("current.pgm", current)


if __name__ == "__main__":
    main()
