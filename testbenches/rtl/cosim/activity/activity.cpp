#include "testbenches/rtl/cosim/activity/activity.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "hw/units/priority_encoder_compactor.hpp"
#include "hw/units/width.hpp"

namespace simtlm::cosim::activity {
namespace {

uint32_t log2_width(uint32_t width) {
  return static_cast<uint32_t>(std::countr_zero(width));
}

uint32_t first_lane(uint64_t mask) {
  return mask == 0 ? 0 : static_cast<uint32_t>(std::countr_zero(mask));
}

// The lanes [first, first + width) of a 32-lane mask, moved to bit 0.
uint64_t lanes_of(uint32_t mask, uint32_t first, uint32_t width) {
  return (static_cast<uint64_t>(mask) >> first) & hw::lane_mask_of(width);
}

void check_width(uint32_t width) {
  hw::check_simd_width(width);
  if (width > 2 * kTraceWidth) throw std::invalid_argument("traces can be adapted up to 64 lanes");
}

UnitActivity finish(const ActivityCounter& counter, uint64_t events) {
  return {events, counter.cycles(), counter.pins()};
}

}  // namespace

ActivityCounter::ActivityCounter(std::vector<PortSpec> ports) : ports_(std::move(ports)) {
  for (const PortSpec& port : ports_) {
    offsets_.push_back(total_bits_);
    total_bits_ += port.width;
  }
  previous_.assign((total_bits_ + 63) / 64, 0);
  toggles_.assign(total_bits_, 0);
  ones_.assign(total_bits_, 0);
}

uint32_t ActivityCounter::offset(std::string_view port) const {
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (ports_[i].name == port) return offsets_[i];
  }
  throw std::invalid_argument("no input port " + std::string(port));
}

std::vector<uint64_t> ActivityCounter::zero_inputs() const {
  return std::vector<uint64_t>(previous_.size(), 0);
}

void ActivityCounter::hold(const std::vector<uint64_t>& inputs, uint64_t cycles) {
  if (inputs.size() != previous_.size()) throw std::invalid_argument("input vector of the wrong size");
  if (cycles == 0) return;
  // Only set bits are visited: most pins of a wide unit (upper address bits) rarely change.
  for (size_t word = 0; word < inputs.size(); ++word) {
    for (uint64_t changed = inputs[word] ^ previous_[word]; changed != 0; changed &= changed - 1) {
      ++toggles_[word * 64 + static_cast<size_t>(std::countr_zero(changed))];
    }
    for (uint64_t high = inputs[word]; high != 0; high &= high - 1) {
      ones_[word * 64 + static_cast<size_t>(std::countr_zero(high))] += cycles;
    }
  }
  previous_ = inputs;
  cycles_ += cycles;
}

std::vector<PinFigures> ActivityCounter::pins() const {
  std::vector<PinFigures> pins;
  const double cycles = cycles_ == 0 ? 1.0 : static_cast<double>(cycles_);
  for (size_t port = 0; port < ports_.size(); ++port) {
    for (uint32_t bit = 0; bit < ports_[port].width; ++bit) {
      const uint32_t index = offsets_[port] + bit;
      std::string name = ports_[port].name;
      if (ports_[port].width > 1) name.append("[").append(std::to_string(bit)).append("]");
      pins.push_back({std::move(name), static_cast<double>(toggles_[index]) / cycles,
                      static_cast<double>(ones_[index]) / cycles});
    }
  }
  return pins;
}

void put_bits(std::vector<uint64_t>& bits, uint32_t offset, uint32_t width, uint64_t value) {
  for (uint32_t bit = 0; bit < width; ++bit) {
    const uint32_t index = offset + bit;
    const uint64_t mask = uint64_t{1} << (index % 64);
    if ((value >> bit) & 1) {
      bits.at(index / 64) |= mask;
    } else {
      bits.at(index / 64) &= ~mask;
    }
  }
}

std::vector<WideBranch> adapt_branches(const std::vector<BranchEvent>& events, uint32_t width) {
  check_width(width);
  std::vector<WideBranch> out;
  if (width <= kTraceWidth) {
    const uint32_t parts = kTraceWidth / width;
    for (const BranchEvent& event : events) {
      for (uint32_t part = 0; part < parts; ++part) {
        out.push_back({event.warp * parts + part, lanes_of(event.active, part * width, width),
                       lanes_of(event.taken, part * width, width)});
      }
    }
    return out;
  }
  for (size_t i = 0; i < events.size(); i += 2) {
    const BranchEvent& low = events[i];
    const BranchEvent high = i + 1 < events.size() ? events[i + 1] : BranchEvent{};
    out.push_back({low.warp / 2, low.active | (uint64_t{high.active} << kTraceWidth),
                   low.taken | (uint64_t{high.taken} << kTraceWidth)});
  }
  return out;
}

std::vector<WideLoad> adapt_loads(const std::vector<LoadEvent>& events, uint32_t width) {
  check_width(width);
  std::vector<WideLoad> out;
  if (width <= kTraceWidth) {
    for (const LoadEvent& event : events) {
      for (uint32_t first = 0; first < kTraceWidth; first += width) {
        WideLoad& load = out.emplace_back();
        load.active = lanes_of(event.active, first, width);
        load.address.assign(event.address.begin() + first, event.address.begin() + first + width);
      }
    }
    return out;
  }
  for (size_t i = 0; i < events.size(); i += 2) {
    const LoadEvent& low = events[i];
    const LoadEvent high = i + 1 < events.size() ? events[i + 1] : LoadEvent{};
    WideLoad& load = out.emplace_back();
    load.active = low.active | (uint64_t{high.active} << kTraceWidth);
    load.address.assign(low.address.begin(), low.address.end());
    load.address.insert(load.address.end(), high.address.begin(), high.address.end());
  }
  return out;
}

std::vector<std::vector<uint64_t>> compactor_loads(const CompactionEvent& event, uint32_t width) {
  check_width(width);
  const uint64_t threads = uint64_t{kTraceWidth} * event.warp_masks.size();
  const auto thread_pending = [&](uint64_t thread) {
    return (event.warp_masks[thread / kTraceWidth] >> (thread % kTraceWidth)) & 1;
  };
  std::vector<uint64_t> warps;
  for (uint64_t first = 0; first < threads; first += width) {
    uint64_t mask = 0;
    for (uint32_t lane = 0; lane < width && first + lane < threads; ++lane) {
      mask |= thread_pending(first + lane) << lane;
    }
    warps.push_back(mask);
  }
  std::vector<std::vector<uint64_t>> loads;
  for (size_t first = 0; first < warps.size(); first += kCompactorWarps) {
    const size_t end = std::min(warps.size(), first + kCompactorWarps);
    // A group with nothing pending is never loaded: there is nothing to compact.
    if (std::all_of(warps.begin() + first, warps.begin() + end, [](uint64_t m) { return m == 0; })) continue;
    loads.emplace_back(warps.begin() + first, warps.begin() + end);
  }
  return loads;
}

UnitActivity majority_activity(const std::vector<BranchEvent>& branches, uint32_t width) {
  ActivityCounter counter({{"taken", width}, {"active", width}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  const std::vector<WideBranch> events = adapt_branches(branches, width);
  for (const WideBranch& event : events) {
    put_bits(inputs, counter.offset("taken"), width, event.taken);
    put_bits(inputs, counter.offset("active"), width, event.active);
    counter.hold(inputs);
  }
  return finish(counter, events.size());
}

UnitActivity permutation_activity(const std::vector<BranchEvent>& branches, uint32_t width) {
  const uint32_t lane_bits = log2_width(width);
  ActivityCounter counter({{"rst", 1},
                           {"wr_en", 1},
                           {"wr_warp", kWarpIdBits},
                           {"wr_mask", lane_bits},
                           {"mode", 2},
                           {"warp", kWarpIdBits},
                           {"lane", lane_bits},
                           {"logical_mask", width}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  constexpr uint64_t kBalancedMode = 2;
  put_bits(inputs, counter.offset("mode"), 2, kBalancedMode);
  const std::vector<WideBranch> events = adapt_branches(branches, width);
  for (const WideBranch& event : events) {
    put_bits(inputs, counter.offset("warp"), kWarpIdBits, event.warp);
    put_bits(inputs, counter.offset("lane"), lane_bits, first_lane(event.active));
    put_bits(inputs, counter.offset("logical_mask"), width, event.taken & event.active);
    counter.hold(inputs);
  }
  return finish(counter, events.size());
}

UnitActivity compactor_activity(const std::vector<CompactionEvent>& compactions, uint32_t width) {
  ActivityCounter counter({{"rst", 1}, {"load", 1}, {"pending_in", kCompactorWarps * width}, {"pop", 1}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  hw::PriorityEncoderCompactor compactor(width, kCompactorWarps);
  uint64_t loads = 0;
  for (const CompactionEvent& event : compactions) {
    for (const std::vector<uint64_t>& warps : compactor_loads(event, width)) {
      for (uint32_t warp = 0; warp < kCompactorWarps; ++warp) {
        put_bits(inputs, counter.offset("pending_in") + warp * width, width,
                 warp < warps.size() ? warps[warp] : 0);
      }
      put_bits(inputs, counter.offset("load"), 1, 1);
      put_bits(inputs, counter.offset("pop"), 1, 0);
      counter.hold(inputs);
      const uint64_t pops = hw::compact_all(compactor, warps).size();
      put_bits(inputs, counter.offset("load"), 1, 0);
      put_bits(inputs, counter.offset("pop"), 1, 1);
      counter.hold(inputs, pops);
      ++loads;
    }
  }
  return finish(counter, loads);
}

UnitActivity selector_activity(const std::vector<LoadEvent>& loads, uint32_t width) {
  constexpr auto kShiftBits = static_cast<uint32_t>(std::bit_width(kAddressBits - 1));
  ActivityCounter counter(
      {{"addr_in", width * kAddressBits}, {"active", width}, {"line_shift", kShiftBits}, {"rst", 1}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  put_bits(inputs, counter.offset("line_shift"), kShiftBits, kLineShift);
  const std::vector<WideLoad> events = adapt_loads(loads, width);
  for (const WideLoad& event : events) {
    for (uint32_t lane = 0; lane < width; ++lane) {
      put_bits(inputs, counter.offset("addr_in") + lane * kAddressBits, kAddressBits, event.address[lane]);
    }
    put_bits(inputs, counter.offset("active"), width, event.active);
    counter.hold(inputs);
  }
  UnitActivity unit = finish(counter, events.size());
  // start rises and falls once per event and is high in one of its cycles (per-event figures, see header).
  if (!events.empty()) unit.pins.push_back({"start", 2.0, 1.0});
  return unit;
}

std::string format_figure(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", value);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out == "-0" ? "0" : out;
}

std::string unit_json(const UnitActivity& unit, uint32_t indent) {
  const std::string pad(indent, ' ');
  std::ostringstream out;
  out << "{\"events\": " << unit.events << ", \"cycles\": " << unit.cycles << ", \"pins\": {";
  std::string port;
  for (size_t i = 0; i < unit.pins.size(); ++i) {
    const PinFigures& pin = unit.pins[i];
    const std::string pin_port = pin.pin.substr(0, pin.pin.find('['));
    out << (i == 0 ? "" : ",");
    // One line per port keeps the file readable and small (the selector's addr_in has W*64 pins).
    if (i == 0 || pin_port != port) {
      out << "\n" << pad << "  ";
    } else {
      out << " ";
    }
    port = pin_port;
    out << "\"" << pin.pin << "\": [" << format_figure(pin.toggles_per_cycle) << ", "
        << format_figure(pin.duty) << "]";
  }
  out << "\n" << pad << "}}";
  return out.str();
}

}  // namespace simtlm::cosim::activity
