// Size checks shared by the host references.
#include <fmt/format.h>

#include "common/location.hpp"
#include "models/launch/buffers.hpp"
#include "models/launch/device.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::workloads {

void reference_error(const launch::Launch& launch, const std::string& message) {
  throw launch::LaunchError(common::at_location(launch.path.string(),
                                                launch::top_level_key_line(launch.path, "reference"),
                                                "reference " + launch.reference + ": " + message));
}

void require_elements(const launch::Launch& launch, const Buffers& buffers, const std::string& name,
                      size_t element_size, uint64_t needed, const std::string& why) {
  const auto it = buffers.find(name);
  if (it == buffers.end()) reference_error(launch, fmt::format("needs a buffer named {}", name));
  const uint64_t held = it->second.size() / element_size;
  if (held < needed) {
    reference_error(launch, fmt::format("buffer {} holds {} elements of {} bytes but {} are needed ({})",
                                        name, held, element_size, needed, why));
  }
}

const launch::ParamValue& reference_param(const launch::Launch& launch, size_t index,
                                          const std::string& expected) {
  if (index >= launch.params.size()) {
    reference_error(launch, fmt::format("parameter {} must be {}, but the launch passes {} parameters", index,
                                        expected, launch.params.size()));
  }
  return launch.params[index];
}

std::string describe_param(const launch::ParamValue& p) {
  using Kind = launch::ParamValue::Kind;
  switch (p.kind) {
    case Kind::buffer:
      if (p.offset.empty()) return "buffer " + p.buffer;
      return fmt::format("buffer {}+{}{}", p.buffer, p.offset, p.offset_in_bytes ? "B" : "");
    case Kind::integer:
      return fmt::format("the integer {}", p.integer);
    case Kind::real:
      return fmt::format("the number {}", p.text.empty() ? fmt::format("{}", p.real) : p.text);
    case Kind::expression:
      return fmt::format("the expression '{}'", p.text);
    case Kind::null:
      return "null";
    case Kind::bytes:
      return fmt::format("{} raw bytes", p.bytes.size());
    case Kind::fields:
      return fmt::format("a struct of {} fields", p.fields.size());
    case Kind::texture:
      return "texture " + p.buffer;
  }
  return "an unknown parameter";
}

const launch::TextureSpec& param_texture(const launch::Launch& launch, size_t index,
                                         const std::array<int64_t, 3>& dims, size_t ndims, ptx::Type type) {
  const launch::ParamValue& p = reference_param(launch, index, "a texture");
  const int found = p.kind == launch::ParamValue::Kind::texture ? launch.find_texture(p.buffer) : -1;
  if (found < 0) {
    reference_error(launch,
                    fmt::format("parameter {} must be a texture, but is {}", index, describe_param(p)));
  }
  const launch::TextureSpec& t = launch.textures[size_t(found)];
  bool same = t.ndims == ndims && t.type == type;
  for (size_t i = 0; i < ndims; ++i) same = same && int64_t(t.dims[i]) == dims[i];
  if (!same) {
    std::string want = std::to_string(dims[0]), have = std::to_string(t.dims[0]);
    for (size_t i = 1; i < ndims; ++i) want += fmt::format(" x {}", dims[i]);
    for (size_t i = 1; i < t.ndims; ++i) have += fmt::format(" x {}", t.dims[i]);
    reference_error(launch, fmt::format("texture {} must be {} {} texels, but is {} {} texels", t.name, want,
                                        ptx::type_name(type), have, ptx::type_name(t.type)));
  }
  return t;
}

uint64_t elements(int64_t a, int64_t b, int64_t c) {
  if (a <= 0 || b <= 0 || c <= 0) return 0;
  unsigned __int128 product = static_cast<unsigned __int128>(a) * static_cast<uint64_t>(b);
  if (product > UINT64_MAX) return UINT64_MAX;
  product *= static_cast<uint64_t>(c);
  return product > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(product);
}

}  // namespace simtlm::workloads
