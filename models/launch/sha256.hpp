// SHA-256 (FIPS 180-4), for `expect: {sha256: ...}` without pulling in a crypto library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace simtlm::launch {

std::string sha256_hex(const std::vector<uint8_t>& data);

}  // namespace simtlm::launch
