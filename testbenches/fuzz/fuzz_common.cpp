#include "testbenches/fuzz/fuzz_common.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>
#include <typeinfo>

namespace simtlm::fuzz {

namespace {

std::filesystem::path make_scratch_dir() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / "simtlm-fuzz-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    std::perror("simtlm fuzz: mkdtemp");
    std::abort();
  }
  return pattern;
}

void remove_scratch_dir() {
  std::error_code ec;
  std::filesystem::remove_all(scratch_dir(), ec);
}

}  // namespace

const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path made = make_scratch_dir();
    std::atexit(remove_scratch_dir);
    return made;
  }();
  return dir;
}

void write_file(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "simtlm fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

void unexpected_exception(const char* target, const std::exception& error) {
  std::fprintf(stderr, "%s: unexpected exception %s: %s\n", target, typeid(error).name(), error.what());
  std::abort();
}

}  // namespace simtlm::fuzz
