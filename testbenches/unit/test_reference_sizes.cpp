// Host references given buffers smaller than their grid and parameters need (issue 11, defect 2): each
// reference checks the sizes before it reads or writes, and names the launch file, itself and the buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "models/launch/buffers.hpp"
#include "models/launch/device.hpp"
#include "models/launch/launch.hpp"
#include "testbenches/unit/hostile_files.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::workloads {
namespace {

using launch::LaunchError;

std::filesystem::path workload(const std::string& name) {
  return std::filesystem::path(SIMTLM_SOURCE_DIR) / "workloads" / name / (name + ".yaml");
}

Buffers initial_buffers(const launch::Launch& launch) {
  Buffers buffers;
  for (const launch::BufferSpec& spec : launch.buffers)
    buffers[spec.name] = launch::init_buffer(launch, spec);
  return buffers;
}

std::vector<std::string> every_reference() {
  std::vector<std::string> names = reference_names();
  for (const std::string& name : sequence_reference_names()) names.push_back(name);
  return names;
}

class ReferenceSizes : public ::testing::TestWithParam<std::string> {};

// Every buffer of the workload emptied in turn: the reference refuses, naming that buffer. Two buffers set
// the problem size instead of holding it (an empty one is an empty problem): gaussian's b, needleman_wunsch's
// score.
TEST_P(ReferenceSizes, EveryEmptiedBufferIsRefusedByName) {
  const std::string name = GetParam();
  const launch::Launch launch = launch::load_launch(workload(name));
  ASSERT_EQ(launch.reference, name);
  const ReferenceFn reference = find_reference(name);
  ASSERT_NE(reference, nullptr);
  const Buffers initial = initial_buffers(launch);
  Buffers whole = initial;
  EXPECT_NO_THROW(reference(launch, whole));
  const std::set<std::string> size_setters = {"gaussian/b", "needleman_wunsch/score"};
  for (const launch::BufferSpec& spec : launch.buffers) {
    Buffers shrunk = initial;
    shrunk[spec.name].clear();
    if (size_setters.count(name + "/" + spec.name)) {
      EXPECT_NO_THROW(reference(launch, shrunk)) << spec.name;
      continue;
    }
    const std::string message = test::error_of<LaunchError>([&] { reference(launch, shrunk); });
    EXPECT_EQ(message.rfind(workload(name).string() + ":", 0), 0u) << message;
    EXPECT_NE(message.find(": reference " + name + ": "), std::string::npos) << message;
    EXPECT_NE(message.find("buffer " + spec.name), std::string::npos) << spec.name << ": " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, ReferenceSizes, ::testing::ValuesIn(every_reference()),
                         [](const auto& info) { return info.param; });

TEST(ReferenceSizesExact, HistogramBinsOneShort) {
  const launch::Launch launch = launch::load_launch(workload("histogram"));
  Buffers buffers = initial_buffers(launch);
  buffers["bins"].resize(255 * 4);
  EXPECT_EQ(
      test::error_of<LaunchError>([&] { find_reference("histogram")(launch, buffers); }),
      workload("histogram").string() +
          ":12: reference histogram: buffer bins holds 255 elements of 4 bytes but 256 are needed (one bin "
          "per byte value)");
}

// Found by fuzz_launch (testbenches/fuzz/regressions/fuzz_launch/reduction_block_not_power_of_two): a block
// of 30 threads made the reference's tree read past its 30 partial sums.
TEST(ReferenceSizesExact, ReductionBlockNotAPowerOfTwo) {
  launch::Launch launch = launch::load_launch(workload("reduction"));
  launch.block.x = 30;
  Buffers buffers = initial_buffers(launch);
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("reduction")(launch, buffers); }),
            workload("reduction").string() +
                ":13: reference reduction: block.x must be a power of two (the tree adds partial[tid + "
                "stride]), not 30");
}

TEST(ReferenceSizesExact, SobelImageSmallerThanWidthTimesHeight) {
  const launch::Launch launch = launch::load_launch(workload("sobel"));
  Buffers buffers = initial_buffers(launch);
  const std::string image = launch.params.at(0).buffer;
  const size_t pixels = buffers[image].size();
  buffers[image].resize(pixels - 1);
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("sobel")(launch, buffers); }),
            workload("sobel").string() + ":" +
                std::to_string(launch::top_level_key_line(workload("sobel"), "reference")) +
                ": reference sobel: buffer " + image + " holds " + std::to_string(pixels - 1) +
                " elements of 1 bytes but " + std::to_string(pixels) + " are needed (width x height)");
}

TEST(ReferenceSizesExact, BfsGraphEdgeOutsideTheGraph) {
  const launch::Launch launch = launch::load_launch(workload("bfs_graph"));
  Buffers buffers = initial_buffers(launch);
  const size_t nodes = buffers["cost"].size() / 4;
  view<int32_t>(buffers, "edges")[0] = int32_t(nodes);  // one past the last node
  const std::string message =
      test::error_of<LaunchError>([&] { find_reference("bfs_graph")(launch, buffers); });
  EXPECT_NE(message.find(": reference bfs_graph: edges[0] = " + std::to_string(nodes) +
                         " is not a node (there are " + std::to_string(nodes) + ")"),
            std::string::npos)
      << message;
}

// References read their parameters through checked helpers (issue 11 follow-up): a launch file may pair a
// reference with another kernel's parameter list. References run after the simulation, so these errors
// come after the run, never as a bare std::out_of_range.
std::string reference_prefix(const std::string& workload_name, const std::string& reference) {
  return workload(workload_name).string() + ":" +
         std::to_string(launch::top_level_key_line(workload(workload_name), "reference")) + ": reference " +
         reference + ": ";
}

TEST(ReferenceSizesParams, TooFewParametersAreNamedNotOutOfRange) {
  launch::Launch launch = launch::load_launch(workload("single_loop"));
  launch.reference = "bfs";
  Buffers buffers = initial_buffers(launch);
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("bfs")(launch, buffers); }),
            reference_prefix("single_loop", "bfs") +
                "parameter 7 must be an integer, but the launch passes 2 parameters");
}

TEST(ReferenceSizesParams, ANumberWhereABufferIsNeededIsNamed) {
  launch::Launch launch = launch::load_launch(workload("histogram"));
  Buffers buffers = initial_buffers(launch);
  launch.params.at(0).kind = launch::ParamValue::Kind::integer;
  launch.params.at(0).integer = 64;
  EXPECT_EQ(
      test::error_of<LaunchError>([&] { find_reference("histogram")(launch, buffers); }),
      reference_prefix("histogram", "histogram") + "parameter 0 must be a buffer, but is the integer 64");
}

TEST(ReferenceSizesParams, ABufferWhereANumberIsNeededOrABufferWithAnOffsetIsNamed) {
  const launch::Launch original = launch::load_launch(workload("histogram"));
  Buffers buffers = initial_buffers(original);
  launch::Launch swapped = original;
  swapped.params.at(1) = original.params.at(0);
  EXPECT_EQ(
      test::error_of<LaunchError>([&] { find_reference("histogram")(swapped, buffers); }),
      reference_prefix("histogram", "histogram") + "parameter 1 must be an integer, but is buffer data");
  launch::Launch offset = original;
  offset.params.at(2).offset = "16";
  offset.params.at(2).offset_in_bytes = true;
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("histogram")(offset, buffers); }),
            reference_prefix("histogram", "histogram") +
                "parameter 2 must be a buffer without an offset, but is buffer bins+16B");
  launch::Launch null = original;
  null.params.at(0).kind = launch::ParamValue::Kind::null;
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("histogram")(null, buffers); }),
            reference_prefix("histogram", "histogram") + "parameter 0 must be a buffer, but is null");
}

TEST(ReferenceSizesParams, SequenceParametersAreCheckedByKernelIndexAndKind) {
  const launch::Launch gaussian = launch::load_launch(workload("gaussian"));
  Buffers buffers = initial_buffers(gaussian);
  launch::Launch missing = gaussian;
  missing.steps.clear();
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("gaussian")(missing, buffers); }),
            reference_prefix("gaussian", "gaussian") +
                "parameter 2 of make_dominant must be a number, but no launch of make_dominant passes it");
  launch::Launch buffer = gaussian;
  const auto step = std::find_if(buffer.steps.begin(), buffer.steps.end(),
                                 [](const launch::Step& s) { return s.kernel == "make_dominant"; });
  ASSERT_NE(step, buffer.steps.end());
  step->params.at(2) = step->params.at(0);
  EXPECT_EQ(test::error_of<LaunchError>([&] { find_reference("gaussian")(buffer, buffers); }),
            reference_prefix("gaussian", "gaussian") +
                "parameter 2 of make_dominant must be a number, but is buffer a");
}

}  // namespace
}  // namespace simtlm::workloads
