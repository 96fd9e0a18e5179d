// Branch herding majority vote (branch/data herding paper, Section III-B). Model of rtl/majority_unit.v.
#pragma once

#include <cstdint>

namespace simtlm::hw {

// Which way a vote with exactly as many taken as not-taken active lanes goes.
enum class MajorityTie : uint8_t { kNotTaken = 0, kTaken = 1 };

struct BranchVote {
  bool herd_taken = false;  // Direction every lane follows when herded.
  bool all_taken = false;   // Active mask nonzero and every active lane taken.
  bool none_taken = false;  // Active mask nonzero and no active lane taken.
  bool uniform = false;     // all_taken || none_taken: the branch does not diverge.
  bool operator==(const BranchVote&) const = default;
};

class BranchMajority {
 public:
  virtual ~BranchMajority() = default;
  // Lanes outside `active` (and bits at or above the SIMD width) do not vote. An empty active mask gives all
  // outputs false.
  virtual BranchVote vote(uint64_t taken, uint64_t active) = 0;
};

// herd_taken = 2 * taken_active > active (strict majority); a tie goes to `tie`.
class MajorityUnit final : public BranchMajority {
 public:
  explicit MajorityUnit(uint32_t width, MajorityTie tie = MajorityTie::kNotTaken);
  BranchVote vote(uint64_t taken, uint64_t active) override;

 private:
  uint64_t lanes_;
  MajorityTie tie_;
};

}  // namespace simtlm::hw
