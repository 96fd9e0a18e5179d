// libFuzzer target: bytes -> sweep file YAML -> SweepSpec (every axis read, the product checked from the
// axes' sizes, then each launch file and configuration loaded with its set: values) -> the job list and the
// summary, written as `simtlm sweep` writes them (write_plan). SweepError is the expected answer to a bad
// file; anything else is a finding.
//
// The file is written to a scratch directory holding symbolic links to the source tree's workloads/, configs/
// and testbenches/, so the committed sweep files (configs/sweeps/*.yaml without their `root:` line, see
// scripts/fuzz) are the seeds and reach real launch files and configurations.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <system_error>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_store.hpp"
#include "testbenches/fuzz/fuzz_common.hpp"

namespace {

namespace fs = std::filesystem;
using namespace simtlm;

// Planning hashes every input file of every job; a product within the sweep's own limit (10^6 jobs) is
// legitimate but slow, so only smaller ones are expanded here (load_sweep_file still checks every limit).
constexpr size_t kExpandedJobs = 4096;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const fs::path source = SIMTLM_SOURCE_DIR;
  for (const char* top : {"workloads", "configs", "testbenches"}) {
    std::error_code ec;
    fs::create_directory_symlink(source / top, fuzz::scratch_dir() / top, ec);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path path = fuzz::scratch_dir() / "sweep.yaml";
  fuzz::write_file(path, data, size);
  try {
    const sweep::SweepSpec spec = sweep::load_sweep_file(path);
    size_t product = 1;
    for (const auto& [axis, values] : spec.axes) product *= values.size();
    if (product <= kExpandedJobs) {
      // The plan and summary as `simtlm sweep` writes them (plan.jsonl, sweep.json).
      static const fs::path out = fuzz::scratch_dir() / "out";
      fs::create_directories(out);
      sweep::write_plan(out, sweep::expand_jobs(spec, "fuzz"), sweep::sweep_summary(spec));
    }
  } catch (const sweep::SweepError&) {
  } catch (const std::exception& e) {
    fuzz::unexpected_exception("fuzz_sweep", e);
  }
  return 0;
}
