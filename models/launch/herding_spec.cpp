#include "models/launch/herding_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace simtlm::launch {
namespace {

constexpr uint32_t kMaxDecisionCycles = 64;

bool parse_u32(const std::string& text, uint32_t& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && !text.empty();
}

class SectionReader {
 public:
  explicit SectionReader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& message) const {
    const int line = std::max(at.Mark().line, 0) + 1;
    std::string text = file_.string();
    text.append(":").append(std::to_string(line)).append(": herding");
    if (!key.empty()) text.append(".").append(key);
    text.append(": ").append(message);
    throw HerdingSpecError(text);
  }

  std::string scalar(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail(node, key, "expected a single value");
    return node.Scalar();
  }

  uint64_t unsigned_int(const YAML::Node& node, const std::string& key, uint64_t max) const {
    const std::string text = scalar(node, key);
    uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || value > max)
      fail(node, key, fmt::format("expected an integer 0..{}", max));
    return value;
  }

  HerdTargets targets(const YAML::Node& node, const std::string& key) const {
    HerdTargets t;
    if (node.IsScalar()) {
      if (node.Scalar() != "all") fail(node, key, "expected all or a list of PCs and FILE:LINE sites");
      t.all = true;
      return t;
    }
    if (!node.IsSequence()) fail(node, key, "expected all or a list of PCs and FILE:LINE sites");
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string entry = fmt::format("{}[{}]", key, i);
      try {
        t.sites.push_back(parse_herd_site(scalar(node[i], entry)));
      } catch (const std::invalid_argument& e) {
        fail(node[i], entry, e.what());
      }
    }
    return t;
  }

  std::vector<std::string> names(const YAML::Node& node, const std::string& key) const {
    if (node.IsScalar()) return {scalar(node, key)};
    if (!node.IsSequence()) fail(node, key, "expected a name or a list of names");
    std::vector<std::string> out;
    for (size_t i = 0; i < node.size(); ++i) out.push_back(scalar(node[i], fmt::format("{}[{}]", key, i)));
    return out;
  }

 private:
  std::filesystem::path file_;
};

std::string yaml_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.append(", ");
    out.append("\"").append(items[i]).append("\"");
  }
  return out + "]";
}

std::string yaml_targets(const HerdTargets& t) {
  if (t.all) return "all";
  std::vector<std::string> texts;
  for (const HerdSite& s : t.sites) texts.push_back(s.text());
  return yaml_list(texts);
}

}  // namespace

std::string HerdSite::text() const {
  if (by_pc) return std::to_string(pc);
  return file + ":" + std::to_string(line);
}

HerdSite parse_herd_site(const std::string& text) {
  HerdSite site;
  if (parse_u32(text, site.pc)) return site;
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || !parse_u32(text.substr(colon + 1), site.line) ||
      site.line == 0) {
    throw std::invalid_argument("'" + text +
                                "' is neither a PC nor a CUDA FILE:LINE (e.g. 42 or kernel.cu:17)");
  }
  site.by_pc = false;
  site.file = text.substr(0, colon);
  return site;
}

void check_herding_spec(const HerdingSpec& spec) {
  if (!(spec.threshold > 0.0 && spec.threshold < 1.0))
    throw std::invalid_argument(fmt::format("threshold {} is not in (0, 1)", spec.threshold));
  if (spec.block_bytes < 4 || spec.block_bytes > 4096 || (spec.block_bytes & (spec.block_bytes - 1)) != 0)
    throw std::invalid_argument(
        fmt::format("block_bytes {} is not a power of two 4..4096", spec.block_bytes));
  if (spec.group_lanes != 8 && spec.group_lanes != 16 && spec.group_lanes != 32)
    throw std::invalid_argument(fmt::format("group_lanes {} is not 8, 16 or 32", spec.group_lanes));
  if (spec.branch_cycles > kMaxDecisionCycles || spec.load_cycles.value_or(0) > kMaxDecisionCycles)
    throw std::invalid_argument(
        fmt::format("branch_cycles and load_cycles are at most {}", kMaxDecisionCycles));
}

HerdingSpec read_herding_section(const YAML::Node& node, const std::filesystem::path& file) {
  const SectionReader r(file);
  if (!node.IsMap()) r.fail(node, "", "expected a map (branches, loads, buffers, kernels, ...)");
  static const char* const kKeys[] = {
      "branches",      "loads",       "buffers",     "kernels",     "max_instances", "threshold", "tie",
      "branch_cycles", "load_cycles", "block_bytes", "group_lanes", "force_unsafe",  "safety"};
  HerdingSpec spec;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& value = kv.second;
    if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
      std::string list;
      for (const char* k : kKeys) list.append(list.empty() ? "" : ", ").append(k);
      r.fail(kv.first, key, "unknown key (expected one of: " + list + ")");
    }
    if (key == "branches") spec.branches = r.targets(value, key);
    if (key == "loads") spec.loads = r.targets(value, key);
    if (key == "buffers") spec.buffers = r.names(value, key);
    if (key == "kernels") spec.kernels = r.names(value, key);
    if (key == "max_instances") spec.max_instances = r.unsigned_int(value, key, UINT64_MAX);
    if (key == "branch_cycles") spec.branch_cycles = uint32_t(r.unsigned_int(value, key, kMaxDecisionCycles));
    if (key == "load_cycles") spec.load_cycles = uint32_t(r.unsigned_int(value, key, kMaxDecisionCycles));
    if (key == "block_bytes") spec.block_bytes = uint32_t(r.unsigned_int(value, key, 4096));
    if (key == "group_lanes") spec.group_lanes = uint32_t(r.unsigned_int(value, key, 32));
    if (key == "tie") {
      const std::string tie = r.scalar(value, key);
      if (tie != "taken" && tie != "not_taken") r.fail(value, key, "expected taken or not_taken");
      spec.tie = tie == "taken" ? HerdTie::taken : HerdTie::not_taken;
    }
    if (key == "force_unsafe") {
      const std::string flag = r.scalar(value, key);
      if (flag != "true" && flag != "false") r.fail(value, key, "expected true or false");
      spec.force_unsafe = flag == "true";
    }
    if (key == "safety") {
      const std::string rule = r.scalar(value, key);
      if (rule != "strict" && rule != "relaxed") r.fail(value, key, "expected strict or relaxed");
      spec.safety = rule == "relaxed" ? ptx::HerdSafetyRule::relaxed : ptx::HerdSafetyRule::strict;
    }
    if (key == "threshold") {
      const std::string text = r.scalar(value, key);
      char* end = nullptr;
      spec.threshold = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size() || text.empty() || !std::isfinite(spec.threshold))
        r.fail(value, key, "expected a number in (0, 1)");
    }
    try {
      check_herding_spec(spec);
    } catch (const std::invalid_argument& e) {
      r.fail(value, key, e.what());
    }
  }
  return spec;
}

std::string herding_yaml(const HerdingSpec& spec, int indent) {
  const std::string pad(size_t(std::max(indent, 0)), ' ');
  std::ostringstream out;
  if (spec.branches.any()) out << pad << "branches: " << yaml_targets(spec.branches) << "\n";
  if (spec.loads.any()) out << pad << "loads: " << yaml_targets(spec.loads) << "\n";
  if (!spec.buffers.empty()) out << pad << "buffers: " << yaml_list(spec.buffers) << "\n";
  if (!spec.kernels.empty()) out << pad << "kernels: " << yaml_list(spec.kernels) << "\n";
  if (spec.max_instances) out << pad << "max_instances: " << spec.max_instances << "\n";
  const HerdingSpec defaults;
  if (spec.threshold != defaults.threshold)
    out << pad << "threshold: " << fmt::format("{}", spec.threshold) << "\n";
  if (spec.tie != defaults.tie) out << pad << "tie: taken\n";
  if (spec.branch_cycles) out << pad << "branch_cycles: " << spec.branch_cycles << "\n";
  // Written whenever set, 0 included: an unset value reads back unset (the selector's latency).
  if (spec.load_cycles) out << pad << "load_cycles: " << *spec.load_cycles << "\n";
  if (spec.block_bytes != defaults.block_bytes) out << pad << "block_bytes: " << spec.block_bytes << "\n";
  if (spec.group_lanes != defaults.group_lanes) out << pad << "group_lanes: " << spec.group_lanes << "\n";
  if (spec.force_unsafe) out << pad << "force_unsafe: true\n";
  if (spec.safety != defaults.safety)
    out << pad << "safety: " << ptx::herd_safety_rule_name(spec.safety) << "\n";
  if (out.tellp() == 0) out << pad << "branches: []\n";  // an empty map would not read back as a map
  return out.str();
}

}  // namespace simtlm::launch
