#include "models/config/machine_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace simtlm::config {

namespace {

const ParamSpec* find_spec(const std::string& path) {
  for (const ParamSpec& spec : schema())
    if (path == spec.path) return &spec;
  return nullptr;
}

bool is_section(const std::string& prefix) {
  for (const ParamSpec& spec : schema())
    if (std::string(spec.path).rfind(prefix + ".", 0) == 0) return true;
  return false;
}

std::string range_text(const ParamSpec& spec) {
  std::ostringstream out;
  switch (spec.kind) {
    case ParamSpec::Kind::unsigned_int:
      out << "an unsigned integer in [" << uint64_t(spec.min) << ", " << uint64_t(spec.max) << "]";
      break;
    case ParamSpec::Kind::real:
      out << "a number in [" << spec.min << ", " << spec.max << "]";
      break;
    case ParamSpec::Kind::boolean:
      out << "true or false";
      break;
    case ParamSpec::Kind::choice:
      out << "one of";
      for (const char* c : spec.choices) out << " " << c;
      break;
  }
  return out.str();
}

// Returns the canonical text of a valid value, or an empty string.
std::string validate(const ParamSpec& spec, const std::string& text) {
  switch (spec.kind) {
    case ParamSpec::Kind::unsigned_int: {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return "";
      const double v = std::strtod(text.c_str(), nullptr);
      return (v >= spec.min && v <= spec.max) ? std::to_string(std::strtoull(text.c_str(), nullptr, 10)) : "";
    }
    case ParamSpec::Kind::real: {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(v) || v < spec.min || v > spec.max) return "";
      return text;
    }
    case ParamSpec::Kind::boolean:
      return (text == "true" || text == "false") ? text : "";
    case ParamSpec::Kind::choice:
      for (const char* c : spec.choices)
        if (text == c) return text;
      return "";
  }
  return "";
}

std::string where(const std::string& file, const YAML::Node& node) {
  return file + ":" + std::to_string(node.Mark().line + 1);
}

void walk(MachineConfig& config, const std::string& file, const YAML::Node& map, const std::string& prefix) {
  for (const auto& item : map) {
    const std::string key = item.first.as<std::string>();
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    const YAML::Node& value = item.second;
    if (find_spec(path)) {
      if (!value.IsScalar()) {
        throw ConfigError(where(file, value) + ": " + path + ": expected " + range_text(*find_spec(path)));
      }
      config.set(path, value.Scalar(), where(file, value));
    } else if (is_section(path)) {
      if (!value.IsMap())
        throw ConfigError(where(file, value) + ": " + path + ": expected a map of parameters");
      walk(config, file, value, path);
    } else {
      throw ConfigError(where(file, item.first) + ": " + path + ": unknown parameter (see docs/configs.md)");
    }
  }
}

}  // namespace

MachineConfig::MachineConfig() {
  for (const ParamSpec& spec : schema()) values_[spec.path] = spec.fallback;
}

void MachineConfig::set(const std::string& path, const std::string& value, const std::string& at) {
  const ParamSpec* spec = find_spec(path);
  if (!spec) throw ConfigError(at + ": " + path + ": unknown parameter (see docs/configs.md)");
  const std::string canonical = validate(*spec, value);
  if (canonical.empty()) {
    throw ConfigError(at + ": " + path + ": expected " + range_text(*spec) + ", got '" + value + "'");
  }
  values_[path] = canonical;
}

MachineConfig MachineConfig::load(const std::filesystem::path& path) {
  const std::string file = path.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw ConfigError(file + ": cannot read the machine configuration");
  } catch (const YAML::Exception& e) {
    throw ConfigError(file + ":" + std::to_string(e.mark.line + 1) + ": YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) throw ConfigError(file + ": a machine configuration is a map of sections");
  MachineConfig config;
  config.source_ = file;
  walk(config, file, root, "");
  if (config.u("l1.sector_bytes") > config.u("l1.line_bytes")) {
    throw ConfigError(file + ": l1.sector_bytes: larger than l1.line_bytes");
  }
  const uint64_t l1_lines = config.u("l1.size_bytes") / config.u("l1.line_bytes");
  if (l1_lines % config.u("l1.assoc") != 0)
    throw ConfigError(file + ": l1.assoc: does not divide the line count");
  const uint64_t l2_bank_lines = config.u("l2.size_bytes") / config.u("l2.banks") / config.u("l2.line_bytes");
  if (l2_bank_lines == 0 || l2_bank_lines % config.u("l2.assoc") != 0) {
    throw ConfigError(file + ": l2.assoc: does not divide the lines of one bank");
  }
  return config;
}

uint64_t MachineConfig::u(const std::string& path) const {
  return std::strtoull(values_.at(path).c_str(), nullptr, 10);
}
double MachineConfig::real(const std::string& path) const {
  return std::strtod(values_.at(path).c_str(), nullptr);
}
const std::string& MachineConfig::str(const std::string& path) const {
  return values_.at(path);
}
bool MachineConfig::flag(const std::string& path) const {
  return values_.at(path) == "true";
}

std::string schema_markdown() {
  std::ostringstream out;
  out << "| parameter | default | values | meaning |\n|---|---|---|---|\n";
  for (const ParamSpec& spec : schema()) {
    out << "| `" << spec.path << "` | `" << spec.fallback << "` | " << range_text(spec) << " | " << spec.doc
        << " |\n";
  }
  return out.str();
}

}  // namespace simtlm::config
