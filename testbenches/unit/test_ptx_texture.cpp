// Texture fetches (tex.1d/2d/3d.v4 on texture objects, models/ptx/executor_tex.cpp): decoding, refusal of the
// forms not modelled, exact texels with clamp addressing at and beyond every edge, the memory access a fetch
// reports, runtime errors, and textures: in launch files (docs/launch-files.md, "Textures").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>

#include "models/launch/launch.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/executor_internal.hpp"
#include "testbenches/unit/hostile_files.hpp"
#include "testbenches/unit/ptx_kernel_run.hpp"
#include "testbenches/unit/ptx_parser_test_helpers.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::ptx {
namespace {

using ::testing::HasSubstr;
using namespace parser_test;

// --- Decoding and refusal -----------------------------------------------------------------------------

TEST(PtxTexture, DecodesTheFormsNvccEmits) {
  const Module m = parse(
      "tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}];\n"
      "tex.3d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2, %f3, %f3}];\n"
      "tex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%r5}];");
  const auto& code = m.functions.at(0).code;
  const Instr& t2 = code.at(0);
  EXPECT_EQ(t2.op, Op::tex);
  EXPECT_EQ(t2.sub, Sub::tex_2d);
  EXPECT_EQ(t2.type, Type::u32);
  EXPECT_EQ(t2.type2, Type::f32);
  EXPECT_EQ(t2.space, Space::global);
  EXPECT_EQ(t2.ndst, 1);
  EXPECT_EQ(t2.dst[0].kind, OperandKind::vec);
  EXPECT_EQ(t2.dst[0].count, 4);
  EXPECT_EQ(t2.nsrc, 2);
  EXPECT_EQ(t2.src[0].kind, OperandKind::reg);
  EXPECT_EQ(t2.src[0].reg, reg_index(m, "%rd1"));
  EXPECT_EQ(t2.src[1].kind, OperandKind::vec);
  EXPECT_EQ(t2.src[1].count, 2);
  EXPECT_EQ(t2.src[1].vregs[1], reg_index(m, "%f2"));
  EXPECT_EQ(code.at(1).sub, Sub::tex_3d);
  EXPECT_EQ(code.at(1).src[1].count, 4);
  EXPECT_EQ(code.at(2).sub, Sub::tex_1d);
  EXPECT_EQ(code.at(2).type, Type::f32);
  EXPECT_EQ(code.at(2).type2, Type::s32);
  EXPECT_STREQ(op_name(Op::tex), "tex");
}

TEST(PtxTexture, UnsupportedFormsRefuseTheKernelAtTheirLine) {
  expect_body_refused("ret;\ntex.a2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r5, %f1, %f2, %f2}];", 1,
                      "texture geometry .a2d is not supported");
  expect_body_refused("ret;\ntex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f1, %f2, %f3, %f3}];", 1,
                      "geometry .cube");
  expect_body_refused("ret;\ntex.level.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}], %f3;", 1,
                      "tex.level (mipmap levels) is not supported");
  expect_body_refused("ret;\ntex.grad.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}], {%f1}, {%f2};",
                      1, "tex.grad");
  expect_body_refused("ret;\ntex.2d.v2.f16x2.f32 {%r1, %r2}, [%rd1, {%f1, %f2}];", 1, "only .v4");
  expect_body_refused("ret;\ntex.2d.v4.f16.f32 {%rs1, %rs2, %rs3, %rs0}, [%rd1, {%f1, %f2}];", 1,
                      "texture results of type .f16 are not supported");
  expect_body_refused("ret;\ntex.2d.v4.u32.f64 {%r1, %r2, %r3, %r4}, [%rd1, {%fd1, %fd2}];", 1,
                      "coordinates of type .f64 are not supported");
  expect_body_refused("ret;\ntex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}], {%r5, %r6};", 1,
                      "offset and depth-compare operands of tex are not supported");
  expect_body_refused("ret;\ntex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, %rd2, {%f1, %f2}];", 1,
                      "separate sampler operands");
  expect_body_refused("ret;\ntex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [gbuf, {%f1, %f2}];", 1,
                      "texture references (.texref gbuf) are not supported");
}

TEST(PtxTexture, MalformedOperandsAreLoadErrors) {
  expect_body_error("tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1}];", 0,
                    "takes its coordinates as a vector of 2 registers");
  expect_body_error("tex.3d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2, %f3}];", 0,
                    "vector of 4 registers (x, y, z and an unused fourth)");
  expect_body_error("tex.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}];", 0, "needs a geometry");
  expect_body_error("tex.2d.v4.u32.f32 %r1, [%rd1, {%f1, %f2}];", 0, "destination vector of 4 registers");
  expect_body_error("tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%rd2, %rd3}];", 0,
                    "operand type mismatch");
  expect_body_error("tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%r1, {%f1, %f2}];", 0, "operand type mismatch");
}

// --- Execution ----------------------------------------------------------------------------------------

// Kernel t(tex, coords, out): thread i fetches at coords[4i .. 4i+3] (32-bit words) and stores the four
// results at out[4i .. 4i+3].
std::string texture_kernel(const std::string& geometry, const std::string& result, const std::string& coord) {
  const std::string coords = geometry == "1d" ? "%c1" : geometry == "2d" ? "%c1, %c2" : "%c1, %c2, %c3, %c4";
  return ".version 9.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry t(.param .u64 tex, .param .u64 coords, .param .u64 out)\n{\n"
         ".reg ." +
         std::string(coord == "f32" ? "f32" : "b32") + " %c<5>;\n.reg ." +
         std::string(result == "f32" ? "f32" : "b32") +
         " %d<5>;\n"
         ".reg .b32 %r<2>;\n.reg .b64 %rd<8>;\n"
         "ld.param.u64 %rd1, [tex];\nld.param.u64 %rd2, [coords];\nld.param.u64 %rd3, [out];\n"
         "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd4, %r1, 16;\n"
         "add.s64 %rd5, %rd2, %rd4;\nadd.s64 %rd6, %rd3, %rd4;\n"
         "ld.global.v4.b32 {%c1, %c2, %c3, %c4}, [%rd5];\n"
         "tex." +
         geometry + ".v4." + result + "." + coord + " {%d1, %d2, %d3, %d4}, [%rd1, {" + coords +
         "}];\n"
         "st.global.v4.b32 [%rd6], {%d1, %d2, %d3, %d4};\nret;\n}\n";
}

uint32_t f32_bits(float value) {
  return std::bit_cast<uint32_t>(value);
}

struct TextureRun {
  Module module;
  std::unique_ptr<test::KernelRun> run;
  uint64_t out = 0;
  size_t threads = 0;

  template <class T>
  TextureRun(const std::string& geometry, const std::string& result, const std::string& coord,
             const std::vector<std::array<uint32_t, 4>>& coordinates, const std::vector<T>& texels,
             std::array<uint32_t, 3> dims, uint8_t ndims, Type element)
      : module(parse_ptx(texture_kernel(geometry, result, coord), "tex.ptx")), threads(coordinates.size()) {
    run = std::make_unique<test::KernelRun>(module, "t", Dim3{1, 1, 1}, Dim3{uint32_t(threads), 1, 1});
    TextureObject t;
    t.base = run->buffer(texels, "texels");
    std::copy(dims.begin(), dims.end(), t.dims);
    t.ndims = ndims;
    t.element = element;
    t.name = "img";
    run->param(0, run->texture(t));
    std::vector<uint32_t> words;
    for (const auto& c : coordinates) words.insert(words.end(), c.begin(), c.end());
    run->param(1, run->buffer(words, "coords"));
    out = run->buffer(std::vector<uint32_t>(4 * threads, 0xdeadbeef), "out");
    run->param(2, out);
  }
  // Result element `element` of every thread.
  std::vector<uint32_t> results(unsigned element = 0) {
    run->run();
    const std::vector<uint32_t> all = run->read<uint32_t>(out, 4 * threads);
    std::vector<uint32_t> picked;
    for (size_t i = 0; i < threads; ++i) picked.push_back(all[4 * i + element]);
    return picked;
  }
};

// A 5x4 u8 image whose texel (x, y) is 10 * y + x.
std::vector<uint8_t> image_5x4() {
  std::vector<uint8_t> texels;
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 5; ++x) texels.push_back(uint8_t(10 * y + x));
  }
  return texels;
}

TEST(PtxTexture, Fetch2dFloorsAndClampsAtAndBeyondEveryEdge) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<std::array<float, 2>> at = {
      {1.0f, 2.0f}, {1.7f, 2.99f},  {0.0f, 0.0f},   {4.0f, 3.0f},   {4.99f, 3.5f}, {5.0f, 4.0f},
      {7.5f, 1.0f}, {2.0f, 100.0f}, {-0.25f, 1.0f}, {-1.0f, -1.0f}, {3.0f, -3.5f}, {-1e30f, 1e30f},
      {nan, 2.0f},  {inf, -inf},    {0.999f, 0.5f}, {1e9f, 2.0f},
  };
  const std::vector<uint32_t> expected = {21, 21, 0, 34, 34, 34, 14, 32, 10, 0, 3, 30, 20, 4, 0, 24};
  std::vector<std::array<uint32_t, 4>> coordinates;
  for (const auto& c : at) coordinates.push_back({f32_bits(c[0]), f32_bits(c[1]), 0, 0});
  TextureRun r("2d", "u32", "f32", coordinates, image_5x4(), {5, 4, 1}, 2, Type::u8);
  EXPECT_EQ(r.results(0), expected);
  EXPECT_EQ(r.results(1), std::vector<uint32_t>(at.size(), 0));  // one channel: the others read 0
  EXPECT_EQ(r.results(3), std::vector<uint32_t>(at.size(), 0));
}

TEST(PtxTexture, Fetch2dWithIntegerCoordinatesClampsToo) {
  const std::vector<std::array<uint32_t, 4>> coordinates = {
      {2, 1, 0, 0}, {uint32_t(-1), 3, 0, 0}, {9, uint32_t(-7), 0, 0}, {0x7fffffff, 0x80000000u, 0, 0}};
  TextureRun r("2d", "s32", "s32", coordinates, image_5x4(), {5, 4, 1}, 2, Type::u8);
  EXPECT_EQ(r.results(), (std::vector<uint32_t>{12, 30, 4, 4}));
}

TEST(PtxTexture, Fetch3dOfU16ClampsEachAxis) {
  // 3 x 2 x 2 texels, value 100 * z + 10 * y + x + 60000 (above the s16 range: zero-extended).
  std::vector<uint16_t> texels;
  for (int z = 0; z < 2; ++z) {
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 3; ++x) texels.push_back(uint16_t(60000 + 100 * z + 10 * y + x));
    }
  }
  const std::vector<std::array<float, 3>> at = {{1, 1, 1},     {2.5f, 0, 1},    {3, 2, 2},     {-1, -1, -1},
                                                {0.5f, 5, -2}, {1, 0.9f, 1.9f}, {9, -9, 0.2f}, {2, 1, 7}};
  const std::vector<uint32_t> expected = {60111, 60102, 60112, 60000, 60010, 60101, 60002, 60112};
  std::vector<std::array<uint32_t, 4>> coordinates;
  for (const auto& c : at)
    coordinates.push_back({f32_bits(c[0]), f32_bits(c[1]), f32_bits(c[2]), f32_bits(1e9f)});  // 4th ignored
  TextureRun r("3d", "u32", "f32", coordinates, texels, {3, 2, 2}, 3, Type::u16);
  EXPECT_EQ(r.results(0), expected);
  EXPECT_EQ(r.results(2), std::vector<uint32_t>(at.size(), 0));
}

TEST(PtxTexture, FloatAndSignedTexels) {
  const std::vector<float> values = {-1.5f, 2.25f, 1e-3f, 7.0f};
  TextureRun floats("1d", "f32", "s32", {{0, 0, 0, 0}, {2, 0, 0, 0}, {uint32_t(-5), 0, 0, 0}, {4, 0, 0, 0}},
                    values, {4, 1, 1}, 1, Type::f32);
  EXPECT_EQ(floats.results(), (std::vector<uint32_t>{f32_bits(-1.5f), f32_bits(1e-3f), f32_bits(-1.5f),
                                                     f32_bits(7.0f)}));  // tex1Dfetch-style
  const std::vector<int8_t> bytes = {-3, 5, -128, 127};
  TextureRun signed_bytes("1d", "s32", "f32",
                          {{f32_bits(0.5f), 0, 0, 0}, {f32_bits(2), 0, 0, 0}, {f32_bits(3.9f), 0, 0, 0}},
                          bytes, {4, 1, 1}, 1, Type::s8);
  EXPECT_EQ(signed_bytes.results(), (std::vector<uint32_t>{uint32_t(-3), uint32_t(-128), 127}));
}

TEST(PtxTexture, AFetchIsAGlobalLoadOfTheTexelPerLane) {
  const Module module = parse_ptx(texture_kernel("2d", "u32", "f32"), "tex.ptx");
  test::KernelRun run(module, "t", Dim3{1, 1, 1}, Dim3{2, 1, 1});
  TextureObject t;
  t.base = run.buffer(image_5x4(), "texels");
  t.dims[0] = 5;
  t.dims[1] = 4;
  t.ndims = 2;
  const uint64_t handle = run.texture(t);
  WarpContext warp;
  CtaContext cta;
  Executor executor(run.context());
  executor.init_warp(warp, cta, 0);
  const Function& fn = run.kernel();
  uint32_t pc = 0;
  while (fn.code[pc].op != Op::tex) ++pc;
  auto set = [&](const Operand& op, unsigned i, unsigned lane, uint64_t v) {
    warp.regs[size_t(op.vregs[i]) * kWarpSize + lane] = v;
  };
  const Instr& in = fn.code[pc];
  for (unsigned lane = 0; lane < 2; ++lane) warp.regs[size_t(in.src[0].reg) * kWarpSize + lane] = handle;
  set(in.src[1], 0, 0, f32_bits(3.0f));
  set(in.src[1], 1, 0, f32_bits(2.0f));
  set(in.src[1], 0, 1, f32_bits(-8.0f));
  set(in.src[1], 1, 1, f32_bits(9.0f));
  const WarpStep step = executor.execute(warp, pc, 0x3);
  EXPECT_EQ(step.kind, StepKind::memory);
  EXPECT_EQ(step.mem.space, Space::global);
  EXPECT_FALSE(step.mem.is_store);
  EXPECT_FALSE(step.mem.is_atomic);
  EXPECT_EQ(step.mem.bytes, 1);
  EXPECT_EQ(step.mem.addr[0], t.base + 2 * 5 + 3);
  EXPECT_EQ(step.mem.addr[1], t.base + 3 * 5 + 0);
}

TEST(PtxTexture, RuntimeErrorsNameTheInstruction) {
  TextureRun wrong_geometry("3d", "u32", "f32", {{0, 0, 0, 0}}, image_5x4(), {5, 4, 1}, 2, Type::u8);
  EXPECT_THAT(wrong_geometry.run->error(), HasSubstr("tex.3d on texture 'img', which has 2 dimensions"));
  EXPECT_THAT(wrong_geometry.run->error(), HasSubstr("PTX line"));
  TextureRun normalized_read("2d", "f32", "f32", {{0, 0, 0, 0}}, image_5x4(), {5, 4, 1}, 2, Type::u8);
  EXPECT_THAT(normalized_read.run->error(), HasSubstr("cudaReadModeNormalizedFloat is not modelled"));
  TextureRun bad_handle("2d", "u32", "f32", {{0, 0, 0, 0}}, image_5x4(), {5, 4, 1}, 2, Type::u8);
  bad_handle.run->param(0, 7);
  EXPECT_THAT(bad_handle.run->error(), HasSubstr("tex: 0x7 is not a texture object of this launch"));
}

// --- Launch files -------------------------------------------------------------------------------------

// A launch of sobel_tex over an 8x6 image with `textures` as its textures: section (built by appends: GCC 12
// flags operator+ chains here with a false -Warray-bounds).
std::string sobel_launch(const std::string& textures, const std::string& params = "[pic, edges, 8, 6]") {
  std::string text = "ptx: ";
  text += SIMTLM_SOURCE_DIR;
  text += "/workloads/sobel_tex/sobel_tex.ptx\nkernel: sobel_tex\ngrid: [1, 1, 1]\nblock: [8, 6, 1]\n";
  text += "buffers:\n  image: {type: u8, count: 48, init: {random: uniform, min: 0, max: 255}}\n";
  text += "  edges: {type: u8, count: 48}\ntextures:\n";
  text += textures;
  text += "\nparams: ";
  text += params;
  text += "\noutputs: [edges]\nreference: sobel_tex\n";
  return text;
}

TEST(LaunchTextures, ATextureParameterRunsAndMatchesTheReference) {
  simtlm::test::HostileFiles files("textures_ok");
  const auto path =
      files.write("ok.yaml", sobel_launch("  pic: {buffer: image, dims: [8, 6], type: u8, address: "
                                          "clamp, filter: point, normalized: false}"));
  const launch::Launch l = launch::load_launch(path);
  ASSERT_EQ(l.textures.size(), 1u);
  EXPECT_EQ(l.textures[0].ndims, 2);
  EXPECT_EQ(l.textures[0].dims[1], 6u);
  EXPECT_EQ(l.params[0].kind, launch::ParamValue::Kind::texture);
  launch::SessionOptions options;
  options.find_reference = workloads::find_reference;
  launch::Session session(l, options);
  const launch::SessionResult result = session.run();
  EXPECT_TRUE(result.reference_checked);
  EXPECT_TRUE(result.ok()) << (result.failures.empty() ? "" : result.failures[0]);
}

std::string launch_error(const simtlm::test::HostileFiles& files, const std::string& text) {
  const auto path = files.write("bad.yaml", text);
  return simtlm::test::error_of<launch::LaunchError>([&] {
    launch::Session session(launch::load_launch(path), {});
    session.run();
  });
}

TEST(LaunchTextures, ErrorsNameTheFileLineAndKey) {
  simtlm::test::HostileFiles files("textures_bad");
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: picture, dims: [8, 6]}")),
              HasSubstr("bad.yaml:9: textures.pic.buffer: 'picture' is not a buffer of this launch"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 7]}")),
              HasSubstr("bad.yaml:9: textures.pic.dims: 8 x 7 u8 texels need 56 bytes, more than buffer "
                        "'image' holds (48 bytes)"));
  // Texels may reinterpret the buffer's bytes; they must fit in it.
  EXPECT_NO_THROW(
      launch::load_launch(files.write("fits.yaml", sobel_launch("  pic: {buffer: image, dims: [4, 3], "
                                                                "type: u32}"))));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [4, 4], type: u32}")),
              HasSubstr("textures.pic.dims: 4 x 4 u32 texels need 64 bytes"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6], address: wrap}")),
              HasSubstr("bad.yaml:9: textures.pic.address: 'wrap' is not supported: the model clamps every "
                        "coordinate to the texture (only clamp)"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6], filter: linear}")),
              HasSubstr("textures.pic.filter: 'linear' is not supported"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6], normalized: true}")),
              HasSubstr("textures.pic.normalized: 'true' is not supported"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6], type: f64}")),
              HasSubstr("textures.pic.type: expected one of u8 s8 u16 s16 u32 s32 f32"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6, 1, 1]}")),
              HasSubstr("textures.pic.dims: expected a list of 1 to 3 texel counts"));
  EXPECT_THAT(launch_error(files, sobel_launch("  image: {buffer: image, dims: [8, 6]}")),
              HasSubstr("textures.image: 'image' is also a buffer"));
  EXPECT_THAT(launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6], wrap: 1}")),
              HasSubstr("textures.pic.wrap: unknown key"));
  EXPECT_THAT(
      launch_error(files, sobel_launch("  pic: {buffer: image, dims: [8, 6]}", "[pic, edges, pic, 6]")),
      HasSubstr("params[2]: texture 'pic' passes a 64-bit texture object"));
}

}  // namespace
}  // namespace simtlm::ptx
