#!/usr/bin/env python3
"""Writes the graph of the bfs_graph workload: nodes.bin (int32 pairs: first edge, edge count) and edges.bin
(int32 neighbour ids). Deterministic (own LCG), so the committed files can be regenerated bit for bit.

Mostly local edges (neighbours within +-48 ids) with a few long ones give a BFS from node 0 a few dozen levels
and frontiers of very different sizes, as road-like graphs do; out-degrees vary from 1 to 8.
"""
import struct
import sys
from pathlib import Path

NODES = 4096


def lcg(state):
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        yield state >> 33


def main(out_dir: Path) -> None:
    rand = lcg(2024)
    nodes, edges = [], []
    for node in range(NODES):
        degree = 1 + next(rand) % 8
        nodes.append((len(edges), degree))
        for _ in range(degree):
            if next(rand) % 100 < 3:
                neighbour = next(rand) % NODES
            else:
                neighbour = (node + next(rand) % 97 - 48) % NODES
            edges.append(neighbour)
    (out_dir / "nodes.bin").write_bytes(b"".join(struct.pack("<ii", f, c) for f, c in nodes))
    (out_dir / "edges.bin").write_bytes(b"".join(struct.pack("<i", e) for e in edges))
    print(f"{NODES} nodes, {len(edges)} edges")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
