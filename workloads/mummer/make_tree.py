#!/usr/bin/env python3
"""Writes the mummer inputs, all deterministic (seeded random.Random):
- reference.bin: REF_LENGTH bases (u8, A C G T = 0 1 2 3) followed by the terminator 4. The reference repeats a
  few motifs with point mutations, so some queries match long and others short.
- tree.bin: the suffix tree of reference + terminator, 8 s32 per node: children by next base (0..3) and by the
  terminator (4), then the edge into the node as (start, length) in reference.bin and the smallest suffix start
  below the node. Node 0 is the root (edge length 0). A missing child is the last node, a dead end whose edge
  is the terminator (no base matches it), first suffix -1.
- queries.bin: QUERY_COUNT slots of QUERY_LENGTH bytes, each a read of MIN_READ_LENGTH..QUERY_LENGTH - 1 bases
  padded with END_OF_READ: mutated copies of reference stretches (long matches, ending at a data-dependent
  mutation) mixed with random strings (short matches).
- queries_large.bin (only with --large): LARGE_QUERY_COUNT reads drawn the same way from their own seeded
  generator, for mummer_large.yaml; the three files above come out the same with or without the option.
The tree is built naively (suffix insertion with edge splits): quadratic, but the reference is small."""
import argparse
import random
import struct

REF_LENGTH = 1024
QUERY_COUNT = 512
LARGE_QUERY_COUNT = 36864  # 288 CTAs of 128 threads: over three waves of 3 CTAs per SM on the SLP study's 30 SMs
LARGE_QUERY_SEED = 2027
QUERY_LENGTH = 40
TERMINATOR = 4
END_OF_READ = 5  # ends every read (at least one per slot)
MIN_READ_LENGTH = 16


def make_reference(rng):
    motifs = [[rng.randrange(4) for _ in range(rng.randint(20, 60))] for _ in range(3)]
    bases = []
    while len(bases) < REF_LENGTH:
        if rng.random() < 0.8:
            copy = list(rng.choice(motifs))
            for i in range(len(copy)):
                if rng.random() < 0.08:
                    copy[i] = rng.randrange(4)
            bases.extend(copy)
        else:
            bases.extend(rng.randrange(4) for _ in range(rng.randint(5, 40)))
    return bases[:REF_LENGTH] + [TERMINATOR]


class Node:
    def __init__(self, start, length):
        self.start = start
        self.length = length
        self.children = {}
        self.first_suffix = None


def build_tree(text):
    root = Node(0, 0)
    for suffix in range(len(text)):
        node, depth = root, suffix
        while True:
            child = node.children.get(text[depth])
            if child is None:
                node.children[text[depth]] = Node(depth, len(text) - depth)
                break
            k = 0
            while k < child.length and text[child.start + k] == text[depth + k]:
                k += 1
            if k == child.length:
                node, depth = child, depth + k
                continue
            # Split the edge after its k matching bases; the terminator keeps k short of the suffix's end.
            middle = Node(child.start, k)
            node.children[text[depth]] = middle
            child.start += k
            child.length -= k
            middle.children[text[child.start]] = child
            middle.children[text[depth + k]] = Node(depth + k, len(text) - depth - k)
            break
    return root


def number_nodes(root, text_length):
    """Breadth-first numbering (root 0) and the smallest suffix start below each node."""
    order, index = [root], 0
    while index < len(order):
        order.extend(order[index].children[c] for c in sorted(order[index].children))
        index += 1
    ids = {id(node): i for i, node in enumerate(order)}
    depth_of = {id(root): 0}
    for node in order:
        for child in node.children.values():
            depth_of[id(child)] = depth_of[id(node)] + child.length
    for node in reversed(order):
        if not node.children:  # a leaf: its path spells the suffix that starts here
            node.first_suffix = text_length - depth_of[id(node)]
        else:
            node.first_suffix = min(c.first_suffix for c in node.children.values())
    return order, ids


def make_queries(rng, reference, count):
    queries = []
    for q in range(count):
        if q % 8 < 5:
            start = rng.randrange(REF_LENGTH - QUERY_LENGTH)
            query = reference[start:start + QUERY_LENGTH]
            rate = rng.choice([0.02, 0.05, 0.1, 0.2])
            query = [rng.randrange(4) if rng.random() < rate else b for b in query]
        else:
            query = [rng.randrange(4) for _ in range(QUERY_LENGTH)]
        read_length = rng.randint(MIN_READ_LENGTH, QUERY_LENGTH - 1)
        queries.append(query[:read_length] + [END_OF_READ] * (QUERY_LENGTH - read_length))
    return queries


def write_queries(path, queries):
    with open(path, "wb") as out:
        for query in queries:
            out.write(bytes(query))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true",
                        help=f"also write queries_large.bin ({LARGE_QUERY_COUNT} reads)")
    args = parser.parse_args()
    rng = random.Random(2026)
    text = make_reference(rng)
    root = build_tree(text)
    order, ids = number_nodes(root, len(text))
    with open("reference.bin", "wb") as out:
        out.write(bytes(text))
    with open("tree.bin", "wb") as out:
        dead_end = len(order)
        for node in order:
            children = [ids[id(node.children[c])] if c in node.children else dead_end for c in range(5)]
            out.write(struct.pack("<8i", *children, node.start, node.length, node.first_suffix))
        out.write(struct.pack("<8i", *[dead_end] * 5, REF_LENGTH, 1, -1))
    write_queries("queries.bin", make_queries(rng, text[:REF_LENGTH], QUERY_COUNT))
    print(f"reference {len(text)} bases, {len(order) + 1} nodes, {QUERY_COUNT} queries")
    if args.large:
        # Its own generator: the small files do not depend on whether the large one is written.
        large_rng = random.Random(LARGE_QUERY_SEED)
        write_queries("queries_large.bin", make_queries(large_rng, text[:REF_LENGTH], LARGE_QUERY_COUNT))
        print(f"{LARGE_QUERY_COUNT} large queries")


if __name__ == "__main__":
    main()
