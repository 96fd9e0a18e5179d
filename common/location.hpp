// The one spelling of a place in a source file in messages: "FILE:LINE", and "FILE:LINE: TEXT" for an error
// at that place (PTX, launch files, machine configurations, host references).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace simtlm::common {

inline std::string location(std::string_view file, uint64_t line) {
  std::string s(file);
  s += ':';
  s += std::to_string(line);
  return s;
}

inline std::string at_location(std::string_view file, uint64_t line, std::string_view text) {
  std::string s = location(file, line);
  s += ": ";
  s += text;
  return s;
}

}  // namespace simtlm::common
