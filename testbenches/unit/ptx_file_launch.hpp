// Runs one kernel of a committed PTX file on the functional runner with zeroed global buffers, without a
// launch file: the unit tests of calls and warp scheduling need nothing else.
#pragma once

#include <string>
#include <vector>

#include "testbenches/unit/ptx_kernel_run.hpp"

namespace simtlm::ptx::test {

struct PtxFileLaunch {
  Module module;
  KernelRun kernel_run;
  GlobalMemory& global;
  std::vector<uint64_t> buffers;  // device addresses, one per buffer
  std::vector<size_t> sizes;

  // `buffer_bytes`: the pointer parameters in order; `scalars`: the parameters after them; `variables`: place
  // the module's .global and .const variables first (KernelRun::place_variables).
  PtxFileLaunch(const std::string& relative_path, const std::string& kernel, Dim3 grid, Dim3 block,
                const std::vector<size_t>& buffer_bytes, const std::vector<uint64_t>& scalars = {},
                bool variables = false)
      : module(load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/" + relative_path)),
        kernel_run(module, kernel, grid, block),
        global(kernel_run.global()),
        sizes(buffer_bytes) {
    if (variables) kernel_run.place_variables();
    for (size_t i = 0; i < buffer_bytes.size(); ++i) {
      buffers.push_back(
          kernel_run.buffer(std::vector<uint8_t>(buffer_bytes[i], 0), "buffer" + std::to_string(i)));
      kernel_run.param(i, buffers.back());
    }
    for (size_t i = 0; i < scalars.size(); ++i) kernel_run.param(buffer_bytes.size() + i, scalars[i]);
  }

  RunStats run(RunOptions options = {}) { return kernel_run.run(options); }
  std::string error(RunOptions options = {}) { return kernel_run.error(options); }

  template <class T>
  std::vector<T> read(size_t buffer) const {
    return kernel_run.read<T>(buffers.at(buffer), sizes.at(buffer) / sizeof(T));
  }
};

}  // namespace simtlm::ptx::test
