// Launch files: which kernel, its geometry, its buffers and parameters, what to write and what to expect.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/launch/herding_spec.hpp"
#include "models/ptx/functional.hpp"
#include "models/ptx/ir.hpp"
#include "models/ptx/limits.hpp"

namespace simtlm::launch {

// Limits on what a launch file asks of the host (docs/launch-files.md, "Limits"). Checked at load time (and,
// for expressions of a sequence, when the launch is planned) with the file and line.
inline constexpr size_t kMaxNameLength = 128;     // buffer, symbol and output names
inline constexpr uint64_t kMaxBuffers = 100'000;  // buffers and symbols: entries of one launch file, together
inline constexpr uint64_t kMaxBufferBytes = ptx::limits::kMaxGlobalVariableBytes;  // one buffer or symbol
// All buffers and module variables together: the host holds each, its initial copy and the reference's.
inline constexpr uint64_t kMaxLaunchBytes = uint64_t(1) << 31;
inline constexpr uint64_t kMaxGridCtas = uint64_t(1) << 32;     // CTAs of one kernel launch
inline constexpr uint64_t kMaxGridThreads = uint64_t(1) << 40;  // threads of one kernel launch
// CUDA's limits on each dimension of a block and a grid, and on threads per block: a kernel that runs here
// must launch on a GPU, and bounded dimensions keep every product of them far from 64 bits.
inline constexpr std::array<uint32_t, 3> kMaxBlockDims = {1024, 1024, 64};
inline constexpr uint64_t kMaxBlockThreads = ptx::limits::kMaxThreadsPerBlock;
inline constexpr std::array<uint32_t, 3> kMaxGridDims = {2147483647, 65535, 65535};

// Names that become file names (outputs) or appear in expressions are C identifiers of at most
// kMaxNameLength characters: never a path, never empty, no control characters.
bool is_identifier(const std::string& name);
// "" or why the block exceeds kMaxBlockDims or kMaxBlockThreads.
std::string block_limit_violation(const ptx::Dim3& block);
// "" or why the grid and block exceed kMaxGridDims, kMaxGridCtas or kMaxGridThreads (products checked for
// overflow).
std::string grid_limit_violation(const ptx::Dim3& grid, const ptx::Dim3& block);

// "launch.yaml:12: buffers.image.count: expected an unsigned integer"
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BufferInit {
  enum class Kind { zeros, value, random_uniform, random_normal, sequence, file, values } kind = Kind::zeros;
  double a = 0,
         b = 0;  // value: a; uniform: [min=a, max=b]; normal: mean=a, stddev=b; sequence: start=a, step=b
  // a and b as written: integer element types take them exactly (2^64 - 1 has no double).
  std::string a_text, b_text;
  std::filesystem::path file;       // .bin, .npy or binary .pgm
  std::vector<std::string> values;  // values: element 0, 1, ... as written (the rest are zero)
};

struct BufferSpec {
  std::string name;
  ptx::Type type = ptx::Type::u8;  // u8 s8 u16 s16 u32 s32 u64 s64 f32 f64
  uint64_t count = 0;
  BufferInit init;
  uint64_t padding = 0;  // guard bytes before and after the buffer, outside every allocation
  uint32_t line = 0;
  // A module variable seen as a buffer (symbols: entries and outputs), added once the PTX is loaded; it is
  // not allocated as a buffer.
  bool is_symbol = false;
};

// A module variable (__device__ / __constant__) initialised by the host, like cudaMemcpyToSymbol. Type and
// count default to the PTX declaration's.
struct SymbolSpec {
  std::string name;
  ptx::Type type = ptx::Type::none;  // none: from the PTX declaration
  uint64_t count = 0;                // 0: from the PTX declaration
  BufferInit init;
  uint32_t line = 0;
};

// A buffer the kernel reads through tex as a texture object (cudaTextureObject_t), bound under `textures:`:
// point filtering, unnormalized coordinates, clamp addressing (docs/launch-files.md, "Textures").
struct TextureSpec {
  std::string name;
  std::string buffer;
  std::array<uint32_t, 3> dims{1, 1, 1};  // width, height, depth in texels
  uint8_t ndims = 1;                      // entries of dims: 1, 2 or 3
  ptx::Type type = ptx::Type::u8;         // texel type: u8 s8 u16 s16 u32 s32 f32 (the buffer's by default)
  uint32_t line = 0;
};

struct ParamValue {
  enum class Kind { buffer, integer, real, expression, null, bytes, fields, texture } kind = Kind::integer;
  std::string buffer;            // buffer: its name; texture: the texture's name
  std::string offset;            // buffer: an integer expression in i ("" = 0), in elements or bytes
  bool offset_in_bytes = false;  // "data+1024B"
  int64_t integer = 0;
  double real = 0;
  std::string text;                // real: as written (f32 parameters parse it with strtof); expression
  std::vector<uint8_t> bytes;      // {bytes: "0a0b..."}
  std::vector<ParamValue> fields;  // {struct: [{u32: 5}, ...]}: each with field_type
  ptx::Type field_type = ptx::Type::none;
  uint32_t line = 0;
};

// A host loop's exit test on element `element` of a buffer or module symbol, after each iteration.
struct UntilSpec {
  std::string name;
  bool symbol = false;
  uint64_t element = 0;
  enum class Cmp { equals, not_equals, less, less_equal, greater, greater_equal } cmp = Cmp::equals;
  std::string value;  // as written; converted to the element's type
  uint32_t line = 0;
};

// A host write before the following kernels (cudaMemcpy host to device): values from element `at`, or a
// refill.
struct SetSpec {
  std::string name;
  std::vector<std::string> values;  // scalar or list
  std::string at;  // {at: K, values: [...]}: the first element written, an expression ("" = 0)
  bool refill = false;
  BufferInit init;  // refill
  uint32_t line = 0;
};

// A 2-D copy between buffers (cudaMemcpy2D): `height` rows of `width` bytes, row r from src + r * spitch to
// dst + r * dpitch. src and dst are buffers with optional offsets (ParamValue::Kind::buffer); the numbers are
// expressions in bytes, as cudaMemcpy2D's.
struct Copy2dSpec {
  ParamValue dst, src;
  std::string dpitch, spitch, width, height;
  uint32_t line = 0;
};

// One step of a launch sequence.
struct Step {
  enum class Kind { kernel, repeat, loop, set, for_loop, copy2d } kind = Kind::kernel;
  uint32_t line = 0;
  // kernel
  std::filesystem::path ptx;  // the file's module unless the step names its own
  std::string kernel;
  std::array<std::string, 3> grid{"1", "1", "1"}, block{"1", "1", "1"};  // integer expressions in i
  std::string shared_bytes = "0";
  bool cooperative = false;  // cudaLaunchCooperativeKernel: every CTA co-resident, grid.sync() works
  std::vector<ParamValue> params;
  // repeat (count iterations), loop (at most count iterations until `until` holds) and for (at most count
  // iterations while `cond` holds)
  uint64_t count = 0;
  UntilSpec until;
  std::vector<Step> steps;
  // for: `for (var = from; cond; var = next)`, expressions that may use var and the enclosing loops'
  // variables
  std::string var, from, cond, next;
  // set
  std::vector<SetSpec> sets;
  // copy2d
  Copy2dSpec copy;
};

struct ExpectSpec {
  std::string buffer;
  std::filesystem::path file;  // empty when sha256 is used
  std::string sha256;
  uint32_t tolerance_ulp = 0;
  uint32_t line = 0;
};

struct Launch {
  std::filesystem::path path;  // the launch file
  std::filesystem::path ptx;   // resolved relative to the launch file
  std::string kernel;
  ptx::Dim3 grid, block;
  uint32_t shared_bytes = 0;
  bool cooperative = false;  // a single launch made as cudaLaunchCooperativeKernel (Step::cooperative)
  uint64_t seed = 1;
  std::vector<BufferSpec> buffers;  // in file order; add with add_buffer so the index stays whole
  std::unordered_map<std::string, size_t> buffer_index;  // name -> position in buffers
  std::vector<ParamValue> params;
  std::vector<std::string> outputs;
  std::vector<std::string> images;  // outputs also written as .pgm/.png (image: {width, height} in the spec)
  std::map<std::string, std::pair<uint32_t, uint32_t>> image_shape;  // buffer -> (width, height)
  std::vector<ExpectSpec> expect;
  std::string reference;            // name of the host reference in workloads/reference (optional)
  uint64_t instruction_budget = 0;  // 0 = default
  uint32_t call_stack_bytes = 0;    // limit_stack_size (cudaLimitStackSize) for kernels that call .funcs;
                                    // 0 = default (ptx::kCallStackBytesPerThread)
  // Sequences (a `launches:` list) and their device state; a single-launch file has no steps.
  std::vector<Step> steps;
  std::vector<SymbolSpec> symbols;                       // in file order; add with add_symbol
  std::unordered_map<std::string, size_t> symbol_index;  // name -> position in symbols (lookups only)
  std::map<std::string, int64_t> constants;              // names usable in expressions
  ptx::OutOfBounds out_of_bounds = ptx::OutOfBounds::error;
  HerdingSpec herding;                // the `herding:` section (docs/herding.md); nothing herded without one
  std::vector<TextureSpec> textures;  // `textures:` in file order; handle texture_handle(i) is textures[i]
  bool is_sequence() const { return !steps.empty(); }
  void add_buffer(BufferSpec spec);
  // The buffer (or symbol view) named `name`, or nullptr; by the index unless buffers was filled directly.
  const BufferSpec* find_buffer_spec(const std::string& name) const;
  void add_symbol(SymbolSpec spec);
  // The symbols: entry named `name`, or nullptr; by the index unless symbols was filled directly.
  const SymbolSpec* find_symbol_spec(const std::string& name) const;
  // The position of texture `name` in textures, or -1.
  int find_texture(const std::string& name) const;
};

Launch load_launch(const std::filesystem::path& path);
// The launch file with top-level keys replaced before it is read: each override is "key=YAML value"
// (`simtlm run --launch-set params=[out,8]`, a sweep's launch axis). Paths stay relative to the file.
Launch load_launch(const std::filesystem::path& path, const std::vector<std::string>& overrides);

// The initial contents of a buffer: deterministic in (seed, buffer name, spec).
std::vector<uint8_t> init_buffer(const Launch& launch, const BufferSpec& spec);

// What an integer expression may name: i (the innermost loop's iteration), the variables of the enclosing for
// loops, the file's constants, and in launch sequences NAME[K], element K of a buffer or module variable read
// from the device when the step runs.
struct ExpressionScope {
  int64_t i = 0;
  const std::map<std::string, int64_t>* constants = nullptr;
  std::vector<std::pair<std::string, int64_t>> variables;  // for-loop variables, outermost first
  std::function<bool(const std::string&)> has_data;        // whether NAME[K] may read NAME; null: none
  // Reads element `index` of `name`; sets `error` instead when it cannot (index outside, not an integer).
  std::function<int64_t(const std::string& name, int64_t index, std::string& error)> read;
  // "i = 3", or with for loops "k = 8, j = 2, i = 1": appended to run-time errors.
  std::string describe() const;
};

// Integer expressions of launch files (docs/launch-files.md, "Expressions"): literals, names, C's operators
// (+ - * / % << >> < <= > >= == != & ^ | && || ! ~, unary minus, parentheses), min, max, pow2, log2 and
// NAME[K]. Throws LaunchError with `context` (file:line: key) on a syntax error, an unknown name, a division
// by zero, an overflow, a shift outside 0..63 or an element that cannot be read.
int64_t evaluate_expression(const std::string& text, const ExpressionScope& scope,
                            const std::string& context);
// Checks the syntax and names only (no run-time errors, no reads), for load time.
void check_expression(const std::string& text, const ExpressionScope& scope, const std::string& context);
// The same with i and the file's constants only.
int64_t evaluate_expression(const std::string& text, int64_t i,
                            const std::map<std::string, int64_t>& constants, const std::string& context);
// Checks the syntax and names only (no division-by-zero check), for load time.
void check_expression(const std::string& text, const std::map<std::string, int64_t>& constants,
                      const std::string& context);

}  // namespace simtlm::launch
