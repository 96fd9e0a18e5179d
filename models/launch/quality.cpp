#include "models/launch/quality.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "models/launch/buffers.hpp"

namespace simtlm::launch {

using ptx::Type;

namespace {

// One element's value. Integers stay exact (a 64-bit difference needs 65 bits); floats widen to long double
// so that the difference of two finite f64 values cannot overflow.
struct Scalar {
  bool integer = true;
  __int128 whole = 0;
  long double real = 0;

  bool finite() const { return integer || std::isfinite(real); }
  bool nan() const { return !integer && std::isnan(real); }
  long double value() const { return integer ? static_cast<long double>(whole) : real; }
};

bool is_numeric(Type type) {
  return parse_buffer_type(ptx::type_name(type)).has_value();
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

Scalar decode(Type type, const uint8_t* p) {
  Scalar s;
  switch (type) {
    case Type::u8:
      s.whole = *p;
      break;
    case Type::s8:
      s.whole = int8_t(*p);
      break;
    case Type::u16:
      s.whole = load<uint16_t>(p);
      break;
    case Type::s16:
      s.whole = load<int16_t>(p);
      break;
    case Type::u32:
      s.whole = load<uint32_t>(p);
      break;
    case Type::s32:
      s.whole = load<int32_t>(p);
      break;
    case Type::u64:
      s.whole = load<uint64_t>(p);
      break;
    case Type::s64:
      s.whole = load<int64_t>(p);
      break;
    case Type::f32:
      s.integer = false;
      s.real = load<float>(p);
      break;
    case Type::f64:
      s.integer = false;
      s.real = load<double>(p);
      break;
    default:
      throw std::logic_error("decode: not a numeric buffer type");
  }
  return s;
}

// A long double result as a double: beyond the double range it is an infinity (a plain conversion there is
// undefined behaviour).
double to_double(long double v) {
  if (std::fabs(v) > std::numeric_limits<double>::max()) {
    return std::signbit(v) ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
  }
  return double(v);
}

// |a - b| for two finite values of one type.
long double abs_difference(const Scalar& a, const Scalar& b) {
  if (a.integer) {
    const __int128 d = a.whole - b.whole;
    return static_cast<long double>(d < 0 ? -d : d);
  }
  return std::fabs(a.real - b.real);
}

// The element size of a numeric buffer whose byte count is a whole number of elements.
unsigned checked_element_bytes(const BufferSpec& spec, const std::vector<uint8_t>& bytes, const char* what) {
  if (!is_numeric(spec.type)) {
    throw std::invalid_argument(fmt::format("buffer '{}': {} needs a numeric element type, not {}", spec.name,
                                            what, ptx::type_name(spec.type)));
  }
  const unsigned esize = element_bytes(spec.type);
  if (bytes.size() % esize != 0) {
    throw std::invalid_argument(fmt::format("buffer '{}': {} bytes are not a whole number of {} elements",
                                            spec.name, bytes.size(), ptx::type_name(spec.type)));
  }
  return esize;
}

void check_same_size(const BufferSpec& spec, const std::vector<uint8_t>& exact,
                     const std::vector<uint8_t>& herded) {
  if (exact.size() != herded.size()) {
    throw std::invalid_argument(fmt::format("buffer '{}': the exact run has {} bytes, the herded run {}",
                                            spec.name, exact.size(), herded.size()));
  }
}

nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// Sums over the compared (finite on both sides) elements.
struct ErrorSums {
  uint64_t count = 0;
  long double abs = 0, squares = 0, exact_magnitude = 0, exact_squares = 0, max = 0;
  long double exact_min = std::numeric_limits<long double>::infinity();
  long double exact_max = -std::numeric_limits<long double>::infinity();
};

void add_numeric_element(const Scalar& e, const Scalar& h, bool mismatch, BufferQuality& q, ErrorSums& sums) {
  if (e.finite()) {
    sums.exact_min = std::min(sums.exact_min, e.value());
    sums.exact_max = std::max(sums.exact_max, e.value());
  }
  if (mismatch && (e.nan() || h.nan())) {
    ++q.nan_mismatches;
  } else if (mismatch && (!e.finite() || !h.finite())) {
    ++q.infinite_mismatches;
  }
  if (!e.finite() || !h.finite()) return;
  // Bytes may differ with equal values (-0 and +0): that is a mismatch without an error.
  const long double d = mismatch ? abs_difference(e, h) : 0;
  ++sums.count;
  sums.abs += d;
  sums.squares += d * d;
  sums.max = std::max(sums.max, d);
  sums.exact_magnitude += std::fabs(e.value());
  sums.exact_squares += e.value() * e.value();
}

void finish_errors(Type type, const ErrorSums& sums, BufferQuality& q) {
  q.compared_elements = sums.count;
  if (sums.count == 0) return;
  q.mean_abs_error = to_double(sums.abs / sums.count);
  q.max_abs_error = to_double(sums.max);
  if (sums.exact_magnitude > 0) {
    q.relative_error = to_double(sums.abs / sums.exact_magnitude);
  } else if (sums.abs > 0) {
    q.relative_error = std::numeric_limits<double>::infinity();
  }
  if (sums.exact_squares > 0) {
    q.l2_relative_error = to_double(std::sqrt(sums.squares / sums.exact_squares));
  } else if (sums.squares > 0) {
    q.l2_relative_error = std::numeric_limits<double>::infinity();
  }
  if (!q.image) return;
  const long double mse = sums.squares / sums.count;
  const long double peak = type == Type::u8 ? 255.0L : sums.exact_max - sums.exact_min;
  if (mse > 0 && peak > 0) q.psnr_db = to_double(10 * std::log10(peak * peak / mse));
}

bool is_zero(const uint8_t* element, unsigned size) {
  return std::all_of(element, element + size, [](uint8_t b) { return b == 0; });
}

}  // namespace

BufferQuality compare_buffer(const BufferSpec& spec, const std::vector<uint8_t>& exact,
                             const std::vector<uint8_t>& herded, bool is_image) {
  check_same_size(spec, exact, herded);
  BufferQuality q;
  q.name = spec.name;
  q.image = is_image;
  q.bytes = exact.size();
  q.identical = exact == herded;
  for (size_t i = 0; i < exact.size(); ++i) q.mismatched_bytes += exact[i] != herded[i];
  if (q.bytes) q.mismatch_fraction = double(q.mismatched_bytes) / double(q.bytes);
  q.numeric = is_numeric(spec.type);
  const unsigned esize = element_bytes(spec.type);
  if (esize == 0) return q;  // no element size: bytes only
  if (exact.size() % esize != 0) {
    throw std::invalid_argument(fmt::format("buffer '{}': {} bytes are not a whole number of {} elements",
                                            spec.name, exact.size(), ptx::type_name(spec.type)));
  }
  q.elements = exact.size() / esize;
  ErrorSums sums;
  for (uint64_t k = 0; k < q.elements; ++k) {
    const uint8_t* e = &exact[k * esize];
    const uint8_t* h = &herded[k * esize];
    const bool mismatch = std::memcmp(e, h, esize) != 0;
    q.mismatched_elements += mismatch;
    if (mismatch) q.zero_mismatched_elements += is_zero(e, esize) != is_zero(h, esize);
    if (q.numeric) add_numeric_element(decode(spec.type, e), decode(spec.type, h), mismatch, q, sums);
  }
  if (q.numeric) finish_errors(spec.type, sums, q);
  if (q.elements) q.zero_mismatch_fraction = double(q.zero_mismatched_elements) / double(q.elements);
  return q;
}

std::vector<BufferQuality> compare_outputs(const Launch& launch,
                                           const std::map<std::string, std::vector<uint8_t>>& exact,
                                           const std::map<std::string, std::vector<uint8_t>>& herded) {
  std::vector<BufferQuality> out;
  for (const std::string& name : launch.outputs) {
    const BufferSpec* spec = launch.find_buffer_spec(name);
    if (!spec) throw std::invalid_argument(fmt::format("output '{}' is not a buffer of the launch", name));
    const auto e = exact.find(name);
    const auto h = herded.find(name);
    if (e == exact.end() || h == herded.end()) {
      throw std::invalid_argument(
          fmt::format("output '{}' is missing from the {} run", name, e == exact.end() ? "exact" : "herded"));
    }
    out.push_back(compare_buffer(*spec, e->second, h->second, launch.image_shape.count(name) > 0));
  }
  return out;
}

nlohmann::json to_json(const BufferQuality& q) {
  nlohmann::json j = {
      {"name", q.name},
      {"bytes", q.bytes},
      {"mismatched_bytes", q.mismatched_bytes},
      {"mismatch_fraction", number(q.mismatch_fraction)},
      {"numeric", q.numeric},
      {"elements", q.elements},
      {"mismatched_elements", q.mismatched_elements},
      {"nan_mismatches", q.nan_mismatches},
      {"infinite_mismatches", q.infinite_mismatches},
      {"compared_elements", q.compared_elements},
      {"mean_abs_error", number(q.mean_abs_error)},
      {"max_abs_error", number(q.max_abs_error)},
      {"relative_error", number(q.relative_error)},
      {"l2_relative_error", number(q.l2_relative_error)},
      {"zero_mismatched_elements", q.zero_mismatched_elements},
      {"zero_mismatch_fraction", number(q.zero_mismatch_fraction)},
      {"image", q.image},
      {"identical", q.identical},
  };
  if (q.image) j["psnr_db"] = q.psnr_db ? number(*q.psnr_db) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json to_json(const std::vector<BufferQuality>& qualities) {
  nlohmann::json buffers = nlohmann::json::array();
  uint64_t bytes = 0, mismatched = 0;
  for (const BufferQuality& q : qualities) {
    buffers.push_back(to_json(q));
    bytes += q.bytes;
    mismatched += q.mismatched_bytes;
  }
  return {{"buffers", buffers},
          {"bytes", bytes},
          {"mismatched_bytes", mismatched},
          {"mismatch_fraction", bytes ? double(mismatched) / double(bytes) : 0.0}};
}

std::vector<uint8_t> image_gray8(const BufferSpec& spec, const std::vector<uint8_t>& bytes,
                                 const std::vector<uint8_t>& scale_from) {
  const unsigned esize = checked_element_bytes(spec, bytes, "a grey rendering");
  checked_element_bytes(spec, scale_from, "a grey rendering");
  if (spec.type == Type::u8) return bytes;
  // Doubles and the formula of to_gray8, so that the exact image renders the same here as in a run's output.
  double lo = INFINITY, hi = -INFINITY;
  for (size_t k = 0; k < scale_from.size() / esize; ++k) {
    const double v = double(decode(spec.type, &scale_from[k * esize]).value());
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const size_t n = bytes.size() / esize;
  std::vector<uint8_t> gray(n, 0);
  if (!(lo <= hi)) return gray;  // nothing finite to scale from
  const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
  for (size_t k = 0; k < n; ++k) {
    const double v = double(decode(spec.type, &bytes[k * esize]).value());
    if (!std::isfinite(v)) continue;
    if (hi > lo) {
      gray[k] = uint8_t(std::clamp(std::lround((v - lo) * scale), 0L, 255L));
    } else {
      gray[k] = v > hi ? 255 : 0;
    }
  }
  return gray;
}

std::vector<uint8_t> difference_gray8(const BufferSpec& spec, const std::vector<uint8_t>& exact,
                                      const std::vector<uint8_t>& herded) {
  check_same_size(spec, exact, herded);
  const unsigned esize = checked_element_bytes(spec, exact, "a difference image");
  const size_t n = exact.size() / esize;
  // Differences of finite pixels; a NaN (no value yet) stands for a non-finite mismatch, drawn at 255.
  std::vector<long double> difference(n, 0);
  long double largest = 0;
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* e = &exact[k * esize];
    const uint8_t* h = &herded[k * esize];
    if (std::memcmp(e, h, esize) == 0) continue;
    const Scalar a = decode(spec.type, e), b = decode(spec.type, h);
    if (!a.finite() || !b.finite()) {
      difference[k] = std::numeric_limits<long double>::quiet_NaN();
      continue;
    }
    difference[k] = abs_difference(a, b);
    largest = std::max(largest, difference[k]);
  }
  std::vector<uint8_t> gray(n, 0);
  for (size_t k = 0; k < n; ++k) {
    if (std::isnan(difference[k])) {
      gray[k] = 255;
    } else if (largest > 0) {
      gray[k] = uint8_t(std::lround(difference[k] * 255 / largest));
    }
  }
  return gray;
}

}  // namespace simtlm::launch
