// Loading the YAML files that people write by hand (launch files, machine configurations): exactly one
// document, no key given twice anywhere, and every failure located. yaml-cpp alone would keep the first of
// two equal keys, drop a second document silently and report a too-deep nesting as "bad file".
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace simtlm::yaml_file {

// yaml-cpp's recursion guard (DepthGuard, 2000 recursions, about four per level) refuses nesting at this
// depth: 499 nested lists load, 500 do not.
inline constexpr int kMaxNestingDepth = 500;

// What is wrong with a YAML file; `line` is 1-based, 0 when the problem has no place in the text. The caller
// prefixes the file name (and turns it into its own error type).
class YamlFileError : public std::runtime_error {
 public:
  YamlFileError(uint32_t line, const std::string& message) : std::runtime_error(message), line_(line) {}
  uint32_t line() const { return line_; }

 private:
  uint32_t line_;
};

// "what: path" for a path that is missing, a directory or unreadable; "" when it is a readable file.
std::string unreadable_reason(const std::filesystem::path& path, const std::string& what);

// The single document of `path` (a null node for an empty file). Throws YamlFileError on a syntax error,
// a nesting deeper than kMaxNestingDepth, an anchor or alias (an alias is a shared node that walks expand
// exponentially), a second document or (with reject_duplicates) a key given twice in
// any map, named by its path ("launches[0].block: given twice (first at line 12)"). `what` names the kind of
// file in messages ("launch file", "machine configuration").
YAML::Node load_single_document(const std::filesystem::path& path, const std::string& what,
                                bool reject_duplicates = true);

// "file:line: message", or "file: message" when the error has no line.
std::string located(const std::filesystem::path& path, const YamlFileError& error);

}  // namespace simtlm::yaml_file
