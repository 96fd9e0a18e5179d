// Adaptation state unit (ASU) of Robust SIMD (robust-simd paper, Sections IV and VI): after every sampling
// interval it takes the interval's cycles per task (CPT, lower is better) and suggests the SIMD organization
// (width x depth) of the next interval, until it converges.
//
// State machine. The unit keeps the best organization and its CPT. A *pass* adapts one dimension:
//  - the first interval samples params.start; its CPT becomes the best ("start");
//  - probing: with the best as the base, the next intervals sample base+stride ("<dim>+") and then
//    base-stride ("<dim>-") in that dimension; a probe that falls outside the valid range (width in
//    [1, lanes]; depth in [1, max_depth(width)]) is skipped without an interval. A probe replaces the best
//    when its CPT beats the best's (so the second probe must beat the first when the first already won);
//    the winner's direction is remembered;
//  - moving: when a probe won, the unit keeps stepping by stride in that direction (same state name), and
//    every step that beats the best replaces it, until a step does not beat it or would leave the range;
//  - settling: the stride has settled on the best. Anneal halves the stride (integer division) and probes
//    again around the best, until a stride of 1 has settled; Inc uses stride 1 only, so it settles once.
//    A settled stride of 1 ends the pass.
// The next interval after a settle samples the next probe around the best (the best's CPT is not measured
// again). Strides at the start of a pass: Inc 1; Anneal lanes / 2 for width and max_depth(width of the best)
// / 2 for depth, at least 1.
// "Beats" means CPT < best CPT * (1 - min_gain): min_gain is the noise tolerance.
// Width changes keep the depth unless it exceeds max_depth(new width), where dwrep clamps it; width_only
// keeps its depth (its number of active slices) and treats such widths as outside the range.
// Strategies: width_only makes one width pass and depth_only one depth pass, then converge. dwrep makes a
// round of a depth pass then a width pass, and repeats rounds until one round leaves the organization
// where it began (neither pass moved the best). Once converged ("converged"), current() is the best and
// stays, whatever end_interval() is told.
#pragma once

#include <cstdint>
#include <string>

namespace simtlm::hw {

enum class AdaptStrategy : uint8_t { width_only, depth_only, dwrep };
enum class AdaptStride : uint8_t { inc, anneal };

struct Organization {
  uint32_t width = 32;
  uint32_t depth = 1;
  bool operator==(const Organization&) const = default;
};

struct AsuParams {
  AdaptStrategy strategy = AdaptStrategy::dwrep;
  AdaptStride stride = AdaptStride::anneal;
  uint32_t lanes = 32;  // the widest slice (upper bound of width)
  uint32_t warps = 1;   // physical warps
  Organization start{32, 1};
  double min_gain = 0.0;  // a CPT must be lower than the best by more than this fraction to count as better
};

class AdaptationStateUnit {
 public:
  // Throws std::invalid_argument unless lanes >= 1, warps >= 1, 0 <= min_gain < 1 and start is valid
  // (width in [1, lanes], depth in [1, max_depth(width)]).
  explicit AdaptationStateUnit(const AsuParams& params);

  Organization current() const { return current_; }              // organization of the interval being sampled
  bool converged() const { return phase_ == Phase::converged; }  // execution phase: current() stays
  // The interval sampled with current() took `cycles` for `tasks` completed tasks (CPT = cycles / tasks; no
  // task counts as an infinite CPT); returns the organization of the next interval.
  Organization end_interval(uint64_t cycles, uint64_t tasks);
  uint32_t max_depth(uint32_t width) const;  // warps * ceil(lanes / width)
  std::string state_name() const;            // "start", "depth+", "depth-", "width+", "width-", "converged"
  uint32_t stride() const { return converged() ? 0 : stride_; }  // 0 once converged
  Organization best() const { return best_; }

  // Section IV-B's estimate. This model's registers take 18 of them: current width and depth (2 B), best
  // width and depth (2 B), best CPT (4 B fixed point), the probe base (2 B), the organization the round
  // began at (2 B), the stride (1 B), the state (dimension, phase, direction: 1 B) and the divider's CPT of
  // the interval that ended (4 B).
  static constexpr uint32_t kStorageBytes = 20;

 private:
  enum class Dimension : uint8_t { width, depth };
  // settle is transient: the stride has settled and the unit picks what comes next.
  enum class Phase : uint8_t { start, probe_up, probe_down, moving, settle, converged };

  bool beats(double cpt) const;
  bool valid(const Organization& o) const;
  Organization step(const Organization& from, int direction) const;  // best +- stride in the dimension
  uint32_t initial_stride() const;
  void record(double cpt);  // the sampled interval's outcome; sets the phase to try next
  void begin_pass(Dimension d);
  void end_pass();
  // From phase_ (the next thing to try), moves on until an organization needs sampling or the unit converges.
  void next_sample();

  AsuParams params_;
  Organization current_;
  Organization best_;
  double best_cpt_ = 0.0;
  Dimension dimension_ = Dimension::depth;
  Phase phase_ = Phase::start;
  int direction_ = 0;  // +1 or -1 once a probe won at this stride, 0 before
  uint32_t stride_ = 1;
  Organization base_;  // centre of the probes at this stride
  Organization round_start_;
};

}  // namespace simtlm::hw
