// Machine configurations: a YAML file of nested sections validated against one schema table, which also
// generates the parameter reference (docs/configs.md). Units build their immutable Params from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace simtlm::config {

// "fermi-slp.yaml:14: l1.assoc: expected an unsigned integer in [1, 64]"
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ParamSpec {
  enum class Kind { unsigned_int, real, choice, boolean };
  const char* path;  // "l1.size_bytes"
  Kind kind;
  const char* fallback;  // default, as YAML text
  double min = 0, max = 0;
  std::vector<const char*> choices;  // Kind::choice
  const char* doc = "";
  bool power_of_two = false;  // unsigned_int: the components index with masks and shifts
  // A deprecated key: it is still read, and setting it sets `replaced_by` to translate(its value, the
  // replacement's value now) as well (an empty result leaves the replacement alone), with a warning.
  const char* replaced_by = nullptr;
  std::string (*translate)(const std::string& value, const std::string& replacement_now) = nullptr;
};

// "No practical limit" for the 64-bit parameters (seeds, cycle budgets).
inline constexpr double kLargestParam = 1e12;

class MachineConfig;
// A component's check of a combination of its parameters; throws ConfigError naming MachineConfig::origin().
using SchemaCheck = void (*)(const MachineConfig&);

// Every parameter the machine model understands, each component's rows in turn, and every component's
// checks, which load() runs. Both are composed in hw/schema/machine_schema.cpp, part of this library.
const std::vector<ParamSpec>& schema();
const std::vector<SchemaCheck>& schema_checks();

class MachineConfig {
 public:
  MachineConfig();  // every parameter at its default
  static MachineConfig load(const std::filesystem::path& path);

  uint64_t u(const std::string& path) const;
  double real(const std::string& path) const;
  const std::string& str(const std::string& path) const;  // choices
  bool flag(const std::string& path) const;
  const std::string& source() const { return source_; }  // file it came from, or "defaults"
  // For errors about combinations of parameters: the source and the overrides applied after it
  // ("configs/default.yaml with --set l2.banks=3"), so a bad --set is not blamed on the file.
  std::string origin() const;

  // Sets one parameter from YAML text, validated as in a file (for command-line overrides and tests).
  void set(const std::string& path, const std::string& value, const std::string& where = "override");
  // One line per deprecated key that was set, naming where and what to write instead.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::map<std::string, std::string> values_;  // validated text of each parameter
  std::string source_ = "defaults";
  std::string overrides_;  // "--set l2.banks=3, ..." after the file was read
  bool loading_ = false;
  std::vector<std::string> warnings_;
  std::map<std::string, std::string> file_set_;  // while loading: parameter -> where the file set it
};

// A unit's refusal (std::invalid_argument) during a timing run, attributed truthfully: to --rtl only for what
// the selected RTL twins refuse (their messages name RTL or the permutation unit), else to the configuration
// `origin` (MachineConfig::origin()).
std::string attribute_unit_refusal(const std::string& what, bool rtl_selected, const std::string& origin);

// The parameter reference as a markdown table, generated from schema().
std::string schema_markdown();

}  // namespace simtlm::config
