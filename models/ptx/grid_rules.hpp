// Rules of a grid run that every runner shares (the functional runner, the compaction study and the timing
// SM), written once so their CTA numbering and budget reports cannot drift apart.
#pragma once

#include <cstdint>
#include <string>

#include "models/ptx/functional.hpp"

namespace simtlm::ptx {

// %ctaid of the CTA with linear id `linear_id`: x varies fastest, then y, then z, as CUDA numbers a grid.
inline Dim3 cta_coordinates(const Dim3& grid, uint64_t linear_id) {
  return Dim3{static_cast<uint32_t>(linear_id % grid.x), static_cast<uint32_t>(linear_id / grid.x % grid.y),
              static_cast<uint32_t>(linear_id / (uint64_t(grid.x) * grid.y))};
}

// The start of the report of a run stopped by its thread-instruction budget; `where` names the warp and PC.
inline std::string budget_exceeded_message(uint64_t budget, const std::string& where) {
  return "instruction budget of " + std::to_string(budget) + " thread instructions exceeded in " + where;
}

}  // namespace simtlm::ptx
