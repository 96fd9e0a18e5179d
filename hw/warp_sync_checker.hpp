#pragma once
// Warp-synchronous code under compaction (docs/slp.md, "Warp-synchronous kernels"). Code written for a warp
// that runs in lockstep (a per-warp tagged write-and-retry, a shuffle through shared memory without
// __syncwarp) lets a lane read what another lane of its warp wrote with no barrier in between, trusting that
// the two ran the same instruction together. A mechanism that forms warps from a CTA's threads (TBC, CAPRI,
// ideal) may run the two lanes in different warps, at different times, and the read sees an older or a newer
// value: the kernel's results change. The checker watches the shared memory of each CTA and reports such a
// read, the way a race checker would, once per (write PC, read PC) pair with a count.
//
// A read is reported when the word's last writer is another lane of the reader's warp, the reader did not
// execute that store together with the writer (it was in another part of the issue), no barrier or
// bar.warp.sync of the warp came between, and the warp has not been whole again since the write (a warp that
// reconverged ran both sides to completion, as on a per-warp stack). Atomics are never a hazard.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/ptx/functional.hpp"

namespace simtlm::hw {

class WarpSyncChecker {
 public:
  struct Hazard {
    uint32_t write_pc = 0, read_pc = 0;
    uint64_t count = 0;
    // The first instance: where (CTA, warp), the word, the writing and the reading lane.
    uint32_t cta_linear = 0, warp = 0, writer_lane = 0, reader_lane = 0;
    uint64_t address = 0;
    std::string kernel;   // the owner's: the kernel's name and
    std::string message;  // its description of the first instance (set after access() returned it)
  };

  // A CTA of `warps` warps and `shared_bytes` of shared memory starts in `cta` (the SM's CTA index): its
  // shared memory holds no writes. Flat arrays: the check runs on every shared access of the lanes.
  void start_cta(uint32_t cta, uint32_t linear_id, uint32_t warps, uint64_t shared_bytes);
  // Part `part_mask` of warp `warp` issues an instruction; `live` are the warp's lanes not yet exited.
  void issue(uint32_t cta, uint32_t warp, ptx::LaneMask part_mask, ptx::LaneMask live);
  // The warp executed a barrier (bar.sync or bar.warp.sync).
  void synchronize(uint32_t cta, uint32_t warp);
  // A non-atomic shared access of `bytes` at `address` by `lane`, in the part `part_mask` of the issue.
  // Returns the report when this read is the first of a new (write PC, read PC) pair, else nullptr.
  Hazard* access(uint32_t cta, uint32_t warp, uint32_t lane, ptx::LaneMask part_mask, uint64_t address,
                 uint32_t bytes, bool is_store, uint32_t pc);

  uint64_t hazards() const { return total_; }
  // Each (write PC, read PC) pair once, in PC order.
  std::vector<Hazard> reports() const;
  // A new kernel: no CTA, no write, no report.
  void reset();

 private:
  static constexpr uint32_t kNoWriter = ~0u;
  struct Write {
    uint32_t warp = kNoWriter, lane = 0, pc = 0;
    ptx::LaneMask part = 0;  // the lanes of the warp that executed the store together
    uint64_t epoch = 0;
  };
  struct WarpState {
    uint64_t epoch = 0;  // grows at every barrier and whenever the warp is whole again after a split
    bool split = false;
  };
  struct CtaState {
    uint32_t linear_id = 0;
    std::vector<Write> words;  // by 4-byte word of the CTA's shared memory
    std::vector<WarpState> warps;
  };
  CtaState& cta(uint32_t index) {
    if (index >= ctas_.size()) ctas_.resize(index + 1);
    return ctas_[index];
  }
  std::vector<CtaState> ctas_;  // by the SM's CTA index
  std::map<std::pair<uint32_t, uint32_t>, Hazard> reports_;
  uint64_t total_ = 0;
};

}  // namespace simtlm::hw
