// libFuzzer target: bytes -> sweep file YAML -> SweepSpec (every axis read, the product checked from the
// axes' sizes, then each launch file and configuration loaded with its set: values) -> the job list and the
// summary, as the text `simtlm sweep` writes (write_plan), read back. SweepError is the expected answer to a
// bad file; anything else is a finding.
//
// The file is written to a scratch directory holding symbolic links to the source tree's workloads/, configs/
// and testbenches/, so the committed sweep files (configs/sweeps/*.yaml without their `root:` line, see
// scripts/fuzz) are the seeds and reach real launch files and configurations.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_job.hpp"
#include "sweep/sweep_store.hpp"
#include "testbenches/fuzz/fuzz_common.hpp"

namespace {

namespace fs = std::filesystem;
using namespace simtlm;

// Planning hashes the inputs of every job; a product within the sweep's own limit (10^6 jobs) is legitimate
// but slow, so only smaller ones are expanded here (load_sweep_file still checks every limit). Under ASan a
// job costs about 60 us, and the committed sweep files (the seeds) and their mutants have thousands: every
// input of up to kAlwaysExpanded jobs is expanded, a larger one up to kExpandedJobs for one input in
// kLargeEvery, chosen by its bytes so that a finding reproduces. Each job runs the same code whatever the
// product, so the large ones add time more than paths.
constexpr size_t kExpandedJobs = 4096;
constexpr size_t kAlwaysExpanded = 256;
constexpr uint32_t kLargeEvery = 16;

uint32_t input_hash(const uint8_t* data, size_t size) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  return h;
}

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
    if (product <= kAlwaysExpanded ||
        (product <= kExpandedJobs && input_hash(data, size) % kLargeEvery == 0)) {
      // The plan and summary as `simtlm sweep` writes them into plan.jsonl and sweep.json (write_plan's
      // text, kept in memory: no file is written and fsynced per input), the first line read back as
      // read_plan reads it.
      const std::vector<sweep::JobSpec> jobs = sweep::expand_jobs(spec, "fuzz");
      std::string plan;
      for (const sweep::JobSpec& job : jobs) plan += sweep::json_text(sweep::job_json(job)) + "\n";
      if (!jobs.empty()) {
        // Read back, the first line gives the same job: the same document once written again (bytes that are
        // not UTF-8 are U+FFFD in both; keys compared as a map) and the same id.
        const std::string first = plan.substr(0, plan.find('\n'));
        const nlohmann::json doc = nlohmann::json::parse(first);
        const sweep::JobSpec back = sweep::job_from_json(doc);
        if (back.id != jobs.front().id ||
            nlohmann::json::parse(sweep::json_text(sweep::job_json(back))) != doc) {
          std::fprintf(stderr, "fuzz_sweep: the plan's first line does not read back: %s\n", first.c_str());
          std::abort();
        }
      }
      (void)nlohmann::json::parse(sweep::json_text(sweep::sweep_summary(spec), 2));
    }
  } catch (const sweep::SweepError&) {
  } catch (const std::exception& e) {
    fuzz::unexpected_exception("fuzz_sweep", e);
  }
  return 0;
}
