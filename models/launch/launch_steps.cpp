// Launch sequences: the `launches:` list (kernels, host loops, host writes) and module symbols.
#include "models/launch/buffers.hpp"
#include "models/launch/launch_reader.hpp"

namespace simtlm::launch::detail {
namespace {

std::array<std::string, 3> read_geometry(const Reader& r, const YAML::Node& n, const std::string& path,
                                         const Launch& launch) {
  if (!n.IsSequence() || n.size() < 1 || n.size() > 3) {
    r.fail(n, path,
           "expected a list of 1 to 3 entries, integers or expressions in i, e.g. [\"(i + 15) / 16\", 1]");
  }
  std::array<std::string, 3> v{"1", "1", "1"};
  for (size_t k = 0; k < n.size(); ++k) {
    const std::string key = fmt::format("{}[{}]", path, k);
    v[k] = r.string(n[k], key);
    try {
      check_expression(v[k], launch.constants, "");
    } catch (const LaunchError& e) {
      r.fail(n[k], key, std::string(e.what()).substr(2));
    }
  }
  return v;
}

// A literal, or an expression of the file's constants (host code's `for (t = 0; t < rows - 1; t += steps)` is
// `repeat: "(rows - 1 + steps - 1) / steps"`); it may not depend on an outer loop's i.
uint64_t read_repeat_count(const Reader& r, const YAML::Node& n, const std::string& path,
                           const Launch& launch) {
  constexpr uint64_t kMax = uint64_t(1) << 40;
  uint64_t literal = 0;
  if (n.IsScalar() && YAML::convert<uint64_t>::decode(n, literal) && !n.Scalar().starts_with("-"))
    return r.unsigned_int(n, path, kMax);
  if (!n.IsScalar()) r.fail(n, path, "expected an unsigned integer or an expression of constants");
  int64_t count = 0, at_one = 0;
  try {
    count = evaluate_expression(n.Scalar(), 0, launch.constants, "");
    at_one = evaluate_expression(n.Scalar(), 1, launch.constants, "");
  } catch (const LaunchError& e) {
    r.fail(n, path, std::string(e.what()).substr(2));
  }
  if (at_one != count)
    r.fail(n, path,
           fmt::format("'{}' depends on i: a repeat count is fixed before its loop runs", n.Scalar()));
  if (count < 0 || uint64_t(count) > kMax)
    r.fail(n, path, fmt::format("'{}' = {} is outside [0, {}]", n.Scalar(), count, kMax));
  return uint64_t(count);
}

Step read_kernel_step(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  r.require_map(n, path, {"kernel", "ptx", "grid", "block", "shared_bytes", "params"});
  Step step;
  step.kind = Step::Kind::kernel;
  step.line = Reader::line_of(n);
  step.kernel = r.string(n["kernel"], path + ".kernel");
  step.ptx = n["ptx"] ? r.existing_file(n["ptx"], path + ".ptx") : launch.ptx;
  step.grid = read_geometry(r, r.required(n, path, "grid"), path + ".grid", launch);
  step.block = read_geometry(r, r.required(n, path, "block"), path + ".block", launch);
  if (n["shared_bytes"]) {
    step.shared_bytes = r.string(n["shared_bytes"], path + ".shared_bytes");
    try {
      check_expression(step.shared_bytes, launch.constants, "");
    } catch (const LaunchError& e) {
      r.fail(n["shared_bytes"], path + ".shared_bytes", std::string(e.what()).substr(2));
    }
  }
  const YAML::Node params = r.required(n, path, "params");
  if (!params.IsSequence()) r.fail(params, path + ".params", "expected a list in .param order");
  for (size_t k = 0; k < params.size(); ++k) {
    step.params.push_back(read_param(r, params[k], fmt::format("{}.params[{}]", path, k), launch));
  }
  return step;
}

bool names_data(const Launch& launch, const std::string& name) {
  return has_buffer(launch, name) || launch.find_symbol_spec(name) != nullptr;
}

UntilSpec read_until(const Reader& r, const YAML::Node& n, const std::string& path) {
  static const std::pair<const char*, UntilSpec::Cmp> kCmps[] = {
      {"equals", UntilSpec::Cmp::equals},   {"not_equals", UntilSpec::Cmp::not_equals},
      {"less", UntilSpec::Cmp::less},       {"less_equal", UntilSpec::Cmp::less_equal},
      {"greater", UntilSpec::Cmp::greater}, {"greater_equal", UntilSpec::Cmp::greater_equal}};
  r.require_map(n, path,
                {"buffer", "symbol", "element", "equals", "not_equals", "less", "less_equal", "greater",
                 "greater_equal"});
  UntilSpec u;
  u.line = Reader::line_of(n);
  if (n["buffer"].IsDefined() == n["symbol"].IsDefined())
    r.fail(n, path, "give exactly one of buffer or symbol");
  u.symbol = n["symbol"].IsDefined();
  u.name = r.string(u.symbol ? n["symbol"] : n["buffer"], path + (u.symbol ? ".symbol" : ".buffer"));
  if (n["element"]) u.element = r.unsigned_int(n["element"], path + ".element");
  int found = 0;
  for (const auto& [key, cmp] : kCmps) {
    if (!n[key]) continue;
    ++found;
    u.cmp = cmp;
    u.value = r.string(n[key], path + "." + key);
  }
  if (found != 1)
    r.fail(n, path, "give exactly one of equals, not_equals, less, less_equal, greater, greater_equal");
  return u;
}

Step read_set(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& /*launch*/) {
  Step step;
  step.kind = Step::Kind::set;
  step.line = Reader::line_of(n);
  if (!n.IsMap() || n.size() == 0) r.fail(n, path, "expected a map from buffer or symbol names to values");
  for (const auto& kv : n) {
    SetSpec set;
    set.name = kv.first.Scalar();
    set.line = Reader::line_of(kv.first);
    const std::string key = path + "." + set.name;
    const YAML::Node v = kv.second;
    if (v.IsScalar()) {
      set.values.push_back(v.Scalar());
    } else if (v.IsSequence()) {
      if (v.size() == 0) r.fail(v, key, "an empty list writes nothing");
      for (size_t k = 0; k < v.size(); ++k)
        set.values.push_back(r.string(v[k], fmt::format("{}[{}]", key, k)));
    } else if (v.IsMap()) {
      r.require_map(v, key, {"init"});
      set.refill = true;
      set.init = read_init(r, r.required(v, key, "init"), key + ".init", ptx::Type::none);
    } else {
      r.fail(v, key, "expected a value, a list of values or {init: ...}");
    }
    step.sets.push_back(std::move(set));
  }
  return step;
}

Step read_step(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  if (!n.IsMap())
    r.fail(n, path, "expected a step: {kernel: ...}, {repeat: N, steps: [...]}, {loop: ...} or {set: ...}");
  if (n["kernel"]) return read_kernel_step(r, n, path, launch);
  if (n["set"]) {
    r.require_map(n, path, {"set"});
    return read_set(r, n["set"], path + ".set", launch);
  }
  if (n["repeat"]) {
    r.require_map(n, path, {"repeat", "steps"});
    Step step;
    step.kind = Step::Kind::repeat;
    step.line = Reader::line_of(n);
    step.count = read_repeat_count(r, n["repeat"], path + ".repeat", launch);
    step.steps = read_steps(r, r.required(n, path, "steps"), path + ".steps", launch);
    return step;
  }
  if (n["loop"]) {
    r.require_map(n, path, {"loop"});
    const YAML::Node loop = n["loop"];
    const std::string lp = path + ".loop";
    r.require_map(loop, lp, {"max", "until", "steps"});
    Step step;
    step.kind = Step::Kind::loop;
    step.line = Reader::line_of(n);
    step.count = r.unsigned_int(r.required(loop, lp, "max"), lp + ".max", uint64_t(1) << 40);
    if (step.count == 0) r.fail(loop["max"], lp + ".max", "must be at least 1");
    step.until = read_until(r, r.required(loop, lp, "until"), lp + ".until");
    step.steps = read_steps(r, r.required(loop, lp, "steps"), lp + ".steps", launch);
    return step;
  }
  r.require_map(n, path, {"kernel", "repeat", "loop", "set"});
  r.fail(n, path, "expected one of kernel, repeat, loop or set");
}

}  // namespace

std::vector<Step> read_steps(const Reader& r, const YAML::Node& n, const std::string& path,
                             const Launch& launch) {
  if (!n.IsSequence() || n.size() == 0) r.fail(n, path, "expected a non-empty list of steps");
  std::vector<Step> steps;
  for (size_t k = 0; k < n.size(); ++k)
    steps.push_back(read_step(r, n[k], fmt::format("{}[{}]", path, k), launch));
  return steps;
}

void read_symbols(const Reader& r, const YAML::Node& n, Launch& launch) {
  if (!n.IsMap()) r.fail(n, "symbols", "expected a map from module variable names to {init: ...}");
  if (launch.buffers.size() + n.size() > kMaxBuffers) {
    r.fail(n, "symbols",
           fmt::format("{} buffers and {} symbols exceed the limit of {} buffers and symbols per launch file",
                       launch.buffers.size(), n.size(), kMaxBuffers));
  }
  for (const auto& kv : n) {
    SymbolSpec spec;
    spec.name = checked_name(r, kv.first, "symbols");
    spec.line = Reader::line_of(kv.first);
    const std::string path = "symbols." + spec.name;
    if (names_data(launch, spec.name)) r.fail(kv.first, path, "the name is already a buffer or a symbol");
    r.require_map(kv.second, path, {"type", "count", "init"});
    if (kv.second["type"]) {
      const auto parsed = parse_buffer_type(r.string(kv.second["type"], path + ".type"));
      if (!parsed)
        r.fail(kv.second["type"], path + ".type", "expected one of u8 s8 u16 s16 u32 s32 u64 s64 f32 f64");
      spec.type = *parsed;
    }
    if (kv.second["count"]) {
      spec.count = r.unsigned_int(kv.second["count"], path + ".count", uint64_t(1) << 30);
      if (spec.count == 0) r.fail(kv.second["count"], path + ".count", "must be at least 1");
    }
    spec.init = read_init(r, r.required(kv.second, path, "init"), path + ".init", spec.type);
    launch.add_symbol(std::move(spec));
  }
}

}  // namespace simtlm::launch::detail
