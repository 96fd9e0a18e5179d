// The composition root of the machine configuration's schema: every component's rows, in reference order
// (docs/configs.md), and every component's checks. It is the one file that knows every component, so it
// sits above models/ and hw/ and is compiled into simtlm_config (cmake/model_libraries.cmake): the functional
// mode, `simtlm config` and the config fuzzer see the whole schema without SystemC, and models/ includes
// nothing of hw/. Defaults describe a small one-SM GPU that the demo and tests use; configs/*.yaml describe
// the papers' machines.
#include "hw/gpu_schema.hpp"
#include "hw/sm_schema.hpp"
#include "hw/wpu_schema.hpp"
#include "models/config/machine_config.hpp"
#include "models/mem/memory_schema.hpp"

namespace simtlm::config {

const std::vector<ParamSpec>& schema() {
  static const std::vector<ParamSpec> table = [] {
    ParamRows rows;
    for (const ParamRows& part :
         {hw::gpu_rows(), hw::sm_rows(), hw::wpu_rows(), mem::memory_rows(), hw::run_rows()})
      rows.insert(rows.end(), part.begin(), part.end());
    return rows;
  }();
  return table;
}

const std::vector<SchemaCheck>& schema_checks() {
  static const std::vector<SchemaCheck> checks = {hw::check_gpu, hw::check_sm, hw::check_wpu,
                                                  mem::check_memory};
  return checks;
}

}  // namespace simtlm::config
