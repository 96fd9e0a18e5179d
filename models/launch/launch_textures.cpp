// `textures:` of launch files: buffers bound as texture objects (cudaTextureObject_t) that kernels read with
// tex. Only what the functional model implements is accepted: point filtering, unnormalized coordinates and
// clamp addressing, one channel per texel; the keys that would select anything else exist so that a port of
// a CUDA program that asks for it is refused by name instead of silently sampled differently.
#include "models/launch/buffers.hpp"
#include "models/launch/launch_reader.hpp"

namespace simtlm::launch::detail {
namespace {

constexpr uint64_t kMaxTextureDim = uint64_t(1) << 27;  // CUDA's largest (1-D linear) texture width

bool is_texel_type(ptx::Type t) {
  switch (t) {
    case ptx::Type::u8:
    case ptx::Type::s8:
    case ptx::Type::u16:
    case ptx::Type::s16:
    case ptx::Type::u32:
    case ptx::Type::s32:
    case ptx::Type::f32:
      return true;
    default:
      return false;
  }
}

// A key that only takes the one value the model implements.
void require_value(const Reader& r, const YAML::Node& map, const std::string& path, const char* key,
                   const std::string& accepted, const std::string& why) {
  const YAML::Node n = map[key];
  if (!n) return;
  const std::string value = r.string(n, Reader::join(path, key));
  if (value != accepted)
    r.fail(n, Reader::join(path, key),
           fmt::format("'{}' is not supported: {} (only {})", value, why, accepted));
}

TextureSpec read_texture(const Reader& r, const YAML::Node& key, const YAML::Node& n, const Launch& launch) {
  TextureSpec spec;
  spec.name = key.Scalar();
  spec.line = Reader::line_of(key);
  const std::string path = "textures." + spec.name;
  r.require_map(n, path, {"buffer", "dims", "type", "address", "filter", "normalized"});
  const YAML::Node buffer = r.required(n, path, "buffer");
  spec.buffer = r.string(buffer, path + ".buffer");
  const BufferSpec* source = launch.find_buffer_spec(spec.buffer);
  if (!source)
    r.fail(buffer, path + ".buffer", fmt::format("'{}' is not a buffer of this launch", spec.buffer));
  require_value(r, n, path, "address", "clamp", "the model clamps every coordinate to the texture");
  require_value(r, n, path, "filter", "point", "the model fetches the nearest texel");
  require_value(r, n, path, "normalized", "false", "coordinates are texel coordinates");

  spec.type = source->type;
  if (const YAML::Node type = n["type"]) {
    const auto parsed = parse_buffer_type(r.string(type, path + ".type"));
    if (!parsed || !is_texel_type(*parsed))
      r.fail(type, path + ".type", "expected one of u8 s8 u16 s16 u32 s32 f32");
    spec.type = *parsed;
  } else if (!is_texel_type(spec.type)) {
    r.fail(
        buffer, path + ".buffer",
        fmt::format("buffer '{}' holds {} elements, which are not texels (u8 s8 u16 s16 u32 s32 f32): give "
                    "the texel type with type:",
                    spec.buffer, ptx::type_name(spec.type)));
  }

  const YAML::Node dims = r.required(n, path, "dims");
  if (!dims.IsSequence() || dims.size() < 1 || dims.size() > 3)
    r.fail(dims, path + ".dims",
           "expected a list of 1 to 3 texel counts: [width], [width, height] or [w, h, d]");
  uint64_t texels = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const std::string key_i = fmt::format("{}.dims[{}]", path, i);
    const uint64_t value = r.unsigned_int(dims[i], key_i, kMaxTextureDim);
    if (value == 0) r.fail(dims[i], key_i, "must be at least 1");
    spec.dims[i] = uint32_t(value);
    texels *= value;  // at most 2^81 in principle: checked against the buffer below, one factor at a time
    if (texels > kMaxBufferBytes) break;
  }
  spec.ndims = uint8_t(dims.size());
  const uint64_t need = texels * element_bytes(spec.type);
  const uint64_t have = source->count * element_bytes(source->type);
  if (texels > kMaxBufferBytes || need > have) {
    std::string shape = std::to_string(spec.dims[0]);
    for (size_t i = 1; i < spec.ndims; ++i) shape += fmt::format(" x {}", spec.dims[i]);
    r.fail(dims, path + ".dims",
           fmt::format("{} {} texels need {} bytes, more than buffer '{}' holds ({} bytes)", shape,
                       ptx::type_name(spec.type),
                       texels > kMaxBufferBytes ? std::string("over 1 GiB of") : std::to_string(need),
                       spec.buffer, have));
  }
  return spec;
}

}  // namespace

void read_textures(const Reader& r, const YAML::Node& n, Launch& launch) {
  if (!n.IsMap())
    r.fail(n, "textures",
           "expected a map from texture names to {buffer, dims}, e.g. tex: {buffer: image, dims: [64, 48]}");
  for (const auto& kv : n) {
    const std::string name = checked_name(r, kv.first, "textures");
    const std::string path = "textures." + name;
    if (launch.find_texture(name) >= 0) r.fail(kv.first, path, "duplicate name");
    if (has_buffer(launch, name))
      r.fail(kv.first, path,
             fmt::format("'{}' is also a buffer: a parameter \"{}\" would be ambiguous", name, name));
    if (launch.constants.count(name))
      r.fail(kv.first, path,
             fmt::format("'{}' is also a constant: a parameter \"{}\" would be ambiguous", name, name));
    launch.textures.push_back(read_texture(r, kv.first, kv.second, launch));
  }
}

}  // namespace simtlm::launch::detail

namespace simtlm::launch {

int Launch::find_texture(const std::string& name) const {
  for (size_t i = 0; i < textures.size(); ++i) {
    if (textures[i].name == name) return int(i);
  }
  return -1;
}

}  // namespace simtlm::launch
