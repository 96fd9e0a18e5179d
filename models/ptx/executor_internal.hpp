// Shared helpers of the functional model's translation units (executor*.cpp, printf.cpp). Not a public API.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "models/ptx/functional.hpp"
#include "models/ptx/hooks.hpp"

namespace simtlm::ptx::exec {

// Everything one warp instruction needs; built once per execute() call.
struct Ctx {
  const Executor& executor;
  const LaunchContext& launch;
  WarpContext& warp;
  const Function& fn;
  const Instr& in;
  uint32_t pc;
  LaneMask active;  // mask & guard
  WarpStep& step;
};

constexpr uint64_t low_mask(unsigned bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}
constexpr int64_t sign_extend(uint64_t v, unsigned bits) {
  return bits >= 64 ? int64_t(v) : int64_t(v << (64 - bits)) >> (64 - bits);
}
// Reads a register value as the given type: zero- or sign-extended from the type's width.
constexpr uint64_t as_type(uint64_t v, Type t) {
  unsigned bits = type_bits(t);
  return type_is_signed(t) ? uint64_t(sign_extend(v, bits)) : v & low_mask(bits);
}

inline float f32_of(uint64_t v) {
  return std::bit_cast<float>(uint32_t(v));
}
inline double f64_of(uint64_t v) {
  return std::bit_cast<double>(v);
}
inline uint64_t bits_of_f32(float f) {
  return std::bit_cast<uint32_t>(f);
}
inline uint64_t bits_of_f64(double d) {
  return std::bit_cast<uint64_t>(d);
}

// Calls f(lane) for every set bit of m, lowest lane first.
// A full mask (the common case) runs as a plain counted loop that the compiler can unroll and vectorize.
template <class F>
inline void for_lanes(LaneMask m, F&& f) {
  if (m == ~LaneMask{0}) {
    for (unsigned lane = 0; lane < kWarpSize; ++lane) f(lane);
    return;
  }
  while (m) {
    unsigned lane = unsigned(std::countr_zero(m));
    m &= m - 1;
    f(lane);
  }
}

inline uint64_t* reg_row(WarpContext& w, uint32_t reg) {
  return &w.regs[size_t(reg) * kWarpSize];
}

// Values of a source operand for all lanes of `lanes`: registers are returned in place; immediates,
// special registers and symbol addresses are materialized into buf (32 entries).
const uint64_t* operand_values(const Ctx& c, const Operand& op, uint64_t* buf);
uint64_t special_value(const Ctx& c, SpecialReg r, unsigned lane);
uint64_t symbol_address(const Ctx& c, uint32_t sym);
WarpIdentity warp_identity(const WarpContext& warp);

[[noreturn]] void fail(const Ctx& c, int lane, const std::string& what);

// Memory access through a resolved space; checks bounds and alignment and throws KernelError on a fault.
struct Resolved {
  Space space;
  uint64_t
      addr;  // global: absolute; shared: CTA offset; local/call param: frame offset; param: buffer offset
};
Resolved resolve(const Ctx& c, Space space, uint64_t addr, unsigned bytes, unsigned align, unsigned lane,
                 bool call_param);
void mem_read(const Ctx& c, const Resolved& r, unsigned lane, void* dst, unsigned bytes);
void mem_write(const Ctx& c, const Resolved& r, unsigned lane, const void* src, unsigned bytes);
// Reads a NUL-terminated string at a generic address (for printf and assert).
std::string read_c_string(const Ctx& c, uint64_t generic_addr, unsigned lane);

void exec_int(Ctx& c);
void exec_compare(Ctx& c);  // setp, selp, slct for every type
void exec_float(Ctx& c);
void exec_cvt(Ctx& c);
void exec_memory(Ctx& c);
void exec_cvta(Ctx& c);
void exec_texture(Ctx& c);  // tex (executor_tex.cpp)
void exec_call(Ctx& c);
void exec_vote(Ctx& c);
void exec_shfl(Ctx& c);
void exec_match(Ctx& c);
void exec_redux(Ctx& c);
void exec_fns(Ctx& c);
// Formats one vprintf call; exposed for tests through the executor.
std::string format_printf(const Ctx& c, const std::string& fmt, uint64_t args_generic, unsigned lane);

}  // namespace simtlm::ptx::exec
