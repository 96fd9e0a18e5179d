#include "studies/herding_compare.hpp"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "models/launch/output_dir.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/sequence.hpp"
#include "sim/host_references.hpp"
#include "sim/timing_child.hpp"

namespace simtlm::studies {

using namespace sim;  // the run this experiment drives
namespace {

namespace fs = std::filesystem;

launch::SessionOptions base_options(const HerdingCompareRequest& request) {
  launch::SessionOptions options;
  options.instruction_budget = request.budget;
  options.find_reference = &find_host_reference;
  options.capture_printf = true;
  return options;
}

void check_kernels(const HerdingRun* herding, const launch::Session& session) {
  if (herding) herding->check(session.launch(), session.module(), {&session.kernel()});
}

void check_kernels(const HerdingRun* herding, const launch::SequenceSession& session) {
  if (herding) herding->check(session.launch(), session.module(), entry_kernels(session.module()));
}

launch::SessionResult run_session(const launch::Launch& l, const launch::SessionOptions& options,
                                  const HerdingRun* herding) {
  if (l.is_sequence()) {
    launch::SequenceSession session(l, options);
    check_kernels(herding, session);
    return session.run();
  }
  launch::Session session(l, options);
  check_kernels(herding, session);
  return session.run();
}

ComparedRun run_functional(const launch::Launch& l, const launch::SessionOptions& options,
                           const HerdingRun* herding, const char* which) {
  launch::SessionResult result = run_session(l, options, herding);
  if (!result.ok()) {
    throw std::runtime_error(
        fmt::format("{}: the {} run failed: {}", l.path.string(), which, result.failures.front()));
  }
  ComparedRun run;
  run.buffers = std::move(result.buffers);
  run.warp_instructions = result.stats.warp_instructions;
  run.thread_instructions = result.stats.thread_instructions;
  run.branches = result.stats.branches;
  run.divergent_branches = result.stats.divergent_branches;
  run.stats = {{"warp_instructions", run.warp_instructions},
               {"thread_instructions", run.thread_instructions},
               {"simd_utilization", result.stats.simd_utilization()},
               {"branches", run.branches},
               {"divergent_branches", run.divergent_branches}};
  if (herding) run.herding = herding->statistics().json();
  return run;
}

ComparedRun run_timed(const launch::Launch& l, const launch::SessionOptions& options,
                      const config::MachineConfig& machine, const HerdingCompareRequest& request,
                      const HerdingRun* herding, const char* which) {
  if (l.is_sequence()) {  // the sites are checked here, before a child runs
    const launch::SequenceSession session(l, options);
    check_kernels(herding, session);
  } else {
    const launch::Session session(l, options);
    check_kernels(herding, session);
  }
  sim::TimingOptions timing;
  timing.units = request.units;
  sim::ChildReport extra;
  extra.buffers = true;
  if (herding)
    extra.report = [herding](nlohmann::json& out) { out["herding"] = herding->statistics().json(); };
  const sim::ChildResult out = sim::run_timing_child(l, options, machine, timing, extra);
  if (!out.passed()) {
    throw std::runtime_error(
        fmt::format("{}: the {} timing run failed: {}", l.path.string(), which, out.problem()));
  }
  ComparedRun run;
  run.buffers = out.buffers;
  run.stats = out.stats_json;
  run.cycles = run.stats.value("cycles", uint64_t{0});
  run.warp_instructions = run.stats.value("warp_instructions", uint64_t{0});
  run.thread_instructions = run.stats.value("thread_instructions", uint64_t{0});
  run.branches = run.stats.value("branches", uint64_t{0});
  run.divergent_branches = run.stats.value("divergent_branches", uint64_t{0});
  if (!out.herding.is_null()) run.herding = out.herding;
  return run;
}

nlohmann::json run_json(const ComparedRun& run) {
  return {{"cycles", run.cycles},
          {"warp_instructions", run.warp_instructions},
          {"thread_instructions", run.thread_instructions},
          {"branches", run.branches},
          {"divergent_branches", run.divergent_branches}};
}

}  // namespace

double HerdingCompareResult::speedup() const {
  return timed && herded.cycles ? double(exact.cycles) / double(herded.cycles) : 0.0;
}

HerdingCompareResult compare_herding(const HerdingCompareRequest& request) {
  HerdingCompareResult result;
  launch::Launch herded_launch = launch::load_launch(request.launch, request.launch_sets);
  result.launch = herded_launch;
  result.launch.herding = {};
  const launch::SessionOptions exact_options = base_options(request);
  launch::SessionOptions herded_options = base_options(request);
  std::optional<config::MachineConfig> timed_machine;
  if (!request.config.empty()) timed_machine = config::MachineConfig::load(request.config);
  const std::unique_ptr<HerdingRun> herding =
      prepare_herding(herded_launch, request.herding, request.units, herded_options,
                      timed_machine ? &*timed_machine : nullptr);
  if (!herding) {
    throw std::runtime_error(request.launch.string() +
                             ": compare --herding: nothing to herd (give --herd-branches, --herd-loads or "
                             "--herd-buffers, or a herding: section in the launch file)");
  }
  result.spec = herding->herding().spec();
  result.timed = !request.config.empty();
  if (result.timed) {
    const config::MachineConfig& machine = *timed_machine;
    result.machine = fs::path(request.config).filename().string();
    result.exact = run_timed(result.launch, exact_options, machine, request, nullptr, "exact");
    result.herded = run_timed(herded_launch, herded_options, machine, request, herding.get(), "herded");
  } else {
    result.exact = run_functional(result.launch, exact_options, nullptr, "exact");
    result.herded = run_functional(herded_launch, herded_options, herding.get(), "herded");
  }
  try {
    result.quality = launch::compare_outputs(result.launch, result.exact.buffers, result.herded.buffers);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(request.launch.string() + ": " + e.what());
  }
  return result;
}

nlohmann::json herding_compare_json(const HerdingCompareResult& result) {
  nlohmann::json doc;
  doc["launch"] = result.launch.path.string();
  doc["mode"] = result.timed ? "timing" : "functional";
  if (result.timed) doc["config"] = result.machine;
  doc["herding"] = launch::herding_yaml(result.spec, 0);
  doc["exact"] = run_json(result.exact);
  doc["herded"] = run_json(result.herded);
  doc["speedup"] = result.speedup();
  doc["quality"] = launch::to_json(result.quality);
  doc["herding_stats"] = result.herded.herding;
  return doc;
}

std::vector<fs::path> write_quality_images(const HerdingCompareResult& result, const fs::path& dir) {
  std::vector<fs::path> files;
  for (const launch::BufferQuality& q : result.quality) {
    if (!q.image) continue;
    const launch::BufferSpec* spec = result.launch.find_buffer_spec(q.name);
    const auto shape = result.launch.image_shape.find(q.name);
    if (!spec || shape == result.launch.image_shape.end()) continue;
    const auto [width, height] = shape->second;
    const std::vector<uint8_t>& exact = result.exact.buffers.at(q.name);
    const std::vector<uint8_t>& herded = result.herded.buffers.at(q.name);
    const std::pair<const char*, std::vector<uint8_t>> images[] = {
        {"exact", launch::image_gray8(*spec, exact, exact)},
        {"herded", launch::image_gray8(*spec, herded, exact)},
        {"diff", launch::difference_gray8(*spec, exact, herded)}};
    for (const auto& [suffix, gray] : images) {
      const fs::path file = dir / fmt::format("{}.{}.png", q.name, suffix);
      launch::write_file_checked(file, launch::encode_png(width, height, gray));
      files.push_back(file);
    }
  }
  return files;
}

}  // namespace simtlm::studies
