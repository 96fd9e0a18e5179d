// The SM's port to the memory hierarchy. It turns the requests the SM formed (coalesced segments, stack
// spills and fills) into TLM-2.0 generic payloads, sends them through its initiator socket with the AT base
// protocol (one BEGIN_REQ at a time, back-pressure through END_REQ) and reports each response by the tag the
// SM gave. It keeps every outstanding request's origin so a stuck one can be named. A request that crosses a
// cache line leaves as one payload per line (a cache serves one line per request); its tag is reported once,
// when the last piece returns.
//
// Its queues are bounded (LsuLimits): loads (an MSHR-like table of reads in flight), the store buffer and the
// atomic queue. A request whose queue is full waits in the unit, in order, until a response frees an entry;
// while anything waits the unit is blocked() and the SM issues no memory instruction, which is how a full
// memory system stalls the warps (the request exclusion rule below the unit does the same between
// components, docs/memory-system.md).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "common/stats.hpp"
#include "hw/lsu_limits.hpp"
#include "models/mem/at_ports.hpp"
#include "models/mem/payload_pool.hpp"
#include "models/mem/queue_occupancy.hpp"
#include "models/mem/request_ext.hpp"

namespace simtlm::hw {

struct OutstandingRequest {
  uint64_t address = 0;
  uint32_t bytes = 0;
  bool write = false;
  int warp = -1;
  uint32_t pc = 0;
  uint64_t sent_cycle = 0;
  uint64_t tag = 0;
  uint64_t seq = 0;                        // send order, breaks ties between requests of one cycle
  uint64_t group = 0;                      // the send() it is a piece of
  uint8_t queue = 0;                       // the LoadStoreUnit queue it counts against
  const mem::RequestExt* marks = nullptr;  // its payload's extension, read for the L1's marks while live
};

// A response as the SM hears of it: the request (the address send() was given) and whether the L1 held it.
struct Answer {
  uint64_t address = 0;
  bool l1_hit = false;
};

// The byte enables of a store request [address, address + bytes) whose lanes `lanes` (bits indexing
// `lane_addresses`) each write `access_bytes` from their address: `mask` gets one byte per request byte
// (TLM_BYTE_ENABLED or 0). Returns false, leaving `mask` empty, when the lanes write every byte: the request
// then needs no byte enables.
bool store_byte_enables(const uint64_t* lane_addresses, uint32_t lanes, uint32_t access_bytes,
                        uint64_t address, uint32_t bytes, std::vector<uint8_t>& mask);

// Its queues' occupancy (lsu.* in docs/stats-schema.md).
const stats::GroupDecl& lsu_stats_decl();

class LoadStoreUnit : public sc_core::sc_module {
 public:
  static constexpr uint64_t kNoTag = ~uint64_t{0};
  using ResponseFn = std::function<void(uint64_t tag, const Answer& answer)>;

  tlm_utils::simple_initiator_socket<LoadStoreUnit> out;

  LoadStoreUnit(sc_core::sc_module_name name, int sm, const sc_core::sc_time& clock, uint32_t line_bytes,
                const LsuLimits& limits, ResponseFn on_response);

  // Sends a request `delay_cycles` from now; on_response(tag) runs when its response arrives (kNoTag: none).
  // `atomics` non-empty makes it an atomic (a read that the L2's atomic unit performs,
  // docs/memory-system.md).
  // `byte_enables` (a store's, one per byte of the request, or empty: all enabled) go with the payloads.
  void send(bool write, uint64_t address, uint32_t bytes, int warp, uint32_t pc, uint32_t lane_mask,
            uint64_t tag, uint64_t delay_cycles, const std::vector<mem::AtomicTarget>& atomics = {},
            const std::vector<uint8_t>& byte_enables = {}, bool coherent = false);
  // Told when a response comes back with an error status (anything but TLM_OK_RESPONSE): the request, the
  // status and the component that answered it (RequestExt::error_at; empty when unknown). The response is
  // then handled as any other.
  std::function<void(const OutstandingRequest& request, const std::string& status, const std::string& at)>
      on_memory_error;
  size_t outstanding() const { return outstanding_count_; }
  // Whether a request of `tag` still outstanding has not been looked up by the L1 yet, or was a hit (its
  // answer is on its way): the hits of that access are not all answered.
  bool hits_pending(uint64_t tag) const;
  // Some request waits in the unit for room in its queue: no further memory instruction may enter.
  bool blocked() const { return !held_.empty(); }
  // Called when the unit stops being blocked.
  std::function<void()> on_unblocked;
  // Responses received so far (the watchdog's measure of progress).
  uint64_t responses() const { return responses_; }
  stats::Group statistics() const;  // of lsu_stats_decl()
  nlohmann::json stats_json() const { return statistics().json(); }
  // --trace-vcd: NAME.loads, NAME.stores, NAME.atomics (requests queued or in flight) and the link to the
  // L1, NAME.out.
  void trace_waves(mem::Waves& waves);
  // Notified when the last outstanding request has its response.
  const sc_core::sc_event& idle_event() const { return idle_event_; }
  // The request sent longest ago, or nullptr.
  const OutstandingRequest* oldest() const;

 private:
  enum Queue : uint8_t { kLoads, kStores, kAtomics, kQueues };
  struct Held {
    mem::Gp* payload;
    Queue queue;
    sc_core::sc_time earliest;  // when the SM meant it to leave
  };
  void submit(mem::Gp& p, Queue q, const sc_core::sc_time& earliest);
  void dispatch(mem::Gp& p, Queue q, const sc_core::sc_time& earliest);
  void on_response(mem::Gp& p);
  tlm::tlm_sync_enum bw(mem::Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return port_.nb_transport_bw(p, ph, t);
  }
  uint64_t cycle_now() const;

  const int sm_;
  const sc_core::sc_time clock_;
  const uint32_t line_bytes_;
  ResponseFn on_response_;
  mem::PayloadPool pool_;
  mem::AtInitiatorPort port_;
  // By the payload's pool index (live: `live_`); a vector, not a map: one request is sent per segment.
  std::vector<OutstandingRequest> outstanding_;
  std::vector<uint8_t> live_;
  size_t outstanding_count_ = 0;
  struct Split {  // a request split by line: pieces left, the request's address, whether every piece hit
    uint32_t left = 0;
    uint64_t address = 0;
    bool hit = true;
  };
  std::unordered_map<uint64_t, Split> pieces_left_;  // by group
  std::array<mem::QueueOccupancy, kQueues> queues_;
  std::deque<Held> held_;  // waiting for room, in order
  uint64_t responses_ = 0, held_max_ = 0;
  uint64_t seq_ = 0;
  sc_core::sc_event idle_event_;
};

}  // namespace simtlm::hw
