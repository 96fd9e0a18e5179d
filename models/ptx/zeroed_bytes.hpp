// Zero-filled bytes whose large blocks come from fresh anonymous pages: the OS backs a page only when it is
// written, so a .local frame at its 512 KiB limit (16 MiB per warp) costs host memory for the part a
// kernel touches, however often warps are set up again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace simtlm::ptx {

class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  ZeroedBytes(const ZeroedBytes& other) { *this = other; }
  ZeroedBytes(ZeroedBytes&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        mapped_(std::exchange(other.mapped_, false)) {}
  ZeroedBytes& operator=(const ZeroedBytes& other);
  ZeroedBytes& operator=(ZeroedBytes&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(mapped_, other.mapped_);
    return *this;
  }
  ~ZeroedBytes() { release(); }

  // `size` zero bytes; the previous contents are dropped. Throws std::bad_alloc.
  void reset(size_t size);
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;  // from mmap (large blocks), else from calloc
};

}  // namespace simtlm::ptx
