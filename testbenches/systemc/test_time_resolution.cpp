// The simulation's time resolution must hold the core clock and the DRAM command clock within 0.1%: at 1 ns a
// 700 MHz clock (1,429 ps) would run at 1 ns and every cycle count would change, so gpu_params() refuses it.
// (A test process cannot change its own resolution once any sc_time exists, so the check is tested on a
// given resolution, and gpu_params() on this process's default 1 ps.)
#include <gtest/gtest.h>

#include "hw/sc/timing_params.hpp"
#include "testbenches/systemc/config_error.hpp"

namespace simtlm::hw {
namespace {

const sc_core::sc_time kNanosecond(1, sc_core::SC_NS);

TEST(TimeResolution, ANanosecondResolutionRefusesA700MhzClock) {
  EXPECT_EQ(
      time_resolution_error("gpu.clock_mhz (the core clock)", 1e6 / 700, kNanosecond),
      "gpu.clock_mhz (the core clock): a period of 1428.6 ps becomes 1000.0 ps at the simulation's time "
      "resolution of 1 ns (sc_set_time_resolution), 30.00% off; use a resolution of 1 ps or finer");
  EXPECT_EQ(time_resolution_error("x", 2000, kNanosecond), "");     // a whole number of nanoseconds
  EXPECT_EQ(time_resolution_error("x", 999'500, kNanosecond), "");  // 0.05% off
  EXPECT_NE(time_resolution_error("x", 1003, kNanosecond), "");     // 0.3% off
  EXPECT_NE(time_resolution_error("dram", 1e6 / 700 / (924.0 / 700.0), kNanosecond).find("1082.3 ps becomes"),
            std::string::npos);
}

TEST(TimeResolution, TheDefaultPicosecondResolutionHoldsEveryClock) {
  ASSERT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
  for (const char* mhz : {"700", "1000", "1400", "1607"}) {
    config::MachineConfig config;
    config.set("gpu.clock_mhz", mhz, "--set");
    EXPECT_EQ(test_support::config_error_of([&] { gpu_params(config); }), "(no error)") << mhz;
  }
}

}  // namespace
}  // namespace simtlm::hw
