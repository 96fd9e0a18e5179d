// SystemC allows one elaboration per process: ctest runs each test in its own process
// (gtest_discover_tests DISCOVERY_MODE PRE_TEST), and each test builds its modules and calls sc_start.
#include <gtest/gtest.h>

#include <systemc>

int sc_main(int, char*[]) {
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return sc_core::sc_elab_and_sim(argc, argv);
}
