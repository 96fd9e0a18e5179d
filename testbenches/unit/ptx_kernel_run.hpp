// Runs one kernel of a PTX module in functional mode on buffers the test fills and reads back, without a
// launch file. For the front-end tests on kernels under testbenches/ptx/; ptx_file_launch.hpp builds on it.
#pragma once

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/runner.hpp"

namespace simtlm::ptx::test {

inline std::string kernel_ptx_path(const std::string& name) {
  return (std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches" / "ptx" / name).string();
}

class KernelRun {
 public:
  KernelRun(const Module& module, const std::string& kernel, Dim3 grid, Dim3 block,
            uint32_t dynamic_shared_bytes = 0)
      : module_(module) {
    std::string error;
    launch_.module = &module_;
    launch_.kernel = module_.find_entry(kernel, &error);
    if (!launch_.kernel) throw std::runtime_error(error);
    launch_.grid = grid;
    launch_.block = block;
    launch_.dynamic_shared_bytes = dynamic_shared_bytes;
    launch_.global = &global_;
    launch_.symbol_address.assign(module_.symbols.size(), 0);
    launch_.param_buffer.assign(launch_.kernel->param_bytes, 0);
  }
  KernelRun(const KernelRun&) = delete;
  KernelRun& operator=(const KernelRun&) = delete;

  // Allocates the module's .global and .const variables with their initializers, as a launch file's session
  // does; called before buffer() so that the buffers' addresses follow them.
  void place_variables() {
    for (uint32_t s = 0; s < module_.symbols.size(); ++s) {
      const Symbol& sym = module_.symbols[s];
      if ((sym.space != Space::global && sym.space != Space::constant) || sym.is_extern || sym.function >= 0)
        continue;
      const uint64_t addr =
          global_.allocate(std::max<uint64_t>(sym.size, 1), std::max(sym.align, 1u), sym.name);
      if (!sym.init.empty()) global_.write(addr, sym.init.data(), sym.init.size());
      launch_.symbol_address[s] = addr;
    }
  }
  // Allocates a buffer holding `values` and returns its address; `name` is what out-of-bounds errors call it.
  template <class T>
  uint64_t buffer(const std::vector<T>& values, const std::string& name = "buffer") {
    const uint64_t addr = global_.allocate(std::max<size_t>(values.size() * sizeof(T), 1), 256, name);
    if (!values.empty()) global_.write(addr, values.data(), values.size() * sizeof(T));
    return addr;
  }
  // Sets parameter `index` (a pointer or scalar; the parameter's own size is written).
  void param(size_t index, uint64_t value) {
    const Param& p = launch_.kernel->params.at(index);
    std::memcpy(launch_.param_buffer.data() + p.offset, &value, std::min<size_t>(p.size, sizeof value));
  }
  // Binds a texture object (launch files bind them under textures:) and returns its handle.
  uint64_t texture(const TextureObject& texture) {
    launch_.textures.push_back(texture);
    return texture_handle(launch_.textures.size() - 1);
  }
  const LaunchContext& context() const { return launch_; }
  RunStats run(RunOptions options = {}) {
    Cfg cfg(*launch_.kernel);
    FunctionalRunner runner(launch_, cfg, options);
    return runner.run();
  }
  // The message of the KernelError or PtxError the run ends with ("" when it succeeds).
  std::string error(RunOptions options = {}) {
    try {
      run(options);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  }
  template <class T>
  std::vector<T> read(uint64_t addr, size_t count) const {
    std::vector<T> values(count);
    global_.read(addr, values.data(), count * sizeof(T));
    return values;
  }
  const Function& kernel() const { return *launch_.kernel; }
  GlobalMemory& global() { return global_; }
  const GlobalMemory& global() const { return global_; }

 private:
  const Module& module_;
  GlobalMemory global_;
  LaunchContext launch_;
};

}  // namespace simtlm::ptx::test
