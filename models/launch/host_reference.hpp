// The shape of a host reference, which computes a kernel's outputs from its inputs on the host. The
// references themselves live in workloads/, a layer above this one: a run gets its lookup through
// SessionOptions::find_reference, so this library never depends on them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simtlm::launch {

struct Launch;

// Buffers by name, holding the initialized inputs; a reference overwrites its outputs in place.
using HostBuffers = std::map<std::string, std::vector<uint8_t>>;

using ReferenceFn = void (*)(const Launch& launch, HostBuffers& buffers);

}  // namespace simtlm::launch
