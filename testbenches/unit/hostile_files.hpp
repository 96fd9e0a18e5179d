// Helpers of the hostile-input tests: launch and configuration files written into a fresh directory, and the
// message of the error a call throws.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "testbenches/unit/launch_fixture.hpp"

namespace simtlm::test {

class HostileFiles {
 public:
  explicit HostileFiles(const std::string& name)
      : dir_(std::filesystem::path(::testing::TempDir()) / ("simtlm_hostile_" + name)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~HostileFiles() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  HostileFiles(const HostileFiles&) = delete;
  HostileFiles& operator=(const HostileFiles&) = delete;

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // A launch file of scale.ptx (scale(out, in, n, factor)) whose first line is its ptx: key.
  std::filesystem::path launch(const std::string& name, const std::string& rest) const {
    return write(name, "ptx: " + fixture("scale.ptx").string() + "\n" + rest);
  }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// The what() of the exception of type E that `call` throws; a failure when it throws nothing or another type.
template <class E>
std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

}  // namespace simtlm::test
