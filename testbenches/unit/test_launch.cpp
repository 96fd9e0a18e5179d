// Launch files: validation errors name file, line and key path; buffer initialization is deterministic;
// file formats round-trip; a whole session runs the fixture kernels in testbenches/launch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "models/launch/buffers.hpp"
#include "models/launch/formats.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/session.hpp"
#include "models/launch/sha256.hpp"
#include "models/launch/stats_json.hpp"

namespace simtlm::launch {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) {
  return fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch" / name;
}

// The message of the LaunchError thrown while loading (and, with `session`, validating) a launch file.
std::string load_error(const std::string& file, bool session) {
  try {
    Launch launch = load_launch(fixture(file));
    if (session) {
      Session s(std::move(launch), {});
      for (const auto& spec : s.launch().buffers) init_buffer(s.launch(), spec);
    } else {
      for (const auto& spec : launch.buffers) init_buffer(launch, spec);
    }
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "(no error)";
}

template <class T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

Launch launch_with(BufferSpec spec, uint64_t seed = 1) {
  Launch launch;
  launch.path = "inline.yaml";
  launch.seed = seed;
  launch.buffers.push_back(spec);
  return launch;
}

BufferSpec spec(const std::string& name, ptx::Type type, uint64_t count, BufferInit::Kind kind, double a = 0,
                double b = 0) {
  BufferSpec s;
  s.name = name;
  s.type = type;
  s.count = count;
  s.init.kind = kind;
  s.init.a = a;
  s.init.b = b;
  return s;
}

TEST(LaunchFile, LoadsAllKeys) {
  const Launch l = load_launch(fixture("scale.yaml"));
  EXPECT_EQ(l.kernel, "scale");
  EXPECT_EQ(l.ptx, fixture("scale.ptx"));
  EXPECT_EQ(l.grid.x, 2u);
  EXPECT_EQ(l.grid.y, 1u);
  EXPECT_EQ(l.block.x, 32u);
  EXPECT_EQ(l.seed, 7u);
  ASSERT_EQ(l.buffers.size(), 2u);
  EXPECT_EQ(l.buffers[1].name, "in");
  EXPECT_EQ(l.buffers[1].type, ptx::Type::f32);
  EXPECT_EQ(l.buffers[1].init.kind, BufferInit::Kind::sequence);
  EXPECT_EQ(l.buffers[1].line, 9u);
  ASSERT_EQ(l.params.size(), 4u);
  EXPECT_EQ(l.params[0].kind, ParamValue::Kind::buffer);
  EXPECT_EQ(l.params[2].kind, ParamValue::Kind::integer);
  EXPECT_EQ(l.params[2].integer, 64);
  EXPECT_EQ(l.params[3].kind, ParamValue::Kind::real);
  EXPECT_EQ(l.params[3].real, 2.0);
  EXPECT_EQ(l.outputs, std::vector<std::string>{"out"});
  ASSERT_EQ(l.expect.size(), 1u);
  EXPECT_EQ(l.expect[0].file, fixture("scale.expected.bin"));
}

TEST(LaunchFile, ImageShapeAndSha256) {
  const Launch l = load_launch(fixture("fill.yaml"));
  EXPECT_EQ(l.images, std::vector<std::string>{"img"});
  EXPECT_EQ(l.image_shape.at("img"), std::make_pair(4u, 4u));
  ASSERT_EQ(l.expect.size(), 1u);
  EXPECT_EQ(l.expect[0].sha256.size(), 64u);
}

struct ErrorCase {
  const char* file;
  bool needs_ptx;     // the error is found when the kernel's .param list is known
  const char* where;  // "file:line: key.path:"
  const char* what;
};

// Keeps the names ctest discovers stable (gtest would otherwise print the struct's bytes, pointers included).
void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.file;
}

class LaunchErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LaunchErrors, NameLineAndKeyPath) {
  const ErrorCase& c = GetParam();
  const std::string message = load_error(c.file, c.needs_ptx);
  EXPECT_NE(message.find(fixture(c.file).string() + ":" + c.where), std::string::npos) << message;
  EXPECT_NE(message.find(c.what), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, LaunchErrors,
    ::testing::Values(
        ErrorCase{"bad_missing_kernel.yaml", false, "1: kernel:", "missing required key"},
        ErrorCase{"bad_unknown_key.yaml", false, "4: gird:", "unknown key"},
        ErrorCase{"bad_count_type.yaml", false, "6: buffers.out.count:", "expected an unsigned integer"},
        ErrorCase{"bad_buffer_type.yaml", false, "7: buffers.out.type:", "expected one of"},
        ErrorCase{"bad_missing_file.yaml", false, "10: buffers.in.init.file:", "file not found"},
        ErrorCase{"bad_init_value.yaml", false, "6: buffers.bytes.init.value:", "does not fit in u8"},
        ErrorCase{"bad_file_size.yaml", false, "6: buffers.pixels.init:", "holds 8 bytes"},
        ErrorCase{"bad_param_count.yaml", true, "7: params:", "takes 4 parameters"},
        ErrorCase{"bad_param_range.yaml", true, "10: params[2]:", "out of range"},
        ErrorCase{"bad_buffer_to_u32.yaml", true, "10: params[2]:", "64-bit address"},
        ErrorCase{"bad_real_for_int.yaml", true, "8: params[2]:", "2.5 is not an integer"},
        ErrorCase{"bad_unknown_kernel.yaml", true, "4: kernel:", ""}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) {
      std::string name = fs::path(info.param.file).stem().string();
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

TEST(LaunchFile, SyntaxErrorHasLine) {
  const fs::path path = fs::temp_directory_path() / "simtlm_syntax_error.yaml";
  std::ofstream(path) << "ptx: a.ptx\nkernel: [unclosed\n";
  try {
    load_launch(path);
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("YAML syntax error"), std::string::npos) << e.what();
  }
  fs::remove(path);
}

TEST(BufferInit, SequenceIsExact) {
  const auto u32 =
      as<uint32_t>(init_buffer(launch_with(spec("k", ptx::Type::u32, 5, BufferInit::Kind::sequence, 0, 3)),
                               spec("k", ptx::Type::u32, 5, BufferInit::Kind::sequence, 0, 3)));
  EXPECT_EQ(u32, (std::vector<uint32_t>{0, 3, 6, 9, 12}));
  const auto s = spec("w", ptx::Type::s8, 4, BufferInit::Kind::sequence, 126, 1);
  EXPECT_EQ(as<int8_t>(init_buffer(launch_with(s), s)),
            (std::vector<int8_t>{126, 127, -128, -127}));  // wraps
  const auto f = spec("f", ptx::Type::f32, 3, BufferInit::Kind::sequence, -1, 0.5);
  EXPECT_EQ(as<float>(init_buffer(launch_with(f), f)), (std::vector<float>{-1.0f, -0.5f, 0.0f}));
}

TEST(BufferInit, ValueAndZeros) {
  const auto v = spec("v", ptx::Type::f64, 3, BufferInit::Kind::value, 1.5);
  EXPECT_EQ(as<double>(init_buffer(launch_with(v), v)), (std::vector<double>{1.5, 1.5, 1.5}));
  const auto i = spec("i", ptx::Type::s16, 2, BufferInit::Kind::value, -7);
  EXPECT_EQ(as<int16_t>(init_buffer(launch_with(i), i)), (std::vector<int16_t>{-7, -7}));
  const auto z = spec("z", ptx::Type::u64, 4, BufferInit::Kind::zeros);
  EXPECT_EQ(init_buffer(launch_with(z), z), std::vector<uint8_t>(32, 0));
}

TEST(BufferInit, RandomIsDeterministicPerSeedAndName) {
  const auto a = spec("data", ptx::Type::f32, 1000, BufferInit::Kind::random_uniform, -1, 1);
  const auto b = spec("other", ptx::Type::f32, 1000, BufferInit::Kind::random_uniform, -1, 1);
  const auto first = init_buffer(launch_with(a, 5), a);
  EXPECT_EQ(first, init_buffer(launch_with(a, 5), a));
  EXPECT_NE(first, init_buffer(launch_with(a, 6), a));
  EXPECT_NE(first, init_buffer(launch_with(b, 5), b));
  for (float x : as<float>(first)) {
    EXPECT_GE(x, -1.0f);
    EXPECT_LE(x, 1.0f);
  }
}

TEST(BufferInit, RandomIntegersCoverClosedRange) {
  const auto s = spec("dice", ptx::Type::s32, 2000, BufferInit::Kind::random_uniform, -3, 3);
  std::set<int32_t> seen;
  for (int32_t x : as<int32_t>(init_buffer(launch_with(s), s))) {
    EXPECT_GE(x, -3);
    EXPECT_LE(x, 3);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(BufferInit, NormalHasRequestedMoments) {
  const auto s = spec("n", ptx::Type::f64, 20000, BufferInit::Kind::random_normal, 2.0, 0.5);
  const auto v = as<double>(init_buffer(launch_with(s), s));
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double mean = sum / double(v.size());
  for (double x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 2.0, 0.02);
  EXPECT_NEAR(std::sqrt(sq / double(v.size())), 0.5, 0.02);
}

TEST(Prng, SplitMix64KnownSequence) {
  // The published splitmix64 outputs for state 0: results must not change across platforms or versions.
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(rng.next(), 0x06c45d188009454full);
}

TEST(Prng, GoldenBufferBytes) {
  // Pins the whole chain (seed ^ name hash, generator, integer mapping) so a change is noticed.
  const auto s = spec("keys", ptx::Type::u32, 4, BufferInit::Kind::random_uniform, 0, 99);
  const auto a = as<uint32_t>(init_buffer(launch_with(s, 42), s));
  const auto b = as<uint32_t>(init_buffer(launch_with(s, 42), s));
  EXPECT_EQ(a, b);
  SplitMix64 rng(42 ^ hash_name("keys"));
  for (uint32_t x : a) EXPECT_EQ(x, rng.next_below(100));
}

TEST(Npy, RoundTrip) {
  std::vector<uint8_t> data(6 * 8);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 13);
  const auto bytes = make_npy(ptx::Type::s64, data);
  EXPECT_EQ((bytes.size() - data.size()) % 64, 0u);  // header padded like numpy's
  const NpyArray array = parse_npy(bytes);
  EXPECT_EQ(array.dtype, "<i8");
  EXPECT_EQ(array.count, 6u);
  EXPECT_EQ(array.data, data);
}

TEST(Npy, ReadsVersion1And2Fixtures) {
  EXPECT_EQ(as<float>(load_data_file(fixture("small_f32.npy"), ptx::Type::f32)),
            (std::vector<float>{1.0f, -2.5f, 3.25f, 0.0f}));
  EXPECT_EQ(as<uint16_t>(load_data_file(fixture("small_u16_v2.npy"), ptx::Type::u16)),
            (std::vector<uint16_t>{1, 2, 3, 65535, 0, 7}));
  EXPECT_THROW(load_data_file(fixture("small_f32.npy"), ptx::Type::s32),
               std::runtime_error);  // dtype mismatch
}

TEST(Pgm, ReadsBinaryFixture) {
  const PgmImage img = parse_pgm(read_file_bytes(fixture("small.pgm")));
  EXPECT_EQ(img.width, 4u);
  EXPECT_EQ(img.height, 2u);
  EXPECT_EQ(img.data, (std::vector<uint8_t>{0, 10, 20, 30, 200, 210, 220, 255}));
  EXPECT_EQ(parse_pgm(encode_pgm(4, 2, img.data)).data, img.data);
}

TEST(Outputs, WritesAllFormatsWithoutTemporaries) {
  const fs::path dir = fs::temp_directory_path() / "simtlm_test_outputs";
  fs::remove_all(dir);
  Launch l = load_launch(fixture("fill.yaml"));
  std::map<std::string, std::vector<uint8_t>> buffers{{"img", std::vector<uint8_t>(16, 9)}};
  const auto written = write_outputs(l, buffers, dir, {});
  EXPECT_EQ(written.size(), 4u);
  EXPECT_EQ(read_file_bytes(dir / "img.bin"), buffers["img"]);
  EXPECT_EQ(parse_npy(read_file_bytes(dir / "img.npy")).data, buffers["img"]);
  const auto png = read_file_bytes(dir / "img.png");
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(std::memcmp(png.data(), "\x89PNG\r\n\x1a\n", 8), 0);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
  EXPECT_EQ(files, 4u);
  fs::remove_all(dir);
}

TEST(Compare, UlpToleranceAndReport) {
  const std::vector<float> expected = {1.0f, 2.0f, -0.0f, 4.0f};
  std::vector<float> actual = expected;
  actual[1] = std::nextafter(2.0f, 3.0f);
  actual[2] = 0.0f;  // +0 and -0 are 0 ulp apart
  auto bytes = [](const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  EXPECT_EQ(compare_buffers(ptx::Type::f32, bytes(actual), bytes(expected), 1), "");
  const std::string report = compare_buffers(ptx::Type::f32, bytes(actual), bytes(expected), 0);
  EXPECT_NE(report.find("1 of 4 elements differ"), std::string::npos) << report;
  EXPECT_NE(report.find("[1]"), std::string::npos) << report;
  EXPECT_NE(report.find("max 1 ulp"), std::string::npos) << report;
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex({'a', 'b', 'c'}), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Session, RunsScaleAndChecksExpectFile) {
  Session session(load_launch(fixture("scale.yaml")), {});
  const SessionResult result = session.run();
  EXPECT_TRUE(result.expect_checked);
  EXPECT_TRUE(result.ok()) << (result.failures.empty() ? "" : result.failures.front());
  EXPECT_EQ(result.stats.ctas, 2u);
  EXPECT_EQ(result.stats.warps, 2u);  // one warp of 32 threads per CTA
  const nlohmann::json doc =
      stats_json(session.launch(), session.module(), session.kernel(), result.stats, 0.0);
  EXPECT_EQ(doc["kernel"], "scale");
  EXPECT_EQ(doc["warp_instructions"], result.stats.warp_instructions);
  EXPECT_TRUE(doc.contains("host"));
}

TEST(Session, UnmangledKernelNameAndSha256) {
  Session session(load_launch(fixture("fill.yaml")), {});
  EXPECT_EQ(session.kernel().name, "_Z4fillPhsx");
  const SessionResult result = session.run();
  EXPECT_TRUE(result.ok()) << (result.failures.empty() ? "" : result.failures.front());
  EXPECT_EQ(result.buffers.at("img"), std::vector<uint8_t>(16, 7));
}

TEST(Session, ReportsMismatch) {
  Launch l = load_launch(fixture("fill.yaml"));
  l.expect[0].sha256 = std::string(64, '0');
  Session session(std::move(l), {});
  const SessionResult result = session.run();
  ASSERT_EQ(result.failures.size(), 1u);
  EXPECT_NE(result.failures[0].find("expect.img: sha256"), std::string::npos) << result.failures[0];
}

}  // namespace
}  // namespace simtlm::launch
