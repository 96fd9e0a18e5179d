#include "hw/sc/load_store_unit.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace simtlm::hw {

LoadStoreUnit::LoadStoreUnit(sc_core::sc_module_name name, int sm, const sc_core::sc_time& clock,
                             uint32_t line_bytes, const LsuLimits& limits, ResponseFn respond)
    : sc_module(name),
      out("out"),
      sm_(sm),
      clock_(clock),
      line_bytes_(line_bytes),
      on_response_(std::move(respond)),
      pool_(line_bytes),
      port_(
          "lsu_port",
          [this](mem::Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
            return out->nb_transport_fw(p, ph, t);
          },
          [this](mem::Gp& p) { this->on_response(p); }),
      queues_{mem::QueueOccupancy(limits.loads), mem::QueueOccupancy(limits.stores),
              mem::QueueOccupancy(limits.atomics)} {
  if (line_bytes == 0 || !std::has_single_bit(line_bytes))
    throw std::invalid_argument("LoadStoreUnit: line_bytes must be a power of two");
  if (limits.loads == 0 || limits.stores == 0 || limits.atomics == 0)
    throw std::invalid_argument("LoadStoreUnit: queue limits must be positive");
  out.register_nb_transport_bw(this, &LoadStoreUnit::bw);
}

uint64_t LoadStoreUnit::cycle_now() const {
  return static_cast<uint64_t>(std::ceil(sc_core::sc_time_stamp() / clock_ - 1e-9));
}

void LoadStoreUnit::send(bool write, uint64_t address, uint32_t bytes, int warp, uint32_t pc,
                         uint32_t lane_mask, uint64_t tag, uint64_t delay_cycles,
                         const std::vector<mem::AtomicTarget>& atomics,
                         const std::vector<uint8_t>& byte_enables, bool coherent) {
  const uint64_t group = seq_;
  const uint64_t end = address + std::max<uint32_t>(bytes, 1);
  const Queue queue = !atomics.empty() ? kAtomics : write ? kStores : kLoads;
  const sc_core::sc_time earliest = sc_core::sc_time_stamp() + mem::cycles(clock_, delay_cycles);
  uint32_t pieces = 0;
  for (uint64_t at = address; at < end; ++pieces) {
    const uint64_t piece_end = std::min(end, (at / line_bytes_ + 1) * line_bytes_);
    const auto len = static_cast<uint32_t>(piece_end - at);
    mem::Gp& p = pool_.get(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, at, len);
    if (!byte_enables.empty()) {
      const uint8_t* piece = byte_enables.data() + (at - address);
      if (std::any_of(piece, piece + len, [](uint8_t b) { return b != TLM_BYTE_ENABLED; }))
        mem::PayloadPool::set_byte_enables(p, piece, len);
    }
    auto* ext = p.get_extension<mem::RequestExt>();
    ext->sm = sm_;
    ext->warp = warp;
    ext->pc = pc;
    ext->lane_mask = lane_mask;
    ext->coherent = coherent;
    for (const mem::AtomicTarget& a : atomics) {
      if (a.address >= at && a.address < piece_end) ext->atomics.push_back(a);
    }
    const uint32_t index = mem::PayloadPool::index(p);
    if (index >= outstanding_.size()) {
      outstanding_.resize(index + 1);
      live_.resize(index + 1, 0);
    }
    outstanding_[index] = OutstandingRequest{
        at, len, write, warp, pc, cycle_now() + delay_cycles, tag, seq_++, group, static_cast<uint8_t>(queue),
        ext};
    live_[index] = 1;
    ++outstanding_count_;
    submit(p, queue, earliest);
    at = piece_end;
  }
  if (pieces > 1) pieces_left_[group] = Split{pieces, address, true};
}

void LoadStoreUnit::submit(mem::Gp& p, Queue q, const sc_core::sc_time& earliest) {
  // In order: nothing overtakes a request already waiting, whatever its queue.
  if (held_.empty() && !queues_[q].full()) {
    dispatch(p, q, earliest);
    return;
  }
  held_.push_back(Held{&p, q, earliest});
  held_max_ = std::max<uint64_t>(held_max_, held_.size());
}

void LoadStoreUnit::dispatch(mem::Gp& p, Queue q, const sc_core::sc_time& earliest) {
  queues_[q].set(queues_[q].size() + 1);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  port_.send(p, earliest > now ? earliest - now : sc_core::SC_ZERO_TIME);
}

void LoadStoreUnit::on_response(mem::Gp& p) {
  const uint32_t index = mem::PayloadPool::index(p);
  const OutstandingRequest& r = outstanding_[index];
  if (!p.is_response_ok() && on_memory_error) on_memory_error(r, p.get_response_string(), r.marks->error_at);
  const uint64_t tag = r.tag, group = r.group;
  Answer answer{r.address, r.marks->hit};
  mem::QueueOccupancy& freed = queues_[r.queue];
  freed.set(freed.size() - 1);
  ++responses_;
  live_[index] = 0;
  --outstanding_count_;
  p.release();
  const bool was_blocked = blocked();
  while (!held_.empty() && !queues_[held_.front().queue].full()) {
    const Held h = held_.front();
    held_.pop_front();
    dispatch(*h.payload, h.queue, h.earliest);
  }
  if (was_blocked && !blocked() && on_unblocked) on_unblocked();
  if (outstanding_count_ == 0) idle_event_.notify(sc_core::SC_ZERO_TIME);
  if (const auto split = pieces_left_.find(group); split != pieces_left_.end()) {
    split->second.hit = split->second.hit && answer.l1_hit;
    if (--split->second.left > 0) return;
    answer = Answer{split->second.address, split->second.hit};
    pieces_left_.erase(split);
  }
  if (tag != kNoTag) on_response_(tag, answer);
}

bool store_byte_enables(const uint64_t* lane_addresses, uint32_t lanes, uint32_t access_bytes,
                        uint64_t address, uint32_t bytes, std::vector<uint8_t>& mask) {
  mask.assign(bytes, 0);
  const uint64_t end = address + bytes;
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint64_t a = lane_addresses[std::countr_zero(m)];
    const uint64_t from = std::max(a, address), to = std::min(a + access_bytes, end);
    for (uint64_t b = from; b < to; ++b) mask[b - address] = TLM_BYTE_ENABLED;
  }
  if (std::all_of(mask.begin(), mask.end(), [](uint8_t b) { return b == TLM_BYTE_ENABLED; })) {
    mask.clear();
    return false;
  }
  return true;
}

bool LoadStoreUnit::hits_pending(uint64_t tag) const {
  for (size_t i = 0; i < outstanding_.size(); ++i) {
    if (!live_[i] || outstanding_[i].tag != tag) continue;
    if (!outstanding_[i].marks->looked_up || outstanding_[i].marks->hit) return true;
  }
  return false;
}

namespace {
constexpr const char* kQueueNames[] = {"loads", "stores", "atomics"};
}  // namespace

const stats::GroupDecl& lsu_stats_decl() {
  static const stats::GroupDecl decl = [] {
    stats::GroupDecl d("lsu",
                       "an SM's load/store unit: its bounded queues (docs/timing-model.md, *Back-pressure*)");
    for (const char* queue : kQueueNames) {
      const std::string name = queue;
      d.maximum(name + "_max", "requests",
                "most " + name +
                    " one load/store unit had in flight below it at once; never more than its "
                    "bound (`lsu.max_loads`, `lsu.store_buffer`, `lsu.atomic_queue`)")
          .real_when_merged()
          .counter(name + "_cycles_full", "cycles", "cycles the " + name + " queue was at its bound");
    }
    d.maximum("held_max", "requests",
              "most requests that waited inside one load/store unit for room (at most one instruction's "
              "requests)")
        .real_when_merged();
    return d;
  }();
  return decl;
}

stats::Group LoadStoreUnit::statistics() const {
  stats::Group g(lsu_stats_decl());
  for (int q = 0; q < kQueues; ++q) {
    g.set(std::string(kQueueNames[q]) + "_max", queues_[q].max());
    g.set(std::string(kQueueNames[q]) + "_cycles_full", queues_[q].cycles_full(clock_));
  }
  g.set("held_max", held_max_);
  return g;
}

const OutstandingRequest* LoadStoreUnit::oldest() const {
  const OutstandingRequest* best = nullptr;
  for (size_t i = 0; i < outstanding_.size(); ++i) {
    if (!live_[i]) continue;
    const OutstandingRequest& r = outstanding_[i];
    if (!best || r.sent_cycle < best->sent_cycle || (r.sent_cycle == best->sent_cycle && r.seq < best->seq)) {
      best = &r;
    }
  }
  return best;
}

void LoadStoreUnit::trace_waves(mem::Waves& waves) {
  const std::string base = name();
  for (uint32_t q = 0; q < kQueues; ++q) queues_[q].trace(waves, base + "." + kQueueNames[q]);
  port_.trace(waves, base + ".out");
}

}  // namespace simtlm::hw
