// Launch sequences: the `launches:` list (kernels, host loops, host writes) and module symbols.
#include "models/launch/buffers.hpp"
#include "models/launch/launch_reader.hpp"

namespace simtlm::launch::detail {
namespace {

// Iterations of a `for` loop without `max:` before it is an error (a loop whose variable never fails its
// while stops instead of running on).
constexpr uint64_t kDefaultForMax = uint64_t(1) << 20;

// An integer expression at n, checked against what the point of the file may name.
std::string read_expression(const Reader& r, const YAML::Node& n, const std::string& path,
                            const Launch& launch) {
  const std::string text = r.string(n, path);
  try {
    check_expression(text, load_scope(r, launch), "");
  } catch (const LaunchError& e) {
    r.fail(n, path, std::string(e.what()).substr(2));
  }
  return text;
}

std::array<std::string, 3> read_geometry(const Reader& r, const YAML::Node& n, const std::string& path,
                                         const Launch& launch) {
  if (!n.IsSequence() || n.size() < 1 || n.size() > 3) {
    r.fail(n, path,
           "expected a list of 1 to 3 entries, integers or expressions in i, e.g. [\"(i + 15) / 16\", 1]");
  }
  std::array<std::string, 3> v{"1", "1", "1"};
  for (size_t k = 0; k < n.size(); ++k) {
    const std::string key = fmt::format("{}[{}]", path, k);
    v[k] = read_expression(r, n[k], key, launch);
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
  r.require_map(n, path, {"kernel", "ptx", "grid", "block", "shared_bytes", "params", "cooperative"});
  Step step;
  step.kind = Step::Kind::kernel;
  step.line = Reader::line_of(n);
  step.kernel = r.string(n["kernel"], path + ".kernel");
  step.ptx = n["ptx"] ? r.existing_file(n["ptx"], path + ".ptx") : launch.ptx;
  step.grid = read_geometry(r, r.required(n, path, "grid"), path + ".grid", launch);
  step.block = read_geometry(r, r.required(n, path, "block"), path + ".block", launch);
  if (n["shared_bytes"])
    step.shared_bytes = read_expression(r, n["shared_bytes"], path + ".shared_bytes", launch);
  if (n["cooperative"]) step.cooperative = r.boolean(n["cooperative"], path + ".cooperative");
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

Step read_set(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
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
    } else if (v.IsMap() && !v["init"]) {  // {at: K, values: [...]}: from element K
      r.require_map(v, key, {"at", "values", "init"});
      if (v["at"]) set.at = read_expression(r, v["at"], key + ".at", launch);
      const YAML::Node values = r.required(v, key, "values");
      if (values.IsScalar()) {
        set.values.push_back(values.Scalar());
      } else if (values.IsSequence() && values.size() > 0) {
        for (size_t k = 0; k < values.size(); ++k)
          set.values.push_back(r.string(values[k], fmt::format("{}.values[{}]", key, k)));
      } else {
        r.fail(values, key + ".values", "expected a value or a non-empty list of values");
      }
    } else if (v.IsMap()) {
      r.require_map(v, key, {"init", "at", "values"});
      if (v["at"] || v["values"])
        r.fail(v, key, "init refills the whole buffer: give {init: ...} or {at: K, values: [...]}, not both");
      set.refill = true;
      set.init = read_init(r, r.required(v, key, "init"), key + ".init", ptx::Type::none);
    } else {
      r.fail(v, key, "expected a value, a list of values or {init: ...}");
    }
    step.sets.push_back(std::move(set));
  }
  return step;
}

// {for: {var: k, from: 2, while: "k <= n", next: "k * 2", max: M}, steps: [...]}: C's
// `for (k = 2; k <= n; k = k * 2)`; the steps and the inner loops' expressions may use k.
Step read_for(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  r.require_map(n, path, {"for", "steps"});
  const YAML::Node f = n["for"];
  const std::string fp = path + ".for";
  r.require_map(f, fp, {"var", "from", "while", "next", "max"});
  Step step;
  step.kind = Step::Kind::for_loop;
  step.line = Reader::line_of(n);
  const YAML::Node var = r.required(f, fp, "var");
  step.var = r.string(var, fp + ".var");
  if (!is_identifier(step.var) || step.var == "i")
    r.fail(var, fp + ".var",
           fmt::format("'{}': a loop variable is named like a C identifier, and not i", step.var));
  if (launch.constants.count(step.var) || names_data(launch, step.var) || launch.find_texture(step.var) >= 0)
    r.fail(var, fp + ".var",
           fmt::format("'{}' is already a constant, a buffer, a symbol or a texture", step.var));
  if (std::find(r.loop_variables.begin(), r.loop_variables.end(), step.var) != r.loop_variables.end())
    r.fail(var, fp + ".var", fmt::format("'{}' is already the variable of an enclosing for loop", step.var));
  step.from = read_expression(r, r.required(f, fp, "from"), fp + ".from", launch);
  r.loop_variables.push_back(step.var);
  step.cond = read_expression(r, r.required(f, fp, "while"), fp + ".while", launch);
  step.next = read_expression(r, r.required(f, fp, "next"), fp + ".next", launch);
  step.count = kDefaultForMax;
  if (f["max"]) {
    step.count = r.unsigned_int(f["max"], fp + ".max", uint64_t(1) << 40);
    if (step.count == 0) r.fail(f["max"], fp + ".max", "must be at least 1");
  }
  step.steps = read_steps(r, r.required(n, path, "steps"), path + ".steps", launch);
  r.loop_variables.pop_back();
  return step;
}

// {copy2d: {dst: "b + 4", dpitch: 64, src: a, spitch: 128, width: 48, height: 8}}: cudaMemcpy2D between
// buffers; pitches and width in bytes.
Step read_copy2d(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  r.require_map(n, path, {"copy2d"});
  const YAML::Node c = n["copy2d"];
  const std::string cp = path + ".copy2d";
  r.require_map(c, cp, {"dst", "dpitch", "src", "spitch", "width", "height"});
  Step step;
  step.kind = Step::Kind::copy2d;
  step.line = Reader::line_of(n);
  step.copy.line = step.line;
  for (const char* end : {"dst", "src"}) {
    const YAML::Node at = r.required(c, cp, end);
    ParamValue p = read_param(r, at, cp + "." + end, launch);
    if (p.kind != ParamValue::Kind::buffer)
      r.fail(at, cp + "." + end, "expected a buffer, optionally with an offset (\"b + 16\", \"b + 64B\")");
    (end[0] == 'd' ? step.copy.dst : step.copy.src) = std::move(p);
  }
  step.copy.dpitch = read_expression(r, r.required(c, cp, "dpitch"), cp + ".dpitch", launch);
  step.copy.spitch = read_expression(r, r.required(c, cp, "spitch"), cp + ".spitch", launch);
  step.copy.width = read_expression(r, r.required(c, cp, "width"), cp + ".width", launch);
  step.copy.height = read_expression(r, r.required(c, cp, "height"), cp + ".height", launch);
  return step;
}

Step read_step(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  if (!n.IsMap())
    r.fail(
        n, path,
        "expected a step: {kernel: ...}, {repeat: N, steps: [...]}, {loop: ...}, {for: ..., steps: [...]}, "
        "{set: ...} or {copy2d: ...}");
  if (n["kernel"]) return read_kernel_step(r, n, path, launch);
  if (n["for"]) return read_for(r, n, path, launch);
  if (n["copy2d"]) return read_copy2d(r, n, path, launch);
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
  r.require_map(n, path, {"kernel", "repeat", "loop", "for", "set", "copy2d"});
  r.fail(n, path, "expected one of kernel, repeat, loop, for, set or copy2d");
}

}  // namespace

std::vector<Step> read_steps(const Reader& r, const YAML::Node& n, const std::string& path,
                             const Launch& launch) {
  if (!n.IsSequence() || n.size() == 0) r.fail(n, path, "expected a non-empty list of steps");
  r.in_launches = true;
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
    // Without init the variable starts as zeros, as a buffer does (cudaMemset before the first kernel).
    if (kv.second["init"]) spec.init = read_init(r, kv.second["init"], path + ".init", spec.type);
    launch.add_symbol(std::move(spec));
  }
}

ExpressionScope load_scope(const Reader& r, const Launch& launch) {
  ExpressionScope scope;
  scope.constants = &launch.constants;
  for (const std::string& name : r.loop_variables) scope.variables.emplace_back(name, 0);
  if (r.in_launches) scope.has_data = [&launch](const std::string& name) { return names_data(launch, name); };
  return scope;
}

}  // namespace simtlm::launch::detail
