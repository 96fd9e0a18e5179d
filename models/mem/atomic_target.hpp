#pragma once
// What an atomic request asks of the L2's atomic unit (docs/memory-system.md); plain C++ so the coalescer
// can form it without SystemC.
#include <cstdint>

namespace simtlm::mem {

// One word an atomic request updates, and how many lanes update it (each is one read-modify-write).
struct AtomicTarget {
  uint64_t address = 0;
  uint32_t operations = 0;
};

}  // namespace simtlm::mem
