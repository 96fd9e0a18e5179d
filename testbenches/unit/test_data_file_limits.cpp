// Hostile buffer files (issue 32, point 7): read_file_bytes refuses what is not a regular file of a buffer's
// size before reading it, and the PGM and .npy headers refuse dimensions whose sizes would wrap.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "models/launch/formats.hpp"

namespace simtlm::launch::data_file_limits {

std::string read_error(const std::filesystem::path& path) {
  try {
    read_file_bytes(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<uint8_t> bytes_of(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

template <typename Parse>
std::string parse_error(Parse parse) {
  try {
    parse();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(DataFileLimits, DevicesDirectoriesAndFifosAreRefusedBeforeAnyRead) {
  // Before, /dev/zero was read until memory ran out and a FIFO blocked for ever.
  EXPECT_EQ(read_error("/dev/zero"), "cannot read /dev/zero: it is not a regular file");
  const std::filesystem::path dir = testing::TempDir();
  EXPECT_EQ(read_error(dir), "cannot read " + dir.string() + ": it is a directory");
  const std::filesystem::path fifo = dir / "data_file_limits.fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_error(fifo), "cannot read " + fifo.string() + ": it is not a regular file");
  std::filesystem::remove(fifo);
  EXPECT_EQ(read_error(dir / "missing.bin"),
            "cannot open " + (dir / "missing.bin").string() + ": No such file or directory");
}

TEST(DataFileLimits, PgmDimensionsAreReadWholeAndBounded) {
  // Digits past 2^30 used to be left for the next field; 4294967295 x 4294967295 at 16 bits wrapped 64 bits.
  EXPECT_EQ(parse_error([] { parse_pgm(bytes_of("P5\n99999999999 1\n255\n")); }),
            "PGM width 99999999999 is over 1073741824");
  EXPECT_EQ(parse_error([] { parse_pgm(bytes_of("P5\n4294967295 4294967295\n65535\n")); }),
            "PGM width 4294967295 is over 1073741824");
  EXPECT_EQ(parse_error([] { parse_pgm(bytes_of("P5\n1073741824 2\n255\n")); }),
            "PGM image of 1073741824 x 2 pixels is over 1073741824 pixels");
  EXPECT_EQ(parse_error([] { parse_pgm(bytes_of("P5\n2 2\n65536\n")); }), "PGM maxval 65536 is over 65535");
  EXPECT_EQ(parse_pgm(bytes_of("P5\n2 1\n255\nab")).data, bytes_of("ab"));
}

TEST(DataFileLimits, AnNpyShapeWhoseProductWrapsIsRefused) {
  // (2^32, 2^32) multiplied to 0 elements before: the file read as an empty array.
  const std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967296), }";
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += char(header.size() & 0xff);
  file += char(header.size() >> 8);
  file += header;
  EXPECT_EQ(parse_error([&] { parse_npy(bytes_of(file)); }),
            "npy shape (4294967296, 4294967296) has more than 1074790400 elements");
}

}  // namespace simtlm::launch::data_file_limits
