// Every numeric option of the command line refuses what CLI11 would wrap or misread: CLI11 2.1 converts
// unsigned options with strtoull, which takes "-1" as 2^64 - 1, saturates "99999999999999999999999" at
// 2^64 - 1 and reads "010" as octal. The launch files' keys refuse the same values (docs/reliability.md).
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "sc_main/commands.hpp"

namespace simtlm::cli {

namespace {

const std::string kWholeRange = "give a whole number from 0 to " + std::to_string(UINT64_MAX);

// An unsigned option's text: decimal digits only, at most 2^64 - 1; rewritten without leading zeros.
std::string whole_number(std::string& text) {
  if (text.empty()) return "an empty value is not a number; " + kWholeRange;
  if (text[0] == '-') return text + " is negative; " + kWholeRange;
  if (text.find_first_not_of("0123456789") != std::string::npos)
    return text + " is not a whole number in decimal digits; " + kWholeRange;
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return text + " is too large; " + kWholeRange;
  text = std::to_string(value);
  return "";
}

// A signed option's text: an optional '-' and decimal digits within 64 bits.
std::string signed_number(std::string& text) {
  const std::string range =
      "give a whole number from " + std::to_string(INT64_MIN) + " to " + std::to_string(INT64_MAX);
  const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == digits || text.find_first_not_of("0123456789", digits) != std::string::npos)
    return text + " is not a whole number in decimal digits; " + range;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return text + " is out of range; " + range;
  text = std::to_string(value);
  return "";
}

// A real option's text: a finite number of 0 or more (every real option is a size, a fraction or a loss).
std::string real_number(std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    return text + " is not a number; give a finite number of 0 or more";
  if (errno == ERANGE || !std::isfinite(value)) return text + " is not a finite number";
  if (value < 0 || (value == 0 && std::signbit(value)))
    return text + " is negative; give a number of 0 or more";
  return "";
}

}  // namespace

void guard_numeric_options(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // "UINT", or "UINT:UINT in [1 - 4096]" with a range check's description.
    std::string type = option->get_type_name();
    type = type.substr(0, type.find(':'));
    // Before any other check (transform puts it first), so a range check sees the clean text.
    if (type == "UINT")
      option->transform(CLI::Validator(whole_number, "", "whole number"));
    else if (type == "INT")
      option->transform(CLI::Validator(signed_number, "", "signed whole number"));
    else if (type == "FLOAT")
      option->transform(CLI::Validator(real_number, "", "real number"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) guard_numeric_options(*sub);
}

}  // namespace simtlm::cli
