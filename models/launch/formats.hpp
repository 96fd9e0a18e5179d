// Buffer file formats: raw .bin, numpy .npy (versions 1 and 2) and binary PGM (P5).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::launch {

// numpy .npy (format versions 1 and 2, little-endian, C order).
struct NpyArray {
  std::string dtype;  // numpy descr, e.g. "<f4", "|u1"
  uint64_t count = 0;
  std::vector<uint8_t> data;
};
// Throws std::runtime_error with a message that does not name the file (the caller adds context).
NpyArray parse_npy(const std::vector<uint8_t>& bytes);
std::string npy_descr(ptx::Type type);
std::vector<uint8_t> make_npy(ptx::Type type, const std::vector<uint8_t>& data);

// Binary PGM (P5). 16-bit samples (maxval > 255) are big-endian in the file and returned little-endian.
struct PgmImage {
  uint32_t width = 0, height = 0, maxval = 0;
  std::vector<uint8_t> data;
};
// Refuses a width or height over kMaxPgmDimension and more than kMaxPgmPixels in all (a buffer's 1 GiB),
// before the size of the samples is computed.
PgmImage parse_pgm(const std::vector<uint8_t>& bytes);
inline constexpr uint64_t kMaxPgmDimension = uint64_t(1) << 30;
inline constexpr uint64_t kMaxPgmPixels = uint64_t(1) << 30;

// A regular file of at most kMaxDataFileBytes (a buffer's 1 GiB and 1 MiB for a header), read whole. Throws
// std::runtime_error naming the file and the reason: missing, unreadable, a directory, a device or FIFO
// (never read), too large.
std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path);
inline constexpr uint64_t kMaxDataFileBytes = (uint64_t(1) << 30) + (uint64_t(1) << 20);

// Bytes of an input/expect file by its extension: .npy (dtype must match type), .pgm, anything else raw.
std::vector<uint8_t> load_data_file(const std::filesystem::path& path, ptx::Type type);

}  // namespace simtlm::launch
