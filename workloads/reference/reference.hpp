// Host-side C++ references of the workload suite: each computes a kernel's outputs from its inputs.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "models/launch/host_reference.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::workloads {

// Buffers by name, holding the initialized inputs; a reference overwrites its outputs in place.
using Buffers = launch::HostBuffers;

using ReferenceFn = launch::ReferenceFn;

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

// Every reference checks the buffers it touches before touching them: a launch file may pair a reference
// with buffers smaller than its grid or parameters. These throw launch::LaunchError naming the launch file
// (and the line of its reference: key), the reference and the buffer.
[[noreturn]] void reference_error(const launch::Launch& launch, const std::string& message);
void require_elements(const launch::Launch& launch, const Buffers& buffers, const std::string& name,
                      size_t element_size, uint64_t needed, const std::string& why);
// Parameter `index` of the launch, which the reference reads as `expected` ("an integer", "a buffer"); a
// launch with fewer parameters is a reference_error saying so.
const launch::ParamValue& reference_param(const launch::Launch& launch, size_t index,
                                          const std::string& expected);
// A parameter as an error message shows it: "buffer data+256", "the integer 64", "null".
std::string describe_param(const launch::ParamValue& p);
// The texture passed as parameter `index`, which must have the first `ndims` of `dims` as its size and
// `type` texels (the kernel's parameters say what it reads).
const launch::TextureSpec& param_texture(const launch::Launch& launch, size_t index,
                                         const std::array<int64_t, 3>& dims, size_t ndims, ptx::Type type);
// The product of the non-negative parts of the factors (a negative factor means no elements), saturated.
uint64_t elements(int64_t a, int64_t b = 1, int64_t c = 1);

template <class T>
T* checked_view(const launch::Launch& launch, Buffers& b, const std::string& name, uint64_t needed,
                const std::string& why) {
  require_elements(launch, b, name, sizeof(T), needed, why);
  return view<T>(b, name);
}

}  // namespace simtlm::workloads
