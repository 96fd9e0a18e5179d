// The waveform of --trace-vcd (models/mem/waves.hpp, docs/timing-model.md "Waveforms"): scopes follow the
// module hierarchy; gpu.clk has the core's period and runs until the model is idle; issue_valid is high in
// exactly the cycles the warp trace lists; every link's request and response pulses follow a miss down the
// hierarchy and its answer back up; the traced queues are the ones the statistics report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hw/sc/gpu.hpp"
#include "hw/sc/timing_params.hpp"
#include "hw/units/select/unit_set.hpp"
#include "models/launch/session.hpp"
#include "models/mem/waves.hpp"

namespace simtlm::hw::test::waveform {
namespace {

// A VCD file read back: each variable's full dotted path (without SystemC's top scope) and its changes.
struct Vcd {
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;  // (time in ps, value)

  explicit Vcd(const std::string& path) {
    std::ifstream in(path);
    std::map<std::string, std::vector<std::string>> names;  // by identifier
    std::vector<std::string> scope;
    uint64_t time = 0;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string w;
      if (!(words >> w)) continue;
      if (w == "$scope") {
        std::string kind, name;
        words >> kind >> name;
        scope.push_back(name);
      } else if (w == "$upscope") {
        scope.pop_back();
      } else if (w == "$var") {
        std::string kind, width, id, name, path;
        words >> kind >> width >> id >> name;
        for (size_t i = 1; i < scope.size(); ++i) path += scope[i] + ".";
        names[id].push_back(path + name);
      } else if (w[0] == '#') {
        time = std::stoull(w.substr(1));
      } else if (w[0] == 'b') {
        std::string id;
        words >> id;
        for (const auto& n : names[id]) changes[n].emplace_back(time, std::stoull(w.substr(1), nullptr, 2));
      } else if (w[0] == '0' || w[0] == '1') {
        for (const auto& n : names[w.substr(1)]) changes[n].emplace_back(time, w[0] - '0');
      }
    }
  }
  uint64_t at(const std::string& name, uint64_t t) const {
    uint64_t v = 0;
    for (const auto& [when, value] : changes.at(name)) {
      if (when > t) break;
      v = value;
    }
    return v;
  }
  uint64_t max(const std::string& name) const {
    uint64_t m = 0;
    for (const auto& [when, value] : changes.at(name)) m = std::max(m, value);
    return m;
  }
  // Times the signal goes from 0 to 1.
  std::vector<uint64_t> rises(const std::string& name) const {
    std::vector<uint64_t> out;
    uint64_t last = 0;
    for (const auto& [when, value] : changes.at(name)) {
      if (value && !last) out.push_back(when);
      last = value;
    }
    return out;
  }
};

// stream_add (c = a + b) of `threads` threads on configs/default.yaml (2 SMs, 2 L2 banks, 2 channels), traced
// into a VCD; the warp trace's (SM, cycle) pairs recorded too.
struct TracedRun {
  // Per process: ctest runs the tests (and the sanitizer tree's) side by side.
  std::string stem = testing::TempDir() + "waveform_" + std::to_string(getpid());
  std::string launch_path = stem + ".yaml";
  std::string vcd_stem = stem;
  std::unique_ptr<launch::Session> session;
  std::unique_ptr<launch::DeviceImage> image;
  GpuParams params = gpu_params(config::MachineConfig::load(SIMTLM_SOURCE_DIR "/configs/default.yaml"));
  std::unique_ptr<TimingKernel> kernel;
  uint64_t unit_cycle = 0;
  UnitSet units;
  std::unique_ptr<Gpu> gpu;
  std::set<std::pair<uint32_t, uint64_t>> issues;  // (SM, cycle) from the warp trace
  nlohmann::json stats;
  uint64_t period_ps = 0;

  explicit TracedRun(uint32_t threads) {
    std::ofstream(launch_path) << "ptx: " SIMTLM_SOURCE_DIR "/testbenches/timing/stream_add.ptx\n"
                               << "kernel: vector_add\ngrid: [" << (threads + 255) / 256 << ", 1, 1]\n"
                               << "block: [" << std::min(threads, 256u) << ", 1, 1]\nseed: 3\nbuffers:\n"
                               << "  a: {type: f32, count: " << threads
                               << ", init: {random: uniform, min: -1.0, max: 1.0}}\n"
                               << "  b: {type: f32, count: " << threads
                               << ", init: {random: uniform, min: -1.0, max: 1.0}}\n"
                               << "  c: {type: f32, count: " << threads << ", init: zeros}\n"
                               << "params: [a, b, c, " << threads << "]\noutputs: [c]\n";
    session = std::make_unique<launch::Session>(launch::load_launch(launch_path), launch::SessionOptions{});
    image = session->prepare_device();
    image->context.nsm = params.sms;
    kernel = std::make_unique<TimingKernel>(image->context, params.sm.registers_per_thread,
                                            session->instruction_budget());
    units = make_unit_set({}, params.sm.simd_width, {}, &unit_cycle);
    SmUnits sm_units;
    sm_units.majority = units.majority.get();
    gpu = std::make_unique<Gpu>("gpu", params, *kernel, sm_units);
    for (auto& sm : gpu->sms()) {
      sm->trace = [this](const std::string& line) {  // "CYCLE sm S ..."
        std::istringstream words(line);
        uint64_t cycle = 0;
        std::string sm_word;
        uint32_t id = 0;
        words >> cycle >> sm_word >> id;
        issues.emplace(id, cycle);
      };
    }
    sc_core::sc_trace_file* file = sc_core::sc_create_vcd_trace_file(vcd_stem.c_str());
    file->set_time_unit(1, sc_core::SC_PS);
    {
      mem::Waves waves(file, params.sm.clock, "gpu.clk");
      gpu->trace_waves(waves);
      sc_core::sc_start();
      sc_core::sc_close_vcd_trace_file(file);
    }
    EXPECT_TRUE(gpu->finished()) << gpu->error();
    stats = gpu->stats_json();
    period_ps = params.sm.clock.value() / sc_core::sc_time(1, sc_core::SC_PS).value();
  }
  Vcd vcd() const { return Vcd(vcd_stem + ".vcd"); }
  ~TracedRun() {
    std::remove(launch_path.c_str());
    std::remove((vcd_stem + ".vcd").c_str());
  }
};

TEST(Waveform, ScopesFollowTheModuleHierarchy) {
  const TracedRun run(512);
  const Vcd vcd = run.vcd();
  for (const char* name :
       {"gpu.clk", "gpu.sm0.issue_valid", "gpu.sm0.issue_mask", "gpu.sm1.warp3.active_mask",
        "gpu.sm1.warp3.stack_depth", "gpu.sm0.lsu.loads", "gpu.sm0.lsu.out.req_valid",
        "gpu.memory.l1_1.mshrs", "gpu.memory.l1_0.write_buffer", "gpu.memory.l1_0.out.resp_valid",
        "gpu.memory.xbar.bank1_queue", "gpu.memory.xbar.out_1.req_valid", "gpu.memory.l2_1.out.waiting",
        "gpu.memory.dram1.queue"})
    EXPECT_TRUE(vcd.changes.count(name)) << name;
  for (const auto& [name, changes] : vcd.changes) EXPECT_TRUE(name.starts_with("gpu.")) << name;
}

TEST(Waveform, TheClockHasTheCorePeriodAndRunsUntilTheModelIsIdle) {
  const TracedRun run(512);
  const std::vector<uint64_t> rises = run.vcd().rises("gpu.clk");
  ASSERT_EQ(run.period_ps, 1000u);  // 1 GHz
  for (size_t k = 0; k < rises.size(); ++k) ASSERT_EQ(rises[k], k * run.period_ps) << k;
  // The kernel's cycles and the write-back after it are covered: the last rising edge starts the cycle the
  // write-back's last event falls in (write_back_end_cycle rounds that event's time up).
  EXPECT_GT(rises.back(), run.gpu->cycles() * run.period_ps);
  EXPECT_GE(rises.back() + run.period_ps, run.gpu->write_back_end_cycle() * run.period_ps);
  EXPECT_LE(rises.back(), run.gpu->write_back_end_cycle() * run.period_ps);
}

TEST(Waveform, IssueValidIsHighInExactlyTheCyclesTheWarpTraceLists) {
  const TracedRun run(512);
  const Vcd vcd = run.vcd();
  std::set<std::pair<uint32_t, uint64_t>> high;
  for (uint64_t t : vcd.rises("gpu.clk")) {
    for (uint32_t sm = 0; sm < run.params.sms; ++sm)
      if (vcd.at("gpu.sm" + std::to_string(sm) + ".issue_valid", t)) high.emplace(sm, t / run.period_ps);
  }
  EXPECT_EQ(high, run.issues);
  EXPECT_EQ(high.size(), run.stats["warp_instructions"].get<uint64_t>());  // one issue per SM and cycle
}

// One thread: a's load misses in the L1, crosses the crossbar, misses in the L2 and reaches DRAM; each
// link's first request pulse comes after the one above it, and the first responses come back in reverse.
TEST(Waveform, RequestAndResponsePulsesFollowAMissDownAndItsAnswerUp) {
  const TracedRun run(1);
  const Vcd vcd = run.vcd();
  auto first = [&](const std::vector<std::string>& names) {
    uint64_t t = ~uint64_t{0};
    for (const auto& n : names)
      if (!vcd.rises(n).empty()) t = std::min(t, vcd.rises(n).front());
    return t;
  };
  auto links = [](const std::string& signal) {
    return std::vector<std::vector<std::string>>{
        {"gpu.sm0.lsu.out." + signal},
        {"gpu.memory.l1_0.out." + signal},
        {"gpu.memory.xbar.out_0." + signal, "gpu.memory.xbar.out_1." + signal},
        {"gpu.memory.l2_0.out." + signal, "gpu.memory.l2_1.out." + signal}};
  };
  std::vector<uint64_t> req, resp;
  for (const auto& link : links("req_valid")) req.push_back(first(link));
  for (const auto& link : links("resp_valid")) resp.push_back(first(link));
  for (size_t i = 1; i < req.size(); ++i) {
    EXPECT_LT(req[i - 1], req[i]) << i;
    EXPECT_GT(resp[i - 1], resp[i]) << i;
  }
  EXPECT_LT(req.back(), resp.back());
  // SM 1 has no CTA: its link never carries anything.
  EXPECT_TRUE(vcd.rises("gpu.sm1.lsu.out.req_valid").empty());
  EXPECT_TRUE(vcd.rises("gpu.sm1.issue_valid").empty());
}

void expect_peak(uint64_t traced, const nlohmann::json& counted) {
  const uint64_t max = counted.get<uint64_t>();
  EXPECT_LE(traced, max);
  EXPECT_EQ(traced > 0, max > 0) << traced << " of " << max;
}

// A VCD holds each time step's last value, so a queue that grows and shrinks within one time step shows
// less than its statistics' maximum; it never shows more, and it shows traffic wherever they count some.
TEST(Waveform, TheTracedQueuesAreTheOnesTheStatisticsCount) {
  const TracedRun run(4096);
  const Vcd vcd = run.vcd();
  const nlohmann::json& s = run.stats;
  for (uint32_t i = 0; i < run.params.sms; ++i) {
    const std::string sm = "gpu.sm" + std::to_string(i), l1 = "gpu.memory.l1_" + std::to_string(i);
    expect_peak(vcd.max(sm + ".lsu.loads"), s["lsu"]["per_sm"][i]["loads_max"]);
    expect_peak(vcd.max(sm + ".lsu.stores"), s["lsu"]["per_sm"][i]["stores_max"]);
    expect_peak(vcd.max(l1 + ".mshrs"), s["l1"]["per_sm"][i]["mshr_max"]);
  }
  for (uint32_t b = 0; b < 2; ++b) {
    const std::string l2 = "gpu.memory.l2_" + std::to_string(b), dram = "gpu.memory.dram" + std::to_string(b);
    expect_peak(vcd.max(l2 + ".mshrs"), s["l2"]["per_bank"][b]["mshr_max"]);
    expect_peak(vcd.max(dram + ".queue"), s["dram"]["per_channel"][b]["queue_max"]);
    expect_peak(vcd.max("gpu.memory.xbar.bank" + std::to_string(b) + "_queue"),
                s["interconnect"]["bank_queue_max"][b]);
  }
  EXPECT_GT(vcd.max("gpu.memory.dram0.queue"), 1u);  // the run loads the memory system
}

}  // namespace
}  // namespace simtlm::hw::test::waveform
