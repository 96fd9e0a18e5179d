// Reference of workloads/mummer: the longest prefix match of each read suffix against every reference
// position by direct comparison (not through the suffix tree, so a wrong tree shows as a mismatch). Ties
// resolve as the tree walk does: the smallest reference position for a length, the first read offset for the
// best length; no match at all reports position -1.
#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int kNodeWords = 8;
constexpr uint8_t kEndOfRead = 5;

struct Match {
  int length = 0;
  int position = -1;
};

// `text` ends with a terminator no query base equals, so every comparison stops inside it.
Match longest_match(const uint8_t* text, int text_length, const uint8_t* query, int length) {
  Match best;
  for (int p = 0; p < text_length; ++p) {
    int k = 0;
    while (k < length && p + k < text_length && text[p + k] == query[k]) ++k;
    if (k > best.length) best = {k, p};
  }
  return best;
}

}  // namespace

void mummer(const launch::Launch& launch, Buffers& buffers) {
  const int query_count = static_cast<int>(param_int(launch, 3));
  const int query_length = static_cast<int>(param_int(launch, 4));
  const int offsets = static_cast<int>(param_int(launch, 5));
  const std::string& reference_name = param_buffer_name(launch, 0);
  const uint8_t* text = checked_param_buffer<uint8_t>(launch, buffers, 0, 1, "the terminator at least");
  const int text_length = static_cast<int>(count_of<uint8_t>(buffers, reference_name));
  // A suffix tree has one leaf per suffix of the terminated text, plus the root and the dead-end node.
  checked_param_buffer<int32_t>(launch, buffers, 1, elements(text_length + 2, kNodeWords),
                                "8 words per node, at least the root, one leaf per suffix and the dead end");
  const uint8_t* queries = checked_param_buffer<uint8_t>(
      launch, buffers, 2, elements(query_count, query_length), "query_count x query_length bases");
  int32_t* lengths =
      checked_param_buffer<int32_t>(launch, buffers, 6, elements(query_count), "one per query");
  int32_t* positions =
      checked_param_buffer<int32_t>(launch, buffers, 7, elements(query_count), "one per query");
  int32_t* chosen_offsets =
      checked_param_buffer<int32_t>(launch, buffers, 8, elements(query_count), "one per query");
  if (offsets > query_length) {
    reference_error(launch, "offsets (" + std::to_string(offsets) + ") must not exceed query_length (" +
                                std::to_string(query_length) + "): the walk would start in the next read");
  }
  for (int q = 0; q < query_count; ++q) {
    const uint8_t* query = queries + static_cast<size_t>(q) * static_cast<size_t>(query_length);
    Match best;
    int best_offset = 0;
    for (int offset = 0; offset < offsets; ++offset) {
      // The walk reads bases up to the first end-of-read marker at or after its offset; it must lie in the
      // slot, and the bases before it must be 0..3 (they index a node's children).
      const uint8_t* end = std::find(query + offset, query + query_length, kEndOfRead);
      if (end == query + query_length || std::any_of(query + offset, end, [](uint8_t b) { return b > 3; })) {
        reference_error(launch, "query " + std::to_string(q) + " from offset " + std::to_string(offset) +
                                    " is not bases 0..3 ended by the end-of-read marker 5 inside its slot");
      }
      const Match m =
          longest_match(text, text_length, query + offset, static_cast<int>(end - query) - offset);
      if (m.length > best.length) {
        best = m;
        best_offset = offset;
      }
    }
    lengths[q] = best.length;
    positions[q] = best.position;
    chosen_offsets[q] = best_offset;
  }
}

}  // namespace simtlm::workloads
