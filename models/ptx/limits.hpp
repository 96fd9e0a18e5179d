// Every count and size a PTX file controls, with the reason for its value. The front end checks each one at
// load time and reports the file:line of the declaration that crosses it (docs/reliability.md),
// so a hostile or broken file fails fast with a located message instead of exhausting host time or memory.
// The values are generous for every PTX nvcc emits: the largest figure in the committed workloads and
// testbenches is noted where it guided the choice.
#pragma once

#include <cstdint>
#include <string>

namespace simtlm::ptx::limits {

// The whole file is read into memory and tokenized at 32 bytes per token; 64 MiB of text bounds the token
// array near 1 GiB in the worst case. The largest committed PTX is 60 KiB; big real modules are a few MiB.
inline constexpr uint64_t kMaxFileBytes = uint64_t{64} << 20;

// One identifier, register name or directive. Mangled C++ template names are the longest tokens nvcc writes
// (120 characters in the committed PTX, a few thousand in heavily templated libraries).
inline constexpr uint64_t kMaxTokenChars = 16 * 1024;

// A quoted string (.file names): PATH_MAX on Linux.
inline constexpr uint64_t kMaxStringChars = 4096;

// Registers a function declares (all `%r<N>` ranges and single names, plus hidden ones). nvcc's virtual
// registers are not the hardware's 255: the committed PTX peaks at 384 in one range. Each register costs
// 256 bytes per warp when a kernel runs, so the limit keeps one warp's register file at 16 MiB.
inline constexpr uint64_t kMaxRegistersPerFunction = 64 * 1024;

// A kernel's registers after every .func it calls is linked into it (models/ptx/call_link.hpp).
inline constexpr uint64_t kMaxRegistersPerKernel = kMaxRegistersPerFunction;

// Static .shared bytes of one kernel (the variables it and its callees use), and of one variable. 48 KiB is
// ptxas's own limit for static shared data ("uses too much shared data (..., 0xc000 max)"); anything larger
// is dynamic shared memory, sized by the launch. The committed PTX peaks at 16 KiB.
inline constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;

// .local bytes per thread, including call-scope .params and linked callee frames: CUDA's 512 KiB local
// stack limit per thread. The committed PTX peaks at 48 bytes.
inline constexpr uint64_t kMaxLocalBytesPerThread = 512 * 1024;

// One .global variable (a __device__ array), and all of a module's: the launch's own 1 GiB per buffer, and
// four of them. Device memory for them is allocated when a launch prepares the module.
inline constexpr uint64_t kMaxGlobalVariableBytes = uint64_t{1} << 30;
inline constexpr uint64_t kMaxGlobalBytesPerModule = uint64_t{4} << 30;

// All of a module's .const data: the 64 KiB constant bank ptxas enforces ("too much global constant data").
inline constexpr uint64_t kMaxConstBytesPerModule = 64 * 1024;

// Bytes of an initialized .global/.const variable: its whole image is kept in the module. nvcc writes every
// element of an initializer in the text, so real tables are bounded by the file size; 64 MiB matches it.
inline constexpr uint64_t kMaxInitializedBytes = kMaxFileBytes;

// `{ { ... } }` nesting in an initializer, parsed recursively: the cap keeps the host stack safe. C arrays
// of any rank give nvcc's flat lists; 64 levels leave room for hand-written nesting.
inline constexpr uint64_t kMaxInitializerDepth = 64;

// Nested `{ }` blocks in a body (nvcc writes one level for each call sequence): each level keeps a scope of
// register and symbol names alive.
inline constexpr uint64_t kMaxBlockDepth = 64;

// Kernel parameter bytes: CUDA 12.1's 32,764-byte limit for kernel arguments (sm_70 and newer). The same
// bound applies to a .func's parameters and return values. The committed PTX peaks at 32 bytes.
inline constexpr uint64_t kMaxParamBytes = 32764;

// Parameters of one function (each one is at least a byte, so the byte limit alone allows 32,764).
inline constexpr uint64_t kMaxParamsPerFunction = 1024;

// Functions (.entry and .func with a body or a prototype) in one module. Each kernel keeps a shared layout
// table with one entry per module symbol, so functions x symbols must stay small: 1,024 x 32,768 x 8 bytes
// is 256 MiB at worst. Template-heavy real modules hold a few hundred kernels.
inline constexpr uint64_t kMaxFunctions = 1024;

// Symbols of a module: variables of every space and every function's parameters, including the copies of
// callee parameters linked into each kernel.
inline constexpr uint64_t kMaxSymbols = 32 * 1024;

// Instructions of one function as written (an Instr is about 300 bytes: 2^18 of them take 78 MB), and of a
// whole module after .func bodies are linked into every kernel that calls them (2^20: about 310 MB).
// The largest committed function has under 2,000.
inline constexpr uint64_t kMaxInstructionsPerFunction = uint64_t{1} << 18;
inline constexpr uint64_t kMaxLinkedInstructionsPerModule = uint64_t{1} << 20;

// Labels of one function: at most one per instruction, plus labels at the end of the body.
inline constexpr uint64_t kMaxLabelsPerFunction = kMaxInstructionsPerFunction;

// .align N: a power of two up to a 4 KiB page; nvcc writes 1 to 16 (64 once in the committed PTX).
inline constexpr uint64_t kMaxAlignment = 4096;

// .maxntid / .reqntid: CUDA's 1,024 threads per block, in each dimension and for their product.
inline constexpr uint64_t kMaxThreadsPerBlock = 1024;

// .file index and .loc file index: the IR keeps them in 16 bits.
inline constexpr uint64_t kMaxFileIndex = 65535;

// The one wording of every limit error: what crossed which limit, and what to do about it.
std::string limit_message(const std::string& what, uint64_t value, uint64_t limit, const char* advice);

}  // namespace simtlm::ptx::limits
