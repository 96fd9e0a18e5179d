// Device-side vprintf and __assertfail. The argument buffer follows CUDA's layout: each argument is aligned
// to its own size; integers are 4 bytes unless l/ll (8), floating point arguments are doubles, %s/%p are
// pointers.
#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "models/ptx/executor_internal.hpp"
#include "models/ptx/utf8.hpp"

namespace simtlm::ptx::exec {
namespace {

uint64_t read_arg(const Ctx& c, uint64_t& cursor, unsigned bytes, unsigned lane) {
  cursor = (cursor + bytes - 1) / bytes * bytes;
  uint64_t v = 0;
  mem_read(c, resolve(c, Space::generic, cursor, bytes, bytes, lane, false), lane, &v, bytes);
  cursor += bytes;
  return v;
}

// Reads a call-scope .param argument (held in the thread's local frame) of the call instruction.
uint64_t call_param(const Ctx& c, const Operand& op, unsigned bytes, unsigned lane) {
  uint64_t v = 0;
  uint64_t offset = c.launch.module->symbols[op.sym].offset + op.imm;
  mem_read(c, resolve(c, Space::param, offset, bytes, 1, lane, true), lane, &v, bytes);
  return v;
}

template <class... Args>
void append_formatted(std::string& out, const std::string& spec, Args... args) {
  char small[256];
  int n = std::snprintf(small, sizeof small, spec.c_str(), args...);
  if (n < 0) return;
  if (size_t(n) < sizeof small) {
    out.append(small, size_t(n));
    return;
  }
  std::string big(size_t(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), spec.c_str(), args...);
  out.append(big.data(), size_t(n));
}

}  // namespace

std::string format_printf(const Ctx& c, const std::string& fmt, uint64_t args, unsigned lane) {
  std::string out;
  uint64_t cursor = args;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out.push_back('%');
      ++i;
      continue;
    }
    std::string spec = "%";
    size_t j = i + 1;
    while (j < fmt.size() && std::string_view("-+ #0").find(fmt[j]) != std::string_view::npos)
      spec += fmt[j++];
    while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '.'))
      spec += fmt[j++];
    unsigned longs = 0;
    while (j < fmt.size() && (fmt[j] == 'l' || fmt[j] == 'h' || fmt[j] == 'z')) {
      if (fmt[j] == 'l' || fmt[j] == 'z') ++longs;
      ++j;
    }
    if (j >= fmt.size()) {  // a dangling '%' is printed as written
      out += fmt.substr(i);
      break;
    }
    char conv = fmt[j];
    i = j;
    switch (conv) {
      case 'd':
      case 'i': {
        int64_t v = longs ? int64_t(read_arg(c, cursor, 8, lane)) : int32_t(read_arg(c, cursor, 4, lane));
        append_formatted(out, spec + "lld", static_cast<long long>(v));
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        uint64_t v = longs ? read_arg(c, cursor, 8, lane) : uint32_t(read_arg(c, cursor, 4, lane));
        append_formatted(out, spec + "ll" + conv, static_cast<unsigned long long>(v));
        break;
      }
      case 'c':
        append_formatted(out, spec + "c", int(int32_t(read_arg(c, cursor, 4, lane))));
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A':
        append_formatted(out, spec + conv, f64_of(read_arg(c, cursor, 8, lane)));
        break;
      case 's': {
        uint64_t p = read_arg(c, cursor, 8, lane);
        std::string s = p ? read_c_string(c, p, lane) : "(null)";
        append_formatted(out, spec + "s", s.c_str());
        break;
      }
      case 'p': {
        uint64_t p = read_arg(c, cursor, 8, lane);
        out += fmt::format("0x{:x}", p);  // width and flags are ignored for %p
        break;
      }
      default:  // unknown conversion: print it literally
        out += spec;
        out.push_back(conv);
        break;
    }
  }
  return out;
}

void exec_call(Ctx& c) {
  const Instr& in = c.in;
  if (in.sub == Sub::call_vprintf) {
    for_lanes(c.active, [&](unsigned l) {
      std::string text = format_printf(c, read_c_string(c, call_param(c, in.src[0], 8, l), l),
                                       call_param(c, in.src[1], 8, l), l);
      if (c.launch.printf_sink) {
        *c.launch.printf_sink += text;
      } else {
        std::cout << text;
      }
      if (in.ndst > 0 && in.dst[0].kind == OperandKind::sym_addr) {
        uint32_t n = uint32_t(text.size());
        uint64_t off = c.launch.module->symbols[in.dst[0].sym].offset + in.dst[0].imm;
        mem_write(c, resolve(c, Space::param, off, 4, 1, l, true), l, &n, 4);
      }
    });
    if (!c.launch.printf_sink) std::cout.flush();
    return;
  }
  if (in.sub == Sub::call_assertfail) {
    if (c.active == 0) return;
    unsigned l = unsigned(std::countr_zero(c.active));
    std::string message = read_c_string(c, call_param(c, in.src[0], 8, l), l);
    std::string file = read_c_string(c, call_param(c, in.src[1], 8, l), l);
    uint32_t line = uint32_t(call_param(c, in.src[2], 4, l));
    std::string function = read_c_string(c, call_param(c, in.src[3], 8, l), l);
    // The strings are device memory: any bytes. The message reaches the terminal and JSON reports.
    fail(c, int(l),
         fmt::format("assertion failed: {}:{}: {}: Assertion `{}` failed", printable_utf8(file), line,
                     printable_utf8(function), printable_utf8(message)));
  }
  fail(c, -1, "call of an unsupported function");
}

}  // namespace simtlm::ptx::exec
