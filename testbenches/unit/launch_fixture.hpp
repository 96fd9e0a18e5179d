// Helpers of the launch-file tests: the fixtures in testbenches/launch and buffer bytes read as typed values.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace simtlm::test {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/launch" / name;
}

template <class T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace simtlm::test
