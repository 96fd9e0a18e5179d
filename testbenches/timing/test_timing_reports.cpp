// The run's errors as sc_reports (docs/systemc.md, "SystemC conventions"): a handler the user installed
// before the run sees one SC_ERROR report of a "simtlm/" type whose message is "kernel NAME: " and the error
// the command-line tool prints, unchanged. The run happens in a forked child, which inherits the handler; the
// handler appends each report to a file the test reads afterwards.
#include <fstream>
#include <sstream>
#include <systemc>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

std::string log_path;  // where the handler appends, set before the fork

void recording_handler(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (r.get_severity() == sc_core::SC_ERROR) {
    std::ofstream out(log_path, std::ios::app);
    out << r.get_msg_type() << '\t' << r.get_msg() << '\x1e';
  }
  sc_core::sc_report_handler::default_handler(r, actions);
}

struct Seen {
  sim::ChildResult result;
  std::vector<std::pair<std::string, std::string>> reports;  // (type, message)
};

Seen run_with_handler(const launch::Launch& l, const config::MachineConfig& m) {
  log_path = (fs::temp_directory_path() / ("simtlm_reports_" + std::to_string(getpid()) + ".log")).string();
  fs::remove(log_path);
  sc_core::sc_report_handler::set_handler(recording_handler);
  Seen seen{run_timing_child(l, m), {}};
  sc_core::sc_report_handler::set_handler(nullptr);
  std::ifstream in(log_path);
  std::string record;
  while (std::getline(in, record, '\x1e')) {
    const size_t tab = record.find('\t');
    seen.reports.emplace_back(record.substr(0, tab), record.substr(tab + 1));
  }
  fs::remove(log_path);
  return seen;
}

void expect_one_report(const Seen& s, const std::string& type, const std::string& kernel) {
  ASSERT_FALSE(s.result.ok());
  ASSERT_EQ(s.reports.size(), 1u) << s.result.error;
  EXPECT_EQ(s.reports[0].first, type);
  EXPECT_EQ(s.reports[0].second, "kernel " + kernel + ": " + s.result.error);
}

TEST(TimingReports, ABarrierDeadlockIsAKernelFaultReport) {
  const Seen s = run_with_handler(launch::load_launch(source_path("testbenches/timing/deadlock.yaml")),
                                  machine("default.yaml"));
  EXPECT_EQ(s.result.error_kind, "kernel");
  expect_one_report(s, "simtlm/kernel_fault", "wait_for_absent_threads");
}

TEST(TimingReports, TheWatchdogOnAStuckRequestIsAStuckReport) {
  const Seen s = run_with_handler(
      launch::load_launch(workload_launch("single_loop")),
      machine("default.yaml",
              {{"dram.mode", "fixed"}, {"dram.fixed_latency", "50000"}, {"run.watchdog_cycles", "1000"}}));
  EXPECT_EQ(s.result.error_kind, "timing");
  expect_one_report(s, "simtlm/stuck", "single_loop");
}

TEST(TimingReports, MaxCyclesIsARunawayReport) {
  const Seen s = run_with_handler(launch::load_launch(workload_launch("mandelbrot")),
                                  machine("default.yaml", {{"run.max_cycles", "5000"}}));
  EXPECT_EQ(s.result.error_kind, "kernel");
  expect_one_report(s, "simtlm/runaway", "mandelbrot");
}

TEST(TimingReports, ACtaThatFitsNoSmIsADoesNotFitReport) {
  const Seen s = run_with_handler(launch::load_launch(workload_launch("reduction")),
                                  machine("default.yaml", {{"gpu.shared_bytes_per_sm", "16"}}));
  EXPECT_EQ(s.result.error_kind, "timing");
  ASSERT_FALSE(s.reports.empty());
  EXPECT_EQ(s.reports[0].first, "simtlm/cta_does_not_fit");
  EXPECT_TRUE(s.reports[0].second.starts_with("kernel ")) << s.reports[0].second;
}

TEST(TimingReports, AFinishedRunReportsNothing) {
  const Seen s = run_with_handler(launch::load_launch(source_path("testbenches/timing/stream_add.yaml")),
                                  machine("default.yaml"));
  EXPECT_TRUE(s.result.ok()) << s.result.error;
  EXPECT_TRUE(s.reports.empty());
}

}  // namespace
