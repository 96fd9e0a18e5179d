#include "models/mem/mem_trace.hpp"

#include <fstream>
#include <sstream>

namespace simtlm::mem {
namespace {

[[noreturn]] void fail(const std::string& name, uint32_t line, const std::string& what) {
  throw TraceError(name + ":" + std::to_string(line) + ": " + what);
}

uint64_t parse_number(const std::string& field, int base, const std::string& name, uint32_t line,
                      const char* what) {
  size_t used = 0;
  uint64_t value = 0;
  try {
    value = std::stoull(field, &used, base);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != field.size() || field.empty() || field[0] == '-')
    fail(name, line, std::string("'") + field + "' is not " + what);
  return value;
}

}  // namespace

MemTrace parse_mem_trace(const std::string& text, const std::string& name) {
  MemTrace trace;
  std::istringstream lines(text);
  std::string raw;
  uint32_t number = 0;
  bool format_known = false;
  while (std::getline(lines, raw)) {
    ++number;
    std::istringstream in(raw);
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    if (fields.empty() || fields[0][0] == '#') continue;
    if (!format_known) {
      if (fields.size() != 2 && fields.size() != 3)
        fail(name, number, "expected 'ADDRESS READ|WRITE CYCLE' (DRAMsim3) or 'ADDRESS R|W' (Ramulator)");
      trace.format = fields.size() == 3 ? TraceFormat::dramsim3 : TraceFormat::ramulator;
      format_known = true;
    }
    const bool dramsim3 = trace.format == TraceFormat::dramsim3;
    if (fields.size() != (dramsim3 ? 3u : 2u))
      fail(name, number,
           dramsim3 ? "expected 'ADDRESS READ|WRITE CYCLE', as the trace's first request line"
                    : "expected 'ADDRESS R|W', as the trace's first request line");
    TraceRequest r;
    r.line = number;
    std::string address = fields[0];
    if (address.rfind("0x", 0) == 0 || address.rfind("0X", 0) == 0) address = address.substr(2);
    r.address = parse_number(address, 16, name, number, "a hexadecimal address");
    const std::string& op = fields[1];
    if (op == (dramsim3 ? "READ" : "R")) {
      r.write = false;
    } else if (op == (dramsim3 ? "WRITE" : "W")) {
      r.write = true;
    } else {
      fail(name, number, "'" + op + "' is not " + (dramsim3 ? "READ or WRITE" : "R or W"));
    }
    if (dramsim3) {
      r.cycle = parse_number(fields[2], 10, name, number, "a cycle");
      if (!trace.requests.empty() && r.cycle < trace.requests.back().cycle)
        fail(name, number,
             "cycle " + fields[2] + " is before the previous request's " +
                 std::to_string(trace.requests.back().cycle));
    }
    trace.requests.push_back(r);
  }
  if (trace.requests.empty()) fail(name, number, "the trace has no request");
  return trace;
}

MemTrace read_mem_trace(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw TraceError(path.string() + ": cannot read the trace");
  std::stringstream text;
  text << in.rdbuf();
  return parse_mem_trace(text.str(), path.string());
}

}  // namespace simtlm::mem
