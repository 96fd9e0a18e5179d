#include "models/launch/stats_json.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "models/launch/document_decl.hpp"
#include "models/launch/session.hpp"

namespace simtlm::launch {

namespace {

nlohmann::json dim3(const ptx::Dim3& d) {
  return nlohmann::json::array({d.x, d.y, d.z});
}

}  // namespace

// "file.cu:42" from the instruction's .loc; only the file name, so documents do not depend on the build
// machine.
std::string cuda_location(const ptx::Module& module, const ptx::Instr& instr) {
  if (instr.loc_file == 0 || instr.loc_file >= module.files.size()) return "";
  const std::string name = std::filesystem::path(module.files[instr.loc_file]).filename().string();
  return name + ":" + std::to_string(instr.loc_line);
}

nlohmann::json launch_json(const Launch& launch, const ptx::Function& kernel) {
  return {{"kernel", kernel.name},
          {"launch", std::filesystem::path(launch.path).filename().string()},
          {"grid", dim3(launch.grid)},
          {"block", dim3(launch.block)},
          {"shared_bytes", launch.shared_bytes}};
}

nlohmann::json branch_json(const ptx::Module& module, const ptx::Function& kernel, uint32_t pc,
                           uint64_t executed, uint64_t divergent) {
  const std::string loc = pc < kernel.code.size() ? cuda_location(module, kernel.code[pc]) : "";
  return {{"executed", executed},
          {"divergent", divergent},
          {"ptx_line", pc < kernel.code.size() ? kernel.code[pc].line : 0},
          {"cuda", loc.empty() ? nlohmann::json(nullptr) : nlohmann::json(loc)}};
}

void add_diagnostics(nlohmann::json& doc, const SessionResult& result, bool always, const std::string& file) {
  if (always || !result.warnings.empty()) doc["warnings"] = result.warnings;
  for (const std::string& w : result.warnings) fmt::print(stderr, "simtlm: warning: {}: {}\n", file, w);
  if (!result.out_of_bounds_warn) return;
  const ptx::OutOfBoundsLog& log = result.out_of_bounds;
  doc["out_of_bounds"] = {
      {"mode", "warn"}, {"loads", log.loads}, {"stores", log.stores}, {"first", log.first}};
  if (log.loads + log.stores == 0) return;
  fmt::print(
      stderr,
      "simtlm: warning: {}: {} loads and {} stores outside every buffer (loads read zeros, stores dropped)\n",
      file, log.loads, log.stores);
  for (const std::string& l : log.first) fmt::print(stderr, "  {}\n", l);
}

nlohmann::json stats_json(const Launch& launch, const ptx::Module& module, const ptx::Function& kernel,
                          const ptx::RunStats& stats, double wall_seconds) {
  stats::Group doc(functional_stats_decl());
  doc.set("warp_instructions", stats.warp_instructions);
  doc.set("thread_instructions", stats.thread_instructions);
  doc.set("active_lanes", stats.active_lane_sum);
  doc.set("branches", stats.branches);
  doc.set("divergent_branches", stats.divergent_branches);
  for (const auto& [pc, branch] : stats.per_branch) {
    stats::Group& row = doc.row("per_branch", std::to_string(pc));
    row.set("executed", branch.executed);
    row.set("divergent", branch.divergent);
    row.set("ptx_line", pc < kernel.code.size() ? kernel.code[pc].line : 0);
    const std::string loc = pc < kernel.code.size() ? cuda_location(module, kernel.code[pc]) : "";
    if (!loc.empty()) row.set("cuda", loc);
  }
  doc.set("barriers", stats.barriers);
  doc.set("max_stack_depth", stats.max_stack_depth);
  doc.set("ctas", stats.ctas);
  doc.set("warps", stats.warps);
  doc.group("host").set("wall_seconds", wall_seconds);
  nlohmann::json out = doc.json();
  out.update(launch_json(launch, kernel));
  return out;
}

}  // namespace simtlm::launch
