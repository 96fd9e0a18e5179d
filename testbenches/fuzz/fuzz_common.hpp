// Shared pieces of the libFuzzer harnesses (docs/reliability-fuzz.md): a private scratch directory for the
// loaders that read by path, and the verdict on an exception no loader should throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>

namespace simtlm::fuzz {

// A directory of this process, created on first use and removed at exit: -jobs/-fork workers never share one.
const std::filesystem::path& scratch_dir();

// Writes the fuzzer's bytes where a loader expects a file.
void write_file(const std::filesystem::path& path, const uint8_t* data, size_t size);

// An exception type a loader must never let out (std::out_of_range, std::bad_alloc, YAML exceptions...):
// a user would see a message without file and line. Printed, then abort() so libFuzzer saves the input.
[[noreturn]] void unexpected_exception(const char* target, const std::exception& error);

}  // namespace simtlm::fuzz
