// The compact IR of a PTX module. Everything here is resolved once at load time so the
// functional model never touches strings while executing.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace simtlm::ptx {

inline constexpr uint32_t kNoReg = 0xffffffffu;
inline constexpr uint32_t kNoSym = 0xffffffffu;
inline constexpr uint32_t kNoTarget = 0xffffffffu;
inline constexpr uint32_t kNoFunction = 0xffffffffu;
inline constexpr uint64_t kNoSharedOffset = ~uint64_t{0};

enum class Type : uint8_t {
  none,
  pred,
  b8,
  b16,
  b32,
  b64,
  b128,
  u8,
  u16,
  u32,
  u64,
  s8,
  s16,
  s32,
  s64,
  f16,
  f16x2,
  bf16,
  bf16x2,
  f32,
  f64,
};
// Width in bits (pred = 1). constexpr so the executor's per-lane code folds it.
constexpr unsigned type_bits(Type t) {
  switch (t) {
    case Type::none:
      return 0;
    case Type::pred:
      return 1;
    case Type::b8:
    case Type::u8:
    case Type::s8:
      return 8;
    case Type::b16:
    case Type::u16:
    case Type::s16:
    case Type::f16:
    case Type::bf16:
      return 16;
    case Type::b32:
    case Type::u32:
    case Type::s32:
    case Type::f32:
    case Type::f16x2:
    case Type::bf16x2:
      return 32;
    case Type::b64:
    case Type::u64:
    case Type::s64:
    case Type::f64:
      return 64;
    case Type::b128:
      return 128;
  }
  return 0;
}
constexpr bool type_is_signed(Type t) {
  return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64;
}
constexpr bool type_is_float(Type t) {
  return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2 || t == Type::f32 ||
         t == Type::f64;
}
const char* type_name(Type t);  // "u32", ...

enum class Space : uint8_t { none, reg, global, shared, local, param, constant, generic };
const char* space_name(Space s);

enum class Op : uint8_t {
  // control
  bra,
  ret,
  exit,
  trap,
  call,
  bar,
  bar_warp,
  vote,
  shfl,
  activemask,
  membar,
  nop,
  // integer / float arithmetic
  add,
  sub,
  mul,
  mad,
  mul24,
  mad24,
  div,
  rem,
  abs,
  neg,
  min,
  max,
  fma,
  copysign,
  sad,
  // logic and bits
  and_,
  or_,
  xor_,
  not_,
  cnot,
  shl,
  shr,
  shf,
  popc,
  clz,
  bfind,
  brev,
  bfe,
  bfi,
  prmt,
  lop3,
  // compare and select
  setp,
  selp,
  slct,
  testp,
  // moves and conversions
  mov,
  cvt,
  cvta,
  // memory
  ld,
  st,
  atom,
  red,
  // special functions
  sqrt,
  rsqrt,
  rcp,
  ex2,
  lg2,
  sin,
  cos,
  tanh,
  // warp-level additions (kept after the older opcodes so existing numbering stays stable)
  match,
  redux,
  fns,
  nanosleep,
  // texture fetch through a texture object (tex.1d/2d/3d.v4; docs/ir.md, "Textures")
  tex,
  count_
};
const char* op_name(Op op);

enum class Rounding : uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi };

enum class Cmp : uint8_t { eq, ne, lt, le, gt, ge, lo, ls, hi, hs, equ, neu, ltu, leu, gtu, geu, num, nan };

enum class BoolOp : uint8_t { none, and_, or_, xor_ };

// Instruction-specific sub-operation, one field reused by several opcodes.
enum class Sub : uint8_t {
  none,
  lo,
  hi,
  wide,  // mul, mad, mul24, mad24
  a_add,
  a_min,
  a_max,
  a_inc,
  a_dec,
  a_cas,
  a_exch,
  a_and,
  a_or,
  a_xor,  // atom, red
  v_ballot,
  v_any,
  v_all,
  v_uni,  // vote
  s_up,
  s_down,
  s_bfly,
  s_idx,  // shfl
  to_space,
  from_space,  // cvta (.to.global = to_space)
  shf_l,
  shf_r,  // shf direction
  bar_sync,
  bar_arrive,
  bar_red_popc,
  bar_red_and,
  bar_red_or,  // bar
  call_vprintf,
  call_assertfail,  // call targets we support
  prmt_f4e,
  prmt_b4e,
  prmt_rc8,
  prmt_ecl,
  prmt_ecr,
  prmt_rc16,  // prmt modes (none = default)
  testp_finite,
  testp_infinite,
  testp_number,
  testp_notanumber,
  testp_normal,
  testp_subnormal,
  m_any,
  m_all,  // match
  r_add,
  r_min,
  r_max,
  r_and,
  r_or,
  r_xor,  // redux
  tex_1d,
  tex_2d,
  tex_3d,  // tex geometry
};

// Modifier bits.
enum Flag : uint16_t {
  kFtz = 1u << 0,
  kSat = 1u << 1,
  kApprox = 1u << 2,
  kFull = 1u << 3,
  kUni = 1u << 4,  // bra.uni / call.uni
  kVolatile = 1u << 5,
  kNc = 1u << 6,         // ld.global.nc
  kClamp = 1u << 7,      // shf.clamp / shfl clamp semantics
  kWrap = 1u << 8,       // shf.wrap
  kAligned = 1u << 9,    // bar.sync.aligned etc.
  kShiftAmt = 1u << 10,  // bfind.shiftamt
  kCc = 1u << 11,        // add.cc (carry chains) - unsupported by the executor, rejected at load
  kSync = 1u << 12,      // vote/shfl/match/redux .sync: the member-mask rules apply
  // ld that must see other SMs' writes: .cg/.cv, or .acquire/.relaxed at .gpu/.sys scope (with .volatile, the
  // loads the timing model's L1 passes to L2; docs/memory-system.md)
  kCoherent = 1u << 13,
};

enum class SpecialReg : uint8_t {
  tid_x,
  tid_y,
  tid_z,
  ntid_x,
  ntid_y,
  ntid_z,
  ctaid_x,
  ctaid_y,
  ctaid_z,
  nctaid_x,
  nctaid_y,
  nctaid_z,
  laneid,
  warpid,
  nwarpid,
  smid,
  nsmid,
  gridid,
  clock,
  clock_hi,
  clock64,
  globaltimer,
  lanemask_eq,
  lanemask_le,
  lanemask_lt,
  lanemask_ge,
  lanemask_gt,
  envreg1,  // the grid workspace address of a cooperative launch, high 32 bits (0 otherwise)
  envreg2,  // its low 32 bits
  count_
};

enum class OperandKind : uint8_t {
  none,
  reg,       // reg
  imm,       // imm holds the bits (floats as their IEEE bits of the instruction's type)
  special,   // sreg
  sym_addr,  // address of symbol sym (+imm): mov.u64 %rd, name; address of a variable or param
  mem,       // [reg + imm] or [sym + imm] or [imm]; reg == kNoReg when absent, sym == kNoSym when absent
  vec,       // {vregs[0..count)}; kNoReg in a slot is the sink '_'
  label,     // branch target; resolved into Instr::target
  sink,      // '_' as a whole operand
};

struct Operand {
  OperandKind kind = OperandKind::none;
  uint8_t count = 0;    // vec: number of elements
  bool negate = false;  // !%p as a predicate source (setp's c, selp's c is never negated)
  SpecialReg sreg = SpecialReg::tid_x;
  uint32_t reg = kNoReg;  // reg / mem base
  uint32_t sym = kNoSym;  // index into Module::symbols
  uint64_t imm = 0;       // immediate bits / address offset
  uint32_t vregs[4] = {kNoReg, kNoReg, kNoReg, kNoReg};
};

struct Instr {
  Op op = Op::nop;
  Type type = Type::none;   // the instruction type (destination type for cvt)
  Type type2 = Type::none;  // source type of cvt; type of the c operand of slct; second type where present
  Space space = Space::none;
  Rounding rnd = Rounding::none;
  Cmp cmp = Cmp::eq;
  BoolOp bop = BoolOp::none;
  Sub sub = Sub::none;
  uint8_t vec = 1;   // .v2 / .v4
  uint8_t ndst = 0;  // number of destinations (setp with |p has 2)
  uint8_t nsrc = 0;
  uint16_t flags = 0;
  uint32_t guard = kNoReg;  // @%p
  bool guard_neg = false;   // @!%p
  Operand dst[2];
  Operand src[4];
  uint32_t target = kNoTarget;     // bra: instruction index of the label
  uint32_t line = 0;               // line of the PTX file
  uint16_t loc_file = 0;           // .loc file index (0 = none)
  uint32_t loc_line = 0;           // .loc line in the CUDA source (0 = none)
  uint32_t callee = kNoFunction;   // call: index in Module::functions of the called .func with a body
  uint32_t call_site = kNoTarget;  // call to a .func: index in the owning Function::call_sites
  // ret of a .func linked into a kernel's code (models/ptx/call_link.hpp): index in the kernel's
  // Function::linked_callees of the function it returns from; kNoTarget for every other instruction.
  uint32_t returns_from = kNoTarget;
};

// Function addresses (function pointers, vtables; docs/functional-model.md, "Indirect calls"). The value of
// a function's name (`mov.u64 %rd, f;`, an initializer `{f, g}`) is kFunctionWindow + kFunctionAddressStride
// x its index in Module::function_addresses: a range no global allocation, shared or local window reaches,
// so a load or store through it fails as any bad address does, and the value round-trips through memory.
inline constexpr uint64_t kFunctionWindow = 0x0000'7d00'0000'0000ull;
inline constexpr uint64_t kFunctionAddressStride = 16;
constexpr uint64_t function_address_value(uint32_t id) {
  return kFunctionWindow + uint64_t{id} * kFunctionAddressStride;
}
// The index in Module::function_addresses of a function address value, or kNoTarget.
constexpr uint32_t function_address_id(uint64_t value, size_t count) {
  if (value < kFunctionWindow || (value - kFunctionWindow) % kFunctionAddressStride != 0) return kNoTarget;
  const uint64_t id = (value - kFunctionWindow) / kFunctionAddressStride;
  return id < count ? static_cast<uint32_t>(id) : kNoTarget;
}

// A function whose address the module takes.
struct FunctionAddress {
  std::string name;
  uint32_t function = kNoFunction;  // index in Module::functions; kNoFunction for a function without body
  uint32_t line = 0;                // where the address is first taken
};

// One call of a .func: the caller's call-scope .params it passes and receives.
struct CallSite {
  std::string callee_name;        // an indirect call: "the function pointer in %rd7"
  std::vector<uint32_t> args;     // symbols, in argument order
  std::vector<uint32_t> returns;  // symbols
  uint32_t linked = kNoTarget;    // in an entry's linked code: index in Function::linked_callees
  // Set by link_device_calls in an entry's linked code (models/ptx/call_frames.hpp):
  std::vector<uint32_t> saved_regs;  // the caller's registers live across the call (the record keeps them)
  uint32_t frame_bytes = 0;          // charged against the call stack: the compiled code's frame estimate
  // An indirect call (`call (ret), %rd, (args), prototype;`): Instr::src[0] is the register holding the
  // function address; the prototype's .param sizes in bytes; and, in an entry's linked code, the charge of
  // the call per linked callee (indexed like Function::linked_callees).
  bool indirect = false;
  std::vector<uint32_t> prototype_args;
  std::vector<uint32_t> prototype_returns;
  std::vector<uint32_t> indirect_frame_bytes;
};

// What an indirect call of one address-taken function does in one kernel (Function::indirect_targets).
struct IndirectTarget {
  uint32_t linked = kNoTarget;  // index in Function::linked_callees, or kNoTarget when it cannot run:
  std::string why_not;          // the reason (no body, a kernel, calls a function without body, ...)
};

// A .func whose code link_device_calls appended to a kernel's code (models/ptx/call_link.hpp).
struct LinkedCallee {
  uint32_t function = kNoFunction;  // index in Module::functions
  uint32_t entry_pc = 0;            // its first instruction in the kernel's code
  uint32_t end_pc = 0;              // one past its last instruction
  uint32_t first_reg = 0;           // its registers are the kernel's [first_reg, first_reg + reg_count)
  uint32_t reg_count = 0;
  uint32_t frame_offset = 0;  // its .local variables, call-scope and own .params in the thread's local frame
  uint32_t frame_bytes = 0;
  std::vector<uint32_t> params;   // relocated symbols of its .params, in declaration order
  std::vector<uint32_t> returns;  // relocated symbols of its return .params
};

struct RegInfo {
  std::string name;  // "%r12"
  Type type = Type::none;
};

struct Param {
  std::string name;
  Type type = Type::none;
  uint32_t size = 0;  // bytes (arrays: .param .align 8 .b8 p[16])
  uint32_t align = 0;
  uint32_t offset = 0;  // in the kernel's param buffer
  uint32_t sym = kNoSym;
};

struct Symbol {
  std::string name;
  Space space = Space::none;  // global, constant, shared, local, param
  Type type = Type::none;
  uint64_t size = 0;  // bytes; 0 for .extern .shared
  uint32_t align = 1;
  bool is_extern = false;
  bool call_scope = false;    // a .param declared inside a call sequence block
  int32_t function = -1;      // owning function for function-scope symbols; -1 = module scope
  uint64_t offset = 0;        // shared: offset in a module-wide layout (each kernel has its own, see
                              // Function::shared_offsets); local/call params: offset in the thread's local
                              // frame; param: offset in the param buffer; global/const: 0
  std::vector<uint8_t> init;  // initializer bytes (global / const), empty = zero
  uint32_t line = 0;
};

// A variable the model cannot set up (an initializer holding an address, whose elements read 0 here): the
// kernels that name it are refused (Function::unsupported) at its declaration.
struct UnsupportedSymbol {
  std::string message;  // without "file:line: "
  std::string text;     // the declaration's source text
};

struct Function {
  std::string name;
  bool is_entry = false;
  std::vector<Param> params;
  std::vector<RegInfo> regs;
  std::vector<Instr> code;
  std::unordered_map<std::string, uint32_t> labels;  // label -> instruction index
  uint32_t static_shared_bytes = 0;  // entries: the .shared variables this kernel and its callees reference
  uint32_t local_bytes = 0;          // per-thread local frame: .local symbols + call-scope params
  uint32_t param_bytes = 0;
  uint32_t line = 0;
  // Entries: the kernel's own shared layout, indexed like Module::symbols (kNoSharedOffset for symbols it
  // never reaches); .extern .shared arrays all sit at the dynamic window. Empty for .func and hand-built IR.
  std::vector<uint64_t> shared_offsets;
  uint32_t dynamic_shared_align = 16;  // largest .extern .shared alignment the kernel reaches, at least 16
  // Indices of the .func functions called directly and, when the function makes indirect calls, of every
  // address-taken .func (Module::function_addresses); ascending.
  std::vector<uint32_t> callees;
  // Non-empty when the function (or, for an entry, a function it calls) uses a construct the model does not
  // support: the load-time message without "file:line: ", its line and source text. Such a kernel is
  // refused when selected; the module's other kernels still run.
  std::string unsupported;
  uint32_t unsupported_line = 0;
  std::string unsupported_text;
  std::vector<CallSite> call_sites;          // indexed by Instr::call_site
  std::vector<LinkedCallee> linked_callees;  // entries: the .funcs linked into code (empty without calls)
  // Entries with indirect calls: per Module::function_addresses index, the callee an indirect call runs.
  std::vector<IndirectTarget> indirect_targets;
  uint32_t call_stack_bytes = 0;         // entries with calls: the per-thread call stack limit
  uint32_t call_stack_pointer = kNoReg;  // (cudaLimitStackSize) and the hidden register holding the
                                         // bytes charged per lane (call_frames.hpp)
  // __launch_bounds__ / __cluster_dims__ hints that constrain a launch: .maxntid and .reqntid (x, y, z;
  // all 0 when the kernel declares none).
  uint32_t max_threads[3] = {0, 0, 0};
  uint32_t required_threads[3] = {0, 0, 0};
};

// A kernel's shared memory per CTA (defined in kernel_layout.cpp).
struct SharedLayout {
  uint32_t static_bytes = 0;    // the .shared variables the kernel and its callees reference
  uint32_t dynamic_offset = 0;  // start of the .extern .shared window: static bytes aligned up to the
                                // largest .extern alignment the kernel reaches (at least 16)
  uint64_t cta_bytes = 0;       // one CTA's allocation: dynamic_offset + the launch's dynamic bytes
};
// The one place that sizes a CTA's shared memory: the functional runner and the timing model both use it.
SharedLayout shared_layout(const Function& kernel, uint32_t dynamic_bytes);

// The C++ name of a PTX function ("_Z5helloPii" -> "hello", "ns::k<int>"); the name itself when it is not
// mangled.
std::string cuda_name(const std::string& ptx_name);

struct Module {
  std::string path;     // file it was loaded from (for messages)
  std::string version;  // "9.0"
  std::string target;   // "sm_75"
  unsigned address_size = 64;
  std::vector<Function> functions;
  std::vector<Symbol> symbols;
  std::vector<std::string> files;  // .file table; index 0 unused
  std::unordered_map<std::string, uint32_t> function_index;
  std::unordered_map<uint32_t, UnsupportedSymbol> unsupported_symbols;  // by index into symbols
  std::vector<FunctionAddress> function_addresses;  // functions whose address is taken, first taken first

  // Finds an entry by its PTX name or, when exactly one entry demangles to it, by its C++ name.
  const Function* find_entry(const std::string& name, std::string* error) const;
};

}  // namespace simtlm::ptx
