// Request traces for `simtlm mem-replay` (models/mem/mem_trace.hpp): DRAMsim3's and Ramulator's line formats,
// comments, and every malformed line refused with the file and line.
#include <gtest/gtest.h>

#include <string>

#include "models/mem/mem_trace.hpp"

namespace simtlm::mem {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_mem_trace(text, "t.trace");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MemTrace, ReadsDramsim3Lines) {
  const MemTrace t = parse_mem_trace("# a comment\n0x1f40 READ 0\n\n0X80 WRITE 7\nabc READ 7\n", "t.trace");
  EXPECT_EQ(t.format, TraceFormat::dramsim3);
  ASSERT_EQ(t.requests.size(), 3u);
  EXPECT_EQ(t.requests[0].address, 0x1f40u);
  EXPECT_FALSE(t.requests[0].write);
  EXPECT_EQ(t.requests[1].address, 0x80u);
  EXPECT_TRUE(t.requests[1].write);
  EXPECT_EQ(t.requests[1].cycle, 7u);
  EXPECT_EQ(t.requests[1].line, 4u);
  EXPECT_EQ(t.requests[2].address, 0xabcu);
}

TEST(MemTrace, ReadsRamulatorLines) {
  const MemTrace t = parse_mem_trace("0x40 R\n0x80 W\n", "t.trace");
  EXPECT_EQ(t.format, TraceFormat::ramulator);
  ASSERT_EQ(t.requests.size(), 2u);
  EXPECT_TRUE(t.requests[1].write);
  EXPECT_EQ(t.requests[1].cycle, 0u);
}

TEST(MemTrace, MalformedLinesAreRefusedWithFileAndLine) {
  EXPECT_EQ(error_of(""), "t.trace:0: the trace has no request");
  EXPECT_EQ(error_of("0x40\n"),
            "t.trace:1: expected 'ADDRESS READ|WRITE CYCLE' (DRAMsim3) or 'ADDRESS R|W' (Ramulator)");
  EXPECT_EQ(error_of("0x40 READ 3\n0x80 R\n"),
            "t.trace:2: expected 'ADDRESS READ|WRITE CYCLE', as the trace's first request line");
  EXPECT_EQ(error_of("0x40 R\n0x80 READ 1\n"),
            "t.trace:2: expected 'ADDRESS R|W', as the trace's first request line");
  EXPECT_EQ(error_of("0xzz READ 3\n"), "t.trace:1: 'zz' is not a hexadecimal address");
  EXPECT_EQ(error_of("0x40 LOAD 3\n"), "t.trace:1: 'LOAD' is not READ or WRITE");
  EXPECT_EQ(error_of("0x40 READ -3\n"), "t.trace:1: '-3' is not a cycle");
  EXPECT_EQ(error_of("0x40 READ 9\n0x80 READ 8\n"), "t.trace:2: cycle 8 is before the previous request's 9");
  EXPECT_EQ(error_of("0x40 X\n"), "t.trace:1: 'X' is not R or W");
}

}  // namespace
}  // namespace simtlm::mem
