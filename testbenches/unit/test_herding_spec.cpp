// The `herding:` section of a launch file (models/launch/herding_spec.hpp): every key read into the spec,
// every bad value refused with "FILE:LINE: herding.KEY: ...", herding_yaml read back to an equal spec, and a
// launch file carrying the section loaded through load_launch.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "models/launch/herding_spec.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::launch {
namespace {

const std::filesystem::path kFile = "spec.yaml";

// Reads the herding: map of `text` (a whole launch-file fragment, so line numbers count from its first line).
HerdingSpec read(const std::string& text) {
  return read_herding_section(YAML::Load(text)["herding"], kFile);
}

// The message read() throws for `text`.
std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const HerdingSpecError& e) {
    return e.what();
  }
  return "(no error)";
}

// Field by field: HerdingSpec's defaulted operator== is deleted, HerdTargets having none (reported).
bool same_targets(const HerdTargets& a, const HerdTargets& b) {
  return a.all == b.all && a.sites == b.sites;
}

::testing::AssertionResult same(const HerdingSpec& a, const HerdingSpec& b) {
  const bool equal = same_targets(a.branches, b.branches) && same_targets(a.loads, b.loads) &&
                     a.buffers == b.buffers && a.kernels == b.kernels && a.max_instances == b.max_instances &&
                     a.threshold == b.threshold && a.tie == b.tie && a.branch_cycles == b.branch_cycles &&
                     a.load_cycles == b.load_cycles && a.block_bytes == b.block_bytes &&
                     a.group_lanes == b.group_lanes && a.force_unsafe == b.force_unsafe &&
                     a.safety == b.safety;
  if (equal) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "specs differ:\n"
                                       << herding_yaml(a) << "--- vs ---\n"
                                       << herding_yaml(b);
}

TEST(HerdingSpec, DefaultsHerdNothing) {
  const HerdingSpec spec;
  EXPECT_FALSE(spec.any());
  EXPECT_EQ(spec.threshold, 0.5);
  EXPECT_EQ(spec.tie, HerdTie::not_taken);
  EXPECT_EQ(spec.block_bytes, 128u);
  EXPECT_EQ(spec.group_lanes, 32u);
  EXPECT_EQ(spec.max_instances, 0u);
  EXPECT_FALSE(spec.load_cycles.has_value());  // the machine's selector decides
  EXPECT_TRUE(same(read("herding: {}\n"), spec));
}

// An unset load_cycles (the machine's popular-block selector's latency) and an explicit 0 (a free selection)
// differ, and each survives herding_yaml and read_herding_section.
TEST(HerdingSpec, LoadCyclesUnsetAndZeroStayApart) {
  HerdingSpec unset;
  unset.buffers = {"image"};
  EXPECT_EQ(herding_yaml(unset, 0), "buffers: [\"image\"]\n");
  EXPECT_FALSE(read("herding:\n" + herding_yaml(unset)).load_cycles.has_value());
  HerdingSpec zero = unset;
  zero.load_cycles = 0;
  EXPECT_EQ(herding_yaml(zero, 0), "buffers: [\"image\"]\nload_cycles: 0\n");
  const HerdingSpec zero_back = read("herding:\n" + herding_yaml(zero));
  ASSERT_TRUE(zero_back.load_cycles.has_value());
  EXPECT_EQ(*zero_back.load_cycles, 0u);
  EXPECT_FALSE(same(zero_back, unset));
  EXPECT_EQ(read("herding:\n  load_cycles: 0\n").load_cycles, std::optional<uint32_t>(0));
}

TEST(HerdingSpec, EveryKeyIsRead) {
  const HerdingSpec spec = read(
      "kernel: k\n"
      "herding:\n"
      "  branches: [12, mandelbrot.cu:13, src/a.cu:7]\n"
      "  loads: all\n"
      "  buffers: [image, mask]\n"
      "  kernels: sobel\n"
      "  max_instances: 18446744073709551615\n"
      "  threshold: 0.25\n"
      "  tie: taken\n"
      "  branch_cycles: 1\n"
      "  load_cycles: 64\n"
      "  block_bytes: 64\n"
      "  group_lanes: 16\n"
      "  force_unsafe: true\n"
      "  safety: relaxed\n");
  ASSERT_EQ(spec.branches.sites.size(), 3u);
  EXPECT_FALSE(spec.branches.all);
  EXPECT_EQ(spec.branches.sites[0], (HerdSite{.by_pc = true, .pc = 12, .file = "", .line = 0}));
  EXPECT_EQ(spec.branches.sites[1], (HerdSite{.by_pc = false, .pc = 0, .file = "mandelbrot.cu", .line = 13}));
  EXPECT_EQ(spec.branches.sites[2], (HerdSite{.by_pc = false, .pc = 0, .file = "src/a.cu", .line = 7}));
  EXPECT_TRUE(spec.loads.all);
  EXPECT_TRUE(spec.loads.sites.empty());
  EXPECT_EQ(spec.buffers, (std::vector<std::string>{"image", "mask"}));
  EXPECT_EQ(spec.kernels, (std::vector<std::string>{"sobel"}));
  EXPECT_EQ(spec.max_instances, UINT64_MAX);
  EXPECT_EQ(spec.threshold, 0.25);
  EXPECT_EQ(spec.tie, HerdTie::taken);
  EXPECT_EQ(spec.branch_cycles, 1u);
  EXPECT_EQ(spec.load_cycles, 64u);
  EXPECT_EQ(spec.block_bytes, 64u);
  EXPECT_EQ(spec.group_lanes, 16u);
  EXPECT_TRUE(spec.force_unsafe);
  EXPECT_EQ(spec.safety, simtlm::ptx::HerdSafetyRule::relaxed);
  EXPECT_TRUE(spec.any());
}

TEST(HerdingSpec, SitesParseAsPcsOrCudaLines) {
  EXPECT_EQ(parse_herd_site("0"), (HerdSite{.by_pc = true, .pc = 0, .file = "", .line = 0}));
  EXPECT_EQ(parse_herd_site("C:/x/k.cu:9"),
            (HerdSite{.by_pc = false, .pc = 0, .file = "C:/x/k.cu", .line = 9}));
  EXPECT_EQ(parse_herd_site("k.cu:9").text(), "k.cu:9");
  EXPECT_EQ(parse_herd_site("46").text(), "46");
  for (const char* bad : {"", "-1", "k.cu", "k.cu:", ":9", "k.cu:0", "k.cu:x", "4294967296", "1.5"})
    EXPECT_THROW(parse_herd_site(bad), std::invalid_argument) << bad;
}

struct BadValue {
  const char* yaml;  // the herding: map's body, one key per line from line 2
  const char* expected;
};

class HerdingSpecRefuses : public ::testing::TestWithParam<BadValue> {};

TEST_P(HerdingSpecRefuses, NamingFileLineAndKey) {
  EXPECT_EQ(error_of(std::string("herding:\n  branches: [1]\n") + GetParam().yaml), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    BadValues, HerdingSpecRefuses,
    ::testing::Values(
        BadValue{
            "  branchs: all\n",
            "spec.yaml:3: herding.branchs: unknown key (expected one of: branches, loads, buffers, kernels, "
            "max_instances, threshold, tie, branch_cycles, load_cycles, block_bytes, group_lanes, "
            "force_unsafe, safety)"},
        BadValue{"  safety: loose\n", "spec.yaml:3: herding.safety: expected strict or relaxed"},
        BadValue{"  loads:\n    - 7\n    - k.cu\n",
                 "spec.yaml:5: herding.loads[1]: 'k.cu' is neither a PC nor a CUDA FILE:LINE (e.g. 42 or "
                 "kernel.cu:17)"},
        BadValue{"  loads: some\n",
                 "spec.yaml:3: herding.loads: expected all or a list of PCs and FILE:LINE sites"},
        BadValue{"  threshold: 0\n", "spec.yaml:3: herding.threshold: threshold 0 is not in (0, 1)"},
        BadValue{"  threshold: 1\n", "spec.yaml:3: herding.threshold: threshold 1 is not in (0, 1)"},
        BadValue{"  threshold: 1.5\n", "spec.yaml:3: herding.threshold: threshold 1.5 is not in (0, 1)"},
        BadValue{"  threshold: half\n", "spec.yaml:3: herding.threshold: expected a number in (0, 1)"},
        BadValue{"  threshold: nan\n", "spec.yaml:3: herding.threshold: expected a number in (0, 1)"},
        BadValue{"  block_bytes: 100\n",
                 "spec.yaml:3: herding.block_bytes: block_bytes 100 is not a power of two 4..4096"},
        BadValue{"  block_bytes: 2\n",
                 "spec.yaml:3: herding.block_bytes: block_bytes 2 is not a power of two 4..4096"},
        BadValue{"  block_bytes: 8192\n", "spec.yaml:3: herding.block_bytes: expected an integer 0..4096"},
        BadValue{"  group_lanes: 12\n",
                 "spec.yaml:3: herding.group_lanes: group_lanes 12 is not 8, 16 or 32"},
        BadValue{"  group_lanes: 64\n", "spec.yaml:3: herding.group_lanes: expected an integer 0..32"},
        BadValue{"  tie: maybe\n", "spec.yaml:3: herding.tie: expected taken or not_taken"},
        BadValue{"  force_unsafe: yes\n", "spec.yaml:3: herding.force_unsafe: expected true or false"},
        BadValue{"  max_instances: -1\n",
                 "spec.yaml:3: herding.max_instances: expected an integer 0..18446744073709551615"},
        BadValue{"  branch_cycles: 65\n", "spec.yaml:3: herding.branch_cycles: expected an integer 0..64"},
        BadValue{"  load_cycles: 65\n", "spec.yaml:3: herding.load_cycles: expected an integer 0..64"},
        BadValue{"  kernels: {a: 1}\n", "spec.yaml:3: herding.kernels: expected a name or a list of names"}));

TEST(HerdingSpec, ANonMapSectionIsRefused) {
  EXPECT_EQ(error_of("herding: all\n"),
            "spec.yaml:1: herding: expected a map (branches, loads, buffers, kernels, ...)");
}

TEST(HerdingSpec, CheckRefusesWhatTheReaderRefuses) {
  HerdingSpec spec;
  EXPECT_NO_THROW(check_herding_spec(spec));
  spec.group_lanes = 12;
  EXPECT_THROW(check_herding_spec(spec), std::invalid_argument);
  spec.group_lanes = 8;
  spec.block_bytes = 4096;
  EXPECT_NO_THROW(check_herding_spec(spec));
  spec.load_cycles = 65;
  EXPECT_THROW(check_herding_spec(spec), std::invalid_argument);
  spec.load_cycles = 64;
  EXPECT_NO_THROW(check_herding_spec(spec));
  spec.threshold = 1.0;
  EXPECT_THROW(check_herding_spec(spec), std::invalid_argument);
}

TEST(HerdingSpec, YamlReadsBackToAnEqualSpec) {
  HerdingSpec spec;
  spec.branches.sites = {parse_herd_site("46"), parse_herd_site("dir/mandelbrot.cu:13")};
  spec.loads.all = true;
  spec.buffers = {"image"};
  spec.kernels = {"sobel", "mandelbrot"};
  spec.max_instances = 1234;
  spec.threshold = 0.3;
  spec.tie = HerdTie::taken;
  spec.branch_cycles = 1;
  spec.load_cycles = 3;
  spec.block_bytes = 32;
  spec.group_lanes = 8;
  spec.force_unsafe = true;
  spec.safety = simtlm::ptx::HerdSafetyRule::relaxed;
  const std::string yaml = herding_yaml(spec, 2);
  EXPECT_NE(yaml.find("  safety: relaxed\n"), std::string::npos) << yaml;
  EXPECT_TRUE(same(read("herding:\n" + yaml), spec)) << yaml;

  HerdingSpec branches_only;
  branches_only.branches.all = true;
  EXPECT_EQ(herding_yaml(branches_only, 0), "branches: all\n");
  EXPECT_TRUE(same(read("herding:\n" + herding_yaml(branches_only, 4)), branches_only));
}

TEST(HerdingSpec, ALaunchFileWithAHerdingSectionLoads) {
  const Launch l =
      load_launch(std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/herding/tiny_herd_herded.yaml");
  HerdingSpec expected;
  expected.branches.sites = {parse_herd_site("tiny_herd.cu:7")};
  expected.loads.sites = {parse_herd_site("7")};
  expected.buffers = {"data"};
  expected.max_instances = 5;
  expected.threshold = 0.25;
  expected.tie = HerdTie::taken;
  expected.branch_cycles = 1;
  expected.load_cycles = 2;
  expected.block_bytes = 64;
  expected.group_lanes = 16;
  EXPECT_TRUE(same(l.herding, expected));
  // Without the section nothing is herded.
  EXPECT_FALSE(load_launch(std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/herding/tiny_herd.yaml")
                   .herding.any());
}

TEST(HerdingSpec, ALaunchSetReplacesTheSectionAndABadOneIsALaunchError) {
  const std::filesystem::path file =
      std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/herding/tiny_herd.yaml";
  const Launch l = load_launch(file, {"herding={branches: [11], tie: taken}"});
  EXPECT_EQ(l.herding.branches.sites, (std::vector<HerdSite>{parse_herd_site("11")}));
  EXPECT_EQ(l.herding.tie, HerdTie::taken);
  try {
    load_launch(file, {"herding={group_lanes: 12}"});
    FAIL() << "group_lanes 12 was accepted";
  } catch (const LaunchError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("herding.group_lanes: group_lanes 12 is not 8, 16 or 32"), std::string::npos) << what;
    EXPECT_NE(what.find("tiny_herd.yaml:"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace simtlm::launch
