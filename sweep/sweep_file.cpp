#include "sweep/sweep_file.hpp"

#include <fmt/format.h>
#include <glob.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <set>

#include "common/location.hpp"
#include "hw/divergence/mechanism.hpp"
#include "hw/units/permutations.hpp"
#include "models/config/machine_config.hpp"
#include "models/config/yaml_file.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::sweep {

namespace fs = std::filesystem;

namespace {

// Values of one axis, and of one launch entry's range: far beyond any study, far below a host's memory.
constexpr uint64_t kMaxAxisValues = 100'000;
// The product of all axes.
constexpr uint64_t kMaxJobs = 1'000'000;

class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& msg) const {
    throw SweepError(common::at_location(file_.string(), line(at), key + ": " + msg));
  }
  static uint32_t line(const YAML::Node& node) { return uint32_t(std::max(node.Mark().line, 0) + 1); }
  void require_map(const YAML::Node& node, const std::string& key,
                   const std::vector<std::string>& allowed) const {
    if (!node.IsMap()) fail(node, key, "expected a map");
    for (const auto& kv : node) {
      const std::string k = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(kv.first, key.empty() ? k : key + "." + k,
             "unknown key (expected one of: " + fmt::format("{}", fmt::join(allowed, ", ")) + ")");
    }
  }
  std::string scalar(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, key, "expected a single value");
    return node.Scalar();
  }
  std::vector<std::string> strings(const YAML::Node& node, const std::string& key) const {
    if (!node.IsSequence()) fail(node, key, "expected a list");
    std::vector<std::string> out;
    for (size_t i = 0; i < node.size(); ++i) out.push_back(scalar(node[i], fmt::format("{}[{}]", key, i)));
    return out;
  }
  const fs::path& file() const { return file_; }
  // Loading launch files and configurations waits until the product of the axes is known to be within
  // kMaxJobs: a sweep of too many jobs is refused from the axes' sizes alone, at once.
  void defer(std::function<void()> check) const { deferred_.push_back(std::move(check)); }
  void run_deferred() const {
    for (const auto& check : deferred_) check();
    deferred_.clear();
  }

 private:
  fs::path file_;
  mutable std::vector<std::function<void()>> deferred_;
};

// YAML text of a launch-file value: a scalar as written (so "[out, {n}]" can be a template), else emitted.
std::string yaml_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

std::string substitute(std::string text, const std::map<std::string, int64_t>& vars) {
  for (const auto& [name, value] : vars) {
    const std::string key = "{" + name + "}";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
      text.replace(at, key.size(), std::to_string(value));
  }
  return text;
}

std::vector<fs::path> expand_glob(const Reader& r, const YAML::Node& at, const std::string& key,
                                  const fs::path& root, const std::string& pattern) {
  const fs::path full = fs::path(pattern).is_absolute() ? fs::path(pattern) : root / pattern;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    const std::string bad = yaml_file::unreadable_reason(full, "file");
    if (!bad.empty()) r.fail(at, key, bad);
    return {fs::absolute(full).lexically_normal()};
  }
  // Only the pattern as written is a pattern: '*', '?' and '[' in the sweep file's own directory are text.
  std::string escaped_root;
  for (char c : root.string()) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') escaped_root += '\\';
    escaped_root += c;
  }
  const std::string full_pattern = fs::path(pattern).is_absolute() ? pattern : escaped_root + "/" + pattern;
  glob_t g{};
  const int rc = glob(full_pattern.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<fs::path> out;
  for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) {
    std::error_code ec;
    if (fs::is_regular_file(g.gl_pathv[i], ec)) out.push_back(fs::absolute(g.gl_pathv[i]).lexically_normal());
  }
  globfree(&g);
  if (out.empty()) r.fail(at, key, "'" + pattern + "' matches no file");
  if (out.size() > kMaxAxisValues)
    r.fail(at, key, fmt::format("'{}' matches more than {} files", pattern, kMaxAxisValues));
  std::sort(out.begin(), out.end());
  return out;
}

// The mechanism shorthand: a divergence unit or a compaction label ("warp_stacks" or "none", "tbc",
// "capri+balanced", ...) as divergence.unit and compaction.permutation.
std::vector<std::string> mechanism_sets(const Reader& r, const YAML::Node& at, const std::string& key,
                                        const std::string& text) {
  const size_t plus = text.find('+');
  const std::string mech = text.substr(0, plus);
  std::optional<hw::UnitKind> unit = hw::parse_unit(mech);
  if (const auto compaction = hw::parse_compaction(mech); !unit && compaction)
    unit = hw::unit_of(*compaction);
  if (!unit) r.fail(at, key, "unknown divergence mechanism '" + mech + "'");
  std::vector<std::string> sets{"divergence.unit=" + std::string(hw::traits(*unit).name)};
  if (plus != std::string::npos) {
    const std::string perm = text.substr(plus + 1);
    if (!hw::parse_permutation(perm)) r.fail(at, key, "unknown lane permutation '" + perm + "'");
    sets.push_back("compaction.permutation=" + perm);
  }
  return sets;
}

// A launch that does not load (its PTX missing, a bad key or value) is refused here, with the sweep file's
// line, not when its job runs. Only the file is read: no buffer is made.
void check_launch(const Reader& r, const YAML::Node& at, const std::string& key, const fs::path& file,
                  const std::vector<std::string>& sets) {
  try {
    launch::load_launch(file, sets);
  } catch (const std::exception& e) {
    r.fail(at, key, e.what());
  }
}

void check_sets(const Reader& r, const YAML::Node& at, const std::string& key,
                const std::vector<std::string>& sets) {
  for (const std::string& s : sets)
    if (s.find('=') == std::string::npos || s.front() == '=')
      r.fail(at, key, "'" + s + "' is not path=value");
}

void read_common(const Reader& r, const YAML::Node& node, const std::string& key, AxisValue& v) {
  if (const YAML::Node n = node["name"]) v.name = r.scalar(n, key + ".name");
  if (const YAML::Node n = node["args"]) {
    v.args = r.strings(n, key + ".args");
    // Files these name would escape the job id (which hashes files' contents): the sweep's keys say them.
    for (const std::string& a : v.args) {
      for (const char* own :
           {"--launch", "--config", "--out", "--set", "--launch-set", "--mode", "--quiet"}) {
        if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
          r.fail(n, key + ".args",
                 "'" + a + "' is given by the sweep file's own keys (launches, configs, set:)");
      }
    }
  }
}

std::vector<AxisValue> read_launches(const Reader& r, const YAML::Node& list, const fs::path& root) {
  std::vector<AxisValue> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string key = fmt::format("launches[{}]", i);
    if (item.IsScalar()) {
      for (const fs::path& f : expand_glob(r, item, key, root, item.Scalar())) {
        r.defer([&r, item, key, f] { check_launch(r, item, key, f, {}); });
        out.push_back({f.stem().string(), f, {}, {}, {}, Reader::line(item)});
      }
      continue;
    }
    r.require_map(item, key, {"file", "name", "set", "args", "range"});
    if (!item["file"]) r.fail(item, key, "a launch needs file:");
    const std::vector<fs::path> files =
        expand_glob(r, item["file"], key + ".file", root, r.scalar(item["file"], key));
    if (files.size() != 1 && (item["name"] || item["range"]))
      r.fail(item, key, "name: and range: need a file, not a glob");
    std::vector<std::pair<std::string, std::string>> sets;  // key, YAML text
    if (const YAML::Node set = item["set"]) {
      r.require_map(set, key + ".set",
                    {"ptx", "kernel", "grid", "block", "shared_bytes", "seed", "buffers", "params", "outputs",
                     "expect", "reference", "budget", "limit_stack_size", "call_stack_bytes", "symbols",
                     "constants", "out_of_bounds", "launches"});
      for (const auto& kv : set) sets.emplace_back(kv.first.Scalar(), yaml_text(kv.second));
    }
    std::vector<std::map<std::string, int64_t>> points{{}};
    if (const YAML::Node range = item["range"]) {
      if (!range.IsMap()) r.fail(range, key + ".range", "expected a map such as {n: [0, 31]}");
      for (const auto& kv : range) {
        const std::string var = kv.first.Scalar();
        const YAML::Node b = kv.second;
        int64_t lo = 0, hi = 0;
        if (!b.IsSequence() || b.size() != 2 || !YAML::convert<int64_t>::decode(b[0], lo) ||
            !YAML::convert<int64_t>::decode(b[1], hi) || lo > hi ||
            uint64_t(hi) - uint64_t(lo) >= kMaxAxisValues)
          r.fail(b, key + ".range." + var,
                 fmt::format("expected [first, last], integers, first <= last, at most {} values",
                             kMaxAxisValues));
        const uint64_t count = uint64_t(hi) - uint64_t(lo) + 1;
        if (points.size() * count > kMaxAxisValues)
          r.fail(b, key + ".range", fmt::format("more than {} values in all", kMaxAxisValues));
        std::vector<std::map<std::string, int64_t>> next;
        for (const auto& p : points)
          for (uint64_t k = 0; k < count; ++k) {
            next.push_back(p);
            next.back()[var] = int64_t(uint64_t(lo) + k);
          }
        points = std::move(next);
      }
    }
    for (const fs::path& f : files) {
      for (const auto& vars : points) {
        if (out.size() >= kMaxAxisValues)
          r.fail(item, key, fmt::format("more than {} launches", kMaxAxisValues));
        AxisValue v;
        read_common(r, item, key, v);
        v.name = substitute(v.name.empty() ? f.stem().string() : v.name, vars);
        if (item["range"] && !item["name"]) {
          for (const auto& [var, value] : vars) v.name += fmt::format(" {}={}", var, value);
        }
        v.file = f;
        v.line = Reader::line(item);
        for (const auto& [k, text] : sets) v.launch_sets.push_back(k + "=" + substitute(text, vars));
        for (std::string& a : v.args) a = substitute(a, vars);
        r.defer([&r, item, key, f, sets = v.launch_sets] { check_launch(r, item, key, f, sets); });
        out.push_back(std::move(v));
      }
    }
  }
  return out;
}

std::vector<AxisValue> read_configs(const Reader& r, const YAML::Node& list, const fs::path& root) {
  std::vector<AxisValue> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string key = fmt::format("configs[{}]", i);
    AxisValue v;
    v.line = Reader::line(item);
    if (!item.IsScalar()) {
      r.require_map(item, key, {"file", "name", "set", "args"});
      if (!item["file"]) r.fail(item, key, "a configuration needs file:");
      read_common(r, item, key, v);
      if (const YAML::Node set = item["set"]) v.sets = r.strings(set, key + ".set");
      check_sets(r, item, key, v.sets);
    }
    // Not an assignment to a Node: yaml-cpp would write the value into the node it refers to.
    const YAML::Node file = item.IsScalar() ? item : item["file"];
    const std::vector<fs::path> files = expand_glob(r, file, key, root, r.scalar(file, key));
    for (const fs::path& f : files) {
      r.defer([&r, file, key, f] {
        try {
          config::MachineConfig::load(f);
        } catch (const std::exception& e) {
          r.fail(file, key, e.what());
        }
      });
      AxisValue each = v;
      each.file = f;
      if (each.name.empty() || files.size() > 1) each.name = f.stem().string();
      out.push_back(std::move(each));
    }
  }
  return out;
}

// overrides: and mechanisms: values: {name, set, args}; a mechanism may also be a shorthand string.
std::vector<AxisValue> read_set_values(const Reader& r, const YAML::Node& list, const std::string& axis) {
  std::vector<AxisValue> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string key = fmt::format("{}[{}]", axis, i);
    AxisValue v;
    v.line = Reader::line(item);
    if (item.IsScalar() && axis == "mechanisms") {
      v.name = item.Scalar();
      v.sets = mechanism_sets(r, item, key, v.name);
    } else {
      r.require_map(item, key, {"name", "set", "args"});
      read_common(r, item, key, v);
      if (!item["name"]) r.fail(item, key, "give the value a name:");
      if (const YAML::Node set = item["set"]) {
        if (set.IsScalar() && axis == "mechanisms") {
          v.sets = mechanism_sets(r, set, key + ".set", set.Scalar());
        } else {
          v.sets = r.strings(set, key + ".set");
        }
      }
    }
    check_sets(r, item, key, v.sets);
    out.push_back(std::move(v));
  }
  return out;
}

void check_names(const Reader& r, const YAML::Node& at, const std::string& key,
                 const std::vector<AxisValue>& values) {
  std::set<std::string> seen;
  for (const AxisValue& v : values) {
    if (v.name.empty()) r.fail(at, key, "a value without a name");
    if (!seen.insert(v.name).second)
      r.fail(at, key, "two values are named '" + v.name + "' (give each a distinct name:)");
  }
}

}  // namespace

SweepSpec load_sweep_file(const fs::path& path) {
  YAML::Node loaded;
  try {
    loaded = yaml_file::load_single_document(path, "sweep file");
  } catch (const yaml_file::YamlFileError& e) {
    throw SweepError(yaml_file::located(path, e));
  }
  const YAML::Node& root = loaded;
  const Reader r(path);
  r.require_map(root, "",
                {"command", "mode", "root", "launches", "configs", "overrides", "mechanisms", "seeds",
                 "exclude", "stats", "baseline"});
  SweepSpec spec;
  spec.path = fs::absolute(path);
  fs::path base = spec.path.parent_path();
  if (const YAML::Node n = root["root"]) base = (base / r.scalar(n, "root")).lexically_normal();
  if (const YAML::Node n = root["command"]) {
    spec.command = r.scalar(n, "command");
    if (spec.command != "run" && spec.command != "compare") r.fail(n, "command", "expected run or compare");
  }
  if (const YAML::Node n = root["mode"]) {
    spec.mode = r.scalar(n, "mode");
    if (spec.mode != "timing" && spec.mode != "functional")
      r.fail(n, "mode", "expected timing or functional");
    if (spec.command == "compare")
      r.fail(n, "mode", "compare has no mode (give configs: to time mechanisms)");
  }
  const YAML::Node launches = root["launches"];
  if (!launches) r.fail(root, "launches", "a sweep needs launches: (a list of launch files or globs)");
  if (!launches.IsSequence() || launches.size() == 0)
    r.fail(launches, "launches", "expected a non-empty list");
  spec.axes["launch"] = read_launches(r, launches, base);
  check_names(r, launches, "launches", spec.axes["launch"]);
  struct Listed {
    const char* file_key;
    const char* axis;
  };
  for (const Listed& l :
       {Listed{"configs", "config"}, Listed{"overrides", "overrides"}, Listed{"mechanisms", "mechanism"}}) {
    const YAML::Node list = root[l.file_key];
    if (!list) continue;
    if (!list.IsSequence() || list.size() == 0) r.fail(list, l.file_key, "expected a non-empty list");
    spec.axes[l.axis] =
        l.axis == std::string("config") ? read_configs(r, list, base) : read_set_values(r, list, l.file_key);
    check_names(r, list, l.file_key, spec.axes[l.axis]);
    for (const AxisValue& v : spec.axes[l.axis]) {
      if (!v.sets.empty() && (spec.command == "compare" || spec.mode == "functional"))
        r.fail(list, l.file_key,
               "'" + v.name + "' sets machine parameters, which " +
                   (spec.command == "compare" ? std::string("compare") : "the functional mode") +
                   " does not take");
    }
  }
  if (const YAML::Node seeds = root["seeds"]) {
    if (!seeds.IsSequence() || seeds.size() == 0)
      r.fail(seeds, "seeds", "expected a non-empty list of integers");
    for (size_t i = 0; i < seeds.size(); ++i) {
      uint64_t s = 0;
      if (!seeds[i].IsScalar() || !YAML::convert<uint64_t>::decode(seeds[i], s))
        r.fail(seeds[i], fmt::format("seeds[{}]", i), "expected an unsigned integer");
      spec.axes["seed"].push_back(
          {std::to_string(s), {}, {}, {"seed=" + std::to_string(s)}, {}, Reader::line(seeds[i])});
    }
    check_names(r, seeds, "seeds", spec.axes["seed"]);
  }
  for (const std::string& axis : axis_keys())
    if (spec.axes[axis].empty()) spec.axes[axis].push_back(AxisValue{});
  auto value_named = [&](const YAML::Node& at, const std::string& key, const std::string& axis,
                         const std::string& name) {
    if (std::find(axis_keys().begin(), axis_keys().end(), axis) == axis_keys().end())
      r.fail(at, key, "unknown axis '" + axis + "' (launch, config, overrides, mechanism, seed)");
    for (const AxisValue& v : spec.axes[axis])
      if (v.name == name) return;
    r.fail(at, key, "no " + axis + " is named '" + name + "'");
  };
  if (const YAML::Node ex = root["exclude"]) {
    if (!ex.IsSequence()) r.fail(ex, "exclude", "expected a list of maps from axis to value name");
    for (size_t i = 0; i < ex.size(); ++i) {
      const std::string key = fmt::format("exclude[{}]", i);
      if (!ex[i].IsMap() || ex[i].size() == 0)
        r.fail(ex[i], key, "expected a map such as {launch: bfs, mechanism: ideal}");
      std::map<std::string, std::string> rule;
      for (const auto& kv : ex[i]) {
        const std::string axis = kv.first.Scalar(), name = r.scalar(kv.second, key + "." + axis);
        value_named(kv.first, key + "." + axis, axis, name);
        rule[axis] = name;
      }
      spec.exclude.push_back(std::move(rule));
    }
  }
  if (const YAML::Node stats = root["stats"]) spec.stats = r.strings(stats, "stats");
  if (const YAML::Node b = root["baseline"]) {
    if (!b.IsMap())
      r.fail(b, "baseline", "expected a map from axis to value name, such as {mechanism: none}");
    for (const auto& kv : b) {
      const std::string axis = kv.first.Scalar(), name = r.scalar(kv.second, "baseline." + axis);
      value_named(kv.first, "baseline." + axis, axis, name);
      spec.baseline[axis] = name;
    }
  }
  uint64_t product = 1;
  std::vector<std::string> sizes;
  for (const std::string& axis : axis_keys()) {
    // Each axis holds at most kMaxAxisValues: saturating keeps the product exact up to the limit.
    if (__builtin_mul_overflow(product, uint64_t(spec.axes[axis].size()), &product)) product = UINT64_MAX;
    sizes.push_back(fmt::format("{} {}", axis, spec.axes[axis].size()));
  }
  if (product > kMaxJobs)
    r.fail(root, "(top level)",
           fmt::format("the sweep has more than {} jobs ({})", kMaxJobs, fmt::join(sizes, " x ")));
  r.run_deferred();
  if (expand_jobs(spec, "check").empty())
    r.fail(root["exclude"], "exclude", "the sweep is empty: every combination of the axes is excluded");
  return spec;
}

}  // namespace simtlm::sweep
