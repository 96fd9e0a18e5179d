#pragma once
// Sectored set-associative cache with MSHRs, used as the per-SM L1 and as one L2 bank.
// Timing only: the functional model owns values, so a fill or a write never moves data. `in` serves the
// whole base protocol (docs/tlm-protocol.md): nb_transport_fw, b_transport through the same path,
// transport_dbg forwarded below (a cache holds no bytes: the level that has them answers), DMI refused.
// An error response from below reaches every request that waited for it (a fill's, an atomic's); one to a
// write the cache had already acknowledged goes to on_posted_error.
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "models/mem/at_ports.hpp"
#include "models/mem/mem_stats.hpp"
#include "models/mem/payload_pool.hpp"
#include "models/mem/queue_occupancy.hpp"
#include "models/mem/request_ext.hpp"

namespace simtlm::mem {

enum class WritePolicy {
  kWriteThroughNoAllocate,  // GPU L1 style: every store goes down, a store miss allocates nothing
  kWriteBackAllocate,       // dirty sectors go down on eviction; a store miss allocates (write-validate)
};

struct CacheParams {
  uint32_t size_bytes = 32 * 1024;
  uint32_t assoc = 8;
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;   // fills and valid/dirty bits are per sector
  uint32_t banks = 4;           // one access per bank per cycle; bank = line index % banks
  uint32_t hit_latency = 20;    // cycles from accept to BEGIN_RESP on a hit (and for every store)
  uint32_t miss_latency = 1;    // cycles from accept to the fill request leaving (tag lookup)
  uint32_t fill_latency = 1;    // cycles from fill arrival to BEGIN_RESP of each merged request
  uint32_t mshrs = 32;          // lines with an outstanding fill
  uint32_t mshr_max_merge = 8;  // requests waiting on one MSHR
  uint32_t write_buffer = 16;   // stores/writebacks outstanding downstream before back-pressure
  WritePolicy write_policy = WritePolicy::kWriteThroughNoAllocate;
  // 0: no atomic unit, atomics pass through to the next level. Otherwise this cache performs them: its atomic
  // unit issues one read-modify-write per cycle, in order, and one on a word waits atomic_cycles after the
  // previous one on that word began (the read-modify-write of a word is serial).
  uint32_t atomic_cycles = 0;
  // The cache is one of `slices` caches interleaved by line (the L2 banks behind the crossbar): the line
  // index bits that pick the slice are the same in every line it sees, so the set index skips them.
  uint32_t slices = 1;
  sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);

  static CacheParams l1() { return {}; }
  static CacheParams l2() {
    CacheParams p;
    p.size_bytes = 256 * 1024;
    p.assoc = 16;
    p.banks = 1;
    p.hit_latency = 100;
    p.miss_latency = 4;
    p.fill_latency = 4;
    p.mshrs = 64;
    p.write_policy = WritePolicy::kWriteBackAllocate;
    p.atomic_cycles = 9;
    return p;
  }
};

class Cache : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Cache> in;
  tlm_utils::simple_initiator_socket<Cache> out;

  Cache(sc_core::sc_module_name name, const CacheParams& params);

  const CacheParams& params() const { return p_; }
  // How an error response from below names its origin when nothing below did (RequestExt::error_at).
  void set_target_name(std::string name) { target_name_ = std::move(name); }
  // Told of an error response to a write this cache had already acknowledged upstream (a write-through
  // store, a writeback): the message names the status, address and component. Unset: SC_REPORT_ERROR.
  std::function<void(const std::string& message)> on_posted_error;
  const CacheStats& stats() const { return stats_; }
  // stats() plus the occupancy of the MSHRs (pass-through atomics included) and of the write buffer, as a
  // group of cache_stats_decl().
  stats::Group statistics() const;
  nlohmann::json stats_json() const { return statistics().json(); }
  // --trace-vcd: NAME.mshrs (misses in flight), NAME.write_buffer and the link below, NAME.out.
  void trace_waves(Waves& waves);

  // Takes lines out of use (cache-pollution experiments): round(fraction * lines) of them, highest ways
  // first, spread over all sets. A set with no enabled way passes its accesses through uncached.
  void disable_fraction(double fraction);
  void set_line_disabled(uint32_t set, uint32_t way, bool disabled);
  // Random cache pollution (Robust SIMD, Section VII-B; docs/memory-system.md): marks round(fraction * lines)
  // lines, drawn uniformly without replacement from `seed` (pick_polluted_lines), as unusable by the
  // workload; the lines polluted before are released first (empty). May be called at any time: a newly
  // polluted line that holds dirty sectors writes them back first (one burst, like an eviction; counted in
  // pollution_writebacks). A polluted line is never hit nor allocated; a set with every way polluted (or
  // disabled) passes its accesses through uncached, as a disabled set does. Returns the writes sent.
  uint64_t pollute(double fraction, uint64_t seed);
  bool line_polluted(uint32_t set, uint32_t way) const {
    return lines_.at(size_t{set} * p_.assoc + way).polluted;
  }
  uint32_t sets() const { return sets_; }
  bool contains(uint64_t addr) const;  // some sector of the line is valid (for tests)
  bool dirty(uint64_t addr) const;     // some sector of the line is dirty (for tests)

  // Writes every dirty line back (its dirty sectors as one burst, as an eviction does) and leaves it valid
  // and clean: what a kernel boundary does. Returns the number of write requests sent; their completion is
  // seen through idle().
  uint64_t write_back_dirty();
  // No request of ours is outstanding below (fills, pass-through atomics, writes). idle_event() is notified
  // whenever that becomes true.
  bool idle() const { return writes_out_ == 0 && mshr_.empty() && forwarded_.empty(); }
  const sc_core::sc_event& idle_event() const { return idle_event_; }

 protected:
  // An L1: marks each request it takes as looked up, and whether it hit (RequestExt), for its SM.
  void mark_lookups() { marks_lookups_ = true; }

 private:
  struct Line {
    uint64_t line_addr = 0;
    uint32_t valid = 0;  // sector mask
    uint32_t dirty = 0;
    uint64_t lru = 0;
    bool disabled = false;
    bool polluted = false;
  };
  struct Mshr {
    uint32_t sectors = 0;
    std::vector<Gp*> waiting;
  };

  bool accept(Gp& p);
  bool accept_read(Gp& p, uint64_t line, uint32_t sectors);
  bool accept_write(Gp& p, uint64_t line, uint32_t sectors);
  bool pass_atomic(Gp& p, uint64_t line, uint32_t sectors);
  // An L1 passes a coherent load (RequestExt::coherent) down uncached; false when no MSHR is free.
  bool pass_coherent_read(Gp& p, uint64_t line);
  // Responds to a read or (at a cache with an atomic unit) an atomic whose sectors are valid `delay` from
  // now; an atomic first goes through the atomic unit and dirties its sectors.
  void respond_with_data(Gp& p, Line* l, const sc_core::sc_time& delay);
  sc_core::sc_time atomic_unit(const std::vector<AtomicTarget>& targets, const sc_core::sc_time& ready);
  void on_down_resp(Gp& p);
  uint32_t set_of(uint64_t line) const { return static_cast<uint32_t>(line / set_stride_ % sets_); }
  Line* find(uint64_t line);
  Line* victim(uint64_t line);  // nullptr when every way of the set is disabled or polluted
  static bool usable(const Line& l) { return !l.disabled && !l.polluted; }
  void evict(Line& l);
  // Sends the dirty sectors of `l` down as one burst; returns its bytes (0 when clean).
  unsigned write_back_line(const Line& l);
  // `cause`: the request whose RequestExt the new one carries (nullptr: an empty one, for writebacks).
  void send_down(tlm::tlm_command cmd, uint64_t addr, unsigned len, const Gp* cause,
                 const sc_core::sc_time& delay);
  uint32_t sector_mask(uint64_t addr, unsigned len) const;
  sc_core::sc_time bank_slot(uint64_t line);
  void note_queues() {
    mshr_occupancy_.set(mshr_.size() + forwarded_.size());
    write_buffer_occupancy_.set(writes_out_);
  }
  tlm::tlm_sync_enum fw(Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return in_port_.nb_transport_fw(p, ph, t);
  }
  tlm::tlm_sync_enum bw(Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return out_port_.nb_transport_bw(p, ph, t);
  }
  void b_transport(Gp& p, sc_core::sc_time& t) { in_port_.b_transport(p, t); }
  unsigned transport_dbg(Gp& p) { return out->transport_dbg(p); }
  bool get_direct_mem_ptr(Gp&, tlm::tlm_dmi& dmi) { return refuse_dmi(dmi); }
  // `up` waited for `down`, which came back with an error: `up` gets its status and origin.
  static void fail_with(Gp& up, const Gp& down);
  void posted_error(const Gp& down);

  const CacheParams p_;
  const uint32_t sets_;
  const uint64_t set_stride_;  // bytes between lines of consecutive sets: the line times the slices
  // Mutable state.
  std::vector<Line> lines_;                  // set-major: lines_[set * assoc + way]
  std::unordered_map<uint64_t, Mshr> mshr_;  // by line address
  std::unordered_map<Gp*, Gp*> forwarded_;   // our pass-through atomic -> the request it carries
  sc_core::sc_time atomic_issue_free_;       // the atomic unit's next issue slot
  std::unordered_map<uint64_t, sc_core::sc_time> word_free_;  // word -> its last read-modify-write's end
  sc_core::sc_event idle_event_;
  std::vector<sc_core::sc_time> bank_free_;
  uint32_t writes_out_ = 0;
  uint64_t lru_clock_ = 0;
  const Gp* last_refused_ = nullptr;  // counts a reservation failure once per stalled request
  bool marks_lookups_ = false;        // mark_lookups()
  void mark_lookup(Gp& p, bool hit) const;
  CacheStats stats_;
  std::string target_name_;
  QueueOccupancy mshr_occupancy_, write_buffer_occupancy_;
  PayloadPool pool_;
  AtTargetPort in_port_;
  AtInitiatorPort out_port_;
};

// Named types for the two uses; same engine, different defaults.
class L1Cache final : public Cache {
 public:
  explicit L1Cache(sc_core::sc_module_name name, const CacheParams& p = CacheParams::l1()) : Cache(name, p) {
    mark_lookups();
  }
};
class L2Cache final : public Cache {
 public:
  explicit L2Cache(sc_core::sc_module_name name, const CacheParams& p = CacheParams::l2()) : Cache(name, p) {}
};

}  // namespace simtlm::mem
