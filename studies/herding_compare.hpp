// `simtlm compare` in herding mode (docs/herding.md): one launch run exactly and herded, on the functional
// model or, with a machine configuration, on the timing model (each run in a child process), with the output
// quality of every output buffer and the speed-up.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/launch/quality.hpp"
#include "sim/herding_run.hpp"

namespace simtlm::studies {

struct HerdingCompareRequest {
  std::filesystem::path launch;
  std::vector<std::string> launch_sets;
  sim::HerdingCli herding;       // on top of the launch file's herding: section
  hw::UnitSelection units;       // --rtl majority / popular_block (and --rtl-check)
  std::filesystem::path config;  // empty: functional runs only
  uint64_t budget = 0;
};

struct ComparedRun {
  std::map<std::string, std::vector<uint8_t>> buffers;
  uint64_t cycles = 0;  // timing only
  uint64_t warp_instructions = 0, thread_instructions = 0, branches = 0, divergent_branches = 0;
  nlohmann::json stats;    // the run's statistics (timing: the whole document; functional: the counts)
  nlohmann::json herding;  // the herded run's hooks' statistics
};

struct HerdingCompareResult {
  launch::Launch launch;  // the exact launch (no herding)
  launch::HerdingSpec spec;
  bool timed = false;
  std::string machine;  // the config's file name when timed
  ComparedRun exact, herded;
  std::vector<launch::BufferQuality> quality;
  double speedup() const;  // exact cycles / herded cycles (timing); 0 for functional runs
};

// Throws std::runtime_error when the launch herds nothing, a run fails (the message says which) or the
// exact run does not match its host reference.
HerdingCompareResult compare_herding(const HerdingCompareRequest& request);
nlohmann::json herding_compare_json(const HerdingCompareResult& result);
// NAME.exact.png, NAME.herded.png and NAME.diff.png for every image output, into dir. Returns the files.
std::vector<std::filesystem::path> write_quality_images(const HerdingCompareResult& result,
                                                        const std::filesystem::path& dir);

}  // namespace simtlm::studies
