// Launch-file loading. Every error names the file, the line and the key path, because a launch file is
// written by hand and a bare "bad conversion" would leave its author guessing.
#include "models/launch/launch.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "models/config/yaml_file.hpp"
#include "models/launch/buffers.hpp"
#include "models/launch/launch_reader.hpp"
#include "models/ptx/call_link.hpp"

namespace simtlm::launch::detail {

ptx::Dim3 read_dim3(const Reader& r, const YAML::Node& n, const std::string& path,
                    const std::array<uint32_t, 3>& limits) {
  if (!n.IsSequence() || n.size() < 1 || n.size() > 3) {
    r.fail(n, path, "expected a list of 1 to 3 positive integers, e.g. [16, 16, 1]");
  }
  uint32_t v[3] = {1, 1, 1};
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string key = fmt::format("{}[{}]", path, i);
    const uint64_t value = r.unsigned_int(n[i], key);
    if (value == 0) r.fail(n[i], key, "must be at least 1");
    if (value > limits[i]) {
      r.fail(n[i], key,
             fmt::format("{} exceeds CUDA's limit of {} for {}.{}", value, limits[i], path, "xyz"[i]));
    }
    v[i] = uint32_t(value);
  }
  return {v[0], v[1], v[2]};
}

bool is_integer_type(ptx::Type t) {
  return t != ptx::Type::f32 && t != ptx::Type::f64;
}

// Integer element types take only integral init values within their range, exactly as written.
void check_value_fits(const Reader& r, const YAML::Node& n, const std::string& path, ptx::Type t, double v) {
  if (t == ptx::Type::none || !is_integer_type(t)) return;  // none: checked by init_buffer, from the PTX
  __int128 exact = 0;
  if (const std::string error = exact_integer(t, n.Scalar(), v, exact); !error.empty())
    r.fail(n, path, error);
}

BufferInit read_init(const Reader& r, const YAML::Node& n, const std::string& path, ptx::Type type) {
  BufferInit init;
  if (n.IsScalar()) {
    if (n.Scalar() != "zeros")
      r.fail(n, path, "expected 'zeros' or a map with random, sequence, value or file");
    return init;
  }
  if (!n.IsMap()) r.fail(n, path, "expected 'zeros' or a map with random, sequence, value or file");
  if (n["random"]) {
    const std::string dist = r.string(n["random"], path + ".random");
    if (dist == "uniform") {
      r.require_map(n, path, {"random", "min", "max"});
      init.kind = BufferInit::Kind::random_uniform;
      init.a = r.number(r.required(n, path, "min"), path + ".min");
      init.b = r.number(r.required(n, path, "max"), path + ".max");
      init.a_text = n["min"].Scalar();
      init.b_text = n["max"].Scalar();
      check_value_fits(r, n["min"], path + ".min", type, init.a);
      check_value_fits(r, n["max"], path + ".max", type, init.b);
      if (init.b < init.a) r.fail(n["max"], path + ".max", "max is smaller than min");
    } else if (dist == "normal") {
      r.require_map(n, path, {"random", "mean", "stddev"});
      init.kind = BufferInit::Kind::random_normal;
      init.a = r.number(r.required(n, path, "mean"), path + ".mean");
      init.b = r.number(r.required(n, path, "stddev"), path + ".stddev");
      if (init.b < 0) r.fail(n["stddev"], path + ".stddev", "must not be negative");
    } else {
      r.fail(n["random"], path + ".random", "expected 'uniform' or 'normal'");
    }
  } else if (n["sequence"]) {
    r.require_map(n, path, {"sequence"});
    const YAML::Node s = n["sequence"];
    const std::string sp = path + ".sequence";
    r.require_map(s, sp, {"start", "step"});
    init.kind = BufferInit::Kind::sequence;
    init.a = s["start"] ? r.number(s["start"], sp + ".start") : 0.0;
    init.b = s["step"] ? r.number(s["step"], sp + ".step") : 1.0;
    if (s["start"]) init.a_text = s["start"].Scalar();
    if (s["step"]) init.b_text = s["step"].Scalar();
    if (s["start"]) check_value_fits(r, s["start"], sp + ".start", type, init.a);
    if (s["step"] && type != ptx::Type::none && is_integer_type(type)) {
      __int128 step = 0;
      if (const std::string error = exact_integer(ptx::Type::s64, init.b_text, init.b, step); !error.empty())
        r.fail(s["step"], sp + ".step", error);
    }
    if (s["step"] && type != ptx::Type::none && is_integer_type(type) && std::nearbyint(init.b) != init.b) {
      r.fail(s["step"], sp + ".step", "an integer buffer needs an integer step");
    }
  } else if (n["value"]) {
    r.require_map(n, path, {"value"});
    init.kind = BufferInit::Kind::value;
    init.a = r.number(n["value"], path + ".value");
    init.a_text = n["value"].Scalar();
    check_value_fits(r, n["value"], path + ".value", type, init.a);
  } else if (n["file"]) {
    r.require_map(n, path, {"file"});
    init.kind = BufferInit::Kind::file;
    init.file = r.existing_file(n["file"], path + ".file");
  } else if (n["values"]) {
    r.require_map(n, path, {"values"});
    init.kind = BufferInit::Kind::values;
    const YAML::Node list = n["values"];
    if (!list.IsSequence()) r.fail(list, path + ".values", "expected a list of numbers");
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string vp = fmt::format("{}.values[{}]", path, k);
      const std::string text = r.string(list[k], vp);
      if (type != ptx::Type::none) {
        uint8_t probe[8];
        const std::string error = encode_element(type, text, probe);
        if (!error.empty()) r.fail(list[k], vp, error);
      }
      init.values.push_back(text);
    }
  } else {
    r.require_map(n, path, {"random", "sequence", "value", "file", "values"});
    r.fail(n, path, "expected one of random, sequence, value, values or file");
  }
  return init;
}

BufferSpec read_buffer(const Reader& r, const YAML::Node& key, const YAML::Node& n, Launch& launch) {
  BufferSpec spec;
  spec.name = key.Scalar();
  spec.line = Reader::line_of(key);
  const std::string path = "buffers." + spec.name;
  r.require_map(n, path, {"type", "count", "init", "image", "padding"});
  if (n["padding"]) spec.padding = r.unsigned_int(n["padding"], path + ".padding", uint64_t(1) << 30);
  const YAML::Node type = r.required(n, path, "type");
  const auto parsed = parse_buffer_type(r.string(type, path + ".type"));
  if (!parsed) r.fail(type, path + ".type", "expected one of u8 s8 u16 s16 u32 s32 u64 s64 f32 f64");
  spec.type = *parsed;
  const YAML::Node count = r.required(n, path, "count");
  spec.count = r.unsigned_int(count, path + ".count");
  // The host holds every buffer (and a copy for the reference): keep a typo from exhausting its memory.
  if (spec.count > kMaxBufferBytes / element_bytes(spec.type)) {
    r.fail(count, path + ".count",
           fmt::format("{} {} elements exceed the 1 GiB limit of a buffer", spec.count,
                       ptx::type_name(spec.type)));
  }
  if (n["init"]) spec.init = read_init(r, n["init"], path + ".init", spec.type);
  if (spec.init.kind == BufferInit::Kind::values && spec.init.values.size() > spec.count) {
    r.fail(n["init"], path + ".init",
           fmt::format("{} values for {} elements", spec.init.values.size(), spec.count));
  }
  if (n["image"]) {
    const YAML::Node img = n["image"];
    const std::string ip = path + ".image";
    r.require_map(img, ip, {"width", "height"});
    const uint32_t w = uint32_t(r.unsigned_int(r.required(img, ip, "width"), ip + ".width", 1u << 20));
    const uint32_t h = uint32_t(r.unsigned_int(r.required(img, ip, "height"), ip + ".height", 1u << 20));
    if (uint64_t(w) * h != spec.count || w == 0) {
      r.fail(img, ip, fmt::format("{} x {} pixels do not match count {}", w, h, spec.count));
    }
    launch.images.push_back(spec.name);
    launch.image_shape[spec.name] = {w, h};
  }
  return spec;
}

bool has_buffer(const Launch& launch, const std::string& name) {
  return launch.find_buffer_spec(name) != nullptr;
}

std::string checked_name(const Reader& r, const YAML::Node& n, const std::string& path) {
  const std::string name = r.string(n, path);
  if (!is_identifier(name)) {
    std::string shown;
    for (const char c : name.substr(0, kMaxNameLength))
      shown += std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c)
                                                           : fmt::format("\\x{:02x}", uint8_t(c));
    r.fail(n, path,
           fmt::format("'{}{}' is not a name: buffer, symbol and output names are C identifiers "
                       "([A-Za-z_][A-Za-z0-9_]*, at most {} characters), as they become file names",
                       shown, name.size() > kMaxNameLength ? "..." : "", kMaxNameLength));
  }
  return name;
}

std::string buffer_name(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  const std::string name = r.string(n, path);
  if (!has_buffer(launch, name)) r.fail(n, path, fmt::format("'{}' is not a buffer of this launch", name));
  return name;
}

void read_expect(const Reader& r, const YAML::Node& n, Launch& launch) {
  if (!n.IsMap()) r.fail(n, "expect", "expected a map from buffer names to {file: ...} or {sha256: ...}");
  for (const auto& kv : n) {
    ExpectSpec e;
    e.buffer = buffer_name(r, kv.first, "expect", launch);
    e.line = Reader::line_of(kv.first);
    const std::string path = "expect." + e.buffer;
    r.require_map(kv.second, path, {"file", "sha256", "tolerance_ulp"});
    if (kv.second["file"].IsDefined() == kv.second["sha256"].IsDefined()) {
      r.fail(kv.second, path, "give exactly one of file or sha256");
    }
    if (kv.second["file"]) e.file = r.existing_file(kv.second["file"], path + ".file");
    if (kv.second["sha256"]) {
      e.sha256 = r.string(kv.second["sha256"], path + ".sha256");
      bool hex = e.sha256.size() == 64;
      for (char& c : e.sha256) {
        c = char(std::tolower(static_cast<unsigned char>(c)));
        hex = hex && std::isxdigit(static_cast<unsigned char>(c));
      }
      if (!hex) r.fail(kv.second["sha256"], path + ".sha256", "expected 64 hexadecimal digits");
    }
    if (kv.second["tolerance_ulp"]) {
      e.tolerance_ulp =
          uint32_t(r.unsigned_int(kv.second["tolerance_ulp"], path + ".tolerance_ulp", UINT32_MAX));
      if (is_integer_type(launch.find_buffer_spec(e.buffer)->type) && e.tolerance_ulp) {
        r.fail(kv.second["tolerance_ulp"], path + ".tolerance_ulp",
               "only f32 and f64 buffers take a tolerance");
      }
      if (!e.sha256.empty() && e.tolerance_ulp) {
        r.fail(kv.second["tolerance_ulp"], path + ".tolerance_ulp", "a sha256 check is always exact");
      }
    }
    launch.expect.push_back(std::move(e));
  }
}

}  // namespace simtlm::launch::detail

namespace simtlm::launch {

using detail::Reader;
using namespace detail;

namespace {

constexpr size_t kMaxOverrideBytes = 64 * 1024;

void apply_override(const std::filesystem::path& path, YAML::Node& root, const std::string& text) {
  const size_t eq = text.find('=');
  const std::string where = path.string() + ": --launch-set " + text.substr(0, 80);
  if (eq == std::string::npos || eq == 0) throw LaunchError(where + ": expected KEY=VALUE (VALUE in YAML)");
  if (text.size() > kMaxOverrideBytes) throw LaunchError(where + ": longer than 64 KiB");
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw LaunchError(where + ": the value is not YAML: " + e.msg);
  }
  if (!root.IsMap()) throw LaunchError(where + ": the launch file is not a map of keys");
  root[text.substr(0, eq)] = value;
}

}  // namespace

Launch load_launch(const std::filesystem::path& path) {
  return load_launch(path, {});
}

Launch load_launch(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  Reader r(path);
  YAML::Node loaded;
  try {
    loaded = yaml_file::load_single_document(path, "launch file");
  } catch (const yaml_file::YamlFileError& e) {
    throw LaunchError(yaml_file::located(path, e));
  }
  for (const std::string& text : overrides) apply_override(path, loaded, text);
  // Read through a const view: yaml-cpp's non-const operator[] may insert the keys it is asked about.
  const YAML::Node& root = loaded;
  if (!root.IsMap()) r.fail(root, "(top level)", "a launch file is a map of keys such as ptx, kernel, grid");
  const bool sequence = root["launches"].IsDefined();
  if (sequence) {
    r.require_map(
        root, "",
        {"ptx", "seed", "buffers", "symbols", "constants", "outputs", "expect", "reference", "budget",
         "limit_stack_size", "call_stack_bytes", "out_of_bounds", "launches", "herding", "textures"});
  } else {
    r.require_map(root, "", {"ptx",     "kernel",           "grid",
                             "block",   "shared_bytes",     "cooperative",
                             "seed",    "buffers",          "params",
                             "outputs", "expect",           "reference",
                             "budget",  "limit_stack_size", "call_stack_bytes",
                             "symbols", "constants",        "out_of_bounds",
                             "herding", "textures"});
  }
  Launch launch;
  launch.path = path;
  launch.ptx = r.existing_file(r.required(root, "", "ptx"), "ptx");
  if (!sequence) {
    launch.kernel = r.string(r.required(root, "", "kernel"), "kernel");
    launch.grid = read_dim3(r, r.required(root, "", "grid"), "grid", kMaxGridDims);
    launch.block = read_dim3(r, r.required(root, "", "block"), "block", kMaxBlockDims);
    if (const std::string bad = block_limit_violation(launch.block); !bad.empty())
      r.fail(root["block"], "block", bad);
    if (const std::string bad = grid_limit_violation(launch.grid, launch.block); !bad.empty())
      r.fail(root["grid"], "grid", bad);
    if (root["shared_bytes"]) {
      launch.shared_bytes = uint32_t(r.unsigned_int(root["shared_bytes"], "shared_bytes", 1u << 20));
    }
    if (root["cooperative"]) launch.cooperative = r.boolean(root["cooperative"], "cooperative");
  }
  if (root["seed"]) launch.seed = r.unsigned_int(root["seed"], "seed");
  if (root["budget"]) launch.instruction_budget = r.unsigned_int(root["budget"], "budget");
  // cudaDeviceSetLimit(cudaLimitStackSize, N); call_stack_bytes is its older name.
  if (root["limit_stack_size"] && root["call_stack_bytes"])
    r.fail(root["call_stack_bytes"], "call_stack_bytes",
           "an alias of limit_stack_size: give only one of them");
  for (const char* key : {"limit_stack_size", "call_stack_bytes"}) {
    const YAML::Node stack = root[key];
    if (!stack) continue;
    launch.call_stack_bytes = uint32_t(r.unsigned_int(stack, key, ptx::kMaxCallStackBytes));
    if (launch.call_stack_bytes < ptx::kMinCallStackBytes || launch.call_stack_bytes % 16 != 0) {
      r.fail(stack, key,
             fmt::format("expected {}..{} bytes, a multiple of 16", ptx::kMinCallStackBytes,
                         ptx::kMaxCallStackBytes));
    }
  }
  if (root["reference"]) launch.reference = r.string(root["reference"], "reference");
  if (const YAML::Node herding = root["herding"]) {
    try {
      launch.herding = read_herding_section(herding, path);
    } catch (const HerdingSpecError& e) {
      throw LaunchError(e.what());
    }
  }
  if (const YAML::Node oob = root["out_of_bounds"]) {
    const std::string mode = r.string(oob, "out_of_bounds");
    if (mode != "error" && mode != "warn") r.fail(oob, "out_of_bounds", "expected error or warn");
    launch.out_of_bounds = mode == "warn" ? ptx::OutOfBounds::warn : ptx::OutOfBounds::error;
  }
  if (const YAML::Node constants = root["constants"]) {
    if (!constants.IsMap()) r.fail(constants, "constants", "expected a map from names to integers");
    for (const auto& kv : constants) {
      const std::string name = kv.first.Scalar();
      const std::string key = "constants." + name;
      if (name.empty() || name == "i" ||
          !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        r.fail(kv.first, key, "a constant is named like a C identifier, and not i");
      int64_t v = 0;
      if (!kv.second.IsScalar() || !YAML::convert<int64_t>::decode(kv.second, v))
        r.fail(kv.second, key, "expected an integer");
      launch.constants[name] = v;
    }
  }

  if (const YAML::Node buffers = root["buffers"]) {
    if (!buffers.IsMap())
      r.fail(buffers, "buffers", "expected a map from buffer names to {type, count, init}");
    if (buffers.size() > kMaxBuffers) {
      r.fail(buffers, "buffers",
             fmt::format("{} buffers exceed the limit of {} per launch file", buffers.size(), kMaxBuffers));
    }
    uint64_t total_bytes = 0;
    for (const auto& kv : buffers) {
      const std::string name = checked_name(r, kv.first, "buffers");
      if (has_buffer(launch, name)) r.fail(kv.first, "buffers." + name, "duplicate name");
      if (launch.constants.count(name))
        r.fail(kv.first, "buffers." + name,
               fmt::format("'{}' is also a constant: a parameter \"{}\" would be ambiguous", name, name));
      launch.add_buffer(read_buffer(r, kv.first, kv.second, launch));
      const BufferSpec& added = launch.buffers.back();
      total_bytes += added.count * element_bytes(added.type);  // each at most kMaxBufferBytes: no overflow
      if (total_bytes > kMaxLaunchBytes) {
        r.fail(kv.first, "buffers." + name,
               fmt::format("the buffers up to this one take {} bytes, over the limit of {} bytes (2 GiB) for "
                           "all buffers and module variables of a launch",
                           total_bytes, kMaxLaunchBytes));
      }
    }
  }

  if (const YAML::Node textures = root["textures"]) read_textures(r, textures, launch);
  if (const YAML::Node symbols = root["symbols"]) read_symbols(r, symbols, launch);
  if (sequence) {
    launch.steps = read_steps(r, root["launches"], "launches", launch);
  } else {
    const YAML::Node params = r.required(root, "", "params");
    if (!params.IsSequence())
      r.fail(params, "params", "expected a list in .param order, e.g. [image, 256, 0.5]");
    for (size_t i = 0; i < params.size(); ++i) {
      launch.params.push_back(read_param(r, params[i], fmt::format("params[{}]", i), launch));
    }
  }

  if (const YAML::Node outputs = root["outputs"]) {
    if (!outputs.IsSequence()) r.fail(outputs, "outputs", "expected a list of buffer names");
    std::set<std::string> seen;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string key = fmt::format("outputs[{}]", i);
      // Module symbols are only known once the PTX is loaded: the session checks those names.
      const std::string name = checked_name(r, outputs[i], key);
      if (!seen.insert(name).second) r.fail(outputs[i], key, fmt::format("'{}' is listed twice", name));
      launch.outputs.push_back(name);
    }
  }
  if (const YAML::Node expect = root["expect"]) read_expect(r, expect, launch);
  return launch;
}

bool is_identifier(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || !(std::isalnum(u) || c == '_')) return false;
  }
  return true;
}

std::string block_limit_violation(const ptx::Dim3& block) {
  const uint32_t dims[3] = {block.x, block.y, block.z};
  for (size_t i = 0; i < 3; ++i) {
    if (dims[i] > kMaxBlockDims[i])
      return fmt::format("block.{} = {} exceeds CUDA's limit of {}", "xyz"[i], dims[i], kMaxBlockDims[i]);
  }
  if (block.count() > kMaxBlockThreads)
    return fmt::format("{} threads per block exceed the limit of {}", block.count(), kMaxBlockThreads);
  return "";
}

std::string grid_limit_violation(const ptx::Dim3& grid, const ptx::Dim3& block) {
  const uint32_t dims[3] = {grid.x, grid.y, grid.z};
  for (size_t i = 0; i < 3; ++i) {
    if (dims[i] > kMaxGridDims[i])
      return fmt::format("grid.{} = {} exceeds CUDA's limit of {}", "xyz"[i], dims[i], kMaxGridDims[i]);
  }
  const uint64_t ctas = grid.count();  // saturates, so an overflow is past the limit too
  uint64_t threads = 0;
  if (ctas > kMaxGridCtas) {
    return fmt::format("{} x {} x {} CTAs exceed the limit of {} CTAs per launch", grid.x, grid.y, grid.z,
                       kMaxGridCtas);
  }
  if (__builtin_mul_overflow(ctas, block.count(), &threads) || threads > kMaxGridThreads) {
    return fmt::format("{} CTAs of {} threads exceed the limit of {} threads per launch", ctas, block.count(),
                       kMaxGridThreads);
  }
  return "";
}

namespace {

// The index covers every entry when they came through add_*; launches built by hand in tests push to the
// vector directly, and then a scan finds the name.
template <typename Spec>
const Spec* find_named(const std::vector<Spec>& specs, const std::unordered_map<std::string, size_t>& index,
                       const std::string& name) {
  if (index.size() == specs.size()) {
    const auto it = index.find(name);
    return it == index.end() ? nullptr : &specs[it->second];
  }
  for (const Spec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

void Launch::add_buffer(BufferSpec spec) {
  buffer_index[spec.name] = buffers.size();
  buffers.push_back(std::move(spec));
}

const BufferSpec* Launch::find_buffer_spec(const std::string& name) const {
  return find_named(buffers, buffer_index, name);
}

void Launch::add_symbol(SymbolSpec spec) {
  symbol_index[spec.name] = symbols.size();
  symbols.push_back(std::move(spec));
}

const SymbolSpec* Launch::find_symbol_spec(const std::string& name) const {
  return find_named(symbols, symbol_index, name);
}

}  // namespace simtlm::launch
