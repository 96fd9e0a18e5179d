#include "models/launch/session.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstring>

#include "models/launch/buffers.hpp"
#include "models/launch/formats.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/sha256.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/memory.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::launch {

using ptx::Type;

namespace {

constexpr uint64_t kBufferAlign = 256;

bool is_float(Type t) {
  return t == Type::f32 || t == Type::f64 || t == Type::f16 || t == Type::bf16;
}
bool is_signed_only(Type t) {
  return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64;
}

// Line of a top-level key, for errors found after loading (kernel name, parameter count, reference).
uint32_t top_level_key_line(const std::filesystem::path& file, const std::string& key) {
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    for (const auto& kv : root) {
      if (kv.first.Scalar() == key) return uint32_t(kv.first.Mark().line + 1);
    }
  } catch (const YAML::Exception&) {
  }
  return 1;
}

std::string format_element(Type type, const uint8_t* p) {
  switch (type) {
    case Type::u8:
      return fmt::format("{}", *p);
    case Type::s8:
      return fmt::format("{}", int8_t(*p));
    case Type::u16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return fmt::format("{}", v);
    }
    case Type::s16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return fmt::format("{}", v);
    }
    case Type::u32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return fmt::format("{}", v);
    }
    case Type::s32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return fmt::format("{}", v);
    }
    case Type::u64: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return fmt::format("{}", v);
    }
    case Type::s64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return fmt::format("{}", v);
    }
    case Type::f32: {
      float v;
      std::memcpy(&v, p, 4);
      return fmt::format("{:.9g}", v);
    }
    case Type::f64: {
      double v;
      std::memcpy(&v, p, 8);
      return fmt::format("{:.17g}", v);
    }
    default:
      return "?";
  }
}

// Distance in units in the last place: floats mapped to a monotonic integer line (+0 and -0 coincide).
// NaN equals NaN; NaN against a number is the largest distance.
uint64_t ulp_distance(Type type, const uint8_t* a, const uint8_t* b) {
  if (type == Type::f32) {
    float fa, fb;
    std::memcpy(&fa, a, 4);
    std::memcpy(&fb, b, 4);
    if (std::isnan(fa) || std::isnan(fb)) return std::isnan(fa) && std::isnan(fb) ? 0 : UINT64_MAX;
    int32_t ia, ib;
    std::memcpy(&ia, a, 4);
    std::memcpy(&ib, b, 4);
    const int64_t oa = ia < 0 ? int64_t(INT32_MIN) - ia : ia, ob = ib < 0 ? int64_t(INT32_MIN) - ib : ib;
    return uint64_t(oa > ob ? oa - ob : ob - oa);
  }
  double da, db;
  std::memcpy(&da, a, 8);
  std::memcpy(&db, b, 8);
  if (std::isnan(da) || std::isnan(db)) return std::isnan(da) && std::isnan(db) ? 0 : UINT64_MAX;
  int64_t ia, ib;
  std::memcpy(&ia, a, 8);
  std::memcpy(&ib, b, 8);
  const __int128 oa = ia < 0 ? __int128(INT64_MIN) - ia : ia, ob = ib < 0 ? __int128(INT64_MIN) - ib : ib;
  const __int128 d = oa > ob ? oa - ob : ob - oa;
  return d > __int128(UINT64_MAX) ? UINT64_MAX : uint64_t(d);
}

}  // namespace

std::string compare_buffers(Type type, const std::vector<uint8_t>& actual,
                            const std::vector<uint8_t>& expected, uint32_t tolerance_ulp) {
  const unsigned esize = element_bytes(type);
  if (actual.size() != expected.size()) {
    return fmt::format("size differs: {} elements, expected {}", actual.size() / esize,
                       expected.size() / esize);
  }
  const bool floating = type == Type::f32 || type == Type::f64;
  const size_t n = actual.size() / esize;
  uint64_t mismatches = 0, max_ulp = 0;
  std::string first;
  constexpr int kShown = 8;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* a = &actual[i * esize];
    const uint8_t* e = &expected[i * esize];
    if (std::memcmp(a, e, esize) == 0) continue;
    uint64_t ulp = 0;
    if (floating) {
      ulp = ulp_distance(type, a, e);
      max_ulp = std::max(max_ulp, ulp);
      if (ulp <= tolerance_ulp) continue;
    }
    if (mismatches < kShown) {
      first +=
          fmt::format("{}[{}] = {} (expected {}{})", first.empty() ? "" : ", ", i, format_element(type, a),
                      format_element(type, e), floating ? fmt::format(", {} ulp", ulp) : "");
    }
    ++mismatches;
  }
  if (mismatches == 0) return "";
  std::string report = fmt::format("{} of {} elements differ", mismatches, n);
  if (floating) {
    report += max_ulp == UINT64_MAX ? " (max difference: NaN against a number)"
                                    : fmt::format(" (max {} ulp, tolerance {})", max_ulp, tolerance_ulp);
  }
  return report + "; first: " + first;
}

Session::Session(Launch launch, SessionOptions options) : launch_(std::move(launch)), options_(options) {
  module_ = std::make_unique<ptx::Module>(ptx::load_ptx_file(launch_.ptx.string()));
  std::string error;
  kernel_ = module_->find_entry(launch_.kernel, &error);
  if (!kernel_) {
    fail_at_key("kernel", error.empty()
                              ? fmt::format("no entry '{}' in {}", launch_.kernel, launch_.ptx.string())
                              : error);
  }
  validate_params();
  if (!launch_.reference.empty()) {
    reference_ = options_.find_reference ? options_.find_reference(launch_.reference) : nullptr;
    if (!reference_) fail_at_key("reference", fmt::format("no host reference named '{}'", launch_.reference));
  }
}

Session::~Session() = default;

void Session::fail_at_key(const std::string& key, const std::string& message) const {
  throw LaunchError(fmt::format("{}:{}: {}: {}", launch_.path.string(), top_level_key_line(launch_.path, key),
                                key, message));
}

void Session::validate_params() const {
  const auto& params = kernel_->params;
  if (params.size() != launch_.params.size()) {
    std::string names;
    for (const auto& p : params)
      names += fmt::format("{}.{} {}", names.empty() ? "" : ", ", ptx::type_name(p.type), p.name);
    fail_at_key("params", fmt::format("kernel {} takes {} parameters ({}) but {} are given", kernel_->name,
                                      params.size(), names, launch_.params.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ptx::Param& p = params[i];
    const ParamValue& v = launch_.params[i];
    auto fail = [&](const std::string& msg) {
      throw LaunchError(fmt::format("{}:{}: params[{}]: {} (.param .{} {})", launch_.path.string(), v.line, i,
                                    msg, ptx::type_name(p.type), p.name));
    };
    const unsigned bytes = element_bytes(p.type);
    if (bytes == 0 || p.size != bytes)
      fail(fmt::format("byte-array parameters of {} bytes are not supported", p.size));
    if (v.kind == ParamValue::Kind::buffer) {
      if (bytes != 8 || is_float(p.type)) fail(fmt::format("buffer '{}' passes a 64-bit address", v.buffer));
      continue;
    }
    if (is_float(p.type)) {
      if (p.type != Type::f32 && p.type != Type::f64) fail("half-precision parameters are not supported");
      continue;  // integers and reals both convert
    }
    // A real with an integral value ("3.0") is accepted; anything else would silently truncate.
    if (v.kind == ParamValue::Kind::real &&
        (std::nearbyint(v.real) != v.real || std::fabs(v.real) > 0x1.0p63)) {
      fail(fmt::format("{} is not an integer", v.real));
    }
    const int64_t value = v.kind == ParamValue::Kind::real ? int64_t(v.real) : v.integer;
    const unsigned bits = bytes * 8;
    // nvcc declares int and short parameters as .u32/.u16, so unsigned types also take negative values.
    const __int128 lo = -(__int128(1) << (bits - 1));
    const __int128 hi = is_signed_only(p.type) ? (__int128(1) << (bits - 1)) - 1 : (__int128(1) << bits) - 1;
    if (value < lo || value > hi) fail(fmt::format("{} is out of range", value));
  }
}

std::vector<uint8_t> Session::build_param_buffer(const std::map<std::string, uint64_t>& addresses) const {
  uint32_t size = kernel_->param_bytes;
  for (const auto& p : kernel_->params) size = std::max(size, p.offset + p.size);
  std::vector<uint8_t> buffer(size, 0);
  for (size_t i = 0; i < kernel_->params.size(); ++i) {
    const ptx::Param& p = kernel_->params[i];
    const ParamValue& v = launch_.params[i];
    uint8_t* dst = &buffer[p.offset];
    if (v.kind == ParamValue::Kind::buffer) {
      const uint64_t addr = addresses.at(v.buffer);
      std::memcpy(dst, &addr, 8);
    } else if (p.type == Type::f32) {
      const float f = v.kind == ParamValue::Kind::real ? float(v.real) : float(v.integer);
      std::memcpy(dst, &f, 4);
    } else if (p.type == Type::f64) {
      const double d = v.kind == ParamValue::Kind::real ? v.real : double(v.integer);
      std::memcpy(dst, &d, 8);
    } else {
      const int64_t value = v.kind == ParamValue::Kind::real ? int64_t(v.real) : v.integer;
      const uint64_t bits = uint64_t(value);  // little-endian low bytes: two's complement truncation
      std::memcpy(dst, &bits, p.size);
    }
  }
  return buffer;
}

std::unique_ptr<DeviceImage> Session::prepare_device() const {
  auto image = std::make_unique<DeviceImage>();
  ptx::GlobalMemory& memory = image->memory;
  for (const BufferSpec& spec : launch_.buffers) {
    std::vector<uint8_t> bytes = init_buffer(launch_, spec);
    const uint64_t addr = memory.allocate(std::max<uint64_t>(bytes.size(), 1), kBufferAlign, spec.name);
    if (!bytes.empty()) memory.write(addr, bytes.data(), bytes.size());
    image->addresses[spec.name] = addr;
    image->initial[spec.name] = std::move(bytes);
  }

  ptx::LaunchContext& context = image->context;
  context.module = module_.get();
  context.kernel = kernel_;
  context.grid = launch_.grid;
  context.block = launch_.block;
  context.dynamic_shared_bytes = launch_.shared_bytes;
  context.global = &memory;
  context.symbol_address.assign(module_->symbols.size(), 0);
  for (size_t i = 0; i < module_->symbols.size(); ++i) {
    const ptx::Symbol& sym = module_->symbols[i];
    if ((sym.space != ptx::Space::global && sym.space != ptx::Space::constant) || sym.size == 0) continue;
    const uint64_t addr = memory.allocate(sym.size, std::max<uint64_t>(sym.align, kBufferAlign), sym.name);
    if (!sym.init.empty()) memory.write(addr, sym.init.data(), std::min<uint64_t>(sym.init.size(), sym.size));
    context.symbol_address[i] = addr;
  }
  context.param_buffer = build_param_buffer(image->addresses);
  return image;
}

std::map<std::string, std::vector<uint8_t>> DeviceImage::read_buffers(const Launch& launch) const {
  std::map<std::string, std::vector<uint8_t>> buffers;
  for (const BufferSpec& spec : launch.buffers) {
    std::vector<uint8_t> bytes(initial.at(spec.name).size());
    if (!bytes.empty()) memory.read(addresses.at(spec.name), bytes.data(), bytes.size());
    buffers[spec.name] = std::move(bytes);
  }
  return buffers;
}

SessionResult Session::run() {
  SessionResult result;
  const std::unique_ptr<DeviceImage> image = prepare_device();
  ptx::LaunchContext& context = image->context;
  if (options_.capture_printf) context.printf_sink = &result.printf_output;

  ptx::RunOptions run_options;
  run_options.instruction_budget = instruction_budget();
  run_options.observer = options_.observer;
  const ptx::Cfg cfg(*kernel_);
  ptx::FunctionalRunner runner(context, cfg, run_options);
  const auto start = std::chrono::steady_clock::now();
  result.stats = runner.run();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  result.buffers = image->read_buffers(launch_);
  verify(result, *image);
  return result;
}

uint64_t Session::instruction_budget() const {
  if (options_.instruction_budget) return options_.instruction_budget;
  if (launch_.instruction_budget) return launch_.instruction_budget;
  return ptx::RunOptions{}.instruction_budget;
}

void Session::verify(SessionResult& result, DeviceImage& image) const {
  workloads::Buffers& initial = image.initial;
  std::map<std::string, uint32_t> tolerance;
  for (const ExpectSpec& e : launch_.expect) {
    result.expect_checked = true;
    const BufferSpec& spec = find_buffer(launch_, e.buffer);
    tolerance[e.buffer] = e.tolerance_ulp;
    const std::vector<uint8_t>& actual = result.buffers[e.buffer];
    std::string report;
    if (!e.sha256.empty()) {
      const std::string got = sha256_hex(actual);
      if (got != e.sha256) report = fmt::format("sha256 is {}, expected {}", got, e.sha256);
    } else {
      std::vector<uint8_t> expected;
      try {
        expected = load_data_file(e.file, spec.type);
      } catch (const std::runtime_error& err) {
        throw LaunchError(
            fmt::format("{}:{}: expect.{}.file: {}", launch_.path.string(), e.line, e.buffer, err.what()));
      }
      report = compare_buffers(spec.type, actual, expected, e.tolerance_ulp);
      if (!report.empty()) report = fmt::format("differs from {}: {}", e.file.string(), report);
    }
    if (!report.empty()) result.failures.push_back(fmt::format("expect.{}: {}", e.buffer, report));
  }

  if (reference_) {
    result.reference_checked = true;
    reference_(launch_, initial);  // initial now holds the reference's outputs
    const std::vector<std::string>& compared = launch_.outputs;
    for (const std::string& name : compared) {
      const BufferSpec& spec = find_buffer(launch_, name);
      const std::string report =
          compare_buffers(spec.type, result.buffers[name], initial[name], tolerance[name]);
      if (!report.empty()) {
        result.failures.push_back(
            fmt::format("reference {}: buffer {}: {}", launch_.reference, name, report));
      }
    }
  }
}

}  // namespace simtlm::launch
