// Launch files: which kernel, its geometry, its buffers and parameters, what to write and what to expect.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ptx/functional.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::launch {

// "launch.yaml:12: buffers.image.count: expected an unsigned integer"
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BufferInit {
  enum class Kind { zeros, value, random_uniform, random_normal, sequence, file } kind = Kind::zeros;
  double a = 0,
         b = 0;  // value: a; uniform: [min=a, max=b]; normal: mean=a, stddev=b; sequence: start=a, step=b
  std::filesystem::path file;  // .bin, .npy or binary .pgm
};

struct BufferSpec {
  std::string name;
  ptx::Type type = ptx::Type::u8;  // u8 s8 u16 s16 u32 s32 u64 s64 f32 f64
  uint64_t count = 0;
  BufferInit init;
  uint32_t line = 0;
};

struct ParamValue {
  enum class Kind { buffer, integer, real } kind = Kind::integer;
  std::string buffer;
  int64_t integer = 0;
  double real = 0;
  uint32_t line = 0;
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
  uint64_t seed = 1;
  std::vector<BufferSpec> buffers;  // in file order
  std::vector<ParamValue> params;
  std::vector<std::string> outputs;
  std::vector<std::string> images;  // outputs also written as .pgm/.png (image: {width, height} in the spec)
  std::map<std::string, std::pair<uint32_t, uint32_t>> image_shape;  // buffer -> (width, height)
  std::vector<ExpectSpec> expect;
  std::string reference;            // name of the host reference in workloads/reference (optional)
  uint64_t instruction_budget = 0;  // 0 = default
};

Launch load_launch(const std::filesystem::path& path);

// The initial contents of a buffer: deterministic in (seed, buffer name, spec).
std::vector<uint8_t> init_buffer(const Launch& launch, const BufferSpec& spec);

}  // namespace simtlm::launch
