// Writing output buffers: raw .bin, .npy and, for image buffers, .pgm and .png. A run writes them into the
// staging directory of its output set (output_dir.hpp), which makes them visible all at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "models/launch/launch.hpp"

namespace simtlm::launch {

// One file written under a temporary name and renamed into place; throws OutputWriteError naming the path.
// Within an output set, write_file_checked is enough: the set as a whole is renamed.
void write_file_atomic(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// 8-bit grey pixels of an image buffer: u8 as is (unless stretch), other types scaled linearly from their
// [min, max] to 0..255. Stretching makes small counts (e.g. escape iterations 0..64) visible.
std::vector<uint8_t> to_gray8(ptx::Type type, const std::vector<uint8_t>& data, bool stretch = false);
std::vector<uint8_t> encode_pgm(uint32_t width, uint32_t height, const std::vector<uint8_t>& gray8);
std::vector<uint8_t> encode_png(uint32_t width, uint32_t height, const std::vector<uint8_t>& gray8);

struct OutputOptions {
  bool images = true;  // also .pgm/.png for buffers with an image shape
};

// Writes DIR/<name>.bin and DIR/<name>.npy (and .pgm/.png) for every output of the launch; returns the paths.
// Throws OutputWriteError (a full disk, RLIMIT_FSIZE) naming the file.
std::vector<std::filesystem::path> write_outputs(const Launch& launch,
                                                 const std::map<std::string, std::vector<uint8_t>>& buffers,
                                                 const std::filesystem::path& dir,
                                                 const OutputOptions& options);

const BufferSpec& find_buffer(const Launch& launch, const std::string& name);

}  // namespace simtlm::launch
