// Input and output file formats of buffers: raw bytes, numpy .npy and binary PGM.
#include "models/launch/formats.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "models/launch/buffers.hpp"

namespace simtlm::launch {

using ptx::Type;

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path) {
  // Checked before reading: a directory, a device (/dev/zero) or a FIFO has no end to read, and a file larger
  // than any buffer would be read whole before its size is compared with the buffer's.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  const auto fail = [&](const std::string& why) {
    close(fd);
    throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), why));
  };
  if (fstat(fd, &st) != 0) fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail("it is a directory");
  if (!S_ISREG(st.st_mode)) fail("it is not a regular file");
  if (uint64_t(st.st_size) > kMaxDataFileBytes) {
    fail(fmt::format("it holds {} bytes, over simtlm's limit of {} for a buffer's file (docs/reliability.md)",
                     uint64_t(st.st_size), kMaxDataFileBytes));
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::strerror(errno));
    if (n == 0) break;  // the file shrank meanwhile
    done += size_t(n);
  }
  close(fd);
  bytes.resize(done);
  return bytes;
}

std::string npy_descr(Type type) {
  switch (type) {
    case Type::u8:
      return "|u1";
    case Type::s8:
      return "|i1";
    case Type::u16:
      return "<u2";
    case Type::s16:
      return "<i2";
    case Type::u32:
      return "<u4";
    case Type::s32:
      return "<i4";
    case Type::u64:
      return "<u8";
    case Type::s64:
      return "<i8";
    case Type::f32:
      return "<f4";
    case Type::f64:
      return "<f8";
    default:
      return "";
  }
}

namespace {

// The value text of 'key' in a numpy header dict ("{'descr': '<f4', 'fortran_order': False, 'shape': (4,),
// }").
std::string npy_header_field(const std::string& header, const std::string& key) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw std::runtime_error(fmt::format("npy header has no '{}'", key));
  size_t v = header.find(':', k);
  if (v == std::string::npos) throw std::runtime_error("malformed npy header");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  size_t end = v;
  if (header[v] == '(') {
    end = header.find(')', v);
    if (end == std::string::npos) throw std::runtime_error("malformed npy shape");
    return header.substr(v, end - v + 1);
  }
  if (header[v] == '\'') {
    end = header.find('\'', v + 1);
    if (end == std::string::npos) throw std::runtime_error("malformed npy header");
    return header.substr(v + 1, end - v - 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(v, end - v);
}

}  // namespace

NpyArray parse_npy(const std::vector<uint8_t>& bytes) {
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    throw std::runtime_error("not a .npy file");
  const unsigned major = bytes[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = bytes[8] | (size_t(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw std::runtime_error("truncated .npy header");
    header_len = bytes[8] | (size_t(bytes[9]) << 8) | (size_t(bytes[10]) << 16) | (size_t(bytes[11]) << 24);
    header_start = 12;
  } else {
    throw std::runtime_error(fmt::format("unsupported .npy version {}", major));
  }
  if (header_start + header_len > bytes.size()) throw std::runtime_error("truncated .npy header");
  const std::string header(bytes.begin() + header_start, bytes.begin() + header_start + header_len);
  NpyArray array;
  array.dtype = npy_header_field(header, "descr");
  if (npy_header_field(header, "fortran_order").find("False") == std::string::npos) {
    throw std::runtime_error("Fortran-ordered .npy arrays are not supported");
  }
  const std::string shape = npy_header_field(header, "shape");
  array.count = 1;
  size_t pos = 1;
  while (pos < shape.size()) {
    while (pos < shape.size() && !std::isdigit(static_cast<unsigned char>(shape[pos]))) ++pos;
    if (pos >= shape.size()) break;
    uint64_t dim = 0;
    while (pos < shape.size() && std::isdigit(static_cast<unsigned char>(shape[pos]))) {
      dim = std::min<uint64_t>(dim * 10 + uint64_t(shape[pos++] - '0'), uint64_t(1) << 40);  // no wrap
    }
    // Checked element by element: a shape whose product wraps 64 bits used to read as a small array.
    if (__builtin_mul_overflow(array.count, dim, &array.count) || array.count > kMaxDataFileBytes)
      throw std::runtime_error(
          fmt::format("npy shape {} has more than {} elements", shape, kMaxDataFileBytes));
  }
  array.data.assign(bytes.begin() + header_start + header_len, bytes.end());
  return array;
}

std::vector<uint8_t> make_npy(Type type, const std::vector<uint8_t>& data) {
  const uint64_t count = data.size() / element_bytes(type);
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", npy_descr(type), count);
  // Pad with spaces so magic + length + header + '\n' is a multiple of 64, as numpy writes it.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  static const uint8_t kPreamble[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  // Sized once and filled with memcpy: GCC 12 -O3 warns falsely (-Warray-bounds) on chained vector inserts.
  std::vector<uint8_t> out(10 + header.size() + data.size());
  std::memcpy(out.data(), kPreamble, 8);
  out[8] = uint8_t(header.size() & 0xff);
  out[9] = uint8_t(header.size() >> 8);
  std::memcpy(out.data() + 10, header.data(), header.size());
  if (!data.empty()) std::memcpy(out.data() + 10 + header.size(), data.data(), data.size());
  return out;
}

PgmImage parse_pgm(const std::vector<uint8_t>& bytes) {
  size_t pos = 0;
  auto skip_space_and_comments = [&] {
    while (pos < bytes.size()) {
      if (bytes[pos] == '#') {
        while (pos < bytes.size() && bytes[pos] != '\n') ++pos;
      } else if (std::isspace(bytes[pos])) {
        ++pos;
      } else {
        break;
      }
    }
  };
  auto read_number = [&](const char* what, uint64_t limit) -> uint32_t {
    skip_space_and_comments();
    if (pos >= bytes.size() || !std::isdigit(bytes[pos])) throw std::runtime_error("malformed PGM header");
    uint64_t v = 0;
    while (pos < bytes.size() && std::isdigit(bytes[pos])) {
      v = std::min<uint64_t>(v * 10 + (bytes[pos++] - '0'), uint64_t(1) << 40);  // saturates: no wrap
    }
    if (v > limit) throw std::runtime_error(fmt::format("PGM {} {} is over {}", what, v, limit));
    return uint32_t(v);
  };
  if (bytes.size() < 2 || bytes[0] != 'P' || bytes[1] != '5') {
    throw std::runtime_error("not a binary PGM (P5) file");
  }
  pos = 2;
  PgmImage img;
  img.width = read_number("width", kMaxPgmDimension);
  img.height = read_number("height", kMaxPgmDimension);
  img.maxval = read_number("maxval", 65535);
  if (img.maxval == 0) throw std::runtime_error("PGM maxval out of range");
  if (uint64_t(img.width) * img.height > kMaxPgmPixels) {
    throw std::runtime_error(
        fmt::format("PGM image of {} x {} pixels is over {} pixels", img.width, img.height, kMaxPgmPixels));
  }
  if (pos >= bytes.size() || !std::isspace(bytes[pos])) throw std::runtime_error("malformed PGM header");
  ++pos;  // exactly one whitespace byte separates the header from the samples
  const unsigned sample_bytes = img.maxval > 255 ? 2 : 1;
  const uint64_t need = uint64_t(img.width) * img.height * sample_bytes;
  if (bytes.size() - pos < need) throw std::runtime_error("PGM pixel data is truncated");
  img.data.assign(bytes.begin() + pos, bytes.begin() + pos + need);
  if (sample_bytes == 2) {
    for (size_t i = 0; i + 1 < img.data.size(); i += 2) std::swap(img.data[i], img.data[i + 1]);
  }
  return img;
}

namespace {

// A format error of the file at `path`, named with it ("x.pgm: PGM pixel data is truncated").
template <typename Parse>
auto named(const std::filesystem::path& path, Parse parse) {
  try {
    return parse();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace

std::vector<uint8_t> load_data_file(const std::filesystem::path& path, Type type) {
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  const std::string ext = path.extension().string();
  if (ext == ".npy") {
    NpyArray array = named(path, [&] { return parse_npy(bytes); });
    if (array.dtype != npy_descr(type)) {
      throw std::runtime_error(fmt::format("{} has dtype '{}' but the buffer is {} ('{}')", path.string(),
                                           array.dtype, ptx::type_name(type), npy_descr(type)));
    }
    if (array.data.size() < array.count * element_bytes(type)) {
      throw std::runtime_error(fmt::format("{}: array data is truncated", path.string()));
    }
    array.data.resize(array.count * element_bytes(type));
    return array.data;
  }
  if (ext == ".pgm") {
    PgmImage img = named(path, [&] { return parse_pgm(bytes); });
    const Type sample = img.maxval > 255 ? Type::u16 : Type::u8;
    if (element_bytes(type) != element_bytes(sample) || type == Type::f32 || type == Type::f64) {
      throw std::runtime_error(fmt::format("{} has {}-bit samples but the buffer is {}", path.string(),
                                           8 * element_bytes(sample), ptx::type_name(type)));
    }
    return img.data;
  }
  return bytes;
}

}  // namespace simtlm::launch
