#include "models/mem/cache.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "models/mem/pollution.hpp"

namespace simtlm::mem {

using sc_core::sc_time;

namespace {
const CacheParams& checked(const CacheParams& p) {
  auto pow2 = [](uint32_t v) { return v != 0 && std::has_single_bit(v); };
  if (!pow2(p.line_bytes) || !pow2(p.sector_bytes) || p.sector_bytes > p.line_bytes ||
      p.line_bytes / p.sector_bytes > 32 || p.assoc == 0 || p.banks == 0 || p.mshrs == 0 ||
      p.mshr_max_merge == 0 || p.write_buffer == 0 || p.slices == 0 ||
      p.size_bytes % (p.line_bytes * p.assoc) != 0 || p.size_bytes == 0)
    throw std::invalid_argument("CacheParams: sizes must be powers of two, at most 32 sectors per line");
  return p;
}
}  // namespace

Cache::Cache(sc_core::sc_module_name name, const CacheParams& params)
    : sc_module(name),
      in("in"),
      out("out"),
      p_(checked(params)),
      sets_(p_.size_bytes / (p_.line_bytes * p_.assoc)),
      set_stride_(uint64_t{p_.line_bytes} * p_.slices),
      lines_(size_t{sets_} * p_.assoc),
      bank_free_(p_.banks, sc_core::SC_ZERO_TIME),
      mshr_occupancy_(p_.mshrs),
      write_buffer_occupancy_(p_.write_buffer),
      pool_(p_.line_bytes),
      in_port_(
          "in_port", [this](Gp& g, tlm::tlm_phase& ph, sc_time& t) { return in->nb_transport_bw(g, ph, t); },
          [this](Gp& g) { return accept(g); }),
      out_port_(
          "out_port",
          [this](Gp& g, tlm::tlm_phase& ph, sc_time& t) { return out->nb_transport_fw(g, ph, t); },
          [this](Gp& g) { on_down_resp(g); }) {
  in.register_nb_transport_fw(this, &Cache::fw);
  in.register_b_transport(this, &Cache::b_transport);
  in.register_transport_dbg(this, &Cache::transport_dbg);
  in.register_get_direct_mem_ptr(this, &Cache::get_direct_mem_ptr);
  out.register_nb_transport_bw(this, &Cache::bw);
  target_name_ = std::string("the target bound to ") + out.name();
}

void Cache::fail_with(Gp& up, const Gp& down) {
  // A target must answer with a status: an incomplete one from below becomes a generic error here.
  const tlm::tlm_response_status s = down.get_response_status();
  up.set_response_status(s == tlm::TLM_INCOMPLETE_RESPONSE ? tlm::TLM_GENERIC_ERROR_RESPONSE : s);
  const auto* from = down.get_extension<RequestExt>();
  auto* to = up.get_extension<RequestExt>();
  if (from && to && to->error_at.empty()) to->error_at = from->error_at;
}

void Cache::posted_error(const Gp& down) {
  const auto* ext = down.get_extension<RequestExt>();
  std::ostringstream m;
  m << "memory error: " << down.get_response_string() << " answered by "
    << (ext && !ext->error_at.empty() ? ext->error_at : target_name_) << " to a write of "
    << down.get_data_length() << " bytes at address 0x" << std::hex << down.get_address() << std::dec
    << " that " << name() << " had already acknowledged";
  if (ext && ext->sm >= 0)
    m << " (a store of SM " << ext->sm << ", warp slot " << ext->warp << ", pc " << ext->pc << ")";
  if (on_posted_error) {
    on_posted_error(m.str());
  } else {
    SC_REPORT_ERROR("simtlm/mem", m.str().c_str());
  }
}

stats::Group Cache::statistics() const {
  stats::Group g(cache_stats_decl());
  fill_cache_stats(g, stats_);
  g.set("mshr_max", mshr_occupancy_.max());
  g.set("mshr_cycles_full", mshr_occupancy_.cycles_full(p_.clock));
  g.set("write_buffer_max", write_buffer_occupancy_.max());
  g.set("write_buffer_cycles_full", write_buffer_occupancy_.cycles_full(p_.clock));
  return g;
}

uint32_t Cache::sector_mask(uint64_t addr, unsigned len) const {
  // Requests must not cross a line; bytes beyond the line are ignored (the coalescer splits by line).
  const uint64_t off = addr & (p_.line_bytes - 1);
  const uint64_t end = std::min<uint64_t>(off + std::max(len, 1u), p_.line_bytes);
  const uint32_t first = off / p_.sector_bytes, last = (end - 1) / p_.sector_bytes;
  const uint32_t n = last - first + 1;
  return (n >= 32 ? ~0u : ((1u << n) - 1)) << first;
}

sc_time Cache::bank_slot(uint64_t line) {
  const sc_time now = sc_core::sc_time_stamp();
  sc_time& free = bank_free_[(line / p_.line_bytes) % p_.banks];
  const sc_time start = std::max(now, free);
  if (start > now) ++stats_.bank_conflicts;
  free = start + p_.clock;
  return start - now;  // delay until the bank serves this access
}

Cache::Line* Cache::find(uint64_t line) {
  const uint32_t set = set_of(line);
  for (uint32_t w = 0; w < p_.assoc; ++w) {
    Line& l = lines_[size_t{set} * p_.assoc + w];
    if (usable(l) && l.valid && l.line_addr == line) return &l;
  }
  return nullptr;
}

Cache::Line* Cache::victim(uint64_t line) {
  const uint32_t set = set_of(line);
  Line* best = nullptr;
  for (uint32_t w = 0; w < p_.assoc; ++w) {
    Line& l = lines_[size_t{set} * p_.assoc + w];
    if (!usable(l)) continue;
    if (!l.valid) return &l;
    if (!best || l.lru < best->lru) best = &l;
  }
  return best;
}

bool Cache::contains(uint64_t addr) const {
  return const_cast<Cache*>(this)->find(addr & ~uint64_t{p_.line_bytes - 1}) != nullptr;
}

bool Cache::dirty(uint64_t addr) const {
  const Line* l = const_cast<Cache*>(this)->find(addr & ~uint64_t{p_.line_bytes - 1});
  return l && l->dirty;
}

uint64_t Cache::write_back_dirty() {
  ++stats_.flushes;
  uint64_t sent = 0;
  for (Line& l : lines_) {
    if (!usable(l) || !l.valid || !l.dirty) continue;
    const unsigned bytes = write_back_line(l);
    ++stats_.flush_writebacks;
    stats_.flush_bytes += bytes;
    l.dirty = 0;
    ++sent;
  }
  return sent;
}

void Cache::send_down(tlm::tlm_command cmd, uint64_t addr, unsigned len, const Gp* cause,
                      const sc_time& delay) {
  Gp& g = pool_.get(cmd, addr, len);
  if (const auto* src = cause ? cause->get_extension<RequestExt>() : nullptr)
    *g.get_extension<RequestExt>() = *src;
  if (cmd == tlm::TLM_READ_COMMAND) {
    ++stats_.down_reads;
  } else {
    ++stats_.down_writes;
    ++writes_out_;
    // The store forwarded whole keeps its byte enables (a writeback of dirty sectors has none).
    if (cause && cause->get_address() == addr && cause->get_data_length() == len)
      PayloadPool::copy_byte_enables(g, *cause);
  }
  out_port_.send(g, delay);
  note_queues();
}

unsigned Cache::write_back_line(const Line& l) {
  if (!l.valid || !l.dirty) return 0;
  // The span of dirty sectors as one burst.
  const int first = std::countr_zero(l.dirty), last = 31 - std::countl_zero(l.dirty);
  const unsigned bytes = (last - first + 1) * p_.sector_bytes;
  send_down(tlm::TLM_WRITE_COMMAND, l.line_addr + first * p_.sector_bytes, bytes, nullptr,
            sc_core::SC_ZERO_TIME);
  return bytes;
}

void Cache::evict(Line& l) {
  if (write_back_line(l) != 0) ++stats_.writebacks;
  l.valid = l.dirty = 0;
}

bool Cache::accept(Gp& p) {
  const uint64_t line = p.get_address() & ~uint64_t{p_.line_bytes - 1};
  const uint32_t sectors = sector_mask(p.get_address(), p.get_data_length());
  const bool is_read = p.get_command() == tlm::TLM_READ_COMMAND;
  const auto* ext = p.get_extension<RequestExt>();
  const bool atomic = ext && ext->is_atomic();
  const bool coherent_read = is_read && !atomic && marks_lookups_ && ext && ext->coherent;
  const bool ok = atomic && !p_.atomic_cycles ? pass_atomic(p, line, sectors)
                  : coherent_read             ? pass_coherent_read(p, line)
                  : is_read                   ? accept_read(p, line, sectors)
                                              : accept_write(p, line, sectors);
  if (!ok) {
    if (last_refused_ != &p) ++stats_.reservation_failures;
    last_refused_ = &p;
    return false;
  }
  last_refused_ = nullptr;
  ++(atomic ? stats_.atomics : is_read ? stats_.reads : stats_.writes);
  note_queues();
  return true;
}

bool Cache::pass_atomic(Gp& p, uint64_t line, uint32_t sectors) {
  if (forwarded_.size() + mshr_.size() >= p_.mshrs) return false;
  // The atomic changes the words below us: clean copies of its sectors here are stale from now on.
  if (Line* l = find(line)) l->valid &= ~(sectors & ~l->dirty);
  Gp& g = pool_.get(tlm::TLM_READ_COMMAND, p.get_address(), p.get_data_length());
  *g.get_extension<RequestExt>() = *p.get_extension<RequestExt>();
  forwarded_[&g] = &p;
  out_port_.send(g, bank_slot(line) + cycles(p_.clock, p_.miss_latency));
  return true;
}

bool Cache::pass_coherent_read(Gp& p, uint64_t line) {
  if (forwarded_.size() + mshr_.size() >= p_.mshrs) return false;
  mark_lookup(p, false);
  ++stats_.bypasses;
  ++stats_.down_reads;
  Gp& g = pool_.get(tlm::TLM_READ_COMMAND, p.get_address(), p.get_data_length());
  *g.get_extension<RequestExt>() = *p.get_extension<RequestExt>();
  forwarded_[&g] = &p;
  out_port_.send(g, bank_slot(line) + cycles(p_.clock, p_.miss_latency));
  return true;
}

void Cache::respond_with_data(Gp& p, Line* l, const sc_time& delay) {
  const auto* ext = p.get_extension<RequestExt>();
  if (!ext || !ext->is_atomic()) {
    in_port_.respond(p, delay);
    return;
  }
  const sc_time now = sc_core::sc_time_stamp();
  const sc_time done = atomic_unit(ext->atomics, now + delay);
  const uint32_t sectors = sector_mask(p.get_address(), p.get_data_length());
  if (p_.write_policy == WritePolicy::kWriteBackAllocate && l) {
    l->dirty |= sectors & l->valid;
  } else {
    send_down(tlm::TLM_WRITE_COMMAND, p.get_address(), p.get_data_length(), &p, done - now);
  }
  in_port_.respond(p, done - now);
}

sc_time Cache::atomic_unit(const std::vector<AtomicTarget>& targets, const sc_time& ready) {
  const sc_time op = cycles(p_.clock, p_.atomic_cycles);
  sc_time finish = ready;
  for (const AtomicTarget& t : targets) {
    sc_time& word = word_free_[t.address];
    for (uint32_t k = 0; k < t.operations; ++k) {
      const sc_time start = std::max({ready, atomic_issue_free_, word});
      stats_.atomic_wait_cycles += static_cast<uint64_t>(std::llround((start - ready) / p_.clock));
      atomic_issue_free_ = start + p_.clock;
      word = start + op;
      finish = std::max(finish, word);
      ++stats_.atomic_operations;
    }
  }
  if (word_free_.size() > 4096) {  // words whose last operation has ended constrain nothing
    std::erase_if(word_free_, [now = sc_core::sc_time_stamp()](const auto& w) { return w.second <= now; });
  }
  return finish;
}

void Cache::mark_lookup(Gp& p, bool hit) const {
  if (!marks_lookups_) return;
  if (auto* ext = p.get_extension<RequestExt>()) {
    ext->looked_up = true;
    ext->hit = hit;
  }
}

bool Cache::accept_read(Gp& p, uint64_t line, uint32_t sectors) {
  Line* l = find(line);
  if (l && (l->valid & sectors) == sectors) {
    mark_lookup(p, true);
    ++stats_.hits;
    l->lru = ++lru_clock_;
    respond_with_data(p, l, bank_slot(line) + cycles(p_.clock, p_.hit_latency));
    return true;
  }
  const uint32_t have = l ? l->valid : 0;
  if (auto it = mshr_.find(line); it != mshr_.end()) {
    Mshr& m = it->second;
    if ((sectors & ~(m.sectors | have)) != 0 || m.waiting.size() >= p_.mshr_max_merge) return false;
    mark_lookup(p, false);
    ++stats_.mshr_merges;
    ++stats_.misses;
    m.waiting.push_back(&p);
    return true;
  }
  if (mshr_.size() >= p_.mshrs) return false;
  mark_lookup(p, false);
  ++stats_.misses;
  const uint32_t need = sectors & ~have;
  Mshr& m = mshr_[line];
  m.sectors = need;
  m.waiting.push_back(&p);
  const int first = std::countr_zero(need), last = 31 - std::countl_zero(need);
  send_down(tlm::TLM_READ_COMMAND, line + first * p_.sector_bytes, (last - first + 1) * p_.sector_bytes, &p,
            bank_slot(line) + cycles(p_.clock, p_.miss_latency));
  return true;
}

bool Cache::accept_write(Gp& p, uint64_t line, uint32_t sectors) {
  Line* l = find(line);
  const bool through = p_.write_policy == WritePolicy::kWriteThroughNoAllocate;
  Line* v = (!l && !through) ? victim(line) : nullptr;
  const bool bypass = !l && !through && !v;
  const bool needs_buffer = through || bypass || (v && v->valid && v->dirty);
  if (needs_buffer && writes_out_ >= p_.write_buffer) return false;
  const sc_time delay = bank_slot(line);
  mark_lookup(p, l != nullptr);
  if (l) {
    ++stats_.hits;
    l->lru = ++lru_clock_;
    l->valid |= sectors;  // values live in the functional model: a store makes the sectors current
    if (!through) l->dirty |= sectors;
  } else {
    ++stats_.misses;
    if (v) {
      evict(*v);
      *v = Line{line, sectors, sectors, ++lru_clock_, false, false};
    } else if (bypass) {
      ++stats_.bypasses;
    }
  }
  if (through || bypass) send_down(tlm::TLM_WRITE_COMMAND, p.get_address(), p.get_data_length(), &p, delay);
  in_port_.respond(p, delay + cycles(p_.clock, p_.hit_latency));
  return true;
}

void Cache::on_down_resp(Gp& g) {
  const bool ok = g.is_response_ok();
  if (!ok) mark_error_source(g, target_name_);
  if (g.get_command() == tlm::TLM_WRITE_COMMAND) {
    --writes_out_;
    if (!ok) posted_error(g);
  } else if (const auto fw = forwarded_.find(&g); fw != forwarded_.end()) {
    if (!ok) fail_with(*fw->second, g);
    in_port_.respond(*fw->second, cycles(p_.clock, p_.fill_latency));
    forwarded_.erase(fw);
  } else if (!ok) {
    // A failed fill fills nothing: every request waiting on it gets the error.
    const auto it = mshr_.find(g.get_address() & ~uint64_t{p_.line_bytes - 1});
    for (Gp* w : it->second.waiting) {
      fail_with(*w, g);
      in_port_.respond(*w, cycles(p_.clock, p_.fill_latency));
    }
    mshr_.erase(it);
  } else {
    // Any other read of ours is a fill, which never leaves its line.
    const uint64_t line = g.get_address() & ~uint64_t{p_.line_bytes - 1};
    auto it = mshr_.find(line);
    Mshr& m = it->second;
    ++stats_.fills;
    Line* l = find(line);
    if (!l) {
      l = victim(line);
      if (l) {
        evict(*l);
        l->line_addr = line;
      } else {
        ++stats_.bypasses;
      }
    }
    if (l) {
      l->valid |= m.sectors;
      l->lru = ++lru_clock_;
    }
    for (Gp* w : m.waiting) respond_with_data(*w, l, cycles(p_.clock, p_.fill_latency));
    mshr_.erase(it);
  }
  g.release();
  note_queues();
  in_port_.retry();
  if (idle()) idle_event_.notify(sc_core::SC_ZERO_TIME);
}

void Cache::disable_fraction(double fraction) {
  const size_t total = lines_.size();
  const size_t n = static_cast<size_t>(std::llround(std::clamp(fraction, 0.0, 1.0) * total));
  for (auto& l : lines_) l.disabled = false;
  for (size_t k = 0; k < n; ++k) set_line_disabled(k % sets_, p_.assoc - 1 - k / sets_, true);
}

void Cache::set_line_disabled(uint32_t set, uint32_t way, bool disabled) {
  Line& l = lines_.at(size_t{set} * p_.assoc + way);
  if (disabled && l.valid) evict(l);
  l.disabled = disabled;
}

uint64_t Cache::pollute(double fraction, uint64_t seed) {
  const std::vector<uint32_t> chosen =
      pick_polluted_lines(static_cast<uint32_t>(lines_.size()), fraction, seed);
  // Released lines were emptied when they were polluted: they come back invalid.
  for (Line& l : lines_) l.polluted = false;
  uint64_t sent = 0;
  for (uint32_t index : chosen) {
    Line& l = lines_[index];
    // The workload's data must survive losing the line: dirty sectors go down before it is dropped.
    if (const unsigned bytes = write_back_line(l); bytes != 0) {
      ++stats_.pollution_writebacks;
      stats_.pollution_writeback_bytes += bytes;
      ++sent;
    }
    l.valid = l.dirty = 0;
    l.polluted = true;
  }
  stats_.polluted_lines = chosen.size();
  return sent;
}

void Cache::trace_waves(Waves& waves) {
  const std::string base = name();
  mshr_occupancy_.trace(waves, base + ".mshrs");
  write_buffer_occupancy_.trace(waves, base + ".write_buffer");
  out_port_.trace(waves, base + ".out");
}

}  // namespace simtlm::mem
