// Buffer initialization. Everything here is deterministic in the launch seed and
// the buffer name: the generator and the distributions are our own code, not the standard library's.
#include "models/launch/buffers.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "common/location.hpp"
#include "models/launch/formats.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::launch {

using ptx::Type;

std::optional<Type> parse_buffer_type(const std::string& name) {
  static const std::pair<const char*, Type> kTypes[] = {
      {"u8", Type::u8},   {"s8", Type::s8},   {"u16", Type::u16}, {"s16", Type::s16}, {"u32", Type::u32},
      {"s32", Type::s32}, {"u64", Type::u64}, {"s64", Type::s64}, {"f32", Type::f32}, {"f64", Type::f64}};
  for (const auto& [text, type] : kTypes) {
    if (name == text) return type;
  }
  return std::nullopt;
}

unsigned element_bytes(Type type) {
  switch (type) {
    case Type::u8:
    case Type::s8:
    case Type::b8:
      return 1;
    case Type::u16:
    case Type::s16:
    case Type::b16:
    case Type::f16:
    case Type::bf16:
      return 2;
    case Type::u32:
    case Type::s32:
    case Type::b32:
    case Type::f32:
      return 4;
    case Type::u64:
    case Type::s64:
    case Type::b64:
    case Type::f64:
      return 8;
    default:
      return 0;
  }
}

uint64_t hash_name(const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

namespace {

bool is_float(Type t) {
  return t == Type::f32 || t == Type::f64;
}

// Writes the low element_bytes(t) bytes of v (two's complement) little-endian.
void store_integer(uint8_t* dst, Type t, int64_t v) {
  const uint64_t bits = uint64_t(v);
  for (unsigned i = 0; i < element_bytes(t); ++i) dst[i] = uint8_t(bits >> (8 * i));
}

void store_real(uint8_t* dst, Type t, double v) {
  if (t == Type::f32) {
    const float f = float(v);
    std::memcpy(dst, &f, 4);
  } else {
    std::memcpy(dst, &v, 8);
  }
}

// Integer types receive v rounded to nearest and clamped to the type's range (normal samples only: other
// initialisations are exact and range-checked).
void store_number(uint8_t* dst, Type t, double v) {
  if (is_float(t)) return store_real(dst, t, v);
  const unsigned bits = element_bytes(t) * 8;
  const bool is_signed = t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64;
  const double lo = is_signed ? -std::ldexp(1.0, int(bits) - 1) : 0.0;
  // 2^63 - 1 and 2^64 - 1 round up to a power of two in a double, which would not convert: take the
  // largest double below instead.
  double hi = is_signed ? std::ldexp(1.0, int(bits) - 1) - 1 : std::ldexp(1.0, int(bits)) - 1;
  if (bits == 64) hi = std::nextafter(hi, 0.0);
  const double r = std::nearbyint(std::fmin(std::fmax(v, lo), hi));
  if (!is_signed && r >= 0x1.0p63) return store_integer(dst, t, int64_t(uint64_t(r)));
  store_integer(dst, t, r >= 0x1.0p63 ? std::numeric_limits<int64_t>::max() : int64_t(r));
}

// Box-Muller with our own uniform source; one normal sample per pair keeps the stream simple.
double next_normal(SplitMix64& rng) {
  const double u1 = 1.0 - rng.next_unit();  // (0, 1]: log stays finite
  const double u2 = rng.next_unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

std::string encode_element(Type type, const std::string& text, uint8_t* out) {
  std::string t = text;
  // YAML spells infinities and NaN with a leading dot.
  if (t == ".inf" || t == ".Inf" || t == "+.inf") t = "inf";
  if (t == "-.inf" || t == "-.Inf") t = "-inf";
  if (t == ".nan" || t == ".NaN") t = "nan";
  if (t.empty()) return "empty value";
  const char* begin = t.c_str();
  char* end = nullptr;
  errno = 0;
  if (type == Type::f32) {
    // strtof rounds the decimal once, straight to f32: no double rounding through f64.
    const float f = std::strtof(begin, &end);
    if (*end != 0 || end == begin) return fmt::format("'{}' is not a number", text);
    if (errno == ERANGE && std::isinf(f)) return fmt::format("{} overflows f32", text);
    std::memcpy(out, &f, 4);
    return "";
  }
  if (type == Type::f64) {
    const double d = std::strtod(begin, &end);
    if (*end != 0 || end == begin) return fmt::format("'{}' is not a number", text);
    if (errno == ERANGE && std::isinf(d)) return fmt::format("{} overflows f64", text);
    std::memcpy(out, &d, 8);
    return "";
  }
  const unsigned bits = element_bytes(type) * 8;
  if (bits == 0) return fmt::format("type {} cannot hold a value", ptx::type_name(type));
  __int128 value = 0;
  if (t[0] == '-') {
    const long long v = std::strtoll(begin, &end, 0);
    if (*end != 0 || end == begin || errno == ERANGE) return fmt::format("'{}' is not an integer", text);
    value = v;
  } else {
    const unsigned long long v = std::strtoull(begin, &end, 0);
    if (*end != 0 || end == begin || errno == ERANGE) return fmt::format("'{}' is not an integer", text);
    value = v;
  }
  const bool is_signed = type == Type::s8 || type == Type::s16 || type == Type::s32 || type == Type::s64;
  // Unsigned element types also take negative values (two's complement), as C's conversions do.
  const __int128 lo = -(__int128(1) << (bits - 1));
  const __int128 hi = is_signed ? (__int128(1) << (bits - 1)) - 1 : (__int128(1) << bits) - 1;
  if (value < lo || value > hi) return fmt::format("{} does not fit in {}", text, ptx::type_name(type));
  store_integer(out, type, int64_t(value));
  return "";
}

std::string exact_integer(Type type, const std::string& text, double value, __int128& out) {
  const unsigned bits = element_bytes(type) * 8;
  if (bits == 0) return fmt::format("type {} cannot hold a value", ptx::type_name(type));
  bool parsed = false, too_large = false;
  if (!text.empty()) {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    if (text[0] == '-') {
      const long long v = std::strtoll(begin, &end, 0);
      out = v;
    } else {
      const unsigned long long v = std::strtoull(begin, &end, 0);
      out = v;
    }
    parsed = *end == 0 && end != begin && errno != ERANGE;
    too_large = *end == 0 && end != begin && errno == ERANGE;  // an integer past 64 bits, as written
  }
  const std::string shown = text.empty() ? fmt::format("{}", value) : text;
  if (too_large) return fmt::format("{} does not fit in {}", shown, ptx::type_name(type));
  if (!parsed) {
    if (!std::isfinite(value) || std::nearbyint(value) != value)
      return fmt::format("{} is not an integer but the buffer is {}", shown, ptx::type_name(type));
    if (value < -0x1.0p63 || value >= 0x1.0p64)
      return fmt::format("{} does not fit in {}", shown, ptx::type_name(type));
    out = value < 0 ? __int128(int64_t(value)) : __int128(uint64_t(value));
  }
  const bool is_signed = type == Type::s8 || type == Type::s16 || type == Type::s32 || type == Type::s64;
  const __int128 lo = is_signed ? -(__int128(1) << (bits - 1)) : 0;
  const __int128 hi = is_signed ? (__int128(1) << (bits - 1)) - 1 : (__int128(1) << bits) - 1;
  if (out < lo || out > hi) return fmt::format("{} does not fit in {}", shown, ptx::type_name(type));
  return "";
}

namespace {

[[noreturn]] void buffer_error(const Launch& launch, const BufferSpec& spec, const std::string& msg) {
  throw LaunchError(common::at_location(
      launch.path.string(), spec.line,
      fmt::format("{}.{}.init: {}", spec.is_symbol ? "symbols" : "buffers", spec.name, msg)));
}

}  // namespace

std::vector<uint8_t> init_buffer(const Launch& launch, const BufferSpec& spec) {
  const unsigned esize = element_bytes(spec.type);
  std::vector<uint8_t> out(spec.count * esize, 0);
  SplitMix64 rng(launch.seed ^ hash_name(spec.name));
  const BufferInit& init = spec.init;
  // Symbols take their type from the PTX, so their values are range-checked here rather than at load.
  const auto exact = [&](const std::string& text, double value, const char* key, Type type) {
    __int128 v = 0;
    if (const std::string error = exact_integer(type, text, value, v); !error.empty())
      buffer_error(launch, spec, fmt::format("{}: {}", key, error));
    return v;
  };
  switch (init.kind) {
    case BufferInit::Kind::zeros:
      break;
    case BufferInit::Kind::value:
      if (is_float(spec.type)) {
        for (uint64_t i = 0; i < spec.count; ++i) store_real(&out[i * esize], spec.type, init.a);
      } else {
        const int64_t v = int64_t(uint64_t(exact(init.a_text, init.a, "value", spec.type)));
        for (uint64_t i = 0; i < spec.count; ++i) store_integer(&out[i * esize], spec.type, v);
      }
      break;
    case BufferInit::Kind::random_uniform:
      if (is_float(spec.type)) {
        for (uint64_t i = 0; i < spec.count; ++i) {
          store_real(&out[i * esize], spec.type, init.a + (init.b - init.a) * rng.next_unit());
        }
      } else {
        const __int128 lo = exact(init.a_text, init.a, "min", spec.type);
        const __int128 hi = exact(init.b_text, init.b, "max", spec.type);
        if (hi < lo) buffer_error(launch, spec, "max is smaller than min");
        // hi - lo + 1 is at most 2^64; its low 64 bits are 0 exactly for the whole 64-bit range.
        const uint64_t range = uint64_t(hi - lo + 1);
        for (uint64_t i = 0; i < spec.count; ++i) {
          const uint64_t r = range ? rng.next_below(range) : rng.next();
          store_integer(&out[i * esize], spec.type, int64_t(uint64_t(lo) + r));
        }
      }
      break;
    case BufferInit::Kind::random_normal:
      for (uint64_t i = 0; i < spec.count; ++i) {
        store_number(&out[i * esize], spec.type, init.a + init.b * next_normal(rng));
      }
      break;
    case BufferInit::Kind::sequence:
      if (is_float(spec.type)) {
        for (uint64_t i = 0; i < spec.count; ++i)
          store_real(&out[i * esize], spec.type, init.a + double(i) * init.b);
      } else {
        // Integer sequences wrap like the element type would, independent of double precision.
        const uint64_t start = uint64_t(exact(init.a_text, init.a, "sequence.start", spec.type));
        const uint64_t step = uint64_t(exact(init.b_text, init.b, "sequence.step", Type::s64));
        for (uint64_t i = 0; i < spec.count; ++i)
          store_integer(&out[i * esize], spec.type, int64_t(start + i * step));
      }
      break;
    case BufferInit::Kind::values:
      if (init.values.size() > spec.count) {
        buffer_error(launch, spec, fmt::format("{} values for {} elements", init.values.size(), spec.count));
      }
      for (size_t i = 0; i < init.values.size(); ++i) {
        const std::string error = encode_element(spec.type, init.values[i], &out[i * esize]);
        if (!error.empty()) buffer_error(launch, spec, fmt::format("values[{}]: {}", i, error));
      }
      break;
    case BufferInit::Kind::file: {
      std::vector<uint8_t> data;
      try {
        data = load_data_file(init.file, spec.type);
      } catch (const std::runtime_error& e) {
        buffer_error(launch, spec, e.what());
      }
      if (data.size() != out.size()) {
        buffer_error(launch, spec,
                     fmt::format("{} holds {} bytes but {} {} elements need {}", init.file.string(),
                                 data.size(), spec.count, ptx::type_name(spec.type), out.size()));
      }
      out = std::move(data);
      break;
    }
  }
  return out;
}

}  // namespace simtlm::launch
