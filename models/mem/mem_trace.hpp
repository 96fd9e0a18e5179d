#pragma once
// Memory request traces for `simtlm mem-replay` (sim/mem_replay.hpp): one request per line, in DRAMsim3's
// format (`0x1f40 READ 120`: hex address, READ or WRITE, the cycle it is issued) or Ramulator's memory trace
// (`0x1f40 R`: hex address, R or W; issued back to back). Blank lines and lines starting with '#' are
// skipped. Plain C++.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace simtlm::mem {

struct TraceRequest {
  uint64_t cycle = 0;  // core cycles; 0 for every request of a Ramulator trace
  uint64_t address = 0;
  bool write = false;
  uint32_t line = 0;  // of the trace file
};

enum class TraceFormat : uint8_t { dramsim3, ramulator };

struct MemTrace {
  TraceFormat format = TraceFormat::dramsim3;
  std::vector<TraceRequest> requests;
};

// "FILE:LINE: what is wrong with it".
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The format is the first request line's (three fields: DRAMsim3, two: Ramulator); every line must then be
// of it, with cycles that never decrease. Throws TraceError naming the file and line, also for an empty
// trace.
MemTrace read_mem_trace(const std::filesystem::path& path);
MemTrace parse_mem_trace(const std::string& text, const std::string& name);

}  // namespace simtlm::mem
