#pragma once
// Small, exactly predictable parameter sets and an L1 -> crossbar -> L2 -> DRAM chain for the tests.
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <vector>

#include "models/mem/cache.hpp"
#include "models/mem/crossbar.hpp"
#include "models/mem/dram.hpp"
#include "models/mem/fixed_latency_dram.hpp"
#include "models/mem/memory_system.hpp"
#include "testbenches/systemc/traffic_gen.hpp"

namespace simtlm::mem::test {

inline CacheParams test_l1() {
  CacheParams p;
  p.size_bytes = 4096;  // 8 sets x 4 ways x 128 B
  p.assoc = 4;
  p.line_bytes = 128;
  p.sector_bytes = 32;
  p.banks = 4;
  p.hit_latency = 4;
  p.miss_latency = 1;
  p.fill_latency = 1;
  p.mshrs = 4;
  p.mshr_max_merge = 8;
  p.write_buffer = 8;
  return p;
}

inline CacheParams test_l2() {
  CacheParams p = test_l1();
  p.size_bytes = 64 * 1024;
  p.assoc = 8;
  p.banks = 1;
  p.hit_latency = 10;
  p.miss_latency = 2;
  p.fill_latency = 2;
  p.mshrs = 16;
  p.write_policy = WritePolicy::kWriteBackAllocate;
  return p;
}

inline CrossbarParams test_xbar(uint32_t in = 1, uint32_t out = 1) {
  CrossbarParams p;
  p.in_ports = in;
  p.out_ports = out;
  p.interleave_bytes = 256;
  p.bytes_per_cycle = 32;
  p.latency = 2;
  p.bank_queue = 4;
  return p;
}

inline DramParams test_dram(uint32_t ports = 1) {
  DramParams p;
  p.ports = ports;
  p.banks = 4;
  p.row_bytes = 2048;  // bank = addr / 2048 % 4, row = addr / 8192
  p.bus_bytes = 4;
  p.burst_length = 8;  // 32 B per burst, 4 clocks of data
  p.tCL = 6;
  p.tRCD = 5;
  p.tRP = 4;
  p.tRAS = 12;
  p.tCCD = 2;
  p.clock_ratio = 1.0;
  p.queue_depth = 16;
  return p;
}

// One SM: traffic generator -> L1 -> crossbar -> one L2 bank -> `last` (a Dram unless the test binds
// another target to l2->out).
struct Chain {
  TrafficGen tg{"tg"};
  L1Cache l1;
  Crossbar xbar{"xbar", test_xbar()};
  L2Cache l2{"l2", test_l2()};
  std::unique_ptr<DramChannel> dram;

  explicit Chain(const CacheParams& l1p = test_l1(), bool with_dram = true,
                 const DramParams& dp = test_dram())
      : l1("l1", l1p) {
    tg.out.bind(l1.in);
    l1.out.bind(xbar.in);
    xbar.out.bind(l2.in);
    if (with_dram) {
      dram = make_dram_channel("dram", dp);
      l2.out.bind(dram->in);
    }
  }
};

// Answers every request `latency` cycles after it arrives (BEGIN_RESP at once with an annotated delay, as
// a loosely written AT model would) and records what it was asked.
struct FixedLatencyTarget : sc_core::sc_module {
  struct Seen {
    double cycle;
    tlm::tlm_command cmd;
    uint64_t addr;
    unsigned len;
  };
  tlm_utils::simple_target_socket<FixedLatencyTarget> socket{"socket"};
  std::vector<Seen> seen;
  uint64_t latency;
  bool set_status = true;  // false: answers still TLM_INCOMPLETE_RESPONSE (a non-compliant target)

  FixedLatencyTarget(sc_core::sc_module_name n, uint64_t cycles) : sc_module(n), latency(cycles) {
    socket.register_nb_transport_fw(this, &FixedLatencyTarget::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
    const sc_core::sc_time ns(1, sc_core::SC_NS);
    seen.push_back(
        {(sc_core::sc_time_stamp() + t) / ns, p.get_command(), p.get_address(), p.get_data_length()});
    if (set_status) p.set_response_status(tlm::TLM_OK_RESPONSE);
    ph = tlm::BEGIN_RESP;
    t += ns * static_cast<double>(latency);
    return tlm::TLM_UPDATED;
  }
};

// One SM, two L2 banks interleaved by their 128-byte line, two DRAM channels of one bank each.
inline MemoryParams test_two_channel_memory() {
  MemoryParams p;
  p.sms = 1;
  p.l1 = test_l1();
  p.l2 = test_l2();
  p.l2.slices = 2;
  p.l2_banks = 2;
  p.xbar = test_xbar(1, 2);
  p.xbar.interleave_bytes = 128;
  p.dram = test_dram(1);
  p.dram.channels = 2;
  p.dram.channel_interleave_bytes = 128;
  return p;
}

}  // namespace simtlm::mem::test
