#!/usr/bin/env python3
"""Writes volume.bin for the volume_render workload: a 32^3 u8 density volume (x fastest, then y, then z).

The scene is a hollow shell (a sphere of radius 0.62 with a soft wall), a solid ring tilted through it and a
dense core, so rays meet thin, thick and empty regions: some turn opaque after a few samples, others cross
the whole box. Every voxel on the volume's faces is 0, so samples clamped to the faces read empty space.
Pure float64 arithmetic with round-half-up, so the committed file regenerates bit for bit.
"""
import math
import sys
from pathlib import Path

SIZE = 32


def density(x: float, y: float, z: float) -> float:
    r = math.sqrt(x * x + y * y + z * z)
    shell = max(0.0, 1.0 - abs(r - 0.62) / 0.07)
    # A ring of major radius 0.45 in the plane tilted 30 degrees about the x axis.
    c, s = math.cos(math.pi / 6), math.sin(math.pi / 6)
    ry, rz = c * y - s * z, s * y + c * z
    ring_distance = math.sqrt((math.sqrt(x * x + ry * ry) - 0.45) ** 2 + rz * rz)
    ring = max(0.0, 1.0 - ring_distance / 0.16)
    core = max(0.0, 1.0 - math.sqrt((x - 0.12) ** 2 + (y + 0.08) ** 2 + z * z) / 0.22)
    return min(1.0, 0.3 * shell + 0.8 * ring + core)


def main(out_dir: Path) -> None:
    voxels = bytearray()
    for k in range(SIZE):
        for j in range(SIZE):
            for i in range(SIZE):
                face = 0 in (i, j, k) or SIZE - 1 in (i, j, k)
                coords = [2.0 * n / (SIZE - 1) - 1.0 for n in (i, j, k)]
                voxels.append(0 if face else int(math.floor(255.0 * density(*coords) + 0.5)))
    (out_dir / "volume.bin").write_bytes(bytes(voxels))
    print(f"{SIZE}^3 voxels, {sum(1 for v in voxels if v)} nonzero")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
