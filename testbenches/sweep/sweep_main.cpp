// The sweep tests link the simulator's libraries, hence libsystemc, whose main() calls sc_main: GoogleTest
// runs from there (as testbenches/timing/main.cpp).
#include <gtest/gtest.h>

extern "C" int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
