// The launch file's limit_stack_size (cudaLimitStackSize; alias call_stack_bytes): it sizes the per-thread
// call stack of kernels that call .funcs, in range and in 16-byte steps, and a recursion deeper than it
// allows is a located error.
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

// The launch file with its limit_stack_size line replaced (an empty value drops the key; `line` replaces
// the whole line).
fs::path with_stack_line(const std::string& value, const std::string& line = "") {
  std::ifstream in(kLaunch);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = "limit_stack_size: 256\n";
  text.replace(text.find(key), key.size(),
               !line.empty()   ? line
               : value.empty() ? ""
                               : "limit_stack_size: " + value + "\n");
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
  // The stack is accounted, not laid out in the simulated local frame: the key leaves the frame alone.
  const fs::path other = with_stack_line("2048");
  launch::Session bigger(launch::load_launch(other), {});
  fs::remove(other);
  EXPECT_EQ(bigger.kernel().call_stack_bytes, 2048u);
  EXPECT_EQ(bigger.kernel().local_bytes, session.kernel().local_bytes);
}

TEST(CallStackLimit, OutOfRangeOrUnalignedSizesAreLaunchErrorsWithTheLine) {
  for (const char* bad : {"100", "1000", "70000"}) {
    const fs::path file = with_stack_line(bad);
    const std::string e = run_error(file);
    fs::remove(file);
    EXPECT_NE(e.find(".tmp.yaml:7: limit_stack_size: "), std::string::npos) << bad << ": " << e;
  }
}

TEST(CallStackLimit, CallStackBytesIsAnAliasButNotBoth) {
  const fs::path alias = with_stack_line("alias", "call_stack_bytes: 2048\n");
  launch::Session session(launch::load_launch(alias), {});
  fs::remove(alias);
  EXPECT_EQ(session.kernel().call_stack_bytes, 2048u);
  const fs::path both = with_stack_line("both", "limit_stack_size: 512\ncall_stack_bytes: 512\n");
  const std::string e = run_error(both);
  fs::remove(both);
  EXPECT_NE(e.find(".tmp.yaml:8: call_stack_bytes: an alias of limit_stack_size: give only one of them"),
            std::string::npos)
      << e;
}

}  // namespace
