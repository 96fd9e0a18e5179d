// Host loops a launch file can say (issue 32, point 5): C's integer operators, min/max/pow2/log2 and NAME[K]
// in expressions; nested `for` loops whose inner steps use the outer variable (a bitonic sort on
// testbenches/launch/hostloops.cu); `set:` at an element offset; `symbols:` entries without init; 2-D copies;
// a grid read back from device memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "testbenches/unit/launch_fixture.hpp"

namespace simtlm::launch {
namespace {

namespace fs = std::filesystem;

const std::map<std::string, int64_t> kConstants = {{"n", 100}};

int64_t eval(const std::string& text, int64_t i = 0) {
  return evaluate_expression(text, i, kConstants, "f.yaml:9: x");
}

std::string eval_error(const std::string& text, const ExpressionScope& scope) {
  try {
    evaluate_expression(text, scope, "f.yaml:9: grid[0]");
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string eval_error(const std::string& text, int64_t i = 0) {
  ExpressionScope scope;
  scope.i = i;
  scope.constants = &kConstants;
  return eval_error(text, scope);
}

TEST(HostLoopExpressions, IntegerOperatorsWithCPrecedence) {
  EXPECT_EQ(eval("1 << 10"), 1024);
  EXPECT_EQ(eval("1024 >> i", 3), 128);
  EXPECT_EQ(eval("-8 >> 1"), -4);          // arithmetic shift
  EXPECT_EQ(eval("2 + 3 << 1"), 10);       // + binds tighter than <<
  EXPECT_EQ(eval("17 % 5 + -17 % 5"), 0);  // C's remainder: 2 and -2
  EXPECT_EQ(eval("min(n, 7) * max(-3, i)", 4), 28);
  EXPECT_EQ(eval("pow2(10) + pow2(0)"), 1025);
  EXPECT_EQ(eval("log2(1024) * 100 + log2(1000) * 10 + log2(1)"), 1090);
  EXPECT_EQ(eval("6 & 3 | 8 ^ 1"), 11);  // & before ^ before |
  EXPECT_EQ(eval("~0 + !0 + !5"), 0);
  EXPECT_EQ(eval("1 < 2 == 1"), 1);
  EXPECT_EQ(eval("n >= 100 && n != 99 || 0"), 1);
  EXPECT_EQ(eval("i <= 2", 3), 0);
  EXPECT_EQ(eval("i > 0 && n / i > 1"), 0);  // short-circuit: no division by zero
  EXPECT_EQ(eval("i == 0 || n % i"), 1);
  EXPECT_EQ(eval("(1 << 62) - 1 + (1 << 62)"), INT64_MAX);
  EXPECT_EQ(eval("-4611686018427387904 << 1"), INT64_MIN);
}

TEST(HostLoopExpressions, RefusesOverflowDivisionByZeroAndBadShifts) {
  const std::string head = "f.yaml:9: grid[0]: expression ";
  EXPECT_EQ(eval_error("1 << 64"), head + "\"1 << 64\": shift by 64 (a shift takes 0 to 63) (i = 0)");
  EXPECT_EQ(eval_error("8 >> (i - 3)", 2),
            head + "\"8 >> (i - 3)\": shift by -1 (a shift takes 0 to 63) (i = 2)");
  EXPECT_EQ(eval_error("1 << 63"), head + "\"1 << 63\": overflows 64 bits (i = 0)");
  EXPECT_EQ(eval_error("3 << 62"), head + "\"3 << 62\": overflows 64 bits (i = 0)");
  EXPECT_EQ(eval_error("-3 << 62"), head + "\"-3 << 62\": overflows 64 bits (i = 0)");
  EXPECT_EQ(eval_error("9223372036854775807 + i", 1),
            head + "\"9223372036854775807 + i\": overflows 64 bits (i = 1)");
  EXPECT_EQ(eval_error("n % (i - 2)", 2), head + "\"n % (i - 2)\": remainder by zero (i = 2)");
  EXPECT_EQ(eval_error("n / i"), head + "\"n / i\": division by zero (i = 0)");
  EXPECT_EQ(eval_error("pow2(63)"), head + "\"pow2(63)\": pow2(63): the exponent must be 0 to 62 (i = 0)");
  EXPECT_EQ(eval_error("log2(i)"), head + "\"log2(i)\": log2(0): the argument must be at least 1 (i = 0)");
  EXPECT_EQ(eval_error("min(n)"), head + "\"min(n)\": min takes 2 arguments, not 1");
  EXPECT_EQ(eval_error("pow2(1, 2)"), head + "\"pow2(1, 2)\": pow2 takes 1 argument, not 2");
  EXPECT_EQ(eval_error("max(1, 2"), head + "\"max(1, 2\": missing ')' after the arguments of max");
  EXPECT_EQ(eval_error("1 <<< 2"), head + "\"1 <<< 2\": unexpected '< 2'");
  // NAME[K] outside a sequence's steps: nothing may be read.
  EXPECT_EQ(
      eval_error("bounds[0]"),
      head +
          "\"bounds[0]\": unknown name 'bounds' (an element NAME[K] is read from the buffers and symbols: "
          "entries of a launch sequence)");
  EXPECT_EQ(eval_error(std::string(100000, '(') + "1"),
            head + "\"" + std::string(100000, '(') + "1\": nested more than 200 levels deep");
  EXPECT_EQ(eval(std::string(150, '-') + "1"), 1);
  // The syntax check at load time raises no run-time error.
  EXPECT_NO_THROW(check_expression("1 << 64 + pow2(99) / 0", kConstants, "x"));
  EXPECT_THROW(check_expression("min(1, 2, 3)", kConstants, "x"), LaunchError);
}

TEST(HostLoopExpressions, LoopVariablesAndElementReads) {
  ExpressionScope scope;
  scope.i = 1;
  scope.constants = &kConstants;
  scope.variables = {{"k", 8}, {"j", 2}};
  scope.has_data = [](const std::string& name) { return name == "bounds"; };
  scope.read = [](const std::string&, int64_t index, std::string& error) -> int64_t {
    if (index > 1) error = "outside";
    return 40 + index;
  };
  EXPECT_EQ(evaluate_expression("k * 10 + j + i + bounds[j - 1] * 1000", scope, "x"), 41083);
  EXPECT_EQ(eval_error("n / (k - 8)", scope),
            "f.yaml:9: grid[0]: expression \"n / (k - 8)\": division by zero (k = 8, j = 2, i = 1)");
  EXPECT_EQ(eval_error("bounds[k]", scope),
            "f.yaml:9: grid[0]: expression \"bounds[k]\": outside (k = 8, j = 2, i = 1)");
  EXPECT_EQ(eval_error("bounds[1", scope),
            "f.yaml:9: grid[0]: expression \"bounds[1\": missing ']' after bounds[...");
  EXPECT_EQ(eval_error("m", scope),
            "f.yaml:9: grid[0]: expression \"m\": unknown name 'm' (only i, the loop variables k, j and the "
            "file's constants)");
}

// A launch file of the test's own in the temporary directory, its PTX testbenches/launch/hostloops.ptx.
fs::path write_file(const std::string& name, const std::string& yaml) {
  const fs::path file = fs::temp_directory_path() / ("simtlm_hostloops_" + name + ".yaml");
  std::ofstream out(file);
  out << "ptx: " << test::fixture("hostloops.ptx").string() << "\n" << yaml;
  return file;
}

// The error of loading (or, with run, of running) the file, without its path.
std::string error_of(const std::string& name, const std::string& yaml, bool run = false) {
  const fs::path file = write_file(name, yaml);
  try {
    SequenceSession session(load_launch(file), {});
    if (run) session.run();
  } catch (const LaunchError& e) {
    return std::string(e.what()).substr(file.string().size());
  }
  return "(no error)";
}

std::vector<int32_t> initial_s32(const Launch& l, const std::string& buffer) {
  return test::as<int32_t>(init_buffer(l, *l.find_buffer_spec(buffer)));
}

TEST(HostLoops, NestedForLoopsSortLikeBitonicHostCode) {
  const Launch l = load_launch(test::fixture("seq_bitonic.yaml"));
  std::vector<int32_t> expected = initial_s32(l, "data");
  ASSERT_EQ(expected.size(), 1024u);
  std::sort(expected.begin(), expected.end());
  SequenceSession session(l, {});
  const SessionResult r = session.run();
  EXPECT_EQ(test::as<int32_t>(r.buffers.at("data")), expected);
  // One launch per (k, j): the inner loop's i restarts at 0 for every k.
  std::vector<int64_t> iterations;
  for (int64_t k = 2; k <= 1024; k <<= 1)
    for (int64_t j = k >> 1, i = 0; j > 0; j /= 2, ++i) iterations.push_back(i);
  ASSERT_EQ(r.launches.size(), iterations.size());
  for (size_t x = 0; x < iterations.size(); ++x) EXPECT_EQ(r.launches[x]["iteration"], iterations[x]) << x;
  EXPECT_EQ(r.launches.back()["grid"], nlohmann::json::array({4, 1, 1}));
}

TEST(HostLoops, GridReadFromDeviceMemoryAndSymbolWithoutInit) {
  const Launch l = load_launch(test::fixture("seq_device_grid.yaml"));
  const std::vector<int32_t> values = initial_s32(l, "values");
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  SequenceSession session(l, {});
  const SessionResult r = session.run();
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_EQ(r.launches[1]["grid"], nlohmann::json::array({*hi - *lo + 1, 1, 1}));
  EXPECT_EQ(test::as<int32_t>(r.buffers.at("bounds")), (std::vector<int32_t>{*lo, *hi}));
  // d_bias (= 7 in the PTX) starts as zeros: the counts are exact.
  std::vector<int32_t> counts(64, 0);
  for (const int32_t v : values) ++counts[size_t(v - *lo)];
  EXPECT_EQ(test::as<int32_t>(r.buffers.at("counts")), counts);
}

TEST(HostLoops, SetAtAnOffsetAndCopy2d) {
  const Launch l = load_launch(test::fixture("seq_host_copies.yaml"));
  SequenceSession session(l, {});
  const SessionResult r = session.run();
  std::vector<int32_t> marks(16, 0);
  for (int r4 = 0; r4 < 4; ++r4) {
    marks[size_t(r4 * 4 + 1)] = -5;
    marks[size_t(r4 * 4 + 2)] = 100;
  }
  marks[0] = 9;
  EXPECT_EQ(test::as<int32_t>(r.buffers.at("marks")), marks);
  // cudaMemcpy2D(tile + 1, 12, image + 10, 16, 8, 3) on the bytes.
  const std::vector<uint8_t> image = init_buffer(l, *l.find_buffer_spec("image"));
  std::vector<uint8_t> tile(48, 0);
  for (size_t row = 0; row < 3; ++row) std::copy_n(&image[20 + row * 16], 8, &tile[2 + row * 12]);
  EXPECT_EQ(r.buffers.at("tile"), tile);
  EXPECT_EQ(test::as<uint16_t>(r.buffers.at("tile"))[7],
            18);  // row 1 of the tile starts at image row 2, column 2
}

const char* kBuffers =
    "constants: {n: 4}\nbuffers:\n  a: {type: s32, count: 16}\n  f: {type: f32, count: 2}\n";

TEST(HostLoops, LoadErrorsNameLineAndKey) {
  EXPECT_EQ(error_of("for_i", std::string(kBuffers) +
                                  "launches:\n  - for: {var: i, from: 0, while: \"i < 2\", next: \"i + 1\"}\n"
                                  "    steps:\n      - set: {a: 1}\n"),
            ":7: launches[0].for.var: 'i': a loop variable is named like a C identifier, and not i");
  EXPECT_EQ(error_of("for_a", std::string(kBuffers) +
                                  "launches:\n  - for: {var: a, from: 0, while: \"a < 2\", next: \"a + 1\"}\n"
                                  "    steps:\n      - set: {a: 1}\n"),
            ":7: launches[0].for.var: 'a' is already a constant, a buffer, a symbol or a texture");
  EXPECT_EQ(error_of("for_nested",
                     std::string(kBuffers) +
                         "launches:\n  - for: {var: k, from: 0, while: \"k < 2\", next: \"k + 1\"}\n"
                         "    steps:\n      - for: {var: k, from: 0, while: \"k < 2\", next: \"k + 1\"}\n"
                         "        steps:\n          - set: {a: 1}\n"),
            ":9: launches[0].steps[0].for.var: 'k' is already the variable of an enclosing for loop");
  // The variable is known in its loop's while, next and steps, not in its own from nor after the loop.
  EXPECT_EQ(error_of("for_from",
                     std::string(kBuffers) +
                         "launches:\n  - for: {var: k, from: \"k\", while: \"k < 2\", next: \"k + 1\"}\n"
                         "    steps:\n      - set: {a: 1}\n"),
            ":7: launches[0].for.from: expression \"k\": unknown name 'k' (only i and the file's constants)");
  EXPECT_EQ(
      error_of("for_after", std::string(kBuffers) +
                                "launches:\n  - for: {var: k, from: 0, while: \"k < 2\", next: \"k + 1\"}\n"
                                "    steps:\n      - set: {a: {at: \"k\", values: 1}}\n"
                                "  - set: {a: {at: \"k\", values: 1}}\n"),
      ":10: launches[1].set.a.at: expression \"k\": unknown name 'k' (only i and the file's constants)");
  EXPECT_EQ(error_of("for_max", std::string(kBuffers) +
                                    "launches:\n  - for: {var: k, from: 0, while: 1, next: 1, max: 0}\n"
                                    "    steps:\n      - set: {a: 1}\n"),
            ":7: launches[0].for.max: must be at least 1");
  EXPECT_EQ(error_of("set_both", std::string(kBuffers) + "launches:\n  - set: {a: {at: 2, init: zeros}}\n"),
            ":7: launches[0].set.a: init refills the whole buffer: give {init: ...} or {at: K, values: "
            "[...]}, not both");
  EXPECT_EQ(
      error_of("copy_const", std::string(kBuffers) +
                                 "launches:\n  - copy2d: {dst: 4, dpitch: 4, src: a, spitch: 4, width: 4, "
                                 "height: 1}\n"),
      ":7: launches[0].copy2d.dst: expected a buffer, optionally with an offset (\"b + 16\", \"b + 64B\")");
  EXPECT_EQ(
      error_of("copy_key", std::string(kBuffers) +
                               "launches:\n  - copy2d: {dst: a, pitch: 4, src: a, spitch: 4, width: 4, "
                               "height: 1}\n"),
      ":7: launches[0].copy2d.pitch: unknown key (expected one of: dst, dpitch, src, spitch, width, height)");
  EXPECT_EQ(
      error_of("read_unknown",
               std::string(kBuffers) +
                   "launches:\n  - kernel: bitonic_step\n    grid: [\"b[0]\"]\n    block: [1]\n"
                   "    params: [a, 1, 2]\n"),
      ":8: launches[0].grid[0]: expression \"b[0]\": unknown name 'b' (an element NAME[K] is read from the "
      "buffers and symbols: entries of a launch sequence)");
}

TEST(HostLoops, ForExpressionsReadSymbolsAndBuffers) {
  // for (k = d_bias; k < a[0]; k++) a[k] = k-th write; d_bias comes from symbols:, a[0] from a set before.
  const fs::path file =
      write_file("symbol_read", std::string(kBuffers) +
                                    "symbols:\n  d_bias: {init: {value: 3}}\n"
                                    "launches:\n  - set: {a: 7}\n"
                                    "  - for: {var: k, from: \"d_bias[0]\", while: \"k < a[0]\", "
                                    "next: \"k + 1\"}\n"
                                    "    steps:\n      - set: {a: {at: \"k\", values: -1}}\n");
  SequenceSession session(load_launch(file), {});
  const SessionResult r = session.run();
  std::vector<int32_t> a(16, 0);
  a[0] = 7;
  for (size_t k = 3; k < 7; ++k) a[k] = -1;
  EXPECT_EQ(test::as<int32_t>(r.buffers.at("a")), a);
}

TEST(HostLoops, RunErrorsNameLineAndLoopVariables) {
  EXPECT_EQ(error_of("run_max",
                     std::string(kBuffers) +
                         "launches:\n  - for: {var: k, from: 0, while: \"k >= 0\", next: \"k + 1\", "
                         "max: 5}\n    steps:\n      - set: {a: 1}\n",
                     true),
            ":7: for k: while \"k >= 0\" still holds after max = 5 iterations (k = 5, i = 5)");
  EXPECT_EQ(error_of("run_next",
                     std::string(kBuffers) +
                         "launches:\n  - for: {var: k, from: 1, while: \"k > 0\", next: \"k << 62\"}\n"
                         "    steps:\n      - set: {a: 1}\n",
                     true),
            ":7: for k: next: expression \"k << 62\": overflows 64 bits (k = 4611686018427387904, i = 1)");
  EXPECT_EQ(error_of("run_set_at",
                     std::string(kBuffers) +
                         "launches:\n  - for: {var: r, from: 0, while: \"r < 4\", next: \"r + 1\"}\n"
                         "    steps:\n      - set: {a: {at: \"r * 5\", values: [1, 2]}}\n",
                     true),
            ":9: set.a: elements 15..16 (r = 3, i = 3) are outside a which has 16 elements");
  EXPECT_EQ(error_of("run_copy_rows",
                     std::string(kBuffers) +
                         "launches:\n  - copy2d: {dst: \"a + 3\", dpitch: 16, src: a, spitch: 8, "
                         "width: 8, height: 4}\n",
                     true),
            ":7: copy2d.dst: 4 rows of 8 bytes with pitch 16 from byte 12 (i = 0) reach outside buffer a of "
            "64 bytes");
  EXPECT_EQ(error_of("run_copy_width",
                     std::string(kBuffers) + "launches:\n  - copy2d: {dst: a, dpitch: 16, src: a, spitch: 4, "
                                             "width: 8, height: 2}\n",
                     true),
            ":7: copy2d: width 8 is more than spitch 4 (i = 0): rows would overlap, as cudaMemcpy2D refuses");
  EXPECT_EQ(
      error_of("run_copy_negative",
               std::string(kBuffers) + "launches:\n  - copy2d: {dst: a, dpitch: 16, src: a, spitch: 16, "
                                       "width: 8, height: \"n - 5\"}\n",
               true),
      ":7: copy2d.height = -1 (i = 0) is negative");
  const std::string launch_a = "launches:\n  - kernel: bitonic_step\n    grid: [\"";
  const std::string launch_b = "\"]\n    block: [1]\n    params: [a, 1, 2]\n";
  EXPECT_EQ(error_of("run_read_index", std::string(kBuffers) + launch_a + "a[n * 4]" + launch_b, true),
            ":7: kernel bitonic_step: grid[0]: expression \"a[n * 4]\": a[16]: element 16 of a which has 16 "
            "elements "
            "(i = 0)");
  EXPECT_EQ(error_of("run_read_float", std::string(kBuffers) + launch_a + "f[0]" + launch_b, true),
            ":7: kernel bitonic_step: grid[0]: expression \"f[0]\": f[0]: f holds f32 elements; an "
            "expression reads "
            "integers only (i = 0)");
  EXPECT_EQ(error_of("run_read_zero", std::string(kBuffers) + launch_a + "a[3]" + launch_b, true),
            ":7: kernel bitonic_step: grid[0] = 0 (i = 0) is outside [1, 2147483647]");
}

}  // namespace
}  // namespace simtlm::launch
