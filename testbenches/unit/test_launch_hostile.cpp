// Launch files as a hostile or careless user writes them (issue 11): names that are paths, grids whose size
// wraps, more buffers or bytes than a host holds, module variables past the address space. Each is a located
// LaunchError, never a crash, a write outside --out or a silently wrong run.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "models/launch/buffers.hpp"
#include "models/launch/device.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/memory.hpp"
#include "testbenches/unit/hostile_files.hpp"

namespace simtlm::launch {
namespace {

using test::error_of;
using test::fixture;
using test::HostileFiles;

constexpr const char* kScaleRest =
    "kernel: scale\ngrid: [2]\nblock: [32]\nparams: [out, in, 64, 2.0]\n"
    "buffers:\n  out: {type: f32, count: 64}\n  in: {type: f32, count: 64}\n";

const std::string kNameRule =
    "is not a name: buffer, symbol and output names are C identifiers ([A-Za-z_][A-Za-z0-9_]*, at most 128 "
    "characters), as they become file names";

// --- 3. names that would become paths --------------------------------------------------------------

TEST(LaunchHostileNames, BufferNamesThatAreNotIdentifiersAreRefusedAtTheirLine) {
  HostileFiles files("buffer_names");
  // As YAML keys: a relative escape, an absolute path, a subdirectory, the directory itself, empty, a NUL
  // and a control character, a leading digit, a non-ASCII letter.
  const std::pair<const char*, const char*> cases[] = {{"\"../../x\"", "../../x"},
                                                       {"/abs", "/abs"},
                                                       {"a/b", "a/b"},
                                                       {"\".\"", "."},
                                                       {"\"\"", ""},
                                                       {"\"a\\0b\"", "a\\x00b"},
                                                       {"\"a\\tb\"", "a\\x09b"},
                                                       {"9lives", "9lives"},
                                                       {"caf\xc3\xa9", "caf\\xc3\\xa9"}};
  for (const auto& [key, shown] : cases) {
    const auto path = files.launch("l.yaml",
                                   "kernel: scale\ngrid: [2]\nblock: [32]\nparams: [out, in, 64, 2.0]\n"
                                   "buffers:\n  out: {type: f32, count: 64}\n  " +
                                       std::string(key) + ": {type: f32, count: 64}\n");
    EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }),
              path.string() + ":8: buffers: '" + shown + "' " + kNameRule)
        << key;
  }
}

TEST(LaunchHostileNames, NamesLongerThanTheLimitAreRefusedAndTheLimitItselfLoads) {
  HostileFiles files("long_names");
  const std::string longest(kMaxNameLength, 'b');
  const auto ok = files.launch("ok.yaml",
                               "kernel: scale\ngrid: [2]\nblock: [32]\nparams: [out, in, 64, 2.0]\n"
                               "buffers:\n  out: {type: f32, count: 64}\n  in: {type: f32, count: 64}\n"
                               "  " +
                                   longest + ": {type: u8, count: 1}\noutputs: [" + longest + "]\n");
  EXPECT_EQ(load_launch(ok).outputs.at(0), longest);
  const auto bad = files.launch("bad.yaml", std::string(kScaleRest) + "outputs: [" + longest + "c]\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(bad); }),
            bad.string() + ":9: outputs[0]: '" + longest + "...' " + kNameRule);
}

TEST(LaunchHostileNames, OutputAndSymbolNamesAreIdentifiers) {
  HostileFiles files("output_names");
  const auto output = files.launch("o.yaml", std::string(kScaleRest) + "outputs: [out, \"../../etc/x\"]\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(output); }),
            output.string() + ":9: outputs[1]: '../../etc/x' " + kNameRule);
  const auto symbol = files.launch("s.yaml", std::string(kScaleRest) + "symbols:\n  /tmp/x: {init: zeros}\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(symbol); }),
            symbol.string() + ":10: symbols: '/tmp/x' " + kNameRule);
}

// --- 5. grids ------------------------------------------------------------------------------------------

std::filesystem::path scale_with_geometry(const HostileFiles& files, const std::string& grid,
                                          const std::string& block) {
  return files.launch("g.yaml", "kernel: scale\ngrid: " + grid + "\nblock: " + block +
                                    "\nparams: [out, in, 64, 2.0]\nbuffers:\n  out: {type: f32, count: 64}\n"
                                    "  in: {type: f32, count: 64}\n");
}

TEST(LaunchHostileGrid, ABlockWhoseThreadCountWrapsTo64BitsIsRefusedByDimension) {
  HostileFiles files("block_wrap");
  // 2^22 * 2^22 * 2^20 = 2^64 threads: the product used to wrap to 0, pass the 1024-thread check and run
  // nothing, exiting 0.
  const auto path = scale_with_geometry(files, "[1]", "[4194304, 4194304, 1048576]");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }),
            path.string() + ":4: block[0]: 4194304 exceeds CUDA's limit of 1024 for block.x");
  EXPECT_EQ((ptx::Dim3{4194304, 4194304, 1048576}.count()), UINT64_MAX);  // saturates, never wraps
}

TEST(LaunchHostileGrid, BlockDimensionsAndThreadsFollowCudasLimits) {
  HostileFiles files("block_limits");
  EXPECT_EQ(load_launch(scale_with_geometry(files, "[1]", "[1, 1, 64]")).block.count(), 64u);
  EXPECT_EQ(load_launch(scale_with_geometry(files, "[1]", "[1, 1024]")).block.count(), 1024u);
  const std::pair<const char*, const char*> refused[] = {
      {"[1025]", ":4: block[0]: 1025 exceeds CUDA's limit of 1024 for block.x"},
      {"[1, 1025]", ":4: block[1]: 1025 exceeds CUDA's limit of 1024 for block.y"},
      {"[1, 1, 65]", ":4: block[2]: 65 exceeds CUDA's limit of 64 for block.z"},
      {"[1, 1, 18446744073709551615]",
       ":4: block[2]: 18446744073709551615 exceeds CUDA's limit of 64 for block.z"},
      {"[1024, 1024, 64]", ":4: block: 67108864 threads per block exceed the limit of 1024"},
      {"[33, 32]", ":4: block: 1056 threads per block exceed the limit of 1024"}};
  for (const auto& [block, message] : refused) {
    const auto path = scale_with_geometry(files, "[1]", block);
    EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }), path.string() + message) << block;
  }
}

TEST(LaunchHostileGrid, GridDimensionsOverCudasLimitsAreRefusedAtTheirLine) {
  HostileFiles files("grid_dims");
  EXPECT_EQ(load_launch(scale_with_geometry(files, "[2147483647]", "[32]")).grid.x, 2147483647u);
  const std::pair<const char*, const char*> refused[] = {
      {"[2147483648]", ":3: grid[0]: 2147483648 exceeds CUDA's limit of 2147483647 for grid.x"},
      {"[1, 65536]", ":3: grid[1]: 65536 exceeds CUDA's limit of 65535 for grid.y"},
      {"[1, 1, 65536]", ":3: grid[2]: 65536 exceeds CUDA's limit of 65535 for grid.z"},
      {"[4294967296]", ":3: grid[0]: 4294967296 exceeds CUDA's limit of 2147483647 for grid.x"}};
  for (const auto& [grid, message] : refused) {
    const auto path = scale_with_geometry(files, grid, "[32]");
    EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }), path.string() + message) << grid;
  }
}

TEST(LaunchHostileGrid, TheLargestCudaGridExceedsTheCtaLimitWithoutWrapping) {
  HostileFiles files("grid_wrap");
  // 2147483647 * 65535 * 65535 is just below 2^63: the CTA limit refuses it, the product checked anyway.
  const auto path = scale_with_geometry(files, "[2147483647, 65535, 65535]", "[1024]");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }),
            path.string() +
                ":3: grid: 2147483647 x 65535 x 65535 CTAs exceed the limit of 4294967296 CTAs per launch");
}

TEST(LaunchHostileGrid, CtaAndThreadLimitsHoldExactly) {
  HostileFiles files("grid_limits");
  auto with = [&](const std::string& grid, const std::string& block) {
    return scale_with_geometry(files, grid, block);
  };
  EXPECT_EQ(load_launch(with("[1048576, 4096, 1]", "[1]")).grid.count(), kMaxGridCtas);
  EXPECT_EQ(load_launch(with("[1048576, 4096]", "[256]")).grid.count() * 256, kMaxGridThreads);
  const auto ctas = with("[1048576, 4096, 2]", "[1]");
  EXPECT_EQ(
      error_of<LaunchError>([&] { load_launch(ctas); }),
      ctas.string() + ":3: grid: 1048576 x 4096 x 2 CTAs exceed the limit of 4294967296 CTAs per launch");
  const auto threads = with("[1048576, 4096]", "[512]");
  EXPECT_EQ(
      error_of<LaunchError>([&] { load_launch(threads); }),
      threads.string() +
          ":3: grid: 4294967296 CTAs of 512 threads exceed the limit of 1099511627776 threads per launch");
}

TEST(LaunchHostileGrid, ASequenceGeometryFromAnExpressionIsCheckedWhenPlanned) {
  HostileFiles files("grid_sequence");
  const std::pair<const char*, const char*> cases[] = {
      {"grid: [huge, 65535, 65535]\n    block: [32]",
       "grid: 2147483647 x 65535 x 65535 CTAs exceed the limit of 4294967296 CTAs per launch (i = 0)"},
      {"grid: [huge + 1]\n    block: [32]", "grid[0] = 2147483648 (i = 0) is outside [1, 2147483647]"},
      {"grid: [1, 65536]\n    block: [32]", "grid[1] = 65536 (i = 0) is outside [1, 65535]"},
      {"grid: [1]\n    block: [1, 1, 65]", "block[2] = 65 (i = 0) is outside [1, 64]"},
      {"grid: [1]\n    block: [32, 32, 2]", "2048 threads per block exceed the limit of 1024 (i = 0)"}};
  for (const auto& [geometry, message] : cases) {
    const auto path = files.write("s.yaml", "ptx: " + fixture("sequence.ptx").string() +
                                                "\nconstants: {huge: 2147483647}\n"
                                                "buffers:\n  out16: {type: s32, count: 32}\n"
                                                "launches:\n  - kernel: fill_n<16u>\n    " +
                                                geometry + "\n    params: [out16]\n");
    SequenceSession session(load_launch(path), {});
    session.reset();
    EXPECT_EQ(error_of<LaunchError>([&] { session.next(); }),
              path.string() + ":6: kernel fill_n<16u>: " + message)
        << geometry;
  }
}

// --- 10. buffers: count and total bytes ----------------------------------------------------------------

TEST(LaunchHostileBuffers, MoreBuffersThanTheLimitAreRefused) {
  HostileFiles files("buffer_count");
  std::string buffers = "buffers:\n";
  for (uint64_t k = 0; k <= kMaxBuffers; ++k)
    buffers += "  b" + std::to_string(k) + ": {type: u8, count: 1}\n";
  const auto path =
      files.launch("many.yaml", "kernel: scale\ngrid: [1]\nblock: [1]\nparams: [b0, b1, 1, 1]\n" + buffers);
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }),
            path.string() + ":7: buffers: 100001 buffers exceed the limit of 100000 per launch file");
}

TEST(LaunchHostileBuffers, TheTotalOfAllBuffersIsLimited) {
  HostileFiles files("buffer_total");
  // Three buffers of 1 GiB, each within the per-buffer limit; the third passes the 2 GiB total.
  const auto path = files.launch("big.yaml",
                                 "kernel: scale\ngrid: [1]\nblock: [1]\nparams: [a, b, 1, 1]\nbuffers:\n"
                                 "  a: {type: u8, count: 1073741824}\n  b: {type: f32, count: 268435456}\n"
                                 "  c: {type: u64, count: 1}\n");
  EXPECT_EQ(
      error_of<LaunchError>([&] { load_launch(path); }),
      path.string() +
          ":9: buffers.c: the buffers up to this one take 2147483656 bytes, over the limit of 2147483648 "
          "bytes (2 GiB) for all buffers and module variables of a launch");
}

TEST(LaunchHostileBuffers, LookupsByNameUseTheIndexAndFallBackForHandBuiltLaunches) {
  Launch launch;
  for (int k = 0; k < 3; ++k) {
    BufferSpec spec;
    spec.name = "b" + std::to_string(k);
    spec.count = uint64_t(k + 1);
    launch.add_buffer(spec);
  }
  EXPECT_EQ(launch.find_buffer_spec("b2")->count, 3u);
  EXPECT_EQ(launch.find_buffer_spec("b3"), nullptr);
  BufferSpec direct;
  direct.name = "direct";
  direct.count = 9;
  launch.buffers.push_back(direct);  // as tests build launches: the index no longer covers every buffer
  EXPECT_EQ(launch.find_buffer_spec("direct")->count, 9u);
  EXPECT_EQ(launch.find_buffer_spec("b0")->count, 1u);
}

// symbols: entries share the buffers' limit: each becomes a buffer-like view of a module variable.
std::string two_buffers_and_symbols(uint64_t symbols) {
  std::string text =
      "kernel: scale\ngrid: [1]\nblock: [1]\nparams: [b0, b1, 1, 1]\nbuffers:\n"
      "  b0: {type: f32, count: 1}\n  b1: {type: f32, count: 1}\nsymbols:\n";
  for (uint64_t k = 0; k < symbols; ++k) text += "  s" + std::to_string(k) + ": {init: zeros}\n";
  return text;
}

TEST(LaunchHostileSymbols, BuffersAndSymbolsTogetherAreLimited) {
  HostileFiles files("symbol_count");
  const auto over = files.launch("over.yaml", two_buffers_and_symbols(kMaxBuffers - 1));
  EXPECT_EQ(
      error_of<LaunchError>([&] { load_launch(over); }),
      over.string() +
          ":10: symbols: 2 buffers and 99999 symbols exceed the limit of 100000 buffers and symbols per "
          "launch file");
  const Launch at_limit = load_launch(files.launch("limit.yaml", two_buffers_and_symbols(kMaxBuffers - 2)));
  ASSERT_EQ(at_limit.symbols.size(), kMaxBuffers - 2);
  EXPECT_EQ(at_limit.find_symbol_spec("s99997")->line, 10u + 99997u);
  EXPECT_EQ(at_limit.find_symbol_spec("s99998"), nullptr);
}

TEST(LaunchHostileSymbols, ASymbolNamedTwiceOrLikeABufferIsRefused) {
  HostileFiles files("symbol_twice");
  const auto path = files.launch("twice.yaml", two_buffers_and_symbols(0) + "  b1: {init: zeros}\n");
  EXPECT_EQ(error_of<LaunchError>([&] { load_launch(path); }),
            path.string() + ":10: symbols.b1: the name is already a buffer or a symbol");
}

TEST(LaunchHostileSymbols, LookupsByNameUseTheIndexAndFallBackForHandBuiltLaunches) {
  Launch launch;
  for (uint32_t k = 0; k < 3; ++k) {
    SymbolSpec spec;
    spec.name = "s" + std::to_string(k);
    spec.line = 10 + k;
    launch.add_symbol(spec);
  }
  EXPECT_EQ(launch.find_symbol_spec("s2")->line, 12u);
  EXPECT_EQ(launch.find_symbol_spec("s3"), nullptr);
  SymbolSpec direct;
  direct.name = "direct";
  direct.line = 99;
  launch.symbols.push_back(direct);  // as tests build launches: the index no longer covers every symbol
  EXPECT_EQ(launch.find_symbol_spec("direct")->line, 99u);
  EXPECT_EQ(launch.find_symbol_spec("s0")->line, 10u);
}

TEST(LaunchHostileSymbols, ModuleVariablesAreFoundByIndexAsByTheScan) {
  const Launch launch = load_launch(fixture("hostile/globals.yaml"));
  const auto module = load_module(launch.ptx, launch);
  const ModuleVariables variables(*module);
  size_t found = 0;
  for (const ptx::Symbol& s : module->symbols) {
    EXPECT_EQ(variables.find(s.name), find_module_variable(*module, s.name)) << s.name;
    found += variables.find(s.name) >= 0;
  }
  EXPECT_EQ(found, 2u);  // big and second
  EXPECT_GE(variables.find("second"), 0);
  EXPECT_EQ(variables.find("no_such_variable"), -1);
}

// --- 4. the allocator ------------------------------------------------------------------------------------

TEST(LaunchHostileAllocator, ExtremeSizesAlignmentsAndGuardsAreRefusedWithoutWrapping) {
  ptx::GlobalMemory memory;
  const uint64_t first = memory.allocate(64, 256, "first");
  EXPECT_THROW(memory.allocate(UINT64_MAX - 100, 256, "size"), std::length_error);
  EXPECT_THROW(memory.allocate(16, uint64_t(1) << 63, "align"), std::length_error);
  EXPECT_THROW(memory.allocate(16, 256, "guard", UINT64_MAX - 8), std::length_error);
  EXPECT_THROW(memory.allocate(ptx::kLocalWindow - ptx::kGlobalBase, 256, "window"), std::length_error);
  EXPECT_THROW(memory.allocate(16, 3 << 8, "odd"), std::invalid_argument);
  // A failed allocation leaves nothing behind: the next one follows the first's 64 bytes and 4096-byte
  // guard gap, aligned up to 256.
  const uint64_t second = memory.allocate(64, 256, "second");
  EXPECT_EQ(second, first + 4352);
  EXPECT_EQ(memory.allocations().size(), 2u);
  EXPECT_EQ(memory.find(second, 64)->name, "second");
  EXPECT_EQ(memory.find(first, 64)->name, "first");
}

TEST(LaunchHostileAllocator, AStoreToAModuleVariableNeverReachesALaunchBuffer) {
  SessionOptions options;
  Session session(load_launch(fixture("hostile/globals.yaml")), options);
  const SessionResult result = session.run();
  // out holds value + 1 per CTA; second holds value; the 1 MiB array before second changed nothing else.
  const std::vector<uint8_t>& out = result.buffers.at("out");
  ASSERT_EQ(out.size(), 8u);
  uint32_t values[2];
  std::memcpy(values, out.data(), 8);
  EXPECT_EQ(values[0], 42u);
  EXPECT_EQ(values[1], 42u);
  uint32_t second = 0;
  std::memcpy(&second, result.buffers.at("second").data(), 4);
  EXPECT_EQ(second, 41u);
}

TEST(LaunchHostileAllocator, AModuleVariablePastTheLaunchLimitIsALocatedError) {
  const std::filesystem::path path = fixture("hostile/huge_global.yaml");
  std::string message;
  try {
    Session session(load_launch(path), SessionOptions{});
    session.prepare_device();
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  // The PTX loader may refuse the size itself (a PTX limit); otherwise the launch's memory limit does.
  if (message.find("huge_global.ptx") != std::string::npos &&
      message.find(path.string()) == std::string::npos) {
    EXPECT_NE(message.find("big"), std::string::npos) << message;
  } else {
    EXPECT_EQ(message, path.string() + ": module variable big (" +
                           fixture("hostile/huge_global.ptx").string() +
                           ":15, 1099511627776 bytes): with the buffers and earlier module variables it "
                           "exceeds the limit of 2147483648 bytes (2 GiB) of a launch");
  }
}

}  // namespace
}  // namespace simtlm::launch
