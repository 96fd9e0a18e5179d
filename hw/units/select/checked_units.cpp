// `--rtl-check`: each call goes to the C++ model and to the RTL twin; the first disagreement becomes an
// RtlMismatch that says everything needed to replay it (cycle, unit, inputs, both outputs).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <vector>

#include "hw/units/select/unit_set.hpp"

namespace simtlm::hw {
namespace {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::optional<uint64_t> cycle_of(const uint64_t* cycle_counter) {
  if (!cycle_counter) return std::nullopt;
  return *cycle_counter;
}

const char* mode_name(PermutationMode mode) {
  switch (mode) {
    case PermutationMode::kIdentity:
      return "identity";
    case PermutationMode::kTable:
      return "table";
    case PermutationMode::kBalanced:
      return "balanced";
  }
  return "?";
}

class CheckedPermutation final : public LanePermutation {
 public:
  CheckedPermutation(std::unique_ptr<LanePermutation> model, std::unique_ptr<LanePermutation> twin,
                     const uint64_t* cycle_counter)
      : model_(std::move(model)), twin_(std::move(twin)), cycle_counter_(cycle_counter) {}

  void set_mode(PermutationMode mode) override {
    model_->set_mode(mode);
    twin_->set_mode(mode);
    mode_ = mode;
  }
  void load(uint32_t warp, uint32_t xor_mask) override {
    model_->load(warp, xor_mask);
    twin_->load(warp, xor_mask);
  }
  uint32_t xor_mask(uint32_t warp) override {
    const uint32_t expected = model_->xor_mask(warp);
    compare(expected, twin_->xor_mask(warp), "xor_mask(warp=" + std::to_string(warp) + ")");
    return expected;
  }
  uint32_t home_lane(uint32_t warp, uint32_t lane) override {
    const uint32_t expected = model_->home_lane(warp, lane);
    compare(expected, twin_->home_lane(warp, lane),
            "home_lane(warp=" + std::to_string(warp) + ", lane=" + std::to_string(lane) + ")");
    return expected;
  }
  uint64_t permute_mask(uint32_t warp, uint64_t logical_mask) override {
    const uint64_t expected = model_->permute_mask(warp, logical_mask);
    const uint64_t actual = twin_->permute_mask(warp, logical_mask);
    if (expected != actual) {
      throw RtlMismatch(cycle_of(cycle_counter_), "permutation",
                        "permute_mask(warp=" + std::to_string(warp) + ", logical_mask=" + hex(logical_mask) +
                            "), mode " + mode_name(mode_),
                        "physical_mask=" + hex(expected), "physical_mask=" + hex(actual));
    }
    return expected;
  }

 private:
  void compare(uint32_t expected, uint32_t actual, const std::string& call) const {
    if (expected == actual) return;
    throw RtlMismatch(cycle_of(cycle_counter_), "permutation", call + ", mode " + mode_name(mode_),
                      std::to_string(expected), std::to_string(actual));
  }

  std::unique_ptr<LanePermutation> model_;
  std::unique_ptr<LanePermutation> twin_;
  const uint64_t* cycle_counter_;
  PermutationMode mode_ = PermutationMode::kIdentity;  // both start in identity mode (reset)
};

std::string vote_text(const BranchVote& vote) {
  return std::string("herd_taken=") + (vote.herd_taken ? "1" : "0") +
         " all_taken=" + (vote.all_taken ? "1" : "0") + " none_taken=" + (vote.none_taken ? "1" : "0") +
         " uniform=" + (vote.uniform ? "1" : "0");
}

class CheckedMajority final : public BranchMajority {
 public:
  CheckedMajority(std::unique_ptr<BranchMajority> model, std::unique_ptr<BranchMajority> twin,
                  const uint64_t* cycle_counter)
      : model_(std::move(model)), twin_(std::move(twin)), cycle_counter_(cycle_counter) {}

  BranchVote vote(uint64_t taken, uint64_t active) override {
    const BranchVote expected = model_->vote(taken, active);
    const BranchVote actual = twin_->vote(taken, active);
    if (!(expected == actual)) {
      throw RtlMismatch(cycle_of(cycle_counter_), "majority",
                        "taken=" + hex(taken) + " active=" + hex(active), vote_text(expected),
                        vote_text(actual));
    }
    return expected;
  }

 private:
  std::unique_ptr<BranchMajority> model_;
  std::unique_ptr<BranchMajority> twin_;
  const uint64_t* cycle_counter_;
};

// Lanes up to the last one either output uses: enough to show every difference without 64 idle entries.
std::string compacted_text(const CompactedWarp& warp, uint32_t lanes) {
  std::string text = "lane_mask=" + hex(warp.lane_mask) + " source_warp=[";
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    text += (lane ? " " : "") + std::to_string(warp.source_warp[lane]);
  }
  return text + "]";
}

uint32_t lanes_used(const CompactedWarp& warp) {
  uint32_t lanes = 64 - static_cast<uint32_t>(std::countl_zero(warp.lane_mask));
  for (uint32_t lane = 0; lane < warp.source_warp.size(); ++lane) {
    if (warp.source_warp[lane]) lanes = std::max(lanes, lane + 1);
  }
  return lanes;
}

class CheckedCompactor final : public WarpCompaction {
 public:
  CheckedCompactor(std::unique_ptr<WarpCompaction> model, std::unique_ptr<WarpCompaction> twin,
                   const uint64_t* cycle_counter)
      : model_(std::move(model)), twin_(std::move(twin)), cycle_counter_(cycle_counter) {}

  void load(std::span<const uint64_t> warp_masks) override {
    model_->load(warp_masks);
    twin_->load(warp_masks);
    loaded_.assign(warp_masks.begin(), warp_masks.end());
    steps_ = 0;
  }
  bool done() override {
    const bool expected = model_->done();
    const bool actual = twin_->done();
    if (expected != actual) {
      throw RtlMismatch(cycle_of(cycle_counter_), "compactor", "done() " + history(),
                        std::string("done=") + (expected ? "1" : "0"),
                        std::string("done=") + (actual ? "1" : "0"));
    }
    return expected;
  }
  CompactedWarp next() override {
    const CompactedWarp expected = model_->next();
    const CompactedWarp actual = twin_->next();
    if (!(expected == actual)) {
      const uint32_t lanes = std::max(lanes_used(expected), lanes_used(actual));
      throw RtlMismatch(cycle_of(cycle_counter_), "compactor", "next() " + history(),
                        compacted_text(expected, lanes), compacted_text(actual, lanes));
    }
    ++steps_;
    return expected;
  }

 private:
  // The compactor's answer depends on what was loaded and how many warps were taken out since.
  std::string history() const {
    std::string text = "after " + std::to_string(steps_) + " next() since load(warp_masks=[";
    for (size_t warp = 0; warp < loaded_.size(); ++warp) text += (warp ? " " : "") + hex(loaded_[warp]);
    return text + "])";
  }

  std::unique_ptr<WarpCompaction> model_;
  std::unique_ptr<WarpCompaction> twin_;
  const uint64_t* cycle_counter_;
  std::vector<uint64_t> loaded_;
  uint64_t steps_ = 0;
};

std::string addresses_text(const uint64_t* address, size_t lanes) {
  std::string text = "[";
  for (size_t lane = 0; lane < lanes; ++lane) text += (lane ? " " : "") + hex(address[lane]);
  return text + "]";
}

std::string herded_text(const HerdedLoad& load, size_t lanes) {
  return "block=" + hex(load.block) + " count=" + std::to_string(load.count) +
         " address=" + addresses_text(load.address.data(), lanes);
}

class CheckedBlockSelection final : public BlockSelection {
 public:
  CheckedBlockSelection(std::unique_ptr<BlockSelection> model, std::unique_ptr<BlockSelection> twin,
                        const uint64_t* cycle_counter)
      : model_(std::move(model)), twin_(std::move(twin)), cycle_counter_(cycle_counter) {}

  HerdedLoad select(std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) override {
    const HerdedLoad expected = model_->select(address, active, line_shift);
    const HerdedLoad actual = twin_->select(address, active, line_shift);
    if (!(expected == actual)) {
      throw RtlMismatch(cycle_of(cycle_counter_), "popular_block",
                        "active=" + hex(active) + " line_shift=" + std::to_string(line_shift) +
                            " address=" + addresses_text(address.data(), address.size()),
                        herded_text(expected, address.size()), herded_text(actual, address.size()));
    }
    return expected;
  }

 private:
  std::unique_ptr<BlockSelection> model_;
  std::unique_ptr<BlockSelection> twin_;
  const uint64_t* cycle_counter_;
};

}  // namespace

std::unique_ptr<LanePermutation> make_checked_permutation(std::unique_ptr<LanePermutation> model,
                                                          std::unique_ptr<LanePermutation> twin,
                                                          const uint64_t* cycle_counter) {
  return std::make_unique<CheckedPermutation>(std::move(model), std::move(twin), cycle_counter);
}

std::unique_ptr<BranchMajority> make_checked_majority(std::unique_ptr<BranchMajority> model,
                                                      std::unique_ptr<BranchMajority> twin,
                                                      const uint64_t* cycle_counter) {
  return std::make_unique<CheckedMajority>(std::move(model), std::move(twin), cycle_counter);
}

std::unique_ptr<WarpCompaction> make_checked_compactor(std::unique_ptr<WarpCompaction> model,
                                                       std::unique_ptr<WarpCompaction> twin,
                                                       const uint64_t* cycle_counter) {
  return std::make_unique<CheckedCompactor>(std::move(model), std::move(twin), cycle_counter);
}

std::unique_ptr<BlockSelection> make_checked_popular_block(std::unique_ptr<BlockSelection> model,
                                                           std::unique_ptr<BlockSelection> twin,
                                                           const uint64_t* cycle_counter) {
  return std::make_unique<CheckedBlockSelection>(std::move(model), std::move(twin), cycle_counter);
}

}  // namespace simtlm::hw
