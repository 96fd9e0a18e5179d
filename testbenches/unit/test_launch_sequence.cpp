// Launch sequences (testbenches/launch/seq_*.yaml over sequence.cu): persistent buffers, host loops with
// their index, until-loops, module symbols in and out, the uninitialised-constant warning.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "models/launch/device.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/stats_json.hpp"
#include "testbenches/unit/launch_fixture.hpp"
#include "workloads/reference/reference.hpp"
#include "workloads/reference/sequence_params.hpp"

namespace simtlm::launch {
namespace {

namespace fs = std::filesystem;

using test::as;
using test::fixture;

SessionResult run_sequence(const std::string& file) {
  SequenceSession session(load_launch(fixture(file)), {});
  return session.run();
}

TEST(LaunchSequence, PersistentBuffersRepeatIndexAndOffsets) {
  const SessionResult r = run_sequence("seq_repeat.yaml");
  const auto data = as<float>(r.buffers.at("data"));
  ASSERT_EQ(data.size(), 64u);
  for (int k = 0; k < 64; ++k) {
    // 2 * (0 + 1 + 2) from the loop, 10 on the upper half ("data + half"), 100 on [32, 40) ("data+128B").
    const float expected = float(k) + 6.0f + (k >= 32 ? 10.0f : 0.0f) + (k >= 32 && k < 40 ? 100.0f : 0.0f);
    EXPECT_EQ(data[k], expected) << "k = " << k;
  }
  ASSERT_EQ(r.launches.size(), 5u);
  EXPECT_EQ(r.launches[0]["iteration"], 0);
  EXPECT_EQ(r.launches[2]["iteration"], 2);
  EXPECT_EQ(r.launches[2]["grid"], nlohmann::json::array({2, 1, 1}));  // "(n + 31) / 32" with n = 64
  EXPECT_EQ(r.launches[3]["block"], nlohmann::json::array({32, 1, 1}));
  EXPECT_EQ(r.launches[4]["step"], 4);
  // Totals are the sums of the launches.
  uint64_t thread_instructions = 0;
  for (const auto& l : r.launches) thread_instructions += l["thread_instructions"].get<uint64_t>();
  EXPECT_EQ(r.stats.thread_instructions, thread_instructions);
  EXPECT_EQ(r.stats.ctas, 3u * 2u + 1u + 1u);
}

TEST(LaunchSequence, UntilLoopRunsUntilTheFlagClears) {
  const SessionResult r = run_sequence("seq_until.yaml");
  EXPECT_EQ(as<int32_t>(r.buffers.at("history")), (std::vector<int32_t>{1, 2, 3, 4, 5, 0, 0, 0}));
  EXPECT_EQ(as<int32_t>(r.buffers.at("d_rounds")), std::vector<int32_t>{5});  // a __device__ variable out
  ASSERT_EQ(r.launches.size(), 5u);
  EXPECT_EQ(r.launches[4]["iteration"], 4);
}

TEST(LaunchSequence, UntilLoopExceedingMaxNamesTheLoop) {
  try {
    run_sequence("bad_seq_until_max.yaml");
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_seq_until_max.yaml:8: loop: until {buffer: more, element: 0, "
                                         "equals: 0} still does not hold after max = 3 iterations"),
              std::string::npos)
        << e.what();
  }
}

TEST(LaunchSequence, SymbolsInAndOut) {
  const SessionResult r = run_sequence("seq_symbols.yaml");
  EXPECT_EQ(as<float>(r.buffers.at("weighed")), (std::vector<float>{0.5f, 2, 6, 16, 2.5f, 6, 14, 32}));
  EXPECT_EQ(as<float>(r.buffers.at("before")), (std::vector<float>{11, 21, 31, 1, 1, 1, 1, 1}));
  EXPECT_EQ(as<float>(r.buffers.at("after")),
            (std::vector<float>{0, -1, 31, 1, 1, 1, 1, 1}));  // set: [-1, -2]
  EXPECT_EQ(as<float>(r.buffers.at("d_table")), (std::vector<float>{0, 3, 6, 9, 12, 15, 18, 21}));  // 0x1.8p1
  EXPECT_EQ(as<float>(r.buffers.at("c_weights")), (std::vector<float>{0.5f, 1, 2, 4}));
  EXPECT_EQ(as<uint32_t>(r.buffers.at("d_rounds")), std::vector<uint32_t>{0});
}

TEST(LaunchSequence, UninitialisedConstantWarnsOnceNamingSymbolAndKernel) {
  SequenceSession session(load_launch(fixture("seq_symbols.yaml")), {});
  const SessionResult r = session.run();
  ASSERT_EQ(r.warnings.size(), 1u);  // c_bias only: c_weights came from symbols:
  EXPECT_NE(r.warnings[0].find("kernel add_bias (_Z8add_biasPfPKfi) reads __constant__ c_bias"),
            std::string::npos)
      << r.warnings[0];
  // It never silently reads zeros: the warning is in the statistics document.
  nlohmann::json doc = sequence_stats_json(session, r, r.stats);
  add_diagnostics(doc, r, true, "seq_symbols.yaml");
  EXPECT_EQ(doc["warnings"], nlohmann::json(r.warnings));
  EXPECT_EQ(doc["launch_count"], 5);
  EXPECT_EQ(doc["launches"].size(), 5u);
}

TEST(LaunchSequence, ExpressionsEvaluateAndRejectDivisionByZero) {
  const std::map<std::string, int64_t> constants = {{"n", 100}};
  EXPECT_EQ(evaluate_expression("(n + 31) / 32", 0, constants, "x"), 4);
  EXPECT_EQ(evaluate_expression("i * 16 + -3 % 2", 5, constants, "x"), 79);
  EXPECT_EQ(evaluate_expression("7 - i", 3, constants, "x"), 4);
  try {
    evaluate_expression("n / (i - 2)", 2, constants, "f.yaml:9: grid[0]");
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_STREQ(e.what(), "f.yaml:9: grid[0]: expression \"n / (i - 2)\": division by zero (i = 2)");
  }
  EXPECT_THROW(check_expression("n + m", constants, "x"), LaunchError);
  EXPECT_THROW(check_expression("(i + 1", constants, "x"), LaunchError);
}

TEST(LaunchSequence, NegativeGeometryIsALaunchErrorNamingLineAndIteration) {
  Launch l = load_launch(fixture("seq_repeat.yaml"));
  l.steps[0].steps[0].grid[0] = "1 - i";
  SequenceSession session(l, {});
  try {
    session.run();
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(
        std::string(e.what()).find("seq_repeat.yaml:10: kernel add_step: grid[0] = 0 (i = 1) is outside"),
        std::string::npos)
        << e.what();
  }
}

TEST(LaunchSequence, OffsetOutsideTheBufferIsAnError) {
  Launch l = load_launch(fixture("seq_repeat.yaml"));
  l.steps[1].params[0].offset = "half + 33";
  SequenceSession session(l, {});
  try {
    session.run();
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "params[0]: offset 65 elements (i = 0) is outside buffer data of 256 bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST(LaunchSequence, ReferenceHelpersReadSequenceParameters) {
  const Launch l = load_launch(fixture("seq_repeat.yaml"));
  EXPECT_EQ(workloads::sequence_param_int(l, "add_step", 2), 2);
  EXPECT_THROW(workloads::sequence_param_int(l, "weigh", 0), LaunchError);
}

}  // namespace
}  // namespace simtlm::launch

namespace simtlm::launch {
namespace {

// The suite's launch sequences (workloads/*/ with launches:) against their host references, deterministic.
class SequenceWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(SequenceWorkload, MatchesReferenceAndIsDeterministic) {
  SessionOptions options;
  options.find_reference = workloads::find_reference;
  options.capture_printf = true;
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "workloads" / GetParam() / (GetParam() + ".yaml");
  SequenceSession session(load_launch(file), options);
  const SessionResult first = session.run();
  ASSERT_TRUE(first.reference_checked);
  for (const auto& failure : first.failures) ADD_FAILURE() << failure;
  EXPECT_GT(first.launches.size(), 1u);
  const SessionResult second = session.run();
  EXPECT_EQ(first.launches, second.launches);
  EXPECT_EQ(first.buffers, second.buffers);
}

INSTANTIATE_TEST_SUITE_P(Suite, SequenceWorkload, ::testing::ValuesIn(workloads::sequence_reference_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace simtlm::launch

namespace simtlm::launch {
namespace {

TEST(LaunchSequence, UntilOnASymbolAndRefillInsideTheLoop) {
  const SessionResult r = run_sequence("seq_symbol_until.yaml");
  EXPECT_EQ(as<int32_t>(r.buffers.at("history")), (std::vector<int32_t>{1, 2, 3, 0, 0, 0, 0, 0}));
  // Refilled with 5 each iteration, then + 1 * (i * 10) with i = 2 in the last one.
  EXPECT_EQ(as<float>(r.buffers.at("data")), (std::vector<float>{25, 25, 25, 25}));
  EXPECT_EQ(r.launches.size(), 6u);
}

TEST(LaunchSequence, PerBranchTotalsAreKeyedByKernelAndPc) {
  SequenceSession session(load_launch(fixture("seq_until.yaml")), {});
  const SessionResult r = session.run();
  const nlohmann::json doc = sequence_stats_json(session, r, r.stats);
  ASSERT_TRUE(doc["per_branch"].contains("_Z10round_tripPiS_i:7")) << doc["per_branch"].dump();
  EXPECT_EQ(doc["per_branch"]["_Z10round_tripPiS_i:7"]["executed"], 5);
  EXPECT_EQ(doc["kernel"], "_Z10round_tripPiS_i");
  EXPECT_TRUE(doc["grid"].is_null());
}

std::string load_error_of(const std::string& yaml) {
  const fs::path file = fs::temp_directory_path() / "simtlm_seq_error.yaml";
  {
    std::ofstream out(file);
    out << "ptx: " << fixture("sequence.ptx").string() << "\n" << yaml;
  }
  try {
    SequenceSession session(load_launch(file), {});
  } catch (const LaunchError& e) {
    return std::string(e.what()).substr(file.string().size());
  }
  return "(no error)";
}

TEST(LaunchSequence, LoadErrorsNameLineAndKey) {
  EXPECT_EQ(
      load_error_of("buffers:\n  d: {type: f32, count: 4}\nlaunches:\n  - kernel: add_step\n    grid: [1]\n"
                    "    block: [32]\n    params: [d, 4, 1, \"i +\"]\n"),
      ":8: launches[0].params[3]: 'i +' is neither a buffer name, a number nor an integer expression in i: "
      "expression \"i +\": unexpected end");
  EXPECT_EQ(load_error_of("buffers:\n  more: {type: s32, count: 1}\nlaunches:\n  - loop:\n      max: 2\n"
                          "      until: {symbol: more, equals: 0}\n      steps:\n        - set: {more: 0}\n"),
            ":7: until: more is a buffer: write {buffer: more}");
  EXPECT_EQ(load_error_of("launches:\n  - repeat: 2\n    step: []\n"),
            ":4: launches[0].step: unknown key (expected one of: repeat, steps)");
  EXPECT_EQ(
      load_error_of("launches:\n  - kernel: add_step\n    grid: [\"n\"]\n    block: [1]\n    params: []\n"),
      ":4: launches[0].grid[0]: expression \"n\": unknown name 'n' (only i and the file's constants)");
  EXPECT_EQ(load_error_of("buffers:\n  d: {type: f32, count: 4}\nlaunches:\n  - set: {nothing: 1}\n"),
            ":5: set.nothing: 'nothing' is neither a buffer nor a __device__/__constant__ variable of " +
                fixture("sequence.ptx").string() + " (variables: c_weights, c_bias, d_rounds, d_table)");
  EXPECT_EQ(
      load_error_of("launches:\n  - kernel: fill_n\n    grid: [1]\n    block: [1]\n    params: []\n")
          .substr(0, 60),
      ":3: kernel: kernel name 'fill_n' is ambiguous in " + fixture("sequence.ptx").string().substr(0, 11));
}

TEST(LaunchSequence, KernelFaultNamesTheLaunch) {
  try {
    run_sequence("seq_fault.yaml");
    FAIL() << "no error";
  } catch (const ptx::KernelError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("launch 1 (kernel _Z4haloPfS_i at line 11, i = 0): out-of-bounds global "
                                    "access of 4 bytes at address 0x",
                                    0),
        0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(16 bytes before buffer window)"), std::string::npos) << e.what();
  }
}

TEST(LaunchSequence, UninitialisedConstantReadInACalledFunctionWarns) {
  const SessionResult r = run_sequence("const_call.yaml");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("kernel apply_gain (_Z10apply_gainPfi) reads __constant__ c_gain"),
            std::string::npos)
      << r.warnings[0];
}

TEST(LaunchSequence, SingleLaunchWarnsAboutAnUninitialisedConstant) {
  Launch l = load_launch(fixture("params_null_float.yaml"));
  l.kernel = "add_bias";
  l.params.resize(3);
  l.params[0].kind = ParamValue::Kind::buffer;
  l.params[0].buffer = "out";
  l.params[1] = l.params[0];
  l.params[2].kind = ParamValue::Kind::integer;
  l.params[2].integer = 2;
  Session session(l, {});
  ASSERT_EQ(session.warnings().size(), 1u);
  EXPECT_NE(session.warnings()[0].find("reads __constant__ c_bias"), std::string::npos);
  EXPECT_EQ(session.run().warnings, session.warnings());
}

}  // namespace
}  // namespace simtlm::launch
