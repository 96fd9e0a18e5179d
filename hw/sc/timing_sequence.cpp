#include "hw/sc/timing_sequence.hpp"

#include <fmt/format.h>

#include <chrono>
#include <exception>
#include <optional>

#include "hw/sc/gpu.hpp"
#include "models/launch/sequence_totals.hpp"

namespace simtlm::hw {

namespace {

bool is_max_key(const std::string& key) {
  return key.find("max") != std::string::npos || key == "finish_cycle";
}

// Adds the integer counters of `part` into `total` (maxima stay maxima); other values keep the first seen.
void add_counts(nlohmann::json& total, const nlohmann::json& part, const std::string& key = "") {
  if (total.is_null()) {
    total = part;
    return;
  }
  if (part.is_object() && total.is_object()) {
    for (const auto& [k, v] : part.items()) add_counts(total[k], v, k);
  } else if (part.is_array() && total.is_array()) {
    for (size_t n = 0; n < part.size(); ++n) {
      if (n < total.size()) {
        add_counts(total[n], part[n], key);
      } else {
        total.push_back(part[n]);
      }
    }
  } else if (part.is_number_integer() && total.is_number_integer()) {
    const uint64_t a = total.get<uint64_t>(), b = part.get<uint64_t>();
    total = is_max_key(key) ? std::max(a, b) : a + b;
  }
}

// The integer counters of `now` minus those of `before` (cumulative memory-system counters); averages and
// ratios, which do not subtract, are left out; maxima are kept as they are (since the sequence began).
nlohmann::json count_increments(const nlohmann::json& now, const nlohmann::json& before,
                                const std::string& key = "") {
  if (now.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : now.items()) {
      if (v.is_number_float()) continue;
      out[k] =
          count_increments(v, before.is_object() && before.contains(k) ? before[k] : nlohmann::json(), k);
    }
    return out;
  }
  if (now.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t n = 0; n < now.size(); ++n)
      out.push_back(count_increments(
          now[n], before.is_array() && n < before.size() ? before[n] : nlohmann::json(), key));
    return out;
  }
  if (now.is_number_integer() && before.is_number_integer() && !is_max_key(key))
    return now.get<uint64_t>() - before.get<uint64_t>();
  return now;
}

double ratio(uint64_t a, uint64_t b) {
  return b ? double(a) / double(b) : 0.0;
}

// The load/store unit's queue statistics run on from kernel to kernel like the caches'.
constexpr const char* kMemoryDocs[] = {"lsu", "l1", "interconnect", "l2", "dram"};

}  // namespace

nlohmann::json run_timing_sequence(launch::SequenceSession& session, const config::MachineConfig& config,
                                   launch::SessionResult& result) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const GpuParams params = gpu_params(config);
  session.reset();
  std::unique_ptr<launch::PlannedLaunch> current = session.next();
  if (!current)
    throw launch::LaunchError(session.launch().path.string() + ": the sequence launches no kernel");
  const uint64_t budget = session.instruction_budget();
  uint64_t used = 0;
  current->context->nsm = params.sms;
  // The SMs and the Gpu hold a reference to this TimingKernel; each launch replaces it in place.
  std::optional<TimingKernel> kernel;
  kernel.emplace(*current->context, params.sm.registers_per_thread, budget);
  uint64_t unit_cycle = 0;
  UnitSet units = make_unit_set(UnitSelection{}, params.sm.simd_width, UnitOptions{}, &unit_cycle);
  SmUnits sm_units;
  sm_units.majority = units.majority.get();
  auto gpu = std::make_unique<Gpu>("gpu", params, *kernel, sm_units);
  for (auto& sm : gpu->sms()) sm->unit_cycle = &unit_cycle;

  nlohmann::json memory_before = nlohmann::json::object();
  std::exception_ptr error;
  bool finished = false;
  auto record = [&] {
    nlohmann::json s = gpu->stats_json();
    const uint64_t start = gpu->kernel_start_cycle(), end = gpu->cycles();
    nlohmann::json entry = current->describe();
    entry["start_cycle"] = start;
    s["cycles"] = end - start;
    s["ipc"] = ratio(s["warp_instructions"].get<uint64_t>(), end - start);
    s["thread_ipc"] = ratio(s["thread_instructions"].get<uint64_t>(), end - start);
    for (const char* key : kMemoryDocs) {
      const nlohmann::json full = s[key];
      s[key] = count_increments(full, memory_before.value(key, nlohmann::json()));
      memory_before[key] = full;
    }
    s["write_back"]["l1_requests"] = s["l1"].value("flush_writebacks", uint64_t{0});
    s["write_back"]["requests"] = s["l2"].value("flush_writebacks", uint64_t{0});
    s["write_back"]["bytes"] = s["l2"].value("flush_bytes", uint64_t{0});
    used += s["thread_instructions"].get<uint64_t>();
    entry.update(s);
    result.launches.push_back(std::move(entry));
  };
  gpu->on_kernel_end = [&]() -> bool {
    try {
      record();
      std::unique_ptr<launch::PlannedLaunch> next = session.next();
      if (!next) {
        finished = true;
        return false;
      }
      next->context->nsm = params.sms;
      kernel.reset();  // before the context it refers to goes
      current = std::move(next);
      kernel.emplace(*current->context, params.sm.registers_per_thread, budget - std::min(budget, used));
      return true;
    } catch (...) {
      error = std::current_exception();
      sc_core::sc_stop();
      return false;
    }
  };
  const auto wall_start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (error) std::rethrow_exception(error);
  if (!gpu->error().empty()) {
    const std::string where =
        !finished ? fmt::format("launch {} (kernel {} at line {}, i = {}): ", current->index,
                                current->kernel->name, current->step->line, current->iteration)
                  : "";
    if (gpu->kernel_fault()) throw ptx::KernelError(where + gpu->error());
    throw TimingError(where + gpu->error());
  }
  if (!finished) {
    throw TimingError("the simulation ran out of events before kernel " + current->kernel->name +
                      " finished:" + gpu->describe_state());
  }

  // Totals: the core's counters summed over launches, the memory system's as they stand at the end.
  nlohmann::json doc = gpu->stats_json();
  nlohmann::json core;
  double utilization_weighted = 0;
  for (const nlohmann::json& l : result.launches) {
    nlohmann::json part = l;
    for (const char* key :
         {"lsu", "l1", "interconnect", "l2", "dram", "write_back", "per_branch", "step", "kernel", "line",
          "iteration", "grid", "block", "shared_bytes", "start_cycle", "cycles"})
      part.erase(key);
    add_counts(core, part);
    utilization_weighted +=
        l["simd_utilization"].get<double>() * double(l["warp_instructions"].get<uint64_t>());
  }
  for (const auto& [key, value] : core.items()) doc[key] = value;
  const uint64_t cycles = gpu->cycles();
  const uint64_t warp = doc["warp_instructions"].get<uint64_t>();
  doc["cycles"] = cycles;
  doc["ipc"] = ratio(warp, cycles);
  doc["thread_ipc"] = ratio(doc["thread_instructions"].get<uint64_t>(), cycles);
  doc["simd_utilization"] = warp ? utilization_weighted / double(warp) : 0.0;
  doc["divergent_fraction"] =
      ratio(doc["divergent_branches"].get<uint64_t>(), doc["branches"].get<uint64_t>());
  nlohmann::json& memory = doc["memory"];
  memory["requests_per_memory_instruction"] =
      ratio(memory["global_requests"].get<uint64_t>() + memory["local_requests"].get<uint64_t>(),
            memory["global_instructions"].get<uint64_t>() + memory["local_instructions"].get<uint64_t>());
  nlohmann::json& compaction = doc["compaction"];
  compaction["compaction_rate"] =
      ratio(compaction["compacted_paths"].get<uint64_t>(), compaction["paths"].get<uint64_t>());
  const launch::SequenceBranchTotals branches = launch::sum_launch_branches(result.launches);
  doc["per_branch"] = branches.per_branch;
  nlohmann::json head = {{"kernel", branches.kernel_list},
                         {"launch", session.launch().path.filename().string()},
                         {"grid", nullptr},
                         {"block", nullptr},
                         {"shared_bytes", nullptr},
                         {"launch_count", result.launches.size()}};
  head.update(doc);
  head["launches"] = result.launches;
  head["host"] = {{"wall_seconds", wall},
                  {"thread_instructions_per_second", double(used) / (wall > 0 ? wall : 1e-9)},
                  {"cycles_per_second", double(cycles) / (wall > 0 ? wall : 1e-9)}};
  session.finish(result);
  return head;
}

}  // namespace simtlm::hw
