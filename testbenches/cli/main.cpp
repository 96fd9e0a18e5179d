// The progress tests link the timing driver (SystemC): SystemC's library provides main() and wants an
// sc_main, so this program has its own main, as testbenches/timing/main.cpp does.
#include <gtest/gtest.h>

#include <systemc>

int sc_main(int, char*[]) {
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return sc_core::sc_elab_and_sim(argc, argv);
}
