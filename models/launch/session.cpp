#include "models/launch/session.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <set>

#include "common/location.hpp"
#include "models/launch/buffers.hpp"
#include "models/launch/device.hpp"
#include "models/launch/formats.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/sha256.hpp"
#include "models/ptx/call_link.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/memory.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::launch {

using ptx::Type;

namespace {

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
  if (launch_.is_sequence()) {
    throw LaunchError(fmt::format("{}: a launch sequence (launches:) runs with simtlm run, not here",
                                  launch_.path.string()));
  }
  module_ = load_module(launch_.ptx, launch_);
  std::string error;
  kernel_ = module_->find_entry(launch_.kernel, &error);
  if (!kernel_) {
    fail_at_key("kernel", error.empty()
                              ? fmt::format("no entry '{}' in {}", launch_.kernel, launch_.ptx.string())
                              : error);
  }
  if (const std::string bad =
          ptx::launch_bounds_violation(*kernel_, launch_.block.x, launch_.block.y, launch_.block.z);
      !bad.empty()) {
    fail_at_key("block", bad);
  }
  launch_ = with_symbol_views(launch_, *module_);
  validate_params(
      launch_, *kernel_, launch_.params,
      common::at_location(launch_.path.string(), top_level_key_line(launch_.path, "params"), "params"));
  std::set<std::string> initialised;
  for (const SymbolSpec& s : launch_.symbols) initialised.insert(s.name);
  warnings_ = uninitialised_const_warnings(*module_, *kernel_, initialised);
  if (!launch_.reference.empty()) {
    reference_ = options_.find_reference ? options_.find_reference(launch_.reference) : nullptr;
    if (!reference_) fail_at_key("reference", fmt::format("no host reference named '{}'", launch_.reference));
  }
}

Session::~Session() = default;

std::vector<ptx::PtxError> Session::refusals() const {
  std::vector<ptx::PtxError> refused;
  if (std::optional<ptx::PtxError> refusal = ptx::kernel_refusal(*module_, *kernel_))
    refused.push_back(*refusal);
  return refused;
}

void Session::fail_at_key(const std::string& key, const std::string& message) const {
  throw LaunchError(common::at_location(launch_.path.string(), top_level_key_line(launch_.path, key),
                                        key + ": " + message));
}

void make_cooperative(ptx::LaunchContext& context, ptx::GlobalMemory& memory, uint64_t& workspace,
                      const SessionOptions& options, const std::string& where) {
  context.cooperative = true;
  if (options.cooperative_limit) {
    if (const std::string why = options.cooperative_limit(context); !why.empty())
      throw LaunchError(where + ": cooperative: " + why);
  }
  if (!workspace) {
    // cooperative_groups' grid_workspace {wsSize, barrier}: its size, and a barrier word whose top bit flips
    // each time the whole grid arrives (so it needs no reset between launches). After every buffer and
    // variable, so their addresses are those of a plain launch.
    constexpr uint32_t kWorkspaceBytes = 8;
    workspace = memory.allocate(kWorkspaceBytes, kWorkspaceBytes, "(grid workspace)", 0);
    memory.write(workspace, &kWorkspaceBytes, sizeof kWorkspaceBytes);
  }
  context.grid_workspace = workspace;
}

ptx::OutOfBounds out_of_bounds_mode(const Launch& launch, const SessionOptions& options) {
  return options.out_of_bounds.value_or(launch.out_of_bounds);
}

std::unique_ptr<DeviceImage> Session::prepare_device() const {
  auto image = std::make_unique<DeviceImage>();
  ptx::GlobalMemory& memory = image->memory;
  memory.set_out_of_bounds(out_of_bounds_mode(launch_, options_));
  place_buffers(launch_, memory, image->addresses, image->initial);

  ptx::LaunchContext& context = image->context;
  context.module = module_.get();
  context.kernel = kernel_;
  context.grid = launch_.grid;
  context.block = launch_.block;
  context.dynamic_shared_bytes = launch_.shared_bytes;
  context.global = &memory;
  std::set<std::string> initialised;
  context.symbol_address = place_symbols(launch_, *module_, true, memory, image->initial, initialised);
  add_symbol_views(launch_, *module_, context.symbol_address, memory, image->addresses, image->initial);
  context.param_buffer = build_param_buffer(launch_, *kernel_, launch_.params, image->addresses, 0);
  context.textures = texture_objects(launch_, image->addresses);
  context.hooks = options_.hooks;
  if (launch_.cooperative) {
    uint64_t workspace = 0;
    make_cooperative(
        context, memory, workspace, options_,
        common::at_location(launch_.path.string(), top_level_key_line(launch_.path, "cooperative"),
                            "kernel " + kernel_->name));
  }
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
  run_options.progress = progress();
  const ptx::Cfg cfg(*kernel_);
  ptx::FunctionalRunner runner(context, cfg, run_options);
  if (progress()) progress()->launch_started(0, context.grid.count());
  const auto start = std::chrono::steady_clock::now();
  result.stats = runner.run();
  if (progress()) progress()->run_finished();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  result.buffers = image->read_buffers(launch_);
  result.warnings = warnings_;
  result.out_of_bounds_warn = image->memory.tolerates_out_of_bounds();
  result.out_of_bounds = image->memory.out_of_bounds_log();
  verify(result, *image);
  return result;
}

uint64_t Session::instruction_budget() const {
  if (options_.instruction_budget) return options_.instruction_budget;
  if (launch_.instruction_budget) return launch_.instruction_budget;
  return ptx::RunOptions{}.instruction_budget;
}

void Session::verify(SessionResult& result, DeviceImage& image) const {
  verify_outputs(launch_, reference_, result, image.initial);
}

void verify_outputs(const Launch& launch_, ReferenceFn reference_, SessionResult& result,
                    HostBuffers& initial) {
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
        throw LaunchError(common::at_location(launch_.path.string(), e.line,
                                              fmt::format("expect.{}.file: {}", e.buffer, err.what())));
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
