#include "models/ptx/zeroed_bytes.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace simtlm::ptx {
namespace {

// From this size on, blocks are mapped directly. calloc alone is not enough: once glibc has freed a block
// it raises its mmap threshold (up to 32 MiB) and serves the next one from the heap, where calloc must
// write every zero.
constexpr size_t kMapBytes = size_t{1} << 20;

}  // namespace

ZeroedBytes& ZeroedBytes::operator=(const ZeroedBytes& other) {
  if (this != &other) {
    reset(other.size_);
    if (size_) std::memcpy(data_, other.data_, size_);
  }
  return *this;
}

void ZeroedBytes::reset(size_t size) {
  release();
  if (size == 0) return;
  if (size >= kMapBytes) {
    void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<uint8_t*>(block);
    mapped_ = true;
  } else {
    data_ = static_cast<uint8_t*>(std::calloc(size, 1));
    if (!data_) throw std::bad_alloc();
  }
  size_ = size;
}

void ZeroedBytes::release() {
  if (mapped_) {
    munmap(data_, size_);
  } else {
    std::free(data_);
  }
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
}

}  // namespace simtlm::ptx
