#pragma once
// Occupancy of one bounded queue over simulated time: the most entries it ever held and how long it was at
// (or past) its bound, the figures that show where back-pressure came from (docs/memory-system.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <systemc>

#include "models/mem/waves.hpp"

namespace simtlm::mem {

class QueueOccupancy {
 public:
  explicit QueueOccupancy(uint64_t capacity = 1) : capacity_(capacity) {}

  // Call with the queue's new size after every change.
  void set(uint64_t size) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (size_ >= capacity_) full_ += now - since_;
    since_ = now;
    size_ = size;
    max_ = std::max(max_, size);
  }
  uint64_t capacity() const { return capacity_; }
  uint64_t size() const { return size_; }
  uint64_t max() const { return max_; }
  bool full() const { return size_ >= capacity_; }
  // Its size in a waveform, as it changes.
  void trace(Waves& waves, const std::string& name) const { waves.trace(size_, name); }
  // Cycles of `clock` during which the queue held `capacity` entries or more, up to now.
  uint64_t cycles_full(const sc_core::sc_time& clock) const {
    sc_core::sc_time full = full_;
    if (size_ >= capacity_) full += sc_core::sc_time_stamp() - since_;
    return static_cast<uint64_t>(std::llround(full / clock));
  }

 private:
  uint64_t capacity_;
  uint64_t size_ = 0, max_ = 0;
  sc_core::sc_time since_, full_;
};

}  // namespace simtlm::mem
