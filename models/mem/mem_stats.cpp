#include "models/mem/mem_stats.hpp"

#include <memory>

namespace simtlm::mem {

using stats::Field;
using stats::Kind;

namespace {

const std::vector<Field<CacheStats>>& cache_fields() {
  static const std::vector<Field<CacheStats>> fields = {
      {"reads", &CacheStats::reads, Kind::counter, "requests", "read requests accepted"},
      {"writes", &CacheStats::writes, Kind::counter, "requests", "write requests accepted"},
      {"hits", &CacheStats::hits, Kind::counter, "requests", "reads and writes whose sectors were valid"},
      {"misses", &CacheStats::misses, Kind::counter, "requests",
       "reads and writes that missed (atomics passed through are neither hit nor miss)"},
      {"mshr_merges", &CacheStats::mshr_merges, Kind::counter, "requests",
       "misses merged into an MSHR already waiting for the line"},
      {"reservation_failures", &CacheStats::reservation_failures, Kind::counter, "requests",
       "requests refused for want of an MSHR, merge slot or write-buffer entry (once per stalled request)"},
      {"writebacks", &CacheStats::writebacks, Kind::counter, "lines",
       "evictions of dirty lines during the kernel"},
      {"fills", &CacheStats::fills, Kind::counter, "lines", "fills received from below"},
      {"bank_conflicts", &CacheStats::bank_conflicts, Kind::counter, "accesses",
       "accesses that waited for their bank (one access per bank per cycle)"},
      {"bypasses", &CacheStats::bypasses, Kind::counter, "requests",
       "accesses and fills of sets with every way disabled, passed through uncached; in an L1, also the "
       "coherent loads (ld.volatile, .cg/.cv, .acquire/.relaxed at .gpu/.sys scope) it passes down"},
      {"down_reads", &CacheStats::down_reads, Kind::counter, "requests", "reads sent to the next level"},
      {"down_writes", &CacheStats::down_writes, Kind::counter, "requests", "writes sent to the next level"},
      {"atomics", &CacheStats::atomics, Kind::counter, "requests",
       "atomic requests (one per coalesced line request of an atomic instruction); the L1s pass them "
       "through"},
      {"atomic_operations", &CacheStats::atomic_operations, Kind::counter, "operations",
       "read-modify-writes the atomic unit performed: one per active lane of an atomic, lanes on one word "
       "serialised `l2.atomic_cycles` apart"},
      {"atomic_wait_cycles", &CacheStats::atomic_wait_cycles, Kind::counter, "cycles",
       "cycles those operations waited for the unit or their word after their line was ready, summed over "
       "operations"},
      {"flushes", &CacheStats::flushes, Kind::counter, "", "kernel-end write-backs started"},
      {"flush_writebacks", &CacheStats::flush_writebacks, Kind::counter, "requests",
       "writes of the kernel-end write-back, one per dirty line (lines stay valid and clean)"},
      {"flush_bytes", &CacheStats::flush_bytes, Kind::counter, "bytes", "bytes of the kernel-end write-back"},
      // A maximum, not a counter: it is a state that holds for the whole run, so a later launch of a
      // sequence still shows it, and the GPU total shows one L1's count (every L1 loses the same number).
      {"polluted_lines", &CacheStats::polluted_lines, Kind::maximum, "lines",
       "lines taken out of use by cache pollution (`l1.pollution`), never hit nor allocated"},
      {"pollution_writebacks", &CacheStats::pollution_writebacks, Kind::counter, "requests",
       "writes of the dirty lines that pollution took (their data is kept below)"},
      {"pollution_writeback_bytes", &CacheStats::pollution_writeback_bytes, Kind::counter, "bytes",
       "bytes of those writes"},
  };
  return fields;
}

const std::vector<Field<CrossbarPortStats>>& port_fields() {
  static const std::vector<Field<CrossbarPortStats>> fields = {
      {"requests", &CrossbarPortStats::requests, Kind::counter, "requests", "requests forwarded"},
      {"responses", &CrossbarPortStats::responses, Kind::counter, "responses", "responses returned"},
      {"req_bytes", &CrossbarPortStats::req_bytes, Kind::counter, "bytes", "bytes carried towards the banks"},
      {"resp_bytes", &CrossbarPortStats::resp_bytes, Kind::counter, "bytes", "bytes carried back"},
      {"stalls", &CrossbarPortStats::stalls, Kind::counter, "requests",
       "requests refused because their bank's queue was full"},
  };
  return fields;
}

}  // namespace

const stats::GroupDecl& cache_stats_decl() {
  static const stats::GroupDecl decl = [] {
    stats::GroupDecl d("cache", "one cache: an SM's L1 or an L2 bank (docs/memory-system.md)");
    stats::declare(d, cache_fields());
    d.maximum("mshr_max", "lines", "most MSHRs in use at once (pass-through atomics included)")
        .real_when_merged()
        .counter("mshr_cycles_full", "cycles", "cycles all MSHRs (`l1.mshrs`, `l2.mshrs`) were in use")
        .maximum("write_buffer_max", "requests",
                 "most writes outstanding below the cache; eviction write-backs may pass the bound by the "
                 "MSHRs' count")
        .real_when_merged()
        .counter("write_buffer_cycles_full", "cycles",
                 "cycles at the write buffer's bound (`l1.write_buffer`, `l2.write_buffer`)");
    return d;
  }();
  return decl;
}

void fill_cache_stats(stats::Group& group, const CacheStats& s) {
  stats::fill(group, s, cache_fields());
}

const stats::GroupDecl& dram_stats_decl() {
  static const stats::GroupDecl decl = [] {
    stats::GroupDecl d("dram", "one DRAM channel: FR-FCFS or FCFS, or fixed latency (docs/memory-system.md)");
    d.counter("reads", "requests", "read requests served")
        .counter("writes", "requests", "write requests served")
        .counter("row_hits", "requests", "column accesses to the open row")
        .counter("row_misses", "requests", "requests whose row had to be opened")
        .counter("bytes", "bytes", "bytes transferred")
        .counter("read_bytes", "bytes", "bytes read")
        .counter("write_bytes", "bytes", "bytes written (the kernel-end write-back included)")
        .real_counter("bandwidth_bytes_per_cycle", "bytes/cycle", "bytes over core cycles so far")
        .mean("latency_avg_cycles", "cycles", "request latency from acceptance to response",
              {"reads", "writes"})
        .real_maximum("latency_max_cycles", "cycles", "longest request latency")
        .mean("queue_avg", "requests", "time-averaged scheduler queue occupancy", {"reads", "writes"})
        .maximum("queue_max", "requests", "most requests queued at once (at most `dram.queue_depth`)")
        .real_when_merged()
        .counter("queue_cycles_full", "cycles", "cycles the queue was at `dram.queue_depth`")
        .counter("rejections", "requests", "requests whose END_REQ was withheld because the queue was full");
    return d;
  }();
  return decl;
}

const stats::GroupDecl& crossbar_stats_decl() {
  static const stats::GroupDecl decl = [] {
    auto port = std::make_shared<stats::GroupDecl>("port", "one SM-side port");
    stats::declare(*port, port_fields());
    stats::GroupDecl d("interconnect", "the crossbar between the SMs' L1s and the L2 banks");
    d.vector("bank_requests", Kind::counter, {}, "requests", "requests forwarded to each L2 bank")
        .vector("bank_queue_max", Kind::maximum, {}, "requests",
                "per L2 bank: most requests queued towards it at once (at most `interconnect.queue_depth`)")
        .vector("bank_queue_cycles_full", Kind::counter, {}, "cycles", "per L2 bank: cycles at that bound")
        .list("ports", port, "per SM-side port");
    return d;
  }();
  return decl;
}

void fill_crossbar_port_stats(stats::Group& group, const CrossbarPortStats& s) {
  stats::fill(group, s, port_fields());
}

}  // namespace simtlm::mem
