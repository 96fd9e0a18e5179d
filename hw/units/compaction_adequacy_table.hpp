// CAPRI's compaction-adequacy prediction table (Rhu and Erez, ISCA 2012; docs/slp.md, "CAPRI"): a
// single-level, branch-predictor-like table that says, per conditional branch, whether stalling the CTA's
// warps there for compaction is expected to save warps. Direct-mapped on the branch's instruction index, each
// entry holding a valid bit, the branch's tag and one bit of history (the last outcome). A branch the table
// does not hold is predicted adequate by default (its first execution synchronizes, so the table learns from
// a real compaction before it lets warps go on) or not adequate (compaction.capri_miss); issue 28 measures
// both.
#pragma once

#include <cstdint>
#include <vector>

namespace simtlm::hw {

class CompactionAdequacyTable {
 public:
  // `miss_adequate`: what a branch the table does not hold is predicted.
  explicit CompactionAdequacyTable(uint32_t entries, bool miss_adequate = true);

  // True: the warps should wait for their CTA at the branch at `pc` (compaction predicted adequate).
  bool predict(uint32_t pc) const;
  // Writes the observed adequacy of one CTA-wide execution of the branch; returns whether predict(pc) agreed
  // before the write (the prediction accuracy the paper reports).
  bool update(uint32_t pc, bool adequate);
  void clear();  // a new kernel: its branch PCs mean other branches

  uint32_t entries() const { return static_cast<uint32_t>(table_.size()); }
  // valid + tag + history bits per entry, for instruction addresses of `pc_bits` bits.
  uint32_t storage_bits(uint32_t pc_bits) const;
  // Every entry as one word (the livelock watch: a prediction decides whether warps wait).
  void append_state(std::vector<uint64_t>& out) const {
    for (const Entry& e : table_) out.push_back(uint64_t(e.tag) << 2 | uint64_t(e.valid) << 1 | e.adequate);
  }

 private:
  struct Entry {
    bool valid = false;
    uint32_t tag = 0;
    bool adequate = true;
  };
  uint32_t index(uint32_t pc) const { return pc % entries(); }
  uint32_t tag(uint32_t pc) const { return pc / entries(); }

  std::vector<Entry> table_;
  bool miss_adequate_ = true;
};

}  // namespace simtlm::hw
