#include <stdexcept>

#include "hw/divergence/block_compaction.hpp"
#include "hw/divergence/capri_compaction.hpp"
#include "hw/divergence/divergence_unit.hpp"
#include "hw/divergence/warp_slices.hpp"
#include "hw/divergence/warp_stacks.hpp"

namespace simtlm::hw {

std::unique_ptr<DivergenceUnit> make_divergence_unit(const DivergenceParams& params,
                                                     const TimingKernel& kernel, SlotHost& host,
                                                     const CompactionUnits& units) {
  if (params.wpu.task_mode) return std::make_unique<WarpSlices>(params, kernel, host);
  switch (params.mechanism) {
    case Compaction::none:
      return std::make_unique<WarpStacks>(params, kernel, host);
    case Compaction::tbc:
    case Compaction::ideal:
      return std::make_unique<BlockCompaction>(params, kernel, host, units);
    case Compaction::capri:
      return std::make_unique<CapriCompaction>(params, kernel, host, units);
  }
  throw std::invalid_argument("unknown divergence mechanism");
}

}  // namespace simtlm::hw
