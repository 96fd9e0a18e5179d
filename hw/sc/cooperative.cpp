#include "hw/sc/cooperative.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hw/divergence/mechanism.hpp"
#include "hw/work/work_source.hpp"

namespace simtlm::hw {

CoResidency co_resident_ctas(const GpuParams& params, const TimingKernel& kernel) {
  const GridCtas ctas(kernel);
  const WorkFootprint f = ctas.footprint();
  const SmParams& sm = params.sm;
  CoResidency r;
  r.per_sm = sm.max_ctas;
  r.bound = "gpu.max_ctas_per_sm";
  auto limit = [&](uint64_t have, uint64_t need, const char* key) {
    if (need && have / need < r.per_sm) {
      r.per_sm = have / need;
      r.bound = key;
    }
  };
  limit(sm.max_warps, f.contexts, "gpu.max_warps_per_sm");
  limit(sm.max_threads, f.threads, "gpu.max_threads_per_sm");
  limit(sm.registers, f.registers, "gpu.registers_per_sm");
  limit(sm.shared_bytes, f.shared, "gpu.shared_bytes_per_sm");
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
