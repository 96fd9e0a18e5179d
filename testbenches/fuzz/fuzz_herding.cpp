// libFuzzer target: bytes -> the value of a `herding:` section (docs/herding.md) in a launch file of the
// suite whose kernel has a herdable branch and a gather load (testbenches/launch/herding_hooks.yaml) -> the
// launch loaded (the section read and checked), then every site resolved against the kernel and each kernel's
// plan made with the static safety analysis, as `simtlm run` does before a herded run. LaunchError, PtxError
// and HerdPlanError are the expected answers; anything else is a finding.
//
// The bytes follow "herding:" on its line, so a seed is a flow map (" {branches: all}") or an indented block;
// the seeds are the herding: sections of the suite's launch files (scripts/fuzz) and testbenches/fuzz/seeds/
// herding/. The file goes through the launch loader, so anchors, aliases and duplicate keys are refused
// there.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "hw/herding/herd_plan.hpp"
#include "models/launch/launch.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/fuzz/fuzz_common.hpp"

namespace {

namespace fs = std::filesystem;
using namespace simtlm;

std::string host_text() {
  std::ifstream in(fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/herding_hooks.yaml", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

volatile size_t g_sink = 0;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::error_code ec;
  const fs::path ptx = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/herding_hooks.ptx";
  fs::create_symlink(ptx, fuzz::scratch_dir() / "herding_hooks.ptx", ec);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string host = host_text();
  static const fs::path path = fuzz::scratch_dir() / "herding.yaml";
  std::string text = host + "herding:";
  text.append(reinterpret_cast<const char*>(data), size);
  fuzz::write_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  try {
    const launch::Launch launch = launch::load_launch(path);
    const ptx::Module module = ptx::load_ptx_file(launch.ptx.string());
    std::vector<const ptx::Function*> kernels;
    for (const ptx::Function& f : module.functions)
      if (f.is_entry) kernels.push_back(&f);
    std::vector<std::string> buffers;
    for (const launch::BufferSpec& b : launch.buffers) buffers.push_back(b.name);
    hw::check_sites(launch.herding, module, kernels, buffers);
    for (const ptx::Function* kernel : kernels) {
      const hw::KernelHerdPlan plan = hw::plan_kernel(launch.herding, module, *kernel);
      g_sink = g_sink + plan.branch.size() + plan.load.size() + plan.skipped.size();
    }
  } catch (const launch::LaunchError&) {
  } catch (const ptx::PtxError&) {
  } catch (const hw::HerdPlanError&) {
  } catch (const std::exception& e) {
    fuzz::unexpected_exception("fuzz_herding", e);
  }
  return 0;
}
