// How much a herded run's output buffers differ from an exact run's (branch/data herding trade output quality
// for speed): the paper's fraction of mismatching bytes, element errors, PSNR for images, and grey renderings
// with a difference image. docs/herding.md, "Output quality", defines every number.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "models/launch/launch.hpp"

namespace simtlm::launch {

struct BufferQuality {
  std::string name;
  uint64_t bytes = 0, mismatched_bytes = 0;
  double mismatch_fraction = 0;  // mismatched_bytes / bytes (the paper's metric); 0 for an empty buffer
  bool numeric = true;           // u8..u64, s8..s64, f32, f64: values can be subtracted
  // Elements whose bytes differ. A NaN on either side of a mismatch counts in nan_mismatches, otherwise an
  // infinity in infinite_mismatches; neither enters the errors below.
  uint64_t elements = 0, mismatched_elements = 0, nan_mismatches = 0, infinite_mismatches = 0;
  // Elements whose exact and herded values are both finite: the errors and the PSNR are over these.
  uint64_t compared_elements = 0;
  double mean_abs_error = 0, max_abs_error = 0;  // in the element's units
  // sum |herded - exact| / sum |exact|: 0 when both sums are 0, infinity when only sum |exact| is 0.
  double relative_error = 0;
  // sqrt(sum (herded - exact)^2 / sum exact^2), the relative L2 norm the CUDA SDK samples check their float
  // outputs with (compareL2fe): 0 when both sums are 0, infinity when only sum exact^2 is 0.
  double l2_relative_error = 0;
  // Elements that are zero (every byte) in one run and not in the other, over elements: for an escape-time
  // image whose in-set pixels are 0 (mandelbrot_sdk), the pixels whose set membership herding changed.
  uint64_t zero_mismatched_elements = 0;
  double zero_mismatch_fraction = 0;
  bool image = false;  // the buffer has an image shape
  // Images only: 10 log10(peak^2 / MSE), peak 255 for u8 and exact max - exact min otherwise. Absent when
  // the MSE is 0 (infinite PSNR), the peak is 0 or no element was compared.
  std::optional<double> psnr_db;
  bool identical = false;  // every byte equal
};

// exact and herded: one buffer's bytes from the two runs. Throws std::invalid_argument naming the buffer
// when their sizes differ or are not a whole number of elements.
BufferQuality compare_buffer(const BufferSpec& spec, const std::vector<uint8_t>& exact,
                             const std::vector<uint8_t>& herded, bool is_image = false);
// Every output of the launch, in launch.outputs order; images are those with an image shape. Throws
// std::invalid_argument when either run lacks an output.
std::vector<BufferQuality> compare_outputs(const Launch& launch,
                                           const std::map<std::string, std::vector<uint8_t>>& exact,
                                           const std::map<std::string, std::vector<uint8_t>>& herded);

// Non-finite numbers are written as the strings "inf", "-inf" and "nan"; psnr_db (images only) is null
// when absent.
nlohmann::json to_json(const BufferQuality& quality);
// {"buffers": [...], "bytes", "mismatched_bytes", "mismatch_fraction"}: totals over all buffers.
nlohmann::json to_json(const std::vector<BufferQuality>& qualities);

// 8-bit grey pixels of `bytes`: u8 as is; other types scaled linearly so that scale_from's (the exact
// image's) finite min maps to 0 and max to 255, clamped, so both runs share one scale. A non-finite value is
// 0. When scale_from is flat, values above it are 255 and the rest 0. For the exact image it equals
// to_gray8 (outputs.hpp).
std::vector<uint8_t> image_gray8(const BufferSpec& spec, const std::vector<uint8_t>& bytes,
                                 const std::vector<uint8_t>& scale_from);
// |herded - exact| per pixel, scaled so the largest difference is 255 and rounded to nearest: all 0 when no
// value differs. A pixel whose bytes differ with a NaN or infinity on either side is 255.
std::vector<uint8_t> difference_gray8(const BufferSpec& spec, const std::vector<uint8_t>& exact,
                                      const std::vector<uint8_t>& herded);

}  // namespace simtlm::launch
