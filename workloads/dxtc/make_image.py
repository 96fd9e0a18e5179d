#!/usr/bin/env python3
"""Writes image.bin, the dxtc input: a deterministic 64x64 RGBA picture (little-endian u32 per pixel,
red in the low byte) with a smooth colour gradient, a flat-coloured disc and a flat band (blocks whose
colours are all equal, the kernel's flat-block branch), a dim slowly varying strip where flat and
textured blocks alternate, a hard-edged checker patch and light noise on the gradient.
With --large also image_large.bin, that picture tiled 4x4 (256x256) for dxtc_large.yaml."""
import random
import struct
import sys

SIZE = 64


def pixel(x, y, rng):
    if (x - 20) ** 2 + (y - 22) ** 2 < 14 ** 2:
        return (200, 40, 60)
    if 44 <= y < 52:
        return (30, 90, 200)
    if y >= 52:  # a dim, slowly varying area: a block is flat unless it straddles an RGB565 step
        level = 96 + x // 5 + rng.randint(0, 1)
        return (level, level, level)
    if x >= 40 and y >= 12 and y < 36:
        return (250, 250, 250) if ((x // 3) + (y // 3)) % 2 == 0 else (10, 60, 10)
    noise = rng.randint(-6, 6)
    clamp = lambda v: max(0, min(255, v))
    return (clamp(4 * x + noise), clamp(3 * y + noise), clamp(255 - 2 * x - 2 * y + noise))


def main():
    rng = random.Random(11)
    with open("image.bin", "wb") as out:
        for y in range(SIZE):
            for x in range(SIZE):
                r, g, b = pixel(x, y, rng)
                out.write(struct.pack("<I", r | (g << 8) | (b << 16) | (255 << 24)))


def tile_large():
    with open("image.bin", "rb") as f:
        data = f.read()
    row = 4 * SIZE
    rows = [data[y * row:(y + 1) * row] * 4 for y in range(SIZE)]
    with open("image_large.bin", "wb") as out:
        out.write(b"".join(rows) * 4)


if __name__ == "__main__":
    main()
    if "--large" in sys.argv[1:]:
        tile_large()
