#include "hw/sc/cooperative.hpp"

#include <fmt/format.h>

#include "hw/divergence/mechanism.hpp"
#include "hw/work/work_source.hpp"

namespace simtlm::hw {

CoResidency co_resident_ctas(const GpuParams& params, const TimingKernel& kernel) {
  const GridCtas ctas(kernel);
  const WorkFootprint f = ctas.footprint();
  const SmParams& sm = params.sm;
  // An empty SM takes CTAs while the dispatcher's rule (GridCtas::fits) lets it; max_units bounds the loop.
  SmOccupancy o{sm.max_ctas, sm.max_warps, sm.max_threads, sm.registers, sm.shared_bytes};
  CoResidency r;
  for (; ctas.fits(o); ++r.per_sm) {
    ++o.units;
    o.contexts += f.contexts;
    o.threads += f.threads;
    o.registers += f.registers;
    o.shared += f.shared;
  }
  // Only to name it: the first limit the next CTA would cross.
  r.bound = o.units >= o.max_units                        ? "gpu.max_ctas_per_sm"
            : o.contexts + f.contexts > o.max_contexts    ? "gpu.max_warps_per_sm"
            : o.threads + f.threads > o.max_threads       ? "gpu.max_threads_per_sm"
            : o.registers + f.registers > o.max_registers ? "gpu.registers_per_sm"
                                                          : "gpu.shared_bytes_per_sm";
  r.machine = r.per_sm * params.sms;
  return r;
}

std::string cooperative_refusal(const GpuParams& params, const TimingKernel& kernel) {
  if (params.sm.divergence.traits().work == WorkKind::task_partition) {
    return fmt::format(
        "a cooperative launch needs every CTA of the grid resident as a CTA, and {} runs the grid's threads "
        "as tasks of its thread contexts (docs/robust-simd.md): refused",
        params.sm.divergence.unit_name);
  }
  const CoResidency r = co_resident_ctas(params, kernel);
  const uint64_t grid = kernel.launch.grid.count();
  if (grid <= r.machine) return {};
  return fmt::format(
      "a cooperative launch of {} CTAs cannot be resident at once: the machine holds {} CTAs of kernel {} "
      "({} per SM, bound by {}, times {} SMs), as cudaLaunchCooperativeKernel refuses it "
      "(cudaErrorCooperativeLaunchTooLarge)",
      grid, r.machine, kernel.fn.name, r.per_sm, r.bound, params.sms);
}

}  // namespace simtlm::hw
