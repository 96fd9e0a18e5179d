// Memory instructions (ld, st, atom, red) and cvta: address resolution through the generic windows, bounds
// and alignment checks, sub-word extension and lane-ordered atomics.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/ptx/executor_internal.hpp"

namespace simtlm::ptx::exec {
namespace {

const char* space_label(Space s) {
  switch (s) {
    case Space::global:
      return "global";
    case Space::shared:
      return "shared";
    case Space::local:
      return "local";
    case Space::param:
      return "param";
    case Space::constant:
      return "const";
    case Space::generic:
      return "generic";
    default:
      return "unknown";
  }
}

}  // namespace

Resolved resolve(const Ctx& c, Space space, uint64_t addr, unsigned bytes, unsigned align, unsigned lane,
                 bool call_param) {
  const uint64_t original = addr;
  if (space == Space::generic) {
    if (addr - kSharedWindow < kWindowSize) {
      space = Space::shared;
      addr -= kSharedWindow;
    } else if (addr - kLocalWindow < kWindowSize) {
      space = Space::local;
      addr -= kLocalWindow;
    } else {
      space = Space::global;
    }
  }
  if (space == Space::param && call_param) space = Space::local;
  // Shared and local are 32-bit state spaces: base plus offset wraps modulo 2^32 as in the hardware's
  // address adder. nvcc relies on it: 2-D shared arrays indexed with a -tid term get a negative base
  // register and a positive immediate (temp[ty][16 - tx] -> [%r - 4*tx + 64]).
  if (space == Space::shared || space == Space::local) addr &= 0xffffffffu;
  if (align > 1 && addr % align != 0) {
    fail(c, int(lane),
         fmt::format("misaligned {} access of {} bytes at address 0x{:x}", space_label(space), bytes,
                     original));
  }
  uint64_t limit = 0;
  switch (space) {
    case Space::global:
    case Space::constant:
      if (!c.launch.global || !c.launch.global->find(addr, bytes)) {
        if (c.launch.global && c.launch.global->tolerates_out_of_bounds()) return {space, addr};
        fail(c, int(lane),
             fmt::format("out-of-bounds {} access of {} bytes at address 0x{:x} ({})", space_label(space),
                         bytes, addr,
                         c.launch.global ? c.launch.global->describe_outside(addr, bytes) : "no memory"));
      }
      return {space, addr};
    case Space::shared:
      limit = c.warp.cta->shared.size();
      break;
    case Space::local:
      limit = c.fn.local_bytes;
      break;
    case Space::param:
      limit = c.launch.param_buffer.size();
      break;
    default:
      fail(c, int(lane), "memory access in an unsupported state space");
  }
  if (addr > limit || bytes > limit - addr) {
    fail(c, int(lane),
         fmt::format("out-of-bounds {} access of {} bytes at offset 0x{:x} (size {})", space_label(space),
                     bytes, addr, limit));
  }
  return {space, addr};
}

void mem_read(const Ctx& c, const Resolved& r, unsigned lane, void* dst, unsigned bytes) {
  switch (r.space) {
    case Space::shared:
      std::memcpy(dst, c.warp.cta->shared.data() + r.addr, bytes);
      return;
    case Space::local:
      std::memcpy(dst, c.warp.local.data() + size_t(lane) * c.fn.local_bytes + r.addr, bytes);
      return;
    case Space::param:
      std::memcpy(dst, c.launch.param_buffer.data() + r.addr, bytes);
      return;
    default:
      // Warn mode: outside every allocation, loads read zeros (resolve let them through).
      if (c.launch.global->tolerates_out_of_bounds() && !c.launch.global->find(r.addr, bytes)) {
        std::memset(dst, 0, bytes);
        c.launch.global->note_out_of_bounds(false, r.addr, bytes,
                                            [&] { return c.executor.where(c.warp, c.pc, int(lane)); });
        return;
      }
      c.launch.global->read(r.addr, dst, bytes);
      return;
  }
}

void mem_write(const Ctx& c, const Resolved& r, unsigned lane, const void* src, unsigned bytes) {
  switch (r.space) {
    case Space::shared:
      if (c.warp.cta->count_changed_writes &&
          std::memcmp(c.warp.cta->shared.data() + r.addr, src, bytes) != 0)
        ++c.warp.cta->changed_writes;
      std::memcpy(c.warp.cta->shared.data() + r.addr, src, bytes);
      return;
    case Space::local:
      std::memcpy(c.warp.local.data() + size_t(lane) * c.fn.local_bytes + r.addr, src, bytes);
      return;
    case Space::param:
      fail(c, int(lane), "store to a kernel parameter");
    default:
      if (c.launch.global->tolerates_out_of_bounds() && !c.launch.global->find(r.addr, bytes)) {
        c.launch.global->note_out_of_bounds(true, r.addr, bytes,
                                            [&] { return c.executor.where(c.warp, c.pc, int(lane)); });
        return;  // warn mode: the store is dropped
      }
      if (c.warp.cta && c.warp.cta->count_changed_writes) {
        uint8_t old[64];
        for (unsigned k = 0; k < bytes; k += sizeof old) {
          const unsigned n = std::min<unsigned>(sizeof old, bytes - k);
          c.launch.global->read(r.addr + k, old, n);
          if (std::memcmp(old, static_cast<const uint8_t*>(src) + k, n) != 0) {
            ++c.warp.cta->changed_writes;
            break;
          }
        }
      }
      c.launch.global->write(r.addr, src, bytes);
      return;
  }
}

std::string read_c_string(const Ctx& c, uint64_t generic_addr, unsigned lane) {
  std::string s;
  for (;; ++generic_addr) {
    char ch;
    mem_read(c, resolve(c, Space::generic, generic_addr, 1, 1, lane, false), lane, &ch, 1);
    if (ch == 0) return s;
    s.push_back(ch);
    if (s.size() > (1u << 20)) fail(c, int(lane), "unterminated string");
  }
}

namespace {

template <class T>
T load_as(uint64_t v) {
  T x;
  std::memcpy(&x, &v, sizeof(T));
  return x;
}
template <class T>
uint64_t store_as(T x) {
  uint64_t v = 0;
  std::memcpy(&v, &x, sizeof(T));
  return v;
}

// One atomic read-modify-write on the raw value `old`; returns the new value.
uint64_t atomic_op(Sub op, Type t, uint64_t old, uint64_t b, uint64_t cv) {
  const unsigned bits = type_bits(t);
  const uint64_t m = low_mask(bits);
  old &= m;
  b &= m;
  const bool sgn = type_is_signed(t);
  auto sx = [&](uint64_t v) { return sign_extend(v, bits); };
  switch (op) {
    case Sub::a_add:
      if (t == Type::f32) return store_as(load_as<float>(old) + load_as<float>(b));
      if (t == Type::f64) return store_as(load_as<double>(old) + load_as<double>(b));
      return (old + b) & m;
    case Sub::a_min:
      if (t == Type::f32) return store_as(std::fmin(load_as<float>(old), load_as<float>(b)));
      if (t == Type::f64) return store_as(std::fmin(load_as<double>(old), load_as<double>(b)));
      return sgn ? (sx(old) < sx(b) ? old : b) : (old < b ? old : b);
    case Sub::a_max:
      if (t == Type::f32) return store_as(std::fmax(load_as<float>(old), load_as<float>(b)));
      if (t == Type::f64) return store_as(std::fmax(load_as<double>(old), load_as<double>(b)));
      return sgn ? (sx(old) > sx(b) ? old : b) : (old > b ? old : b);
    case Sub::a_inc:
      return old >= b ? 0 : old + 1;
    case Sub::a_dec:
      return (old == 0 || old > b) ? b : old - 1;
    case Sub::a_cas:
      return old == b ? (cv & m) : old;
    case Sub::a_exch:
      return b;
    case Sub::a_and:
      return old & b;
    case Sub::a_or:
      return old | b;
    case Sub::a_xor:
      return old ^ b;
    default:
      return old;
  }
}

uint64_t extend_loaded(uint64_t raw, Type t) {
  return type_is_signed(t) ? uint64_t(sign_extend(raw, type_bits(t))) : raw;
}

}  // namespace

void exec_memory(Ctx& c) {
  const Instr& in = c.in;
  const Operand& mem = in.src[0];
  c.step.kind = StepKind::memory;
  MemAccess& acc = c.step.mem;
  const unsigned elem = type_bits(in.type) / 8;
  const unsigned nvec = in.vec;
  const unsigned total = elem * nvec;
  acc.bytes = uint8_t(total);
  acc.is_store = in.op == Op::st || in.op == Op::atom || in.op == Op::red;
  acc.is_atomic = in.op == Op::atom || in.op == Op::red;
  acc.space = in.space == Space::none ? Space::generic : in.space;
  if (c.active == 0) return;
  const Space space = acc.space;
  const bool call_param = mem.sym != kNoSym && c.launch.module->symbols[mem.sym].call_scope;
  uint64_t offset = (mem.sym != kNoSym ? symbol_address(c, mem.sym) : 0) + mem.imm;
  const uint64_t* base = mem.reg != kNoReg ? reg_row(c.warp, mem.reg) : nullptr;
  LaneAddresses hooked;
  if (c.launch.hooks.load && in.op == Op::ld) [[unlikely]] {
    for_lanes(c.active, [&](unsigned l) { hooked[l] = (base ? base[l] : 0) + offset; });
    c.step.hook_cycles =
        c.launch.hooks.load->rewrite_load(LoadEvent{c.fn, c.pc, space, c.active, acc.bytes,
                                                    warp_identity(c.warp), c.launch.module, c.launch.global},
                                          hooked);
    base = hooked.data();  // the lanes now read the hook's addresses, through the same checks
    offset = 0;
  }
  bool first = true;
  auto lane_addr = [&](unsigned l) {
    Resolved r = resolve(c, space, (base ? base[l] : 0) + offset, total, total, l, call_param);
    acc.addr[l] = r.addr;
    if (first) acc.space = r.space;
    first = false;
    return r;
  };
  if (in.op == Op::ld) {
    const Operand& d = in.dst[0];
    for_lanes(c.active, [&](unsigned l) {
      Resolved r = lane_addr(l);
      for (unsigned i = 0; i < nvec; ++i) {
        uint32_t reg = d.kind == OperandKind::vec ? d.vregs[i] : d.reg;
        uint64_t raw = 0;
        mem_read(c, Resolved{r.space, r.addr + i * elem}, l, &raw, elem);
        if (reg != kNoReg) reg_row(c.warp, reg)[l] = extend_loaded(raw, in.type);
      }
    });
    return;
  }
  if (in.op == Op::st) {
    const Operand& v = in.src[1];
    uint64_t buf[kWarpSize];
    const uint64_t* value = v.kind == OperandKind::vec ? nullptr : operand_values(c, v, buf);
    for_lanes(c.active, [&](unsigned l) {
      Resolved r = lane_addr(l);
      for (unsigned i = 0; i < nvec; ++i) {
        uint64_t x = value ? value[l] : (v.vregs[i] == kNoReg ? 0 : reg_row(c.warp, v.vregs[i])[l]);
        mem_write(c, Resolved{r.space, r.addr + i * elem}, l, &x, elem);
      }
    });
    return;
  }
  // atom / red: one lane at a time in increasing lane order.
  uint64_t bb[kWarpSize], bc[kWarpSize];
  const uint64_t* b = operand_values(c, in.src[1], bb);
  const uint64_t* cv = in.nsrc > 2 ? operand_values(c, in.src[2], bc) : nullptr;
  uint64_t* out = in.op == Op::atom ? reg_row(c.warp, in.dst[0].reg) : nullptr;
  for_lanes(c.active, [&](unsigned l) {
    Resolved r = lane_addr(l);
    if (r.space != Space::global && r.space != Space::shared) fail(c, int(l), "atomic outside global/shared");
    uint64_t old = 0;
    mem_read(c, r, l, &old, elem);
    uint64_t next = atomic_op(in.sub, in.type, old, b[l], cv ? cv[l] : 0);
    mem_write(c, r, l, &next, elem);
    if (out) out[l] = extend_loaded(old, in.type);
  });
}

void exec_cvta(Ctx& c) {
  const Instr& in = c.in;
  uint64_t buf[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], buf);
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  uint64_t window = 0;
  if (in.space == Space::shared) window = kSharedWindow;
  if (in.space == Space::local) window = kLocalWindow;
  const bool to_space = in.sub == Sub::to_space;
  const uint64_t m = low_mask(type_bits(in.type));
  for_lanes(c.active, [&](unsigned l) { out[l] = (to_space ? a[l] - window : a[l] + window) & m; });
}

}  // namespace simtlm::ptx::exec
