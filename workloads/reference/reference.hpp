// Host-side C++ references of the workload suite: each computes a kernel's outputs from its inputs.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "models/launch/launch.hpp"

namespace simtlm::workloads {

// Buffers by name, holding the initialized inputs; a reference overwrites its outputs in place.
using Buffers = std::map<std::string, std::vector<uint8_t>>;

using ReferenceFn = void (*)(const launch::Launch& launch, Buffers& buffers);

// The reference named in a launch file's `reference:` key, or nullptr.
ReferenceFn find_reference(const std::string& name);
// The single-launch workloads' references (the suites the tests and demo iterate).
std::vector<std::string> reference_names();
// The references of workloads that are launch sequences (launches:), run with launch::SequenceSession.
std::vector<std::string> sequence_reference_names();

// Typed views of a buffer's bytes.
template <class T>
T* view(Buffers& b, const std::string& name) {
  return reinterpret_cast<T*>(b.at(name).data());
}
template <class T>
size_t count_of(const Buffers& b, const std::string& name) {
  return b.at(name).size() / sizeof(T);
}

}  // namespace simtlm::workloads
