#include "sim/host_references.hpp"

#include "workloads/reference/reference.hpp"

namespace simtlm::sim {

launch::ReferenceFn find_host_reference(const std::string& name) {
  return workloads::find_reference(name);
}

}  // namespace simtlm::sim
