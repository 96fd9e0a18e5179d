// Texture fetches: tex.{1d,2d,3d}.v4.{u32,s32,f32}.{f32,s32} through the texture objects of the launch
// (LaunchContext::textures). Point filtering, unnormalized coordinates and clamp addressing: a fetch never
// faults. Each lane reads one texel of global memory, which the step reports like a load (StepKind::memory),
// so a timing model sends the texel addresses through its L1 path (no texture cache is modelled).
#include <fmt/format.h>

#include <cmath>

#include "models/ptx/executor_internal.hpp"

namespace simtlm::ptx::exec {
namespace {

// The texel index along an axis of `dim` texels: the floor of an f32 coordinate (a NaN reads texel 0), or an
// s32 coordinate as it is, clamped to [0, dim - 1].
uint32_t texel_index(uint64_t raw, Type coordinate, uint32_t dim) {
  const uint32_t last = dim - 1;
  if (coordinate == Type::s32) {
    const int64_t v = sign_extend(raw, 32);
    return v < 0 ? 0 : v > int64_t(last) ? last : uint32_t(v);
  }
  const double f = std::floor(double(f32_of(raw)));
  if (!(f >= 0.0)) return 0;  // negative, or NaN
  return f >= double(last) ? last : uint32_t(f);
}

unsigned geometry_dims(Sub sub) {
  return sub == Sub::tex_1d ? 1 : sub == Sub::tex_2d ? 2 : 3;
}

const char* geometry_name(unsigned dims) {
  return dims == 1 ? "1d" : dims == 2 ? "2d" : "3d";
}

}  // namespace

void exec_texture(Ctx& c) {
  const Instr& in = c.in;
  c.step.kind = StepKind::memory;
  MemAccess& acc = c.step.mem;
  acc.space = Space::global;
  acc.is_store = false;
  acc.is_atomic = false;
  acc.bytes = 4;
  if (c.active == 0) return;
  const unsigned dims = geometry_dims(in.sub);
  const uint64_t* handle = reg_row(c.warp, in.src[0].reg);
  const Operand& coords = in.src[1];
  const Operand& d = in.dst[0];
  bool first = true;
  for_lanes(c.active, [&](unsigned l) {
    const uint64_t h = handle[l];
    if (h == 0 || h > c.launch.textures.size()) {
      fail(c, int(l),
           fmt::format("tex: 0x{:x} is not a texture object of this launch ({} bound in the launch file's "
                       "textures:)",
                       h, c.launch.textures.size()));
    }
    const TextureObject& t = c.launch.textures[h - 1];
    if (t.ndims != dims) {
      fail(c, int(l),
           fmt::format("tex.{} on texture '{}', which has {} dimension{} (use tex.{})", geometry_name(dims),
                       t.name, t.ndims, t.ndims == 1 ? "" : "s", geometry_name(t.ndims)));
    }
    const bool float_texels = t.element == Type::f32;
    if (float_texels != (in.type == Type::f32)) {
      fail(c, int(l),
           fmt::format("tex.{} of texture '{}' with .{} texels: only element-type reads are supported "
                       "(.f32 for f32 textures, .u32/.s32 for integer ones; cudaReadModeNormalizedFloat is "
                       "not modelled)",
                       type_name(in.type), t.name, type_name(t.element)));
    }
    uint32_t index[3] = {0, 0, 0};
    for (unsigned axis = 0; axis < dims; ++axis)
      index[axis] = texel_index(reg_row(c.warp, coords.vregs[axis])[l], in.type2, t.dims[axis]);
    const unsigned elem = type_bits(t.element) / 8;
    const uint64_t texel = (uint64_t(index[2]) * t.dims[1] + index[1]) * t.dims[0] + index[0];
    const Resolved r = resolve(c, Space::global, t.base + texel * elem, elem, elem, l, false);
    if (first) acc.bytes = uint8_t(elem);  // lanes of one instruction read one texture in practice
    first = false;
    acc.addr[l] = r.addr;
    uint64_t raw = 0;
    mem_read(c, r, l, &raw, elem);
    // One channel: the value goes to the first element, sign-extended for s8/s16 texels; the others read 0.
    const uint64_t value =
        type_is_signed(t.element) ? uint64_t(sign_extend(raw, elem * 8)) & 0xffffffffu : raw;
    for (unsigned i = 0; i < 4; ++i) {
      if (d.vregs[i] != kNoReg) reg_row(c.warp, d.vregs[i])[l] = i == 0 ? value : 0;
    }
  });
}

}  // namespace simtlm::ptx::exec
