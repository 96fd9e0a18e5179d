// Hostile variations of the application launch files (testbenches/apps/): each mistake a user is likely to
// make must stop with a message naming the file, the line and the key, never run on silently.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::launch {
namespace {

namespace fs = std::filesystem;

fs::path apps_dir() {
  return fs::path(SIMTLM_SOURCE_DIR) / "testbenches/apps";
}

// The app's launch file with `from` replaced by `to`, written next to a copy of its PTX in a scratch
// directory.
fs::path variant(const std::string& app, const std::string& from, const std::string& to) {
  const fs::path dir = fs::temp_directory_path() / ("simtlm_hostile_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(apps_dir() / app / (app + ".ptx"), dir / (app + ".ptx"),
                fs::copy_options::overwrite_existing);
  std::ifstream in(apps_dir() / app / (app + ".yaml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const size_t at = yaml.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) yaml.replace(at, from.size(), to);
  const fs::path file = dir / (app + ".yaml");
  std::ofstream(file) << yaml;
  return file;
}

// The message of the LaunchError (or KernelError) that loading or running `file` throws.
std::string error_of(const fs::path& file) {
  try {
    SequenceSession(load_launch(file), {}).run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(AppsHostile, TypoInAStepKeyNamesLineAndKeyPath) {
  const fs::path f = variant("hotspot", "      - kernel: calculate_temp", "      - kernal: calculate_temp");
  EXPECT_EQ(error_of(f),
            f.string() +
                ":13: launches[0].steps[0].kernal: unknown key (expected one of: kernel, repeat, "
                "loop, for, set, copy2d)");
}

TEST(AppsHostile, TypoInSharedBytesNamesLineAndKeyPath) {
  const fs::path f = variant("tile_reduce", "    shared_bytes: 128\n", "    shared_byte: 128\n");
  EXPECT_EQ(error_of(f), f.string() +
                             ":18: launches[0].shared_byte: unknown key (expected one of: kernel, ptx, grid, "
                             "block, shared_bytes, params, cooperative)");
}

TEST(AppsHostile, NegativeOffsetIsRejectedBeforeTheLaunch) {
  const fs::path f = variant("hotspot", "\"temp + ((i + 1) % 2) * n\"", "\"temp - 1\"");
  EXPECT_EQ(error_of(f),
            f.string() + ":16: params[2]: offset -1 elements (i = 0) is outside buffer temp of 18432 bytes");
}

TEST(AppsHostile, OffsetPastTheEndFaultsInTheKernelNamingLaunchAndBuffer) {
  // "temp + 2n" at i = 1 is one past the end (allowed, as in C); the kernel's first store there faults.
  const fs::path f = variant("hotspot", "\"temp + ((i + 1) % 2) * n\"", "\"temp + (i + 1) * n\"");
  const std::string e = error_of(f);
  EXPECT_EQ(e.rfind("launch 1 (kernel _Z14calculate_tempPKfS0_Pfiifffff at line 13, i = 1): "
                    "out-of-bounds global access of 4 bytes",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("past the end of buffer temp (18432 bytes)"), std::string::npos) << e;
}

TEST(AppsHostile, StructOfTheWrongSizeNamesParameterAndSizes) {
  const fs::path f = variant("matrix_mul", "{struct: [{s32: 32}, {s32: 48}, {f32: 0.5}]}",
                             "{struct: [{s32: 32}, {s32: 48}]}");
  EXPECT_EQ(error_of(f), f.string() +
                             ":18: params[3]: the struct's fields take 8 bytes with "
                             "natural alignment, the parameter 12 (.param .b8 "
                             "_Z9matrixMulILi16EEvPfPKfS2_10MatrixDims_param_3)");
}

TEST(AppsHostile, TooLittleDynamicSharedMemoryFaultsNamingTheSharedAccess) {
  const fs::path f = variant("tile_reduce", "    shared_bytes: 128\n", "    shared_bytes: 64\n");
  const std::string e = error_of(f);
  EXPECT_NE(
      e.find("launch 0 (kernel _Z12reduce_tilesPKfPdi at line 15, i = 0): out-of-bounds shared access of "
             "8 bytes at offset 0x80 (size 80)"),
      std::string::npos)
      << e;
}

TEST(AppsHostile, AmbiguousTemplateNameListsTheInstantiations) {
  const fs::path f = variant("matrix_mul", "- kernel: matrixMul<16>", "- kernel: matrixMul");
  EXPECT_NE(error_of(f).find(":15: kernel: kernel name 'matrixMul' is ambiguous in " +
                             (f.parent_path() / "matrix_mul.ptx").string() +
                             " (2 entries match: "
                             "matrixMul<16> [_Z9matrixMulILi16EEvPfPKfS2_10MatrixDims] matrixMul<8> "
                             "[_Z9matrixMulILi8EEvPfPKfS2_10MatrixDims])"),
            std::string::npos)
      << error_of(f);
}

TEST(AppsHostile, UntilOnABufferNoKernelReceivesStopsAtTheFirstTest) {
  const fs::path f = apps_dir() / "hostile/until_never_changes.yaml";
  EXPECT_EQ(error_of(f),
            f.string() +
                ":10: loop: until {buffer: done, element: 0, equals: 1} does not hold after "
                "iteration 0 and never will: no kernel of the sequence receives buffer done as a "
                "parameter and no set: in the loop writes it");
}

TEST(AppsHostile, UntilOnABufferSetInsideTheLoopStillRuns) {
  const SessionResult r =
      SequenceSession(load_launch(apps_dir() / "hostile/until_set_inside.yaml"), {}).run();
  EXPECT_EQ(r.launches.size(), 1u);
  int32_t done = 0;
  std::memcpy(&done, r.buffers.at("done").data(), 4);
  EXPECT_EQ(done, 1);
}

TEST(AppsHostile, ConstantNamedLikeABufferIsRejected) {
  const fs::path f = apps_dir() / "hostile/constant_shadows_buffer.yaml";
  EXPECT_EQ(error_of(f),
            f.string() + ":6: buffers.n: 'n' is also a constant: a parameter \"n\" would be ambiguous");
}

// Host code inside a namespace names its kernels without it; a different namespace written out never matches.
TEST(AppsHostile, KernelNamesMayLeaveOutTheNamespace) {
  const ptx::Module m =
      ptx::load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/testbenches/ptx/nvcc_templates.ptx");
  std::string error;
  const ptx::Function* f = m.find_entry("scale<float>", &error);
  ASSERT_NE(f, nullptr) << error;
  EXPECT_EQ(f->name, "_ZN2ns5scaleIfEEvPT_S1_i");
  EXPECT_EQ(m.find_entry("scale", &error), nullptr);  // scale<float> and scale<double>
  EXPECT_NE(error.find("ambiguous"), std::string::npos) << error;
  EXPECT_EQ(m.find_entry("other::scale<float>", &error), nullptr);
  EXPECT_NE(error.find("no kernel named 'other::scale<float>'"), std::string::npos) << error;
}

TEST(AppsHostile, RepeatCountIsAnExpressionOfConstantsNotOfI) {
  const fs::path ok = variant("hotspot", "  - repeat: 6", "  - repeat: \"rows / 8\"");
  EXPECT_EQ(SequenceSession(load_launch(ok), {}).run().launches.size(), 6u);
  const fs::path with_i = variant("hotspot", "  - repeat: 6", "  - repeat: \"i + 1\"");
  EXPECT_EQ(
      error_of(with_i),
      with_i.string() +
          ":11: launches[0].repeat: 'i + 1' depends on i: a repeat count is fixed before its loop runs");
  const fs::path negative = variant("hotspot", "  - repeat: 6", "  - repeat: \"rows - 100\"");
  EXPECT_EQ(error_of(negative),
            negative.string() + ":11: launches[0].repeat: 'rows - 100' = -52 is outside [0, 1099511627776]");
  const fs::path typo = variant("hotspot", "  - repeat: 6", "  - repeat: \"rowz\"");
  EXPECT_EQ(error_of(typo),
            typo.string() +
                ":11: launches[0].repeat: expression \"rowz\": unknown name 'rowz' (only i and the "
                "file's constants)");
}

// YAML lookups take the first of two equal keys; a copy-pasted line must not be silently ignored.
TEST(AppsHostile, AKeyGivenTwiceIsAnErrorNamingBothLines) {
  const fs::path step = variant("hotspot", "        block: [16, 16, 1]\n",
                                "        block: [16, 16, 1]\n        block: [8, 8, 1]\n");
  EXPECT_EQ(error_of(step),
            step.string() + ":16: launches[0].steps[0].block: given twice (first at line 15)");
  const fs::path init = variant("hotspot", "min: 0, max: 0.5}", "min: 0, max: 0.5, max: 2}");
  EXPECT_EQ(error_of(init), init.string() + ":7: buffers.power.init.max: given twice (first at line 7)");
  const fs::path constant = variant("hotspot", "n: 2304}", "n: 2304, rows: 16}");
  EXPECT_EQ(error_of(constant), constant.string() + ":5: constants.rows: given twice (first at line 5)");
  const fs::path config = apps_dir() / "hostile/config_twice.yaml";
  try {
    config::MachineConfig::load(config);
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), config.string() + ":6: gpu.sms: given twice");
  }
}

TEST(AppsHostile, ConfigOriginListsOverridesAfterTheFile) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "configs/default.yaml";
  config::MachineConfig m = config::MachineConfig::load(file);
  EXPECT_EQ(m.origin(), file.string());
  m.set("l2.banks", "3", "--set");
  m.set("gpu.sms", "7", "--set");
  EXPECT_EQ(m.origin(), file.string() + " with --set l2.banks=3, --set gpu.sms=7");
  EXPECT_EQ(m.source(), file.string());  // what stats and summaries print
}

// CUDA refuses a block larger than the kernel's __launch_bounds__ (.maxntid) or other than its .reqntid.
TEST(AppsHostile, BlockLargerThanLaunchBoundsIsRefused) {
  const fs::path f = apps_dir() / "hostile/launch_bounds.yaml";
  std::string e = "no error";
  try {
    launch::Session(load_launch(f), {}).run();
  } catch (const std::exception& error) {
    e = error.what();
  }
  EXPECT_NE(e.find("256 threads per block"), std::string::npos) << e;
  EXPECT_NE(e.find(".maxntid 128, 1, 1"), std::string::npos) << e;
  EXPECT_NE(e.find("launch_bounds.yaml:7: block: "), std::string::npos) << e;
}

TEST(AppsHostile, RequiredBlockShapeIsEnforcedAndParsed) {
  const ptx::Module m = ptx::parse_ptx(
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".visible .entry req(.param .u64 p) .reqntid 32, 4 { ret; }\n"
      ".visible .entry max(.param .u64 p) .maxntid 64 .minnctapersm 2 { ret; }\n",
      "bounds.ptx");
  const ptx::Function& req = m.functions[m.function_index.at("req")];
  EXPECT_EQ(req.required_threads[0], 32u);
  EXPECT_EQ(req.required_threads[1], 4u);
  EXPECT_EQ(req.required_threads[2], 1u);
  EXPECT_EQ(ptx::launch_bounds_violation(req, 32, 4, 1), "");
  EXPECT_EQ(ptx::launch_bounds_violation(req, 128, 1, 1),
            "a block of (128, 1, 1) differs from the kernel's required block (.reqntid 32, 4, 1)");
  const ptx::Function& max = m.functions[m.function_index.at("max")];
  EXPECT_EQ(ptx::launch_bounds_violation(max, 8, 8, 1), "");
  EXPECT_EQ(ptx::launch_bounds_violation(max, 65, 1, 1),
            "65 threads per block exceed the kernel's __launch_bounds__ (.maxntid 64, 1, 1)");
}

// nvcc names a kernel of an anonymous namespace _ZN39_GLOBAL__N__<hash>...; it demangles to
// "(anonymous namespace)::hidden", which used to come out as an empty name. Partly qualified names match too.
TEST(AppsHostile, AnonymousNamespaceAndNestedNamespaceKernelNames) {
  const std::string text =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".entry _ZN39_GLOBAL__N__7bdabb45_7_anon_cu_18f5cf2a6hiddenEPf(.param .u64 p) { ret; }\n"
      ".visible .entry _ZN5outer5inner4deepILi4EEEvPf(.param .u64 p) { ret; }\n";
  const ptx::Module m = ptx::parse_ptx(text, "anon.ptx");
  std::string error;
  for (const char* name : {"hidden", "(anonymous namespace)::hidden"}) {
    const ptx::Function* f = m.find_entry(name, &error);
    ASSERT_NE(f, nullptr) << name << ": " << error;
    EXPECT_EQ(f->name, "_ZN39_GLOBAL__N__7bdabb45_7_anon_cu_18f5cf2a6hiddenEPf");
  }
  for (const char* name : {"deep<4>", "inner::deep<4>", "outer::inner::deep", "inner::deep"}) {
    const ptx::Function* f = m.find_entry(name, &error);
    ASSERT_NE(f, nullptr) << name << ": " << error;
    EXPECT_EQ(f->name, "_ZN5outer5inner4deepILi4EEEvPf");
  }
  EXPECT_EQ(m.find_entry("nothere", &error), nullptr);
  EXPECT_NE(
      error.find(
          "entries: (anonymous namespace)::hidden [_ZN39_GLOBAL__N__7bdabb45_7_anon_cu_18f5cf2a6hiddenEPf], "
          "outer::inner::deep<4> [_ZN5outer5inner4deepILi4EEEvPf]"),
      std::string::npos)
      << error;
  EXPECT_EQ(m.find_entry("ner::deep<4>", &error), nullptr);  // only whole scopes are left out
}

}  // namespace
}  // namespace simtlm::launch
