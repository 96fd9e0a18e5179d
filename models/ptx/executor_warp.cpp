// Warp-level operations: vote, shfl, match, redux (with the .sync member-mask rules) and fns.
#include <fmt/format.h>

#include "models/ptx/executor_internal.hpp"

namespace simtlm::ptx::exec {
namespace {

bool predicate_value(const Operand& op, uint64_t value) {
  return ((value & 1) != 0) != op.negate;
}

// The member-mask rules of the PTX ISA for the .sync forms: a lane must name itself in its member mask, and
// every live thread a member mask names must execute the same instruction. The model runs the lanes of a
// warp in lockstep, so a member that took another path could never join; that is an error, not a value.
// Pre-sync forms have the whole warp as implicit mask and no rule.
void check_members(const Ctx& c, const uint64_t* member) {
  if (!(c.in.flags & kSync)) return;
  const LaneMask live = c.warp.valid & ~c.warp.exited;
  const char* name = op_name(c.in.op);
  for_lanes(c.active, [&](unsigned lane) {
    const auto mask = uint32_t(member[lane]);
    if (!((mask >> lane) & 1)) {
      fail(c, int(lane),
           fmt::format("{}.sync with member mask 0x{:08x}, which does not name the executing lane {}", name,
                       mask, lane));
    }
    const LaneMask missing = mask & live & ~c.active;
    if (missing) {
      fail(
          c, int(lane),
          fmt::format("{}.sync with member mask 0x{:08x}: lane {} is a live member but does not execute this "
                      "instruction with the others (executing lanes 0x{:08x}; diverged or predicated off)",
                      name, mask, std::countr_zero(missing), c.active));
    }
  });
}

// Lanes taking part with `lane`: its members that execute.
LaneMask group_of(const Ctx& c, const uint64_t* member, unsigned lane) {
  return uint32_t(member[lane]) & c.active;
}

// shfl and match compute every lane's results before writing any, because a destination may also be a source.
// The predicate destination is optional.
void write_value_and_predicate(Ctx& c, const uint32_t* value, const bool* predicate) {
  uint64_t* out = reg_row(c.warp, c.in.dst[0].reg);
  uint64_t* outp =
      (c.in.ndst > 1 && c.in.dst[1].kind == OperandKind::reg) ? reg_row(c.warp, c.in.dst[1].reg) : nullptr;
  for_lanes(c.active, [&](unsigned lane) {
    out[lane] = value[lane];
    if (outp) outp[lane] = predicate[lane];
  });
}

}  // namespace

void exec_vote(Ctx& c) {
  const Instr& in = c.in;
  uint64_t bp[kWarpSize], bm[kWarpSize];
  const uint64_t* p = operand_values(c, in.src[0], bp);
  const uint64_t* member = operand_values(c, in.src[1], bm);
  check_members(c, member);
  LaneMask ballot_all = 0;
  for_lanes(c.active, [&](unsigned lane) {
    if (predicate_value(in.src[0], p[lane])) ballot_all |= LaneMask{1} << lane;
  });
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  for_lanes(c.active, [&](unsigned lane) {
    const LaneMask group = group_of(c, member, lane);
    const LaneMask ballot = ballot_all & group;
    switch (in.sub) {
      case Sub::v_ballot:
        out[lane] = ballot;
        break;
      case Sub::v_any:
        out[lane] = ballot != 0;
        break;
      case Sub::v_all:
        out[lane] = ballot == group;
        break;
      case Sub::v_uni:
        out[lane] = ballot == 0 || ballot == group;
        break;
      default:
        fail(c, -1, "unsupported vote mode");
    }
  });
}

// shfl following the PTX ISA pseudo code: c packs the clamp value (bits 4:0) and the segment mask (bits
// 12:8). A source lane out of the clamp range yields the lane's own value and p = 0; so does an in-range
// source lane that does not execute (its value is unpredictable on hardware).
void exec_shfl(Ctx& c) {
  const Instr& in = c.in;
  uint64_t ba[kWarpSize], bb[kWarpSize], bc[kWarpSize], bm[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], ba);
  const uint64_t* b = operand_values(c, in.src[1], bb);
  const uint64_t* cc = operand_values(c, in.src[2], bc);
  const uint64_t* member = operand_values(c, in.src[3], bm);
  check_members(c, member);
  uint32_t d[kWarpSize];
  bool p[kWarpSize];
  for_lanes(c.active, [&](unsigned lane) {
    const int bval = int(b[lane] & 31);
    const int cval = int(cc[lane] & 31);
    const int segmask = int((cc[lane] >> 8) & 31);
    const int l = int(lane);
    const int max_lane = (l & segmask) | (cval & ~segmask);
    const int min_lane = l & segmask;
    int j = l;
    bool in_range = false;
    switch (in.sub) {
      case Sub::s_up:
        j = l - bval;
        in_range = j >= max_lane;
        break;
      case Sub::s_down:
        j = l + bval;
        in_range = j <= max_lane;
        break;
      case Sub::s_bfly:
        j = l ^ bval;
        in_range = j <= max_lane;
        break;
      case Sub::s_idx:
        j = min_lane | (bval & ~segmask);
        in_range = j <= max_lane;
        break;
      default:
        fail(c, int(lane), "unsupported shfl mode");
    }
    if (!in_range || j < 0 || j >= int(kWarpSize) || !((c.active >> j) & 1)) {
      in_range = false;
      j = l;
    }
    d[lane] = uint32_t(a[j]);
    p[lane] = in_range;
  });
  write_value_and_predicate(c, d, p);
}

// match.any: the members holding the lane's value. match.all: every member when all hold one value (p = 1),
// else 0 (p = 0).
void exec_match(Ctx& c) {
  const Instr& in = c.in;
  uint64_t ba[kWarpSize], bm[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], ba);
  const uint64_t* member = operand_values(c, in.src[1], bm);
  check_members(c, member);
  const uint64_t value_mask = low_mask(type_bits(in.type));
  uint32_t d[kWarpSize];
  bool p[kWarpSize];
  for_lanes(c.active, [&](unsigned lane) {
    const LaneMask group = group_of(c, member, lane);
    LaneMask same = 0;
    for_lanes(group, [&](unsigned other) {
      if (((a[other] ^ a[lane]) & value_mask) == 0) same |= LaneMask{1} << other;
    });
    if (in.sub == Sub::m_any) {
      d[lane] = same;
      p[lane] = false;
    } else {
      p[lane] = same == group;
      d[lane] = p[lane] ? group : 0;
    }
  });
  write_value_and_predicate(c, d, p);
}

void exec_redux(Ctx& c) {
  const Instr& in = c.in;
  uint64_t ba[kWarpSize], bm[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], ba);
  const uint64_t* member = operand_values(c, in.src[1], bm);
  check_members(c, member);
  const bool is_signed = in.type == Type::s32;
  uint32_t d[kWarpSize];
  for_lanes(c.active, [&](unsigned lane) {
    const LaneMask group = group_of(c, member, lane);
    const auto first = uint32_t(a[std::countr_zero(group)]);
    uint32_t r = first;
    for_lanes(group & (group - 1), [&](unsigned other) {
      const auto v = uint32_t(a[other]);
      switch (in.sub) {
        case Sub::r_add:
          r += v;
          break;
        case Sub::r_min:
          r = is_signed ? uint32_t(std::min(int32_t(r), int32_t(v))) : std::min(r, v);
          break;
        case Sub::r_max:
          r = is_signed ? uint32_t(std::max(int32_t(r), int32_t(v))) : std::max(r, v);
          break;
        case Sub::r_and:
          r &= v;
          break;
        case Sub::r_or:
          r |= v;
          break;
        case Sub::r_xor:
          r ^= v;
          break;
        default:
          fail(c, int(lane), "unsupported redux operation");
      }
    });
    d[lane] = r;
  });
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  for_lanes(c.active, [&](unsigned lane) { out[lane] = d[lane]; });
}

// fns: the position of the |offset|-th set bit of mask counting from base upwards (offset > 0) or
// downwards (offset < 0), base itself when offset is 0 and its bit is set; 0xffffffff when there is none.
void exec_fns(Ctx& c) {
  const Instr& in = c.in;
  uint64_t bm[kWarpSize], bb[kWarpSize], bo[kWarpSize];
  const uint64_t* mask = operand_values(c, in.src[0], bm);
  const uint64_t* base = operand_values(c, in.src[1], bb);
  const uint64_t* offset = operand_values(c, in.src[2], bo);
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  for_lanes(c.active, [&](unsigned lane) {
    const auto bits = uint32_t(mask[lane]);
    const auto start = uint32_t(base[lane]);
    const auto n = int32_t(uint32_t(offset[lane]));
    if (start > 31) fail(c, int(lane), fmt::format("fns with base {} (must be at most 31)", start));
    uint32_t found = 0xffffffffu;
    if (n == 0) {
      if ((bits >> start) & 1) found = start;
    } else {
      int64_t remaining = n > 0 ? int64_t(n) - 1 : -int64_t(n) - 1;
      const int step = n > 0 ? 1 : -1;
      for (int pos = int(start); pos >= 0 && pos < 32; pos += step) {
        if (!((bits >> pos) & 1)) continue;
        if (remaining == 0) {
          found = uint32_t(pos);
          break;
        }
        --remaining;
      }
    }
    out[lane] = found;
  });
}

}  // namespace simtlm::ptx::exec
