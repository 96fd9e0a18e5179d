// MUMmer-like exact matching of short reads against a suffix tree of a reference, one thread per read. Reads
// sit in query_length-byte slots, each ended by the end-of-read marker. For each of `offsets` start positions
// of its read the thread walks the tree from the root, one base per step: at a node it takes the child of
// that base, inside an edge the base must equal the edge's next base; the walk stops at a missing child, at a
// mismatch or at the read's end. The longest of these matches wins (the first offset on ties) and is reported
// as its length, its start in the reference (the smallest suffix start below the node reached) and the
// offset. Walk lengths, child choices and the node addresses are all data-dependent: lanes reach node
// boundaries at different steps, leave the walk at different lengths and read scattered nodes.

// A node is 8 words: children for bases 0..3 and the terminator, edge start, edge length, first suffix.
constexpr int kNodeWords = 8;
constexpr int kEdgeStart = 5;
constexpr int kEdgeLength = 6;
constexpr int kFirstSuffix = 7;
constexpr int kEndOfRead = 5;

struct Match {
  int length;
  int position;
};

// One base per trip, as a GPU walk keeps its state in a few registers: at a node boundary the next base picks
// a child and its edge; every base must equal the edge's next base. A missing child is the dead-end node,
// whose edge is the reference's terminator, so the comparison ends the walk there too: the boundary work has
// no exit of its own (an exit inside it would keep lanes that split there apart until the walk ends).
__device__ Match walk(const unsigned char* reference, const int* tree, const unsigned char* query) {
  Match match{0, -1};
  int node = 0, edge_base = 0, edge_left = 0, position = -1;
  for (;; ++match.length) {
    const int base = query[match.length];
    if (base == kEndOfRead) break;
    if (edge_left == 0) {
      node = tree[node * kNodeWords + base];
      const int* record = tree + node * kNodeWords;
      edge_base = record[kEdgeStart];
      edge_left = record[kEdgeLength];
      position = record[kFirstSuffix];
    }
    if (reference[edge_base] != base) break;
    match.position = position;
    ++edge_base;
    --edge_left;
  }
  return match;
}

extern "C" __global__ void mummer_match(const unsigned char* reference, const int* tree,
                                        const unsigned char* queries, int query_count, int query_length,
                                        int offsets, int* match_length, int* match_position,
                                        int* match_offset) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= query_count) return;
  const unsigned char* query = queries + q * query_length;
  Match best{0, -1};
  int best_offset = 0;
  for (int offset = 0; offset < offsets; ++offset) {
    const Match m = walk(reference, tree, query + offset);
    if (m.length > best.length) {
      best = m;
      best_offset = offset;
    }
  }
  match_length[q] = best.length;
  match_position[q] = best.position;
  match_offset[q] = best_offset;
}
