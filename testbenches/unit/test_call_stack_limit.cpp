// The launch file's call_stack_bytes (cudaLimitStackSize): it sizes the per-thread call stack of kernels that
// call .funcs, in range and in 16-byte steps, and a recursion deeper than it allows is a located error.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/call_link.hpp"

namespace fs = std::filesystem;
using namespace simtlm;

namespace {

const fs::path kLaunch = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/call_stack_small.yaml";

int32_t fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// The launch file with its call_stack_bytes line replaced (an empty value drops the key).
fs::path with_stack_line(const std::string& value) {
  std::ifstream in(kLaunch);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = "call_stack_bytes: 256\n";
  text.replace(text.find(key), key.size(), value.empty() ? "" : "call_stack_bytes: " + value + "\n");
  const fs::path copy =
      kLaunch.parent_path() / ("call_stack_" + (value.empty() ? "default" : value) + ".tmp.yaml");
  std::ofstream(copy) << text;
  return copy;
}

std::string run_error(const fs::path& file) {
  try {
    launch::Session session(launch::load_launch(file), {});
    session.run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(CallStackLimit, TooSmallAStackIsAnOverflowNamingItsSize) {
  const std::string e = run_error(kLaunch);
  EXPECT_NE(e.find("call stack overflow calling _Z3fibi"), std::string::npos) << e;
  EXPECT_NE(e.find("per-thread call stack of 256 bytes"), std::string::npos) << e;
}

TEST(CallStackLimit, SequencesUseTheKeyToo) {
  std::string e;
  try {
    launch::SequenceSession(launch::load_launch(kLaunch.parent_path() / "call_stack_small_seq.yaml"), {})
        .run();
  } catch (const std::exception& error) {
    e = error.what();
  }
  EXPECT_NE(e.find("per-thread call stack of 256 bytes"), std::string::npos) << e;
}

TEST(CallStackLimit, TheDefaultStackHoldsTheRecursion) {
  const fs::path file = with_stack_line("");
  launch::Session session(launch::load_launch(file), {});
  const launch::SessionResult r = session.run();
  fs::remove(file);
  std::vector<int32_t> out(32);
  std::memcpy(out.data(), r.buffers.at("out").data(), out.size() * 4);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], fib(10 + t % 2)) << t;
  EXPECT_EQ(session.kernel().call_stack_bytes, ptx::kCallStackBytesPerThread);
}

TEST(CallStackLimit, TheKeySizesTheKernelsLocalFrame) {
  const fs::path file = with_stack_line("1024");
  launch::Session session(launch::load_launch(file), {});
  fs::remove(file);
  EXPECT_EQ(session.kernel().call_stack_bytes, 1024u);
  EXPECT_EQ(session.kernel().local_bytes, session.kernel().call_stack_offset + 1024u);
}

TEST(CallStackLimit, OutOfRangeOrUnalignedSizesAreLaunchErrorsWithTheLine) {
  for (const char* bad : {"100", "1000", "70000"}) {
    const fs::path file = with_stack_line(bad);
    const std::string e = run_error(file);
    fs::remove(file);
    EXPECT_NE(e.find(".tmp.yaml:7: call_stack_bytes: "), std::string::npos) << bad << ": " << e;
  }
}

}  // namespace
