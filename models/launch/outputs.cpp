#include "models/launch/outputs.hpp"

#include <fmt/format.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "models/launch/buffers.hpp"
#include "models/launch/formats.hpp"
#include "models/launch/output_dir.hpp"

namespace simtlm::launch {

namespace fs = std::filesystem;

void write_file_atomic(const fs::path& path, const std::vector<uint8_t>& bytes) {
  // The pid keeps concurrent writers of one directory from clobbering each other's temporaries.
  const fs::path tmp = path.string() + fmt::format(".tmp{}", ::getpid());
  std::error_code ec;
  try {
    write_file_checked(tmp, bytes);
  } catch (const OutputWriteError&) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw OutputWriteError(
        fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), ec.message()));
  }
}

namespace {

double element_as_double(ptx::Type type, const uint8_t* p) {
  switch (type) {
    case ptx::Type::u8:
      return *p;
    case ptx::Type::s8:
      return int8_t(*p);
    case ptx::Type::u16: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ptx::Type::s16: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case ptx::Type::u32: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ptx::Type::s32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ptx::Type::u64: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return double(v);
    }
    case ptx::Type::s64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return double(v);
    }
    case ptx::Type::f32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ptx::Type::f64: {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    default:
      return 0;
  }
}

}  // namespace

std::vector<uint8_t> to_gray8(ptx::Type type, const std::vector<uint8_t>& data, bool stretch) {
  if (type == ptx::Type::u8 && !stretch) return data;
  const unsigned esize = element_bytes(type);
  const size_t n = data.size() / esize;
  std::vector<double> values(n);
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    values[i] = element_as_double(type, &data[i * esize]);
    if (std::isfinite(values[i])) {
      lo = std::min(lo, values[i]);
      hi = std::max(hi, values[i]);
    }
  }
  std::vector<uint8_t> gray(n, 0);
  const double scale = hi > lo ? 255.0 / (hi - lo) : 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(values[i])) gray[i] = uint8_t(std::lround((values[i] - lo) * scale));
  }
  return gray;
}

std::vector<uint8_t> encode_pgm(uint32_t width, uint32_t height, const std::vector<uint8_t>& gray8) {
  const std::string header = fmt::format("P5\n{} {}\n255\n", width, height);
  std::vector<uint8_t> out(header.begin(), header.end());
  out.insert(out.end(), gray8.begin(), gray8.end());
  return out;
}

std::vector<uint8_t> encode_png(uint32_t width, uint32_t height, const std::vector<uint8_t>& gray8) {
  // libpng's simplified API reports errors through the image struct, so no setjmp crosses C++ frames.
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = width;
  image.height = height;
  image.format = PNG_FORMAT_GRAY;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, gray8.data(), 0, nullptr)) {
    throw std::runtime_error(fmt::format("PNG encoding failed: {}", image.message));
  }
  std::vector<uint8_t> out(size);
  if (!png_image_write_to_memory(&image, out.data(), &size, 0, gray8.data(), 0, nullptr)) {
    throw std::runtime_error(fmt::format("PNG encoding failed: {}", image.message));
  }
  out.resize(size);
  png_image_free(&image);
  return out;
}

const BufferSpec& find_buffer(const Launch& launch, const std::string& name) {
  if (const BufferSpec* b = launch.find_buffer_spec(name)) return *b;
  throw std::runtime_error(fmt::format("no buffer named '{}'", name));
}

std::vector<fs::path> write_outputs(const Launch& launch,
                                    const std::map<std::string, std::vector<uint8_t>>& buffers,
                                    const fs::path& dir, const OutputOptions& options) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputWriteError(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  std::vector<fs::path> written;
  for (const std::string& name : launch.outputs) {
    const BufferSpec& spec = find_buffer(launch, name);
    const std::vector<uint8_t>& data = buffers.at(name);
    written.push_back(dir / (name + ".bin"));
    write_file_checked(written.back(), data);
    written.push_back(dir / (name + ".npy"));
    write_file_checked(written.back(), make_npy(spec.type, data));
    const auto shape = launch.image_shape.find(name);
    if (options.images && shape != launch.image_shape.end()) {
      const auto [w, h] = shape->second;
      const std::vector<uint8_t> gray = to_gray8(spec.type, data);
      written.push_back(dir / (name + ".pgm"));
      write_file_checked(written.back(), encode_pgm(w, h, gray));
      written.push_back(dir / (name + ".png"));
      write_file_checked(written.back(), encode_png(w, h, gray));
    }
  }
  return written;
}

}  // namespace simtlm::launch
