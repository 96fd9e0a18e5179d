// Runs one kernel of a committed PTX file on the functional runner with zeroed global buffers, without a
// launch file: the unit tests of calls and warp scheduling need nothing else.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/runner.hpp"

namespace simtlm::ptx::test {

struct PtxFileLaunch {
  Module module;
  GlobalMemory global;
  LaunchContext launch;
  std::vector<uint64_t> buffers;  // device addresses, one per buffer
  std::vector<size_t> sizes;

  // `buffer_bytes`: the pointer parameters in order; `scalars`: the parameters after them.
  PtxFileLaunch(const std::string& relative_path, const std::string& kernel, Dim3 grid, Dim3 block,
                const std::vector<size_t>& buffer_bytes, const std::vector<uint64_t>& scalars = {})
      : module(load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/" + relative_path)), sizes(buffer_bytes) {
    std::string error;
    launch.module = &module;
    launch.kernel = module.find_entry(kernel, &error);
    if (!launch.kernel) throw std::runtime_error(error);
    launch.grid = grid;
    launch.block = block;
    launch.global = &global;
    launch.symbol_address.assign(module.symbols.size(), 0);
    launch.param_buffer.assign(launch.kernel->param_bytes, 0);
    const auto& params = launch.kernel->params;
    for (size_t i = 0; i < buffer_bytes.size(); ++i) {
      buffers.push_back(global.allocate(buffer_bytes[i], 256, "buffer" + std::to_string(i)));
      std::memcpy(launch.param_buffer.data() + params.at(i).offset, &buffers.back(), 8);
    }
    for (size_t i = 0; i < scalars.size(); ++i) {
      const Param& p = params.at(buffer_bytes.size() + i);
      std::memcpy(launch.param_buffer.data() + p.offset, &scalars[i], p.size);
    }
  }

  RunStats run(RunOptions options = {}) {
    Cfg cfg(*launch.kernel);
    FunctionalRunner runner(launch, cfg, options);
    return runner.run();
  }

  std::string error(RunOptions options = {}) {
    try {
      run(options);
    } catch (const KernelError& e) {
      return e.what();
    }
    return "";
  }

  template <class T>
  std::vector<T> read(size_t buffer) const {
    std::vector<T> v(sizes.at(buffer) / sizeof(T));
    global.read(buffers.at(buffer), v.data(), v.size() * sizeof(T));
    return v;
  }
};

}  // namespace simtlm::ptx::test
