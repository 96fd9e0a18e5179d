// Parameters (structs by value, raw bytes, NULL, exact floats), loose kernel names and out-of-bounds
// handling, over the kernels of testbenches/launch/sequence.cu.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "models/launch/buffers.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/unit/launch_fixture.hpp"

namespace simtlm::launch {
namespace {

using test::as;
using test::fixture;

TEST(LaunchParams, StructFieldsAndRawBytes) {
  SequenceSession session(load_launch(fixture("params_struct.yaml")), {});
  const SessionResult r = session.run();
  // {u32 n = 4, f32 scale = 2.5, ptr data+2, u64 tag}: elements 2..5 scaled; then n = 0 from raw bytes.
  EXPECT_EQ(as<float>(r.buffers.at("data")), (std::vector<float>{2, 2, 5, 5, 5, 5, 2, 2}));
  EXPECT_EQ(as<uint64_t>(r.buffers.at("tag")), (std::vector<uint64_t>{0x1122334455667788ull, 0xdeadbeefull}));
}

TEST(LaunchParams, StructOfTheWrongSizeIsAnError) {
  Launch l = load_launch(fixture("params_struct.yaml"));
  l.steps[1].steps.clear();
  l.steps[1].params[0].bytes.pop_back();
  try {
    SequenceSession session(l, {});
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("params[0]: 23 bytes given for a 24-byte parameter"),
              std::string::npos)
        << e.what();
  }
  l = load_launch(fixture("params_struct.yaml"));
  l.steps[0].params[0].fields.pop_back();  // no tag: 16 bytes with natural alignment
  try {
    SequenceSession session(l, {});
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "the struct's fields take 16 bytes with natural alignment, the parameter 24"),
              std::string::npos)
        << e.what();
  }
}

TEST(LaunchParams, NullPointerAndHexFloat) {
  Session session(load_launch(fixture("params_null_float.yaml")), {});
  const SessionResult r = session.run();
  EXPECT_EQ(as<float>(r.buffers.at("out")), (std::vector<float>{-1.0f, 3.0f}));
}

TEST(LaunchParams, ARealThatOverflowsIsALaunchErrorNamingTheLine) {
  try {
    load_launch(fixture("bad_param_overflow.yaml"));
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_param_overflow.yaml:8: params[2]: "), std::string::npos)
        << e.what();
  }
}

// Decimals for an f32 parameter round once, straight to f32 (strtof), never through f64 first.
TEST(LaunchParams, FloatsConvertExactly) {
  auto f32 = [](const std::string& text) {
    uint8_t bytes[4];
    EXPECT_EQ(encode_element(ptx::Type::f32, text, bytes), "") << text;
    float f;
    std::memcpy(&f, bytes, 4);
    return f;
  };
  EXPECT_EQ(f32("0.1"), 0.1f);
  EXPECT_EQ(f32("0x1.8p1"), 3.0f);
  EXPECT_EQ(f32("-0x1p-149"), -std::ldexp(1.0f, -149));
  EXPECT_TRUE(std::isinf(f32("inf")) && f32("-inf") < 0);
  EXPECT_TRUE(std::isnan(f32("nan")));
  EXPECT_TRUE(std::isinf(f32(".inf")));
  // 1 + 2^-24 + 2^-60 rounds up to 1 + 2^-23 in one step; through f64 (1 + 2^-24, a tie) it would round to 1.
  EXPECT_EQ(f32("1.0000000596046447753906250000000000008673617379884035472059622406959533691406250"),
            1.0f + std::ldexp(1.0f, -23));
  uint8_t bytes[8];
  EXPECT_NE(encode_element(ptx::Type::f32, "1e39", bytes), "");
  EXPECT_NE(encode_element(ptx::Type::u8, "256", bytes), "");
  EXPECT_EQ(encode_element(ptx::Type::u32, "-1", bytes), "");
}

TEST(LaunchParams, NullForANonPointerIsAnError) {
  Launch l = load_launch(fixture("params_null_float.yaml"));
  l.params[2].kind = ParamValue::Kind::null;
  try {
    Session session(l, {});
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("params[2]: null passes a 64-bit pointer"), std::string::npos)
        << e.what();
  }
}

TEST(KernelNames, LooseMatchingAndTheListOfEntries) {
  const ptx::Module m = ptx::load_ptx_file(fixture("sequence.ptx").string());
  std::string error;
  ASSERT_NE(m.find_entry("fill_n<16u>", &error), nullptr) << error;
  EXPECT_EQ(m.find_entry("fill_n<16u>", &error)->name, "_Z6fill_nILi16EEvPi");
  EXPECT_EQ(m.find_entry("fill_n< 32 >", &error)->name, "_Z6fill_nILi32EEvPi");
  EXPECT_EQ(m.find_entry("block_sum", &error)->name, "_Z9block_sumILj64EEvPKiPi");  // one instantiation
  EXPECT_EQ(m.find_entry("block_sum<64>", &error)->name, "_Z9block_sumILj64EEvPKiPi");
  EXPECT_EQ(m.find_entry("_Z4haloPfS_i", &error)->name, "_Z4haloPfS_i");
  EXPECT_EQ(m.find_entry("fill_n", &error), nullptr);  // two instantiations
  EXPECT_NE(error.find("is ambiguous"), std::string::npos) << error;
  EXPECT_NE(error.find("fill_n<16> [_Z6fill_nILi16EEvPi] fill_n<32> [_Z6fill_nILi32EEvPi]"),
            std::string::npos)
      << error;
  EXPECT_EQ(m.find_entry("fill", &error), nullptr);
  EXPECT_NE(error.find("no kernel named 'fill'"), std::string::npos) << error;
  EXPECT_NE(error.find("add_step [_Z8add_stepPfiii],"), std::string::npos) << error;
  EXPECT_NE(error.find("block_sum<64u> [_Z9block_sumILj64EEvPKiPi]"), std::string::npos) << error;
}

TEST(KernelNames, LooseNamesInALaunchFile) {
  SequenceSession session(load_launch(fixture("names.yaml")), {});
  const SessionResult r = session.run();
  std::vector<int32_t> expected(32, 0);
  std::fill(expected.begin(), expected.begin() + 16, 16);
  EXPECT_EQ(as<int32_t>(r.buffers.at("out16")), expected);
  EXPECT_EQ(as<int32_t>(r.buffers.at("sum")), std::vector<int32_t>{64});
}

TEST(OutOfBounds, WarnModeReadsZerosDropsStoresAndCounts) {
  Session session(load_launch(fixture("oob_halo.yaml")), {});
  const SessionResult r = session.run();
  EXPECT_EQ(as<float>(r.buffers.at("out")), (std::vector<float>{0, 0, 0, 0, 1, 2, 3, 4}));  // window[k - 4]
  EXPECT_EQ(as<float>(r.buffers.at("window")),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));  // stores dropped
  ASSERT_TRUE(r.out_of_bounds_warn);
  EXPECT_EQ(r.out_of_bounds.loads, 4u);
  EXPECT_EQ(r.out_of_bounds.stores, 8u);
  ASSERT_EQ(r.out_of_bounds.first.size(), ptx::OutOfBoundsLog::kKept);
  EXPECT_EQ(r.out_of_bounds.first[0].rfind(
                "load of 4 bytes at 0x1000000f0 (16 bytes before buffer window) at kernel "
                "_Z4haloPfS_i, CTA (0,0,0), thread (0,0,0), PC 11",
                0),
            0u)
      << r.out_of_bounds.first[0];
  EXPECT_NE(
      r.out_of_bounds.first[4].find("store of 4 bytes at 0x100000120 (4 bytes past the end of buffer window "
                                    "(32 bytes))"),
      std::string::npos)
      << r.out_of_bounds.first[4];
}

TEST(OutOfBounds, ErrorModeNamesTheNearestBuffer) {
  Session session(load_launch(fixture("oob_halo_error.yaml")), {});
  try {
    session.run();
    FAIL() << "no error";
  } catch (const ptx::KernelError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "out-of-bounds global access of 4 bytes at address 0x1000000f0 (16 bytes "
                  "before buffer window) at kernel _Z4haloPfS_i, CTA (0,0,0), thread (0,0,0)"),
              std::string::npos)
        << e.what();
  }
  SessionOptions warn;
  warn.out_of_bounds = ptx::OutOfBounds::warn;  // --out-of-bounds warn
  Session overridden(load_launch(fixture("oob_halo_error.yaml")), warn);
  EXPECT_EQ(overridden.run().out_of_bounds.stores, 8u);
}

TEST(OutOfBounds, PaddingKeepsGuardBytesAroundABuffer) {
  ptx::GlobalMemory memory;
  const uint64_t a = memory.allocate(32, 256, "a");
  const uint64_t b = memory.allocate(32, 256, "b", 10000);
  const uint64_t c = memory.allocate(32, 256, "c");
  EXPECT_GE(b - (a + 32), 10000u);
  EXPECT_GE(c - (b + 32), 10000u);
  EXPECT_EQ(memory.find(b - 10000, 4), nullptr);
  EXPECT_EQ(memory.describe_outside(b + 32 + 5000, 4), "5004 bytes past the end of buffer b (32 bytes)");
  EXPECT_EQ(memory.describe_outside(c - 8, 4), "8 bytes before buffer c");
}

}  // namespace
}  // namespace simtlm::launch
