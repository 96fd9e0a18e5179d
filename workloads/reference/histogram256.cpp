// Reference of workloads/histogram256: the bins of the first 4 * word_count bytes, which the partial and
// merge kernels must produce whatever order the warps' retry loops take. word_count and partial_count come
// from the launch file's first launches of the two kernels.
#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

const std::string& sequence_buffer(const launch::Launch& launch, const std::string& kernel, size_t index) {
  const launch::ParamValue& p = sequence_param(launch, kernel, index, "a buffer");
  if (p.kind != launch::ParamValue::Kind::buffer || !p.offset.empty())
    sequence_param_kind_error(launch, kernel, index, "a buffer without an offset", p);
  return p.buffer;
}

}  // namespace

void histogram256(const launch::Launch& launch, Buffers& buffers) {
  constexpr uint64_t kBins = 256;
  const int64_t word_count = sequence_param_int(launch, "histogram256_partial", 1);
  const int64_t partial_count = sequence_param_int(launch, "merge_histogram256", 1);
  const uint8_t* data =
      checked_view<uint8_t>(launch, buffers, sequence_buffer(launch, "histogram256_partial", 0),
                            4 * elements(word_count), "4 bytes per word of word_count");
  checked_view<uint32_t>(launch, buffers, sequence_buffer(launch, "merge_histogram256", 0),
                         kBins * elements(partial_count), "256 bins per partial histogram");
  uint32_t* bins = checked_view<uint32_t>(launch, buffers, sequence_buffer(launch, "merge_histogram256", 2),
                                          kBins, "one per bin");
  for (uint64_t bin = 0; bin < kBins; ++bin) bins[bin] = 0;
  for (uint64_t i = 0; i < 4 * elements(word_count); ++i) ++bins[data[i]];
}

}  // namespace simtlm::workloads
