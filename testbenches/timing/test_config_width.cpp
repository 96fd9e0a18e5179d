// Every parameter of the configuration schema at its documented minimum and maximum reaches the timing
// model's parameters unchanged (issue 11, defect 7: l2.size_bytes was cut to 32 bits on its way to the L2).
// A parameter added to the schema without a row here fails the test: say where its value goes.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hw/sc/timing_params.hpp"
#include "models/config/machine_config.hpp"
#include "sim/herding_run.hpp"

namespace simtlm::hw {
namespace {

using config::MachineConfig;
using config::ParamSpec;

struct Route {
  Route() = default;
  template <class F>
  Route(F get, std::map<std::string, std::string> min_with = {},
        std::map<std::string, std::string> max_with = {})
      : value(get), at_min(std::move(min_with)), at_max(std::move(max_with)) {}
  std::function<double(const GpuParams&)> value;  // the parameter as the timing model received it
  // Other parameters the extreme needs to form a consistent machine (e.g. l1.line_bytes 1024 needs L2
  // lines as large).
  std::map<std::string, std::string> at_min, at_max;
};

const std::map<std::string, Route>& routes() {
  static const std::map<std::string, Route> table = [] {
    std::map<std::string, Route> r;
    auto sm = [](auto field) { return [field](const GpuParams& g) { return double(field(g.sm)); }; };
    r["gpu.sms"] = {[](const GpuParams& g) { return double(g.sms); }};
    r["gpu.clock_mhz"] = {[](const GpuParams& g) { return g.clock_mhz; }};
    r["gpu.max_threads_per_sm"] = {sm([](const SmParams& s) { return s.max_threads; })};
    r["gpu.max_warps_per_sm"] = {sm([](const SmParams& s) { return s.max_warps; })};
    r["gpu.max_ctas_per_sm"] = {sm([](const SmParams& s) { return s.max_ctas; })};
    r["gpu.registers_per_sm"] = {sm([](const SmParams& s) { return s.registers; })};
    r["gpu.registers_per_thread"] = {sm([](const SmParams& s) { return s.registers_per_thread; })};
    r["gpu.shared_bytes_per_sm"] = {sm([](const SmParams& s) { return s.shared_bytes; })};
    r["core.warp_size"] = {[](const GpuParams&) { return 32.0; }};  // min = max = 32: PTX fixes it
    r["core.simd_width"] = {sm([](const SmParams& s) { return s.simd_width; })};
    r["core.issue_width"] = {sm([](const SmParams& s) { return s.issue_width; })};
    r["core.two_level_active_warps"] = {sm([](const SmParams& s) { return s.active_set; })};
    const char* pipes[] = {"int", "float", "double", "sfu", "memory", "branch"};
    for (size_t k = 0; k < kOpClasses; ++k) {
      const std::string base = std::string("core.pipelines.") + pipes[k] + ".";
      r[base + "latency"] = {sm([k](const SmParams& s) { return s.pipes[k].latency; })};
      r[base + "initiation_interval"] = {
          sm([k](const SmParams& s) { return s.pipes[k].initiation_interval; })};
    }
    r["core.dcache_banks"] = {sm([](const SmParams& s) { return s.dcache_banks; })};
    r["wpu.width"] = {sm([](const SmParams& s) { return s.divergence.wpu.width; })};
    r["wpu.depth"] = {sm([](const SmParams& s) { return s.divergence.wpu.depth; })};
    r["wpu.tasks_per_interval"] = {sm([](const SmParams& s) { return s.divergence.wpu.tasks_per_interval; })};
    r["wpu.min_intervals"] = {sm([](const SmParams& s) { return s.divergence.wpu.min_intervals; })};
    r["wpu.fallback_width"] = {sm([](const SmParams& s) { return s.divergence.wpu.fallback_width; })};
    r["wpu.fallback_depth"] = {sm([](const SmParams& s) { return s.divergence.wpu.fallback_depth; })};
    r["wpu.reconfigure_cycles"] = {sm([](const SmParams& s) { return s.divergence.wpu.reconfigure_cycles; })};
    r["wpu.min_gain"] = {sm([](const SmParams& s) { return s.divergence.wpu.min_gain; })};
    r["wpu.stack_rows"] = {sm([](const SmParams& s) { return s.divergence.wpu.stack_rows; })};
    r["stack.entries"] = {sm([](const SmParams& s) { return s.divergence.stack.onchip_entries; }),
                          {{"stack.spill_chunk", "1"}}};
    r["stack.spill_chunk"] = {sm([](const SmParams& s) { return s.divergence.stack.chunk_entries; }),
                              {},
                              {{"stack.entries", "64"}}};
    r["stack.cycles.divergent_branch"] = {
        sm([](const SmParams& s) { return s.divergence.stack.timing.divergent_branch; })};
    r["stack.cycles.pop"] = {sm([](const SmParams& s) { return s.divergence.stack.timing.pop; })};
    r["stack.cycles.spill"] = {sm([](const SmParams& s) { return s.divergence.stack.timing.spill; })};
    r["stack.cycles.fill"] = {sm([](const SmParams& s) { return s.divergence.stack.timing.fill; })};
    r["compaction.seed"] = {sm([](const SmParams& s) { return s.divergence.permutation_seed; })};
    r["compaction.formation_cycles"] = {sm([](const SmParams& s) { return s.divergence.formation_cycles; })};
    r["compaction.capri_table_entries"] = {
        sm([](const SmParams& s) { return s.divergence.capri_table_entries; })};
    r["lsu.shared_latency"] = {sm([](const SmParams& s) { return s.shared_latency; })};
    r["lsu.shared_banks"] = {sm([](const SmParams& s) { return s.shared_banks; })};
    r["lsu.max_loads"] = {sm([](const SmParams& s) { return s.lsu.loads; })};
    r["lsu.store_buffer"] = {sm([](const SmParams& s) { return s.lsu.stores; })};
    r["lsu.atomic_queue"] = {sm([](const SmParams& s) { return s.lsu.atomics; })};
    const std::map<std::string, std::string> wide_lines = {{"l1.line_bytes", "1024"},
                                                           {"l2.line_bytes", "1024"}};
    r["l1.size_bytes"] = {[](const GpuParams& g) { return double(g.memory.l1.size_bytes); }};
    r["l1.assoc"] = {[](const GpuParams& g) { return double(g.memory.l1.assoc); }};
    r["l1.line_bytes"] = {
        [](const GpuParams& g) { return double(g.memory.l1.line_bytes); }, {}, {{"l2.line_bytes", "1024"}}};
    r["l1.sector_bytes"] = {
        [](const GpuParams& g) { return double(g.memory.l1.sector_bytes); }, {}, wide_lines};
    r["l1.banks"] = {[](const GpuParams& g) { return double(g.memory.l1.banks); }};
    r["l1.hit_latency"] = {[](const GpuParams& g) { return double(g.memory.l1.hit_latency); }};
    r["l1.mshrs"] = {[](const GpuParams& g) { return double(g.memory.l1.mshrs); }};
    r["l1.mshr_merge"] = {[](const GpuParams& g) { return double(g.memory.l1.mshr_max_merge); }};
    r["l1.write_buffer"] = {[](const GpuParams& g) { return double(g.memory.l1.write_buffer); }};
    r["l1.disabled_fraction"] = {[](const GpuParams& g) { return g.memory.l1_disabled_fraction; }};
    r["l1.pollution"] = {[](const GpuParams& g) { return g.memory.l1_pollution; }};
    r["l1.pollution_seed"] = {[](const GpuParams& g) { return double(g.memory.l1_pollution_seed); }};
    r["interconnect.latency"] = {[](const GpuParams& g) { return double(g.memory.xbar.latency); }};
    r["interconnect.bytes_per_cycle"] = {
        [](const GpuParams& g) { return double(g.memory.xbar.bytes_per_cycle); }};
    r["interconnect.queue_depth"] = {[](const GpuParams& g) { return double(g.memory.xbar.bank_queue); }};
    r["l2.banks"] = {[](const GpuParams& g) { return double(g.memory.l2_banks); },
                     {{"dram.channels", "1"}},
                     {{"l2.size_bytes", "268435456"}}};
    // The L2 is built per bank: the total is what all banks hold.
    r["l2.size_bytes"] = {
        [](const GpuParams& g) { return double(uint64_t(g.memory.l2.size_bytes) * g.memory.l2_banks); }};
    r["l2.assoc"] = {[](const GpuParams& g) { return double(g.memory.l2.assoc); }};
    r["l2.line_bytes"] = {[](const GpuParams& g) { return double(g.memory.l2.line_bytes); },
                          {{"l1.line_bytes", "32"}}};
    r["l2.latency"] = {[](const GpuParams& g) { return double(g.memory.l2.hit_latency); }};
    r["l2.mshrs"] = {[](const GpuParams& g) { return double(g.memory.l2.mshrs); }};
    r["l2.mshr_merge"] = {[](const GpuParams& g) { return double(g.memory.l2.mshr_max_merge); }};
    r["l2.write_buffer"] = {[](const GpuParams& g) { return double(g.memory.l2.write_buffer); }};
    r["l2.atomic_cycles"] = {[](const GpuParams& g) { return double(g.memory.l2.atomic_cycles); }};
    r["dram.fixed_latency"] = {[](const GpuParams& g) { return double(g.memory.dram.fixed_latency); }};
    r["dram.channels"] = {[](const GpuParams& g) { return double(g.memory.dram.channels); },
                          {},
                          {{"l2.banks", "64"}, {"l2.size_bytes", "16777216"}}};
    r["dram.banks"] = {[](const GpuParams& g) { return double(g.memory.dram.banks); }};
    r["dram.row_bytes"] = {[](const GpuParams& g) { return double(g.memory.dram.row_bytes); }};
    r["dram.queue_depth"] = {[](const GpuParams& g) { return double(g.memory.dram.queue_depth); }};
    r["dram.tCL"] = {[](const GpuParams& g) { return double(g.memory.dram.tCL); }};
    r["dram.tRCD"] = {[](const GpuParams& g) { return double(g.memory.dram.tRCD); }};
    r["dram.tRP"] = {[](const GpuParams& g) { return double(g.memory.dram.tRP); }};
    r["dram.tRAS"] = {[](const GpuParams& g) { return double(g.memory.dram.tRAS); }};
    r["dram.tCCD"] = {[](const GpuParams& g) { return double(g.memory.dram.tCCD); }};
    r["dram.burst_length"] = {[](const GpuParams& g) { return double(g.memory.dram.burst_length); }};
    r["dram.bus_width_bytes"] = {[](const GpuParams& g) { return double(g.memory.dram.bus_bytes); }};
    r["dram.clock_ratio"] = {[](const GpuParams& g) { return g.memory.dram.clock_ratio; }};
    r["run.watchdog_cycles"] = {[](const GpuParams& g) { return double(g.watchdog_cycles); }};
    r["run.max_cycles"] = {[](const GpuParams& g) { return double(g.max_cycles); }};
    return r;
  }();
  return table;
}

// Parameters read outside the timing model's GpuParams, each through its reader.
const std::map<std::string, std::function<double(const MachineConfig&)>>& readers_outside_timing() {
  static const std::map<std::string, std::function<double(const MachineConfig&)>> table = {
      {"lsu.herding_selector_rounds",
       [](const MachineConfig& c) {  // the data-herding run's selector (sim::HerdingRun::use_machine)
         launch::HerdingSpec spec;
         spec.buffers = {"any"};
         sim::HerdingRun herding(spec, {});
         herding.use_machine(c);
         return double(herding.herding().selector_rounds());
       }},
  };
  return table;
}

// Choices and flags select behaviour rather than carry a number: each choice must build a machine, and the
// getter tells the choices apart.
const std::map<std::string, std::function<int(const GpuParams&)>>& selectors() {
  static const std::map<std::string, std::function<int(const GpuParams&)>> table = {
      {"core.scheduler", [](const GpuParams& g) { return int(g.sm.scheduler); }},
      {"stack.discipline", [](const GpuParams& g) { return int(g.sm.divergence.stack.discipline); }},
      {"stack.preset",
       [](const GpuParams& g) {
         const StackTiming& t = g.sm.divergence.stack.timing;
         return int(t.divergent_branch + 97 * t.pop + 9973 * t.spill + 7 * t.fill);
       }},
      {"compaction.mechanism", [](const GpuParams& g) { return int(g.sm.divergence.mechanism()); }},
      {"compaction.permutation", [](const GpuParams& g) { return int(g.sm.divergence.permutation); }},
      {"compaction.capri_miss", [](const GpuParams& g) { return int(g.sm.divergence.capri_miss_adequate); }},
      {"compaction.capri_clear",
       [](const GpuParams& g) { return int(g.sm.divergence.capri_clear_per_kernel); }},
      {"compaction.slp_disable", [](const GpuParams&) { return 0; }},  // checked in test_timing_compaction
      {"core.switch_on_memory", [](const GpuParams& g) { return int(g.sm.switch_on_memory); }},
      {"run.tlm_check", [](const GpuParams& g) { return int(g.memory.tlm_check); }},
      {"wpu.task_mode", [](const GpuParams& g) { return int(g.sm.divergence.unit); }},
      {"divergence.unit", [](const GpuParams& g) { return int(g.sm.divergence.unit); }},
      {"wpu.policy", [](const GpuParams& g) { return int(g.sm.divergence.wpu.policy); }},
      {"wpu.strategy", [](const GpuParams& g) { return int(g.sm.divergence.wpu.strategy); }},
      {"wpu.stride", [](const GpuParams& g) { return int(g.sm.divergence.wpu.stride); }},
      {"lsu.segment_bytes", [](const GpuParams& g) { return int(g.sm.segment_bytes); }},
      {"lsu.coalescing", [](const GpuParams& g) { return int(g.sm.coalescing); }},
      {"l1.enabled", [](const GpuParams& g) { return int(g.memory.l1_enabled); }},
      {"l1.write_policy", [](const GpuParams& g) { return int(g.memory.l1.write_policy); }},
      {"l2.enabled", [](const GpuParams& g) { return int(g.memory.l2_enabled); }},
      {"dram.mode", [](const GpuParams& g) { return int(g.memory.dram.fixed_latency_mode); }},
      {"dram.scheduler", [](const GpuParams& g) { return int(g.memory.dram.in_order); }},
      {"dram.preset", [](const GpuParams& g) { return int(g.memory.dram.tRAS); }},
  };
  return table;
}

std::string text_of(const ParamSpec& spec, double v) {
  if (spec.kind == ParamSpec::Kind::unsigned_int) return std::to_string(uint64_t(v));
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

GpuParams built(const std::string& path, const std::string& value,
                const std::map<std::string, std::string>& with) {
  MachineConfig c;
  c.set("dram.preset", "none", "test");  // the preset would replace the DRAM timing parameters
  for (const auto& [p, v] : with) c.set(p, v, "test");
  c.set(path, value, "test");
  return gpu_params(c);
}

TEST(ConfigWidth, EveryNumericParameterReachesTheTimingModelAtItsMinimumAndMaximum) {
  for (const ParamSpec& spec : config::schema()) {
    if (spec.kind != ParamSpec::Kind::unsigned_int && spec.kind != ParamSpec::Kind::real) continue;
    if (const auto reader = readers_outside_timing().find(spec.path);
        reader != readers_outside_timing().end()) {
      for (const double v : {spec.min, spec.max}) {
        MachineConfig c;
        c.set(spec.path, text_of(spec, v), "test");
        EXPECT_EQ(reader->second(c), v) << spec.path;
      }
      continue;
    }
    const auto route = routes().find(spec.path);
    if (route == routes().end()) {
      ADD_FAILURE() << spec.path << ": no row in routes(): where does its value go?";
      continue;
    }
    for (const bool at_max : {false, true}) {
      const double v = at_max ? spec.max : spec.min;
      SCOPED_TRACE(std::string(spec.path) + " = " + text_of(spec, v));
      try {
        const GpuParams g =
            built(spec.path, text_of(spec, v), at_max ? route->second.at_max : route->second.at_min);
        EXPECT_EQ(route->second.value(g), v);
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
}

TEST(ConfigWidth, EveryChoiceBuildsAndTheChoicesDiffer) {
  for (const ParamSpec& spec : config::schema()) {
    if (spec.kind != ParamSpec::Kind::choice && spec.kind != ParamSpec::Kind::boolean) continue;
    const auto selector = selectors().find(spec.path);
    if (selector == selectors().end()) {
      ADD_FAILURE() << spec.path << ": no row in selectors()";
      continue;
    }
    std::vector<std::string> choices(spec.choices.begin(), spec.choices.end());
    if (spec.kind == ParamSpec::Kind::boolean) choices = {"false", "true"};
    std::set<int> seen;
    for (const std::string& choice : choices) {
      SCOPED_TRACE(std::string(spec.path) + " = " + choice);
      std::map<std::string, std::string> with;
      // emplace, not operator[] = "literal": GCC 12 warns falsely on the latter here (-Wrestrict).
      if (spec.path == std::string("stack.preset")) with.emplace("stack.cycles.divergent_branch", "0");
      // Timings of its own only without the preset, which refuses them (it fixes the DRAM timings).
      if (spec.path == std::string("dram.preset") && choice == "none") {
        with.emplace("dram.tRAS", "1000");  // distinct from the GDDR5 preset's
      }
      try {
        seen.insert(selector->second(built(spec.path, choice, with)));
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
    if (spec.path != std::string("compaction.slp_disable")) {
      EXPECT_EQ(seen.size(), choices.size()) << spec.path;
    }
  }
}

}  // namespace
}  // namespace simtlm::hw

namespace simtlm::hw {
namespace {

// Every parameter has one default (issue 27): the parameter structs' own initializers equal what the schema's
// defaults build, so code that default-constructs GpuParams (tests, a library user) gets the machine
// docs/configs.md describes.
TEST(ConfigWidth, EveryStructDefaultIsTheSchemaDefault) {
  const GpuParams from_struct;
  const GpuParams from_schema = gpu_params(MachineConfig());
  for (const ParamSpec& spec : config::schema()) {
    SCOPED_TRACE(spec.path);
    if (const auto route = routes().find(spec.path); route != routes().end()) {
      EXPECT_EQ(route->second.value(from_struct), route->second.value(from_schema))
          << spec.path << ": the struct's default differs from the schema's " << spec.fallback;
    } else if (const auto selector = selectors().find(spec.path); selector != selectors().end()) {
      EXPECT_EQ(selector->second(from_struct), selector->second(from_schema))
          << spec.path << ": the struct's default differs from the schema's " << spec.fallback;
    }
  }
}

}  // namespace
}  // namespace simtlm::hw
