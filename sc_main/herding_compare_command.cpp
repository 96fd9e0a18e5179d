// `simtlm compare --herding`: a launch run exactly and herded, with the output quality of every output buffer
// and, on the timing model, the speed-up (sim/herding_compare.hpp; docs/herding.md).
#include <fmt/format.h>

#include <cmath>

#include "models/launch/output_dir.hpp"
#include "sc_main/commands.hpp"
#include "studies/herding_compare.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", v);
}

}  // namespace

int herding_compare_command(const CompareArgs& args) {
  studies::HerdingCompareRequest request;
  request.launch = args.launch;
  request.launch_sets = args.launch_sets;
  request.herding = args.herding;
  request.units = rtl_selection(args.rtl, args.rtl_check);
  if (request.units.rtl_permutation || request.units.rtl_compactor)
    throw std::runtime_error("compare --herding: --rtl takes majority and popular_block");
  request.config = args.config;
  request.budget = args.budget;
  const studies::HerdingCompareResult result = studies::compare_herding(request);
  const fs::path dir =
      args.out.empty() ? fs::path("out") / (args.launch.stem().string() + "-herding") : args.out;
  launch::OutputSet outputs(dir);
  const nlohmann::json doc = studies::herding_compare_json(result);
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_file_checked(staging / "compare.json", std::vector<uint8_t>(text.begin(), text.end()));
    studies::write_quality_images(result, staging);
  });
  if (args.quiet) return 0;
  fmt::print("{}: herding on the {} model{}\n", args.launch.string(), result.timed ? "timing" : "functional",
             result.timed ? " of " + result.machine : std::string());
  std::string spec = launch::herding_yaml(result.spec, 2);
  fmt::print("{}", spec);
  fmt::print("{:<8}  {:>12}  {:>14}  {:>20}\n", "run", "cycles", "warp instr", "divergent branches");
  for (const auto& [name, run] : {std::pair{"exact", &result.exact}, std::pair{"herded", &result.herded}}) {
    fmt::print("{:<8}  {:>12}  {:>14}  {:>20}\n", name, result.timed ? std::to_string(run->cycles) : "-",
               run->warp_instructions, fmt::format("{} of {}", run->divergent_branches, run->branches));
  }
  if (result.timed) fmt::print("speed-up {:.3f}x\n", result.speedup());
  fmt::print("\n{:<16}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>9}\n", "output",
             "mismatch", "zero flips", "MAE", "max err", "rel err", "L2 rel", "PSNR dB", "elements");
  for (const launch::BufferQuality& q : result.quality) {
    fmt::print("{:<16}  {:>9.4f}%  {:>9.4f}%  {:>10}  {:>10}  {:>10}  {:>10}  {:>10}  {:>9}\n", q.name,
               100.0 * q.mismatch_fraction, 100.0 * q.zero_mismatch_fraction, number(q.mean_abs_error),
               number(q.max_abs_error), number(q.relative_error), number(q.l2_relative_error),
               !q.image    ? "-"
               : q.psnr_db ? number(*q.psnr_db)
                           : "inf",
               q.elements);
  }
  const nlohmann::json& h = result.herded.herding;
  if (h.is_object()) {
    fmt::print(
        "\nherding instances {}{}; branches herded {} of {} divergent executions ({} lanes forced); "
        "loads herded {} ({} requests -> {})\n",
        h["instances"].get<uint64_t>(),
        h["switched_off"].get<bool>() ? " (switched off at max_instances)" : "",
        h["branches"]["herded"].get<uint64_t>(), h["branches"]["divergent"].get<uint64_t>(),
        h["branches"]["lanes_forced"].get<uint64_t>(), h["loads"]["herded"].get<uint64_t>(),
        h["loads"]["requests_before"].get<uint64_t>(), h["loads"]["requests_after"].get<uint64_t>());
  }
  fmt::print("details and images in {}\n", dir.string());
  return 0;
}

}  // namespace simtlm::cli
