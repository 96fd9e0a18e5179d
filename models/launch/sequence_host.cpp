// Host steps of launch sequences beyond kernels: the scope of expressions at the walk's position (i, the for
// loops' variables, elements read back from the device), `for` loops and 2-D copies (cudaMemcpy2D).
#include <fmt/format.h>

#include <cstring>

#include "common/location.hpp"
#include "models/launch/buffers.hpp"
#include "models/launch/sequence.hpp"

namespace simtlm::launch {

ExpressionScope SequenceSession::scope() const {
  ExpressionScope s;
  s.constants = &launch_.constants;
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->owner) {
      s.i = int64_t(it->iteration);
      break;
    }
  }
  for (const Frame& f : frames_) {
    if (f.owner && f.owner->kind == Step::Kind::for_loop) s.variables.emplace_back(f.owner->var, f.value);
  }
  s.has_data = [this](const std::string& name) {
    return launch_.find_buffer_spec(name) != nullptr || launch_.find_symbol_spec(name) != nullptr;
  };
  s.read = [this](const std::string& name, int64_t index, std::string& error) {
    return read_element(name, index, error);
  };
  return s;
}

int64_t SequenceSession::read_element(const std::string& name, int64_t index, std::string& error) const {
  const auto [addr, spec] = data_named(name, 0, name);
  if (ptx::type_is_float(spec.type)) {
    error = fmt::format("{}[{}]: {} holds {} elements; an expression reads integers only", name, index, name,
                        ptx::type_name(spec.type));
    return 0;
  }
  if (index < 0 || uint64_t(index) >= spec.count) {
    error =
        fmt::format("{}[{}]: element {} of {} which has {} elements", name, index, index, name, spec.count);
    return 0;
  }
  const unsigned esize = element_bytes(spec.type);
  uint8_t raw[8] = {};
  memory_->read(addr + uint64_t(index) * esize, raw, esize);
  uint64_t u = 0;
  std::memcpy(&u, raw, 8);
  if (ptx::type_is_signed(spec.type) && esize < 8 && (u >> (esize * 8 - 1)) & 1)
    u |= ~uint64_t(0) << (esize * 8);  // sign-extend
  if (!ptx::type_is_signed(spec.type) && u > uint64_t(INT64_MAX)) {
    error = fmt::format("{}[{}] = {} does not fit a 64-bit signed integer", name, index, u);
    return 0;
  }
  return int64_t(u);
}

void SequenceSession::enter_for(const Step& loop) {
  const std::string where = common::at_location(launch_.path.string(), loop.line, "for " + loop.var);
  const int64_t from = evaluate_expression(loop.from, scope(), where + ": from");
  frames_.push_back(Frame{&loop.steps, 0, &loop, 0, from});
  if (!evaluate_expression(loop.cond, scope(), where + ": while")) frames_.pop_back();
}

bool SequenceSession::continue_for(Frame& frame) {
  const Step& loop = *frame.owner;
  const std::string where = common::at_location(launch_.path.string(), loop.line, "for " + loop.var);
  frame.value = evaluate_expression(loop.next, scope(), where + ": next");
  ++frame.iteration;
  if (!evaluate_expression(loop.cond, scope(), where + ": while")) return false;
  if (frame.iteration >= loop.count) {
    fail(loop.line, fmt::format("for {}: while \"{}\" still holds after max = {} iterations ({})", loop.var,
                                loop.cond, loop.count, scope().describe()));
  }
  frame.next = 0;
  return true;
}

void SequenceSession::apply_copy2d(const Copy2dSpec& copy) {
  const ExpressionScope s = scope();
  const std::string where = common::at_location(launch_.path.string(), copy.line, "copy2d");
  auto number = [&](const std::string& text, const char* key) {
    const int64_t v = evaluate_expression(text, s, where + "." + key);
    if (v < 0) fail(copy.line, fmt::format("copy2d.{} = {} ({}) is negative", key, v, s.describe()));
    return uint64_t(v);
  };
  const uint64_t dpitch = number(copy.dpitch, "dpitch"), spitch = number(copy.spitch, "spitch");
  const uint64_t width = number(copy.width, "width"), height = number(copy.height, "height");
  for (const auto& [pitch, key] : {std::pair{dpitch, "dpitch"}, std::pair{spitch, "spitch"}}) {
    if (width > pitch) {
      fail(copy.line, fmt::format("copy2d: width {} is more than {} {} ({}): rows would overlap, as "
                                  "cudaMemcpy2D refuses",
                                  width, key, pitch, s.describe()));
    }
  }
  // The first byte of the rectangle in its buffer, its rows checked against the buffer.
  auto start = [&](const ParamValue& p, const char* key, uint64_t pitch) {
    const BufferSpec& spec = *launch_.find_buffer_spec(p.buffer);
    const unsigned esize = element_bytes(spec.type);
    const uint64_t bytes = spec.count * esize;
    const int64_t offset = p.offset.empty() ? 0 : evaluate_expression(p.offset, s, where + "." + key);
    const __int128 first = __int128(offset) * (p.offset_in_bytes ? 1 : esize);
    const __int128 end = width == 0 || height == 0 ? first : first + __int128(height - 1) * pitch + width;
    if (first < 0 || end > __int128(bytes)) {
      fail(copy.line,
           fmt::format("copy2d.{}: {} rows of {} bytes with pitch {} from byte {} ({}) reach outside "
                       "buffer {} of {} bytes",
                       key, height, width, pitch, int64_t(first), s.describe(), p.buffer, bytes));
    }
    return addresses_.at(p.buffer) + uint64_t(first);
  };
  const uint64_t src = start(copy.src, "src", spitch), dst = start(copy.dst, "dst", dpitch);
  if (width == 0 || height == 0) return;
  // Every row is read before any is written: overlapping rectangles copy as if through a host buffer.
  std::vector<uint8_t> rows(width * height);
  for (uint64_t r = 0; r < height; ++r) memory_->read(src + r * spitch, &rows[r * width], width);
  for (uint64_t r = 0; r < height; ++r) memory_->write(dst + r * dpitch, &rows[r * width], width);
}

}  // namespace simtlm::launch
