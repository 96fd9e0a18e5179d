// Reading launch files: the YAML reader that names file, line and key path in every error, and the readers
// of the parts of a launch file (launch.cpp, launch_params.cpp, launch_steps.cpp).
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/location.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::launch::detail {

namespace fs = std::filesystem;

class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& path, const std::string& msg) const {
    throw LaunchError(common::at_location(file_.string(), line_of(at), path + ": " + msg));
  }
  // Nodes that come from no text (an empty document) have no mark; they are reported at line 1.
  static uint32_t line_of(const YAML::Node& node) { return uint32_t(std::max(node.Mark().line, 0) + 1); }

  // The node must be a map whose keys are all in `allowed`: a misspelt key is an error, not a silent default.
  // (A key given twice was refused when the file was read: yaml_file::load_single_document.)
  void require_map(const YAML::Node& node, const std::string& path,
                   std::initializer_list<const char*> allowed) const {
    if (!node.IsMap()) fail(node, path, "expected a map");
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      bool known = false;
      for (const char* a : allowed) known = known || key == a;
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(kv.first, join(path, key), fmt::format("unknown key (expected one of: {})", list));
      }
    }
  }

  YAML::Node required(const YAML::Node& map, const std::string& path, const char* key) const {
    YAML::Node n = map[key];
    if (!n) fail(map, join(path, key), "missing required key");
    return n;
  }

  std::string string(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "expected a string");
    return n.Scalar();
  }

  uint64_t unsigned_int(const YAML::Node& n, const std::string& path, uint64_t max = UINT64_MAX) const {
    uint64_t v = 0;
    if (!n.IsScalar() || n.Scalar().starts_with("-") || !YAML::convert<uint64_t>::decode(n, v)) {
      fail(n, path, "expected an unsigned integer");
    }
    if (v > max) fail(n, path, fmt::format("value {} is larger than {}", v, max));
    return v;
  }

  // true or false only: yes/no/on/off and 1/0 are refused, so a typo is never read as a default.
  bool boolean(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar() || (n.Scalar() != "true" && n.Scalar() != "false"))
      fail(n, path, "expected true or false");
    return n.Scalar() == "true";
  }

  double number(const YAML::Node& n, const std::string& path) const {
    double v = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v)) fail(n, path, "expected a number");
    return v;
  }

  // A relative path resolves against the launch file's directory; the file must exist.
  fs::path existing_file(const YAML::Node& n, const std::string& path) const {
    fs::path p = string(n, path);
    if (p.is_relative()) p = file_.parent_path() / p;
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    if (fs::is_directory(st)) fail(n, path, fmt::format("{} is a directory, not a file", p.string()));
    if (fs::exists(st) && !fs::is_regular_file(st))
      fail(n, path, fmt::format("{} is not a regular file (a device, FIFO or socket)", p.string()));
    if (!fs::is_regular_file(st)) fail(n, path, fmt::format("file not found: {}", p.string()));
    return p;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const fs::path& file() const { return file_; }

  // While steps are read: the variables of the enclosing for loops, and whether NAME[K] may be read (inside
  // `launches:`). Expressions are checked against them (load_scope).
  mutable std::vector<std::string> loop_variables;
  mutable bool in_launches = false;

 private:
  fs::path file_;
};

BufferInit read_init(const Reader& r, const YAML::Node& n, const std::string& path, ptx::Type type);
bool has_buffer(const Launch& launch, const std::string& name);
// The string at n, which must be an identifier (is_identifier): names become file names.
std::string checked_name(const Reader& r, const YAML::Node& n, const std::string& path);
// A parameter: buffer (with an optional offset), number, expression in i, null, struct or raw bytes.
ParamValue read_param(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch);
// The `launches:` list of a sequence file, `symbols:` and the constants.
std::vector<Step> read_steps(const Reader& r, const YAML::Node& n, const std::string& path,
                             const Launch& launch);
void read_symbols(const Reader& r, const YAML::Node& n, Launch& launch);
// What an expression read at this point of the file may name (values unknown: for check_expression).
ExpressionScope load_scope(const Reader& r, const Launch& launch);
// `textures:` (launch_textures.cpp), after the buffers and constants.
void read_textures(const Reader& r, const YAML::Node& n, Launch& launch);

}  // namespace simtlm::launch::detail
