// Values a launch file used to have accepted silently (issue 11, defect 11): integer initialisations out of
// their type's range, full-range 64-bit uniforms, duplicate keys, second documents and deep nesting.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "models/launch/buffers.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/session.hpp"
#include "testbenches/unit/hostile_files.hpp"

namespace simtlm::launch {
namespace {

using test::as;
using test::error_of;
using test::fixture;
using test::HostileFiles;

// scale.ptx with one extra buffer x (line 9) initialised by `init`.
std::filesystem::path with_buffer(const HostileFiles& files, const std::string& type, uint64_t count,
                                  const std::string& init) {
  return files.launch("v.yaml",
                      "kernel: scale\ngrid: [2]\nblock: [32]\nparams: [out, in, 64, 2.0]\nbuffers:\n"
                      "  out: {type: f32, count: 64}\n  in: {type: f32, count: 64}\n  x: {type: " +
                          type + ", count: " + std::to_string(count) + ", init: " + init + "}\n");
}

std::vector<uint8_t> x_bytes(const std::filesystem::path& path) {
  const Launch launch = load_launch(path);
  return init_buffer(launch, launch.buffers.at(2));
}

TEST(LaunchHostileValues, IntegerInitialisationsOutsideTheTypeAreRefusedAtTheirLine) {
  HostileFiles files("values_range");
  const std::pair<std::pair<const char*, const char*>, const char*> cases[] = {
      {{"u32", "{value: 1e30}"}, "value: 1e30 does not fit in u32"},
      {{"u64", "{value: 18446744073709551616}"}, "value: 18446744073709551616 does not fit in u64"},
      {{"s64", "{value: 9223372036854775808}"}, "value: 9223372036854775808 does not fit in s64"},
      {{"u8", "{random: uniform, min: 0, max: 256}"}, "max: 256 does not fit in u8"},
      {{"s64", "{random: uniform, min: -9223372036854775809, max: 0}"},
       "min: -9223372036854775809 does not fit in s64"},
      {{"u16", "{sequence: {start: -1}}"}, "sequence.start: -1 does not fit in u16"},
      {{"s32", "{sequence: {step: 1e19}}"}, "sequence.step: 1e19 does not fit in s64"},
      {{"u32", "{value: 2.5}"}, "value: 2.5 is not an integer but the buffer is u32"},
  };
  for (const auto& [spec, message] : cases) {
    const auto path = with_buffer(files, spec.first, 4, spec.second);
    EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }),
              path.string() + ":9: buffers.x.init." + message)
        << spec.second;
  }
}

TEST(LaunchHostileValues, SixtyFourBitExtremesAreStoredExactly) {
  HostileFiles files("values_exact");
  EXPECT_EQ(as<uint64_t>(x_bytes(with_buffer(files, "u64", 2, "{value: 18446744073709551615}"))),
            (std::vector<uint64_t>{UINT64_MAX, UINT64_MAX}));
  EXPECT_EQ(as<int64_t>(x_bytes(with_buffer(files, "s64", 1, "{value: -9223372036854775808}"))),
            (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(as<uint64_t>(x_bytes(with_buffer(files, "u64", 1, "{value: 18446744073709551614}"))),
            (std::vector<uint64_t>{UINT64_MAX - 1}));
  EXPECT_EQ(as<uint32_t>(x_bytes(with_buffer(files, "u32", 1, "{value: 1e3}"))),
            (std::vector<uint32_t>{1000}));
}

TEST(LaunchHostileValues, AFullRangeU64UniformReachesTheUpperHalf) {
  HostileFiles files("values_uniform");
  const auto values = as<uint64_t>(
      x_bytes(with_buffer(files, "u64", 1000, "{random: uniform, min: 0, max: 18446744073709551615}")));
  size_t upper = 0;
  for (uint64_t v : values) upper += v >= (uint64_t(1) << 63);
  EXPECT_EQ(upper, 505u);  // about half; the exact count pins the generator (seed 1, buffer name x)
  // The top of the range is reachable: a two-value range at the very top gives both values.
  const auto top = as<uint64_t>(x_bytes(with_buffer(
      files, "u64", 64, "{random: uniform, min: 18446744073709551614, max: 18446744073709551615}")));
  size_t at_max = 0;
  for (uint64_t v : top) {
    EXPECT_GE(v, UINT64_MAX - 1);
    at_max += v == UINT64_MAX;
  }
  EXPECT_GT(at_max, 0u);
  EXPECT_LT(at_max, 64u);
}

TEST(LaunchHostileValues, NarrowUniformsKeepTheirValues) {
  // Ranges below 2^63 draw exactly as before the 64-bit fix: these are the first values of seed 1, buffer x.
  HostileFiles files("values_same");
  const auto values =
      as<uint32_t>(x_bytes(with_buffer(files, "u32", 4, "{random: uniform, min: 10, max: 1000}")));
  SplitMix64 rng(1 ^ hash_name("x"));
  for (uint32_t v : values) EXPECT_EQ(v, 10 + rng.next_below(991));
}

TEST(LaunchHostileValues, ASymbolValueOutsideItsPtxTypeIsRefusedWhenInitialised) {
  HostileFiles files("values_symbol");
  const auto path = files.write("g.yaml", "ptx: " + fixture("hostile/globals.ptx").string() +
                                              "\nkernel: touch_globals\ngrid: [1]\nblock: [32]\n"
                                              "buffers:\n  out: {type: u32, count: 1}\nparams: [out, 1]\n"
                                              "symbols:\n  second: {init: {value: 1e30}}\n");
  Session session(load_launch(path), SessionOptions{});
  EXPECT_EQ(error_of<LaunchError>([&] { session.prepare_device(); }),
            path.string() + ":9: symbols.second.init: value: 1e30 does not fit in u32");
}

// --- YAML: duplicates, documents, nesting ----------------------------------------------------------

TEST(LaunchHostileYaml, AKeyGivenTwiceAnywhereIsRefused) {
  HostileFiles files("yaml_duplicates");
  const auto top = files.launch("top.yaml", "seed: 1\nkernel: scale\nseed: 2\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(top); }),
            top.string() + ":4: seed: given twice (first at line 2)");
  const auto nested = files.launch("nested.yaml",
                                   "kernel: scale\ngrid: [2]\nblock: [32]\nparams: [out, in, 64, 2.0]\n"
                                   "buffers:\n  out: {type: f32, count: 64, count: 32}\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(nested); }),
            nested.string() + ":7: buffers.out.count: given twice (first at line 7)");
  const auto expect = files.launch(
      "expect.yaml", std::string("kernel: scale\ngrid: [2]\nblock: [32]\n") +
                         "params: [out, in, 64, 2.0]\nbuffers:\n"
                         "  out: {type: f32, count: 64}\n  in: {type: f32, count: 64}\n"
                         "expect:\n  out: {sha256: " +
                         std::string(64, 'a') + "}\n  out: {sha256: " + std::string(64, 'b') + "}\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(expect); }),
            expect.string() + ":11: expect.out: given twice (first at line 10)");
}

TEST(LaunchHostileYaml, ASecondDocumentIsRefused) {
  HostileFiles files("yaml_documents");
  const auto path = files.launch("two.yaml", std::string("kernel: scale\n---\nkernel: other\n"));
  EXPECT_EQ(
      error_of<LaunchError>([&] { load_launch(path); }),
      path.string() +
          ":4: a second YAML document: a launch file holds one (remove the '---' and what follows, or merge "
          "it)");
  const auto empty_second = files.write("empty.yaml", "---\nkernel: scale\n---\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(empty_second); }),
            empty_second.string() +
                ":3: a second YAML document: a launch file holds one (remove the '---' and what follows, or "
                "merge it)");
}

TEST(LaunchHostileYaml, DeepNestingIsALocatedErrorWithTheLimit) {
  HostileFiles files("yaml_deep");
  const auto deep = files.launch("deep.yaml", "kernel: scale\nx: " + std::string(10000, '[') + "\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(deep); }),
            deep.string() + ":3: nested 500 levels deep or more; the YAML reader's limit is 499");
  // Just under the limit the file loads, and the unknown key x is what is wrong with it.
  const auto under =
      files.launch("under.yaml", "kernel: scale\nx: " + std::string(498, '[') + std::string(498, ']') + "\n");
  EXPECT_NE(error_of<LaunchError>([&] { load_launch(under); }).find(under.string() + ":3: x: unknown key"),
            std::string::npos);
}

TEST(LaunchHostileYaml, ADirectoryOrAMissingFileIsNamed) {
  HostileFiles files("yaml_directory");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(files.dir()); }),
            files.dir().string() + ": is a directory, not a launch file");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(files.dir() / "none.yaml"); }),
            (files.dir() / "none.yaml").string() + ": no such launch file");
}

}  // namespace
}  // namespace simtlm::launch
