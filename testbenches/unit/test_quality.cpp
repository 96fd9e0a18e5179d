// Output quality of herded runs (models/launch/quality.*): mismatching bytes, element errors with NaN and
// infinities set apart, PSNR, the JSON form and the grey and difference renderings. Every expected number is
// worked out by hand in the comment beside it.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "models/launch/outputs.hpp"
#include "models/launch/quality.hpp"

namespace {

using simtlm::launch::BufferQuality;
using simtlm::launch::BufferSpec;
using simtlm::launch::compare_buffer;
using simtlm::launch::compare_outputs;
using simtlm::launch::difference_gray8;
using simtlm::launch::image_gray8;
using simtlm::launch::Launch;
using simtlm::launch::to_json;
using simtlm::ptx::Type;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();  // bytes 00 00 c0 7f
constexpr float kInf = std::numeric_limits<float>::infinity();   // bytes 00 00 80 7f

template <typename T>
std::vector<uint8_t> bytes_of(std::initializer_list<T> values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  size_t at = 0;
  for (T v : values) {
    std::memcpy(&out[at], &v, sizeof v);
    at += sizeof v;
  }
  return out;
}

BufferSpec spec_of(Type type, const std::string& name = "out") {
  BufferSpec spec;
  spec.name = name;
  spec.type = type;
  return spec;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no invalid_argument)";
}

TEST(QualityTest, U8BytesElementsAndErrors) {
  const auto exact = bytes_of<uint8_t>({10, 20, 30, 40});
  const auto herded = bytes_of<uint8_t>({10, 25, 30, 0});
  const BufferQuality q = compare_buffer(spec_of(Type::u8, "gray"), exact, herded);
  EXPECT_EQ(q.name, "gray");
  EXPECT_EQ(q.bytes, 4u);
  EXPECT_EQ(q.mismatched_bytes, 2u);
  EXPECT_DOUBLE_EQ(q.mismatch_fraction, 0.5);
  EXPECT_TRUE(q.numeric);
  EXPECT_EQ(q.elements, 4u);
  EXPECT_EQ(q.mismatched_elements, 2u);
  EXPECT_EQ(q.compared_elements, 4u);
  EXPECT_DOUBLE_EQ(q.mean_abs_error, 11.25);  // (5 + 40) / 4
  EXPECT_DOUBLE_EQ(q.max_abs_error, 40.0);
  EXPECT_DOUBLE_EQ(q.relative_error, 0.45);  // 45 / (10 + 20 + 30 + 40)
  EXPECT_FALSE(q.image);
  EXPECT_FALSE(q.psnr_db.has_value());  // not an image
  EXPECT_FALSE(q.identical);
}

TEST(QualityTest, S32DifferencesNeedMoreThan32Bits) {
  // INT32_MIN against INT32_MAX differs by 2^32 - 1, which wraps in 32-bit arithmetic.
  const auto exact = bytes_of<int32_t>({-5, 100, 7, INT32_MIN});
  const auto herded = bytes_of<int32_t>({-5, -1, 7, INT32_MAX});
  const BufferQuality q = compare_buffer(spec_of(Type::s32), exact, herded);
  EXPECT_EQ(q.bytes, 16u);
  EXPECT_EQ(q.mismatched_bytes, 8u);  // 64 00 00 00 / ff ff ff ff and 00 00 00 80 / ff ff ff 7f
  EXPECT_DOUBLE_EQ(q.mismatch_fraction, 0.5);
  EXPECT_EQ(q.elements, 4u);
  EXPECT_EQ(q.mismatched_elements, 2u);
  EXPECT_DOUBLE_EQ(q.mean_abs_error, 1073741849.0);  // (101 + 4294967295) / 4
  EXPECT_DOUBLE_EQ(q.max_abs_error, 4294967295.0);
  EXPECT_DOUBLE_EQ(q.relative_error, 4294967396.0 / 2147483760.0);  // over 5 + 100 + 7 + 2^31
}

TEST(QualityTest, F32NaNAndInfinityMismatchesStayOutOfTheErrors) {
  // 0: 1 -> 1.5 (error 0.5, 1 byte); 1: 2 -> NaN (2 bytes); 2: NaN -> the same NaN (equal);
  // 3: equal; 4: inf -> 3 (2 bytes); 5: +0 -> -0 (1 byte, error 0).
  const auto exact = bytes_of<float>({1.0f, 2.0f, kNaN, 4.0f, kInf, 0.0f});
  const auto herded = bytes_of<float>({1.5f, kNaN, kNaN, 4.0f, 3.0f, -0.0f});
  const BufferQuality q = compare_buffer(spec_of(Type::f32), exact, herded);
  EXPECT_EQ(q.bytes, 24u);
  EXPECT_EQ(q.mismatched_bytes, 6u);
  EXPECT_DOUBLE_EQ(q.mismatch_fraction, 0.25);
  EXPECT_EQ(q.elements, 6u);
  EXPECT_EQ(q.mismatched_elements, 4u);
  EXPECT_EQ(q.nan_mismatches, 1u);
  EXPECT_EQ(q.infinite_mismatches, 1u);
  EXPECT_EQ(q.compared_elements, 3u);  // elements 0, 3 and 5
  EXPECT_DOUBLE_EQ(q.mean_abs_error, 0.5 / 3);
  EXPECT_DOUBLE_EQ(q.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(q.relative_error, 0.1);                       // 0.5 / (1 + 4 + 0)
  EXPECT_DOUBLE_EQ(q.l2_relative_error, 0.5 / std::sqrt(17.0));  // sqrt(0.5^2 / (1 + 16 + 0))
  EXPECT_EQ(q.zero_mismatched_elements, 1u);  // +0 -> -0: all bytes zero, then the sign bit set
  EXPECT_FALSE(q.identical);
}

TEST(QualityTest, ZeroMismatchCountsElementsZeroInOneRunOnly) {
  // 0 -> 7 and 5 -> 0 change zero-ness; 3 -> 4 does not; 0 -> 0 is no mismatch. u32: one byte of 0x100 is 1.
  const auto exact = bytes_of<uint32_t>({0, 5, 3, 0, 0x100});
  const auto herded = bytes_of<uint32_t>({7, 0, 4, 0, 0x100});
  const BufferQuality q = compare_buffer(spec_of(Type::u32), exact, herded);
  EXPECT_EQ(q.mismatched_elements, 3u);
  EXPECT_EQ(q.zero_mismatched_elements, 2u);
  EXPECT_DOUBLE_EQ(q.zero_mismatch_fraction, 2.0 / 5);
  EXPECT_EQ(to_json(q)["zero_mismatched_elements"], 2);
}

TEST(QualityTest, F64ErrorsAndOverflowingDifference) {
  // 1 -> 1.25 and 3 -> 2 each change one byte (f0/f4 and 08/00 in the top byte but one).
  const auto exact = bytes_of<double>({1.0, -2.0, 3.0});
  const auto herded = bytes_of<double>({1.25, -2.0, 2.0});
  const BufferQuality q = compare_buffer(spec_of(Type::f64), exact, herded);
  EXPECT_EQ(q.mismatched_bytes, 2u);
  EXPECT_DOUBLE_EQ(q.mismatch_fraction, 2.0 / 24);
  EXPECT_EQ(q.mismatched_elements, 2u);
  EXPECT_DOUBLE_EQ(q.mean_abs_error, 1.25 / 3);
  EXPECT_DOUBLE_EQ(q.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(q.relative_error, 1.25 / 6);
  EXPECT_DOUBLE_EQ(q.l2_relative_error, std::sqrt(1.0625 / 14));  // (0.25^2 + 1^2) / (1 + 4 + 9)

  // Two finite values 2 * DBL_MAX apart: no overflow inside, but the result has no double.
  const BufferQuality far =
      compare_buffer(spec_of(Type::f64), bytes_of<double>({DBL_MAX}), bytes_of<double>({-DBL_MAX}));
  EXPECT_EQ(far.infinite_mismatches, 0u);
  EXPECT_EQ(far.compared_elements, 1u);
  EXPECT_TRUE(std::isinf(far.max_abs_error));
  EXPECT_DOUBLE_EQ(far.relative_error, 2.0);
  EXPECT_EQ(to_json(far)["max_abs_error"], "inf");
}

TEST(QualityTest, RelativeErrorAgainstAnAllZeroExactBuffer) {
  const auto zeros = bytes_of<uint8_t>({0, 0});
  EXPECT_DOUBLE_EQ(compare_buffer(spec_of(Type::u8), zeros, zeros).relative_error, 0.0);
  EXPECT_DOUBLE_EQ(compare_buffer(spec_of(Type::u8), zeros, zeros).l2_relative_error, 0.0);
  const BufferQuality q = compare_buffer(spec_of(Type::u8), zeros, bytes_of<uint8_t>({0, 3}));
  EXPECT_TRUE(std::isinf(q.relative_error));
  EXPECT_EQ(to_json(q)["relative_error"], "inf");
  EXPECT_TRUE(std::isinf(q.l2_relative_error));
  EXPECT_EQ(to_json(q)["l2_relative_error"], "inf");
}

TEST(QualityTest, PsnrOfU8ImagesUsesPeak255) {
  // One pixel off by 51 of four: MSE 2601 / 4 = 650.25 = 255^2 / 100, so 20 dB (the range 10..250 is not
  // the peak).
  const auto exact = bytes_of<uint8_t>({10, 100, 200, 250});
  BufferQuality q = compare_buffer(spec_of(Type::u8), exact, bytes_of<uint8_t>({10, 151, 200, 250}), true);
  EXPECT_TRUE(q.image);
  ASSERT_TRUE(q.psnr_db.has_value());
  EXPECT_DOUBLE_EQ(*q.psnr_db, 20.0);
  // MSE 1 (one pixel off by 2 of four): 10 log10(65025).
  q = compare_buffer(spec_of(Type::u8), exact, bytes_of<uint8_t>({10, 100, 202, 250}), true);
  ASSERT_TRUE(q.psnr_db.has_value());
  EXPECT_NEAR(*q.psnr_db, 48.1308036086791, 1e-12);
}

TEST(QualityTest, PsnrOfOtherImagesUsesTheExactRange) {
  // Peak 50 - (-50) = 100; one of four pixels off by 20: MSE 100, so 10 log10(10000 / 100) = 20 dB.
  const auto exact = bytes_of<int32_t>({-50, 50, 0, 0});
  const BufferQuality q =
      compare_buffer(spec_of(Type::s32), exact, bytes_of<int32_t>({-50, 50, 20, 0}), true);
  ASSERT_TRUE(q.psnr_db.has_value());
  EXPECT_DOUBLE_EQ(*q.psnr_db, 20.0);
  // A flat exact image has no peak: PSNR undefined although pixels differ.
  const auto flat = bytes_of<int32_t>({7, 7});
  const BufferQuality undefined = compare_buffer(spec_of(Type::s32), flat, bytes_of<int32_t>({7, 8}), true);
  EXPECT_FALSE(undefined.psnr_db.has_value());
  EXPECT_FALSE(undefined.identical);
}

TEST(QualityTest, IdenticalImageHasNoPsnrAndJsonSaysNull) {
  const auto pixels = bytes_of<uint8_t>({1, 2, 3});
  const BufferQuality q = compare_buffer(spec_of(Type::u8, "img"), pixels, pixels, true);
  EXPECT_TRUE(q.identical);
  EXPECT_FALSE(q.psnr_db.has_value());
  EXPECT_EQ(q.mismatched_bytes, 0u);
  EXPECT_DOUBLE_EQ(q.mean_abs_error, 0.0);
  const nlohmann::json j = to_json(q);
  ASSERT_TRUE(j.contains("psnr_db"));
  EXPECT_TRUE(j["psnr_db"].is_null());
  EXPECT_EQ(j["identical"], true);
  EXPECT_EQ(j["name"], "img");
}

TEST(QualityTest, JsonCarriesEveryCount) {
  const BufferQuality q = compare_buffer(spec_of(Type::f32), bytes_of<float>({1.0f, 2.0f, kInf}),
                                         bytes_of<float>({1.0f, kNaN, 5.0f}));
  const nlohmann::json j = to_json(q);
  EXPECT_EQ(j["bytes"], 12u);
  EXPECT_EQ(j["mismatched_bytes"], 4u);  // 00 00 00 40 / 00 00 c0 7f and 00 00 80 7f / 00 00 a0 40
  EXPECT_EQ(j["mismatched_elements"], 2u);
  EXPECT_EQ(j["nan_mismatches"], 1u);
  EXPECT_EQ(j["infinite_mismatches"], 1u);
  EXPECT_EQ(j["compared_elements"], 1u);
  EXPECT_EQ(j["mean_abs_error"], 0.0);
  EXPECT_FALSE(j.contains("psnr_db"));  // not an image
}

TEST(QualityTest, JsonTotalsOverBuffers) {
  const BufferQuality a =
      compare_buffer(spec_of(Type::u8, "a"), bytes_of<uint8_t>({1, 2}), bytes_of<uint8_t>({1, 3}));
  const BufferQuality b = compare_buffer(spec_of(Type::s32, "b"), bytes_of<int32_t>({-1, 0}),
                                         bytes_of<int32_t>({0, 0}));  // ff ff ff ff -> 00 00 00 00
  const nlohmann::json j = to_json(std::vector<BufferQuality>{a, b});
  ASSERT_EQ(j["buffers"].size(), 2u);
  EXPECT_EQ(j["buffers"][1]["name"], "b");
  EXPECT_EQ(j["bytes"], 10u);
  EXPECT_EQ(j["mismatched_bytes"], 5u);
  EXPECT_DOUBLE_EQ(j["mismatch_fraction"].get<double>(), 0.5);
}

TEST(QualityTest, SizeMismatchNamesTheBuffer) {
  const auto four = bytes_of<uint8_t>({1, 2, 3, 4});
  const auto three = bytes_of<uint8_t>({1, 2, 3});
  EXPECT_EQ(message_of([&] { compare_buffer(spec_of(Type::u8, "result"), four, three); }),
            "buffer 'result': the exact run has 4 bytes, the herded run 3");
  EXPECT_EQ(message_of([&] { difference_gray8(spec_of(Type::u8, "result"), three, four); }),
            "buffer 'result': the exact run has 3 bytes, the herded run 4");
  const auto six = bytes_of<uint8_t>({0, 0, 0, 0, 0, 0});
  EXPECT_EQ(message_of([&] { compare_buffer(spec_of(Type::s32, "acc"), six, six); }),
            "buffer 'acc': 6 bytes are not a whole number of s32 elements");
}

TEST(QualityTest, UntypedBuffersCompareBytesOnly) {
  const BufferQuality q = compare_buffer(spec_of(Type::b32), bytes_of<uint32_t>({1, 2}),
                                         bytes_of<uint32_t>({1, 0x0300}));  // 02 00 -> 00 03
  EXPECT_FALSE(q.numeric);
  EXPECT_EQ(q.mismatched_bytes, 2u);
  EXPECT_EQ(q.elements, 2u);
  EXPECT_EQ(q.mismatched_elements, 1u);
  EXPECT_EQ(q.compared_elements, 0u);
  EXPECT_DOUBLE_EQ(q.max_abs_error, 0.0);
  EXPECT_EQ(message_of([&] { difference_gray8(spec_of(Type::b32, "raw"), {}, {}); }),
            "buffer 'raw': a difference image needs a numeric element type, not b32");
}

TEST(QualityTest, CompareOutputsFollowsTheLaunch) {
  Launch launch;
  BufferSpec image = spec_of(Type::u8, "image");
  image.count = 2;
  BufferSpec sum = spec_of(Type::s32, "sum");
  sum.count = 1;
  launch.add_buffer(image);
  launch.add_buffer(sum);
  launch.outputs = {"sum", "image"};
  launch.image_shape["image"] = {2, 1};
  std::map<std::string, std::vector<uint8_t>> exact = {{"image", bytes_of<uint8_t>({0, 255})},
                                                       {"sum", bytes_of<int32_t>({4})}};
  std::map<std::string, std::vector<uint8_t>> herded = {{"image", bytes_of<uint8_t>({0, 254})},
                                                        {"sum", bytes_of<int32_t>({4})}};
  const std::vector<BufferQuality> q = compare_outputs(launch, exact, herded);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].name, "sum");
  EXPECT_FALSE(q[0].image);
  EXPECT_TRUE(q[0].identical);
  EXPECT_EQ(q[1].name, "image");
  EXPECT_TRUE(q[1].image);
  ASSERT_TRUE(q[1].psnr_db.has_value());
  EXPECT_NEAR(*q[1].psnr_db, 10 * std::log10(65025.0 * 2), 1e-12);  // MSE 1 / 2
  herded.erase("sum");
  EXPECT_EQ(message_of([&] { compare_outputs(launch, exact, herded); }),
            "output 'sum' is missing from the herded run");
}

TEST(QualityTest, GrayRenderingSharesTheExactScale) {
  // Exact range -100..155 makes the scale exactly 1: grey = value + 100, clamped.
  const BufferSpec spec = spec_of(Type::s32);
  const auto exact = bytes_of<int32_t>({-100, 155, 0, 27});
  const auto herded = bytes_of<int32_t>({-120, 155, 200, 27});
  EXPECT_EQ(image_gray8(spec, exact, exact), (std::vector<uint8_t>{0, 255, 100, 127}));
  EXPECT_EQ(image_gray8(spec, exact, exact), simtlm::launch::to_gray8(Type::s32, exact));
  EXPECT_EQ(image_gray8(spec, herded, exact), (std::vector<uint8_t>{0, 255, 255, 127}));
  // u8 as is, whatever the scale image holds.
  const auto u8 = bytes_of<uint8_t>({3, 200});
  EXPECT_EQ(image_gray8(spec_of(Type::u8), u8, bytes_of<uint8_t>({0, 0})), u8);
  // Non-finite pixels are 0; a flat scale image shows values above it as 255.
  const auto f = bytes_of<float>({0.0f, 2.0f, kNaN, 1.0f});
  EXPECT_EQ(image_gray8(spec_of(Type::f32), f, bytes_of<float>({0.0f, 1.0f})),
            (std::vector<uint8_t>{0, 255, 0, 255}));
  EXPECT_EQ(image_gray8(spec_of(Type::f32), f, bytes_of<float>({1.0f, 1.0f})),
            (std::vector<uint8_t>{0, 255, 0, 0}));
}

TEST(QualityTest, DifferenceImageAmplifiesTheLargestDifferenceTo255) {
  // Differences 0, 5, 0, 40: 5 * 255 / 40 = 31.875 rounds to 32.
  EXPECT_EQ(difference_gray8(spec_of(Type::u8), bytes_of<uint8_t>({10, 20, 30, 40}),
                             bytes_of<uint8_t>({10, 25, 30, 0})),
            (std::vector<uint8_t>{0, 32, 0, 255}));
  // 0.5 is the largest finite difference; 0.125 * 255 / 0.5 = 63.75 rounds to 64; a NaN mismatch is 255;
  // equal NaNs and +0 against -0 are 0.
  EXPECT_EQ(difference_gray8(spec_of(Type::f32), bytes_of<float>({1.0f, 2.0f, kNaN, 0.0f, 3.0f}),
                             bytes_of<float>({1.5f, kNaN, kNaN, -0.0f, 3.125f})),
            (std::vector<uint8_t>{255, 255, 0, 0, 64}));
  const auto same = bytes_of<double>({1.0, 2.0});
  EXPECT_EQ(difference_gray8(spec_of(Type::f64), same, same), (std::vector<uint8_t>{0, 0}));
}

}  // namespace
