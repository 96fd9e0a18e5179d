// References of workloads/histogram64 and workloads/histogram256, the two tagged sub-histogram ports: the
// bins of the first 4 * word_count bytes (bin = byte >> shift), which the partial and merge kernels must
// produce whatever order the warps' retry loops take. word_count and partial_count come from the launch
// file's first launches of the two kernels.
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

void tagged_histogram(const launch::Launch& launch, Buffers& buffers, const std::string& partial_kernel,
                      const std::string& merge_kernel, uint64_t bin_count, unsigned shift) {
  const int64_t word_count = sequence_param_int(launch, partial_kernel, 1);
  const int64_t partial_count = sequence_param_int(launch, merge_kernel, 1);
  const uint8_t* data = checked_view<uint8_t>(launch, buffers, sequence_buffer(launch, partial_kernel, 0),
                                              4 * elements(word_count), "4 bytes per word of word_count");
  checked_view<uint32_t>(launch, buffers, sequence_buffer(launch, merge_kernel, 0),
                         bin_count * elements(partial_count),
                         std::to_string(bin_count) + " bins per partial histogram");
  uint32_t* bins = checked_view<uint32_t>(launch, buffers, sequence_buffer(launch, merge_kernel, 2),
                                          bin_count, "one per bin");
  for (uint64_t bin = 0; bin < bin_count; ++bin) bins[bin] = 0;
  for (uint64_t i = 0; i < 4 * elements(word_count); ++i) ++bins[data[i] >> shift];
}

}  // namespace

void histogram64(const launch::Launch& launch, Buffers& buffers) {
  tagged_histogram(launch, buffers, "histogram64_partial", "merge_histogram64", 64, 2);
}

void histogram256(const launch::Launch& launch, Buffers& buffers) {
  tagged_histogram(launch, buffers, "histogram256_partial", "merge_histogram256", 256, 0);
}

}  // namespace simtlm::workloads
