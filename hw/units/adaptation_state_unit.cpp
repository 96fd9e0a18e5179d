#include "hw/units/adaptation_state_unit.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace simtlm::hw {

AdaptationStateUnit::AdaptationStateUnit(const AsuParams& params)
    : params_(params), current_(params.start), best_(params.start), round_start_(params.start) {
  if (params.lanes == 0 || params.warps == 0)
    throw std::invalid_argument("adaptation state unit: needs lanes >= 1 and warps >= 1");
  if (!(params.min_gain >= 0.0 && params.min_gain < 1.0))
    throw std::invalid_argument("adaptation state unit: min_gain must be in [0, 1)");
  if (!valid(params.start)) {
    std::ostringstream message;
    message << "adaptation state unit: start organization " << params.start.width << "x" << params.start.depth
            << " outside width [1, " << params.lanes << "] and depth [1, " << max_depth(params.start.width)
            << "]";
    throw std::invalid_argument(message.str());
  }
  dimension_ = params.strategy == AdaptStrategy::width_only ? Dimension::width : Dimension::depth;
  stride_ = initial_stride();
}

uint32_t AdaptationStateUnit::max_depth(uint32_t width) const {
  return width == 0 ? 0 : params_.warps * ((params_.lanes + width - 1) / width);
}

bool AdaptationStateUnit::valid(const Organization& o) const {
  return o.width >= 1 && o.width <= params_.lanes && o.depth >= 1 && o.depth <= max_depth(o.width);
}

bool AdaptationStateUnit::beats(double cpt) const {
  return cpt < best_cpt_ * (1.0 - params_.min_gain);
}

Organization AdaptationStateUnit::step(const Organization& from, int direction) const {
  const int64_t offset = int64_t{direction} * stride_;
  if (dimension_ == Dimension::depth) {
    const int64_t depth = int64_t{from.depth} + offset;
    if (depth < 1) return Organization{0, 0};
    return Organization{from.width, static_cast<uint32_t>(depth)};
  }
  const int64_t width = int64_t{from.width} + offset;
  if (width < 1 || width > params_.lanes) return Organization{0, 0};
  const auto w = static_cast<uint32_t>(width);
  if (params_.strategy == AdaptStrategy::width_only && max_depth(w) < from.depth) return Organization{0, 0};
  // Wider slices leave fewer of them: the depth shrinks to what the new width allows.
  return Organization{w, std::min(from.depth, max_depth(w))};
}

uint32_t AdaptationStateUnit::initial_stride() const {
  if (params_.stride == AdaptStride::inc) return 1;
  const uint32_t range = dimension_ == Dimension::width ? params_.lanes : max_depth(best_.width);
  return std::max(1u, range / 2);
}

Organization AdaptationStateUnit::end_interval(uint64_t cycles, uint64_t tasks) {
  if (converged()) return current_;
  record(tasks ? static_cast<double>(cycles) / static_cast<double>(tasks)
               : std::numeric_limits<double>::infinity());
  next_sample();
  return current_;
}

void AdaptationStateUnit::record(double cpt) {
  switch (phase_) {
    case Phase::start:
      best_cpt_ = cpt;
      base_ = best_;
      phase_ = Phase::probe_up;
      return;
    case Phase::probe_up:
    case Phase::probe_down:
    case Phase::moving:
      if (beats(cpt)) {
        best_ = current_;
        best_cpt_ = cpt;
        if (phase_ != Phase::moving) direction_ = phase_ == Phase::probe_up ? 1 : -1;
      } else if (phase_ == Phase::moving) {
        phase_ = Phase::settle;
        return;
      }
      if (phase_ == Phase::probe_up) {
        phase_ = Phase::probe_down;
      } else {
        phase_ = direction_ ? Phase::moving : Phase::settle;
      }
      return;
    case Phase::settle:
    case Phase::converged:
      return;
  }
}

void AdaptationStateUnit::next_sample() {
  while (phase_ != Phase::converged) {
    if (phase_ == Phase::settle) {
      if (stride_ > 1) {
        stride_ /= 2;
        direction_ = 0;
        base_ = best_;
        phase_ = Phase::probe_up;
      } else {
        end_pass();
      }
      continue;
    }
    const Organization next = phase_ == Phase::probe_up     ? step(base_, 1)
                              : phase_ == Phase::probe_down ? step(base_, -1)
                                                            : step(best_, direction_);
    if (valid(next)) {
      current_ = next;
      return;
    }
    // Outside the range: that probe or move costs no interval.
    if (phase_ == Phase::probe_up) {
      phase_ = Phase::probe_down;
    } else if (phase_ == Phase::probe_down && direction_) {
      phase_ = Phase::moving;
    } else {
      phase_ = Phase::settle;
    }
  }
  current_ = best_;
}

void AdaptationStateUnit::begin_pass(Dimension d) {
  dimension_ = d;
  stride_ = initial_stride();
  direction_ = 0;
  base_ = best_;
  phase_ = Phase::probe_up;
}

void AdaptationStateUnit::end_pass() {
  if (params_.strategy != AdaptStrategy::dwrep) {
    phase_ = Phase::converged;
  } else if (dimension_ == Dimension::depth) {
    begin_pass(Dimension::width);
  } else if (best_ == round_start_) {
    phase_ = Phase::converged;
  } else {
    round_start_ = best_;
    begin_pass(Dimension::depth);
  }
}

std::string AdaptationStateUnit::state_name() const {
  if (phase_ == Phase::start) return "start";
  if (phase_ == Phase::converged) return "converged";
  const bool up = phase_ == Phase::probe_up || (phase_ != Phase::probe_down && direction_ > 0);
  std::string name = dimension_ == Dimension::width ? "width" : "depth";
  name.append(up ? "+" : "-");
  return name;
}

}  // namespace simtlm::hw
