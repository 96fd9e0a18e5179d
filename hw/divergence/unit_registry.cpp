#include "hw/divergence/unit_registry.hpp"

#include <stdexcept>
#include <string>

#include "hw/divergence/block_compaction.hpp"
#include "hw/divergence/capri_compaction.hpp"
#include "hw/divergence/warp_slices.hpp"
#include "hw/divergence/warp_stacks.hpp"
#include "hw/divergence/wpu_stats.hpp"
#include "models/ptx/task_mode.hpp"

namespace simtlm::hw {

namespace {

template <typename Unit>
std::unique_ptr<DivergenceUnit> make_plain(const DivergenceParams& params, const TimingKernel& kernel,
                                           SlotHost& host, const CompactionUnits&) {
  return std::make_unique<Unit>(params, kernel, host);
}

template <typename Unit>
std::unique_ptr<DivergenceUnit> make_compacting(const DivergenceParams& params, const TimingKernel& kernel,
                                                SlotHost& host, const CompactionUnits& units) {
  return std::make_unique<Unit>(params, kernel, host, units);
}

std::vector<UnitEntry>& entries() {
  static std::vector<UnitEntry> all = {
      {traits(UnitKind::warp_stacks), make_plain<WarpStacks>, nullptr},
      {traits(UnitKind::tbc), make_compacting<BlockCompaction>, nullptr},
      {traits(UnitKind::ideal), make_compacting<BlockCompaction>, nullptr},
      {traits(UnitKind::capri), make_compacting<CapriCompaction>, nullptr},
      {traits(UnitKind::warp_slices), make_plain<WarpSlices>, &wpu_stats_decl()},
  };
  return all;
}

}  // namespace

const UnitEntry* find_unit(std::string_view name) {
  for (const UnitEntry& e : entries()) {
    if (e.traits.name == name) return &e;
  }
  return nullptr;
}

DivergenceUnitRegistration::DivergenceUnitRegistration(const UnitEntry& entry) {
  if (find_unit(entry.traits.name))
    throw std::logic_error("divergence unit " + std::string(entry.traits.name) + " is registered twice");
  UnitEntry e = entry;
  e.traits.unit = UnitKind::registered;
  entries().push_back(e);
  divergence_unit_names().push_back(e.traits.name.data());
}

std::unique_ptr<DivergenceUnit> make_divergence_unit(const DivergenceParams& params,
                                                     const TimingKernel& kernel, SlotHost& host,
                                                     const CompactionUnits& units) {
  const UnitEntry* entry = find_unit(params.unit_name);
  if (!entry) throw std::invalid_argument("unknown divergence unit " + params.unit_name);
  return entry->make(params, kernel, host, units);
}

std::string divergence_unit_refusal(const DivergenceParams& params, const ptx::Module& module,
                                    const ptx::Function& kernel) {
  switch (params.traits().unit) {
    case UnitKind::tbc:
    case UnitKind::ideal:
    case UnitKind::capri:  // a BlockCompaction
      return tbc_call_refusal(module, kernel);
    case UnitKind::warp_slices:
      return ptx::task_mode_refusal(module, kernel);
    default:
      return "";
  }
}

std::unique_ptr<WorkSource> make_work_source(const DivergenceParams& params, const TimingKernel& kernel,
                                             uint32_t sms) {
  if (params.traits().work == WorkKind::task_partition)
    return std::make_unique<TaskPartition>(kernel, sms, params.wpu.contexts());
  return std::make_unique<GridCtas>(kernel);
}

const std::vector<const stats::GroupDecl*>& divergence_stats_decls() {
  static const std::vector<const stats::GroupDecl*> decls = [] {
    std::vector<const stats::GroupDecl*> out;
    for (const UnitEntry& e : entries())
      if (e.stats) out.push_back(e.stats);
    return out;
  }();
  return decls;
}

}  // namespace simtlm::hw
