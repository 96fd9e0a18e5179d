// SystemC conventions (docs/systemc.md): a run that stops early issues an SC_ERROR sc_report whose message
// type starts with "simtlm/" and whose message names the kernel, so a user's sc_report_handler sees it; with
// SystemC's default actions it is thrown out of sc_start; hw::report::ReportActions sets and restores the
// actions. Every object of an elaborated Gpu has a unique name and every process says it is one.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hw/sc/gpu.hpp"
#include "hw/sc/reports.hpp"
#include "hw/sc/timing_params.hpp"
#include "hw/units/select/unit_set.hpp"
#include "models/launch/session.hpp"

namespace simtlm::hw::test::sc_conventions {
namespace {

// A Gpu running stream_add whose DRAM answers every read of buffer `a` with an address error (when `faulty`).
struct Bench {
  launch::Session session{launch::load_launch(SIMTLM_SOURCE_DIR "/testbenches/timing/stream_add.yaml"), {}};
  std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  GpuParams params = gpu_params(config::MachineConfig());
  std::unique_ptr<TimingKernel> kernel;
  uint64_t unit_cycle = 0;
  UnitSet units;
  std::unique_ptr<Gpu> gpu;
  explicit Bench(bool faulty) {
    if (faulty) {
      params.memory.dram.error_base = image->addresses.at("a");
      params.memory.dram.error_bytes = 40000;
    }
    image->context.nsm = params.sms;
    kernel = std::make_unique<TimingKernel>(image->context, params.sm.registers_per_thread,
                                            session.instruction_budget());
    units = make_unit_set({}, params.sm.simd_width, {}, &unit_cycle);
    SmUnits sm_units;
    sm_units.majority = units.majority.get();
    gpu = std::make_unique<Gpu>("gpu", params, *kernel, sm_units);
  }
};

std::vector<std::pair<std::string, std::string>> seen;  // (type, message) of the SC_ERROR reports
void recording_handler(const sc_core::sc_report& r, const sc_core::sc_actions&) {
  if (r.get_severity() == sc_core::SC_ERROR) seen.emplace_back(r.get_msg_type(), r.get_msg());
}

TEST(ScConventions, AUserHandlerSeesAMemoryErrorNamingTheKernel) {
  Bench bench(true);
  sc_core::sc_report_handler::set_handler(recording_handler);  // records; neither throws nor stops
  sc_core::sc_start();
  sc_core::sc_report_handler::set_handler(nullptr);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, report::kMemoryError);
  EXPECT_TRUE(seen[0].first.starts_with("simtlm/"));
  EXPECT_EQ(seen[0].second, "kernel vector_add: " + bench.gpu->error());
  EXPECT_NE(seen[0].second.find("TLM_ADDRESS_ERROR_RESPONSE answered by gpu.memory.dram"), std::string::npos);
}

TEST(ScConventions, WithSystemCsDefaultActionsTheReportIsThrownOutOfScStart) {
  Bench bench(true);
  try {
    sc_core::sc_start();
    FAIL() << "no sc_report thrown";
  } catch (const sc_core::sc_report& r) {
    EXPECT_STREQ(r.get_msg_type(), report::kMemoryError);
    EXPECT_NE(std::string(r.get_msg()).find("kernel vector_add: memory error"), std::string::npos)
        << r.get_msg();
  }
  EXPECT_TRUE(bench.gpu->kernel_fault());
}

TEST(ScConventions, ReportActionsRestoreThePreviousActions) {
  using sc_core::sc_report_handler;
  sc_report_handler::set_actions(report::kStuck, sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_THROW);
  const sc_core::sc_actions info = sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DISPLAY);
  {
    const report::ReportActions actions;
    EXPECT_EQ(sc_report_handler::set_actions(report::kStuck, sc_core::SC_ERROR, sc_core::SC_LOG),
              sc_core::SC_LOG);
    EXPECT_EQ(sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING),
              sc_core::SC_DO_NOTHING);
  }
  EXPECT_EQ(sc_report_handler::set_actions(report::kStuck, sc_core::SC_ERROR),
            sc_core::SC_DISPLAY | sc_core::SC_THROW);
  EXPECT_EQ(sc_report_handler::set_actions(sc_core::SC_INFO, info), sc_core::SC_DISPLAY);
}

void walk(const std::vector<sc_core::sc_object*>& objects, std::vector<sc_core::sc_object*>& all) {
  for (sc_core::sc_object* o : objects) {
    all.push_back(o);
    walk(o->get_child_objects(), all);
  }
}

bool is_process(const sc_core::sc_object* o) {
  const std::string kind = o->kind();
  return kind == "sc_method_process" || kind == "sc_thread_process" || kind == "sc_cthread_process";
}

TEST(ScConventions, EveryNameIsUniqueAndEveryProcessSaysItIsOne) {
  Bench bench(false);
  std::vector<sc_core::sc_object*> all;
  walk(sc_core::sc_get_top_level_objects(), all);
  std::set<std::string> names;
  size_t processes = 0;
  for (const sc_core::sc_object* o : all) {
    const std::string name = o->name();
    EXPECT_TRUE(names.insert(name).second) << "two objects named " << name;
    if (!is_process(o)) continue;
    ++processes;
    EXPECT_TRUE(name.ends_with("_method") || name.ends_with("_thread") || name.ends_with("_timeline"))
        << "process " << name << " (" << o->kind() << ") does not end in _method, _thread or _timeline";
  }
  EXPECT_GT(processes, 10u);
  for (const char* expected : {"gpu.start_method", "gpu.watchdog_method", "gpu.sm0.cycle_method",
                               "gpu.memory.xbar.in_port_0_timeline", "gpu.memory.xbar.out_port_0_timeline",
                               "gpu.memory.l1_0", "gpu.memory.dram0"})
    EXPECT_TRUE(names.count(expected)) << expected;
}

}  // namespace
}  // namespace simtlm::hw::test::sc_conventions
