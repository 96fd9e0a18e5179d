// Kernel parameters of launch files: buffers with offsets, numbers in any exact form, integer expressions in
// the loop index, NULL, structs passed by value and raw bytes.
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "models/launch/buffers.hpp"
#include "models/launch/launch_reader.hpp"

namespace simtlm::launch::detail {
namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool is_real_literal(const std::string& text) {
  static const char* const kSpecial[] = {".inf", "-.inf", "+.inf", ".nan", ".Inf", "-.Inf", ".NaN"};
  for (const char* s : kSpecial) {
    if (text == s) return true;
  }
  if (text.empty()) return false;
  char* end = nullptr;
  (void)std::strtod(text.c_str(), &end);
  return *end == 0 && end != text.c_str();
}

// "data", "data+256", "data + i*16", "data+1024B": the buffer and its offset, when text names a buffer.
bool read_buffer_reference(const Reader& r, const YAML::Node& n, const std::string& path,
                           const Launch& launch, const std::string& text, ParamValue& p) {
  if (has_buffer(launch, text)) {  // a bare buffer name
    p.kind = ParamValue::Kind::buffer;
    p.buffer = text;
    return true;
  }
  size_t end = 0;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  const std::string name = text.substr(0, end);
  if (name.empty() || !has_buffer(launch, name)) return false;
  std::string rest = trim(text.substr(end));
  if (!rest.empty() && rest[0] != '+' && rest[0] != '-') return false;
  p.kind = ParamValue::Kind::buffer;
  p.buffer = name;
  if (rest.empty()) return true;
  const bool negative = rest[0] == '-';
  rest = trim(rest.substr(1));
  if (!rest.empty() && rest.back() == 'B') {
    p.offset_in_bytes = true;
    rest = trim(rest.substr(0, rest.size() - 1));
  }
  p.offset = negative ? "-(" + rest + ")" : rest;
  try {
    check_expression(p.offset, load_scope(r, launch), "");
  } catch (const LaunchError&) {
    r.fail(n, path,
           fmt::format("'{}': the offset after {} is not an integer expression in i (elements, or bytes "
                       "with a B suffix: \"{}+1024B\")",
                       text, name, name));
  }
  return true;
}

ParamValue read_scalar_param(const Reader& r, const YAML::Node& n, const std::string& path,
                             const Launch& launch) {
  ParamValue p;
  p.line = Reader::line_of(n);
  if (n.IsNull()) {
    p.kind = ParamValue::Kind::null;
    return p;
  }
  if (!n.IsScalar()) r.fail(n, path, "expected a buffer name, a number, an expression in i or null");
  const std::string text = trim(n.Scalar());
  uint64_t unsigned_value = 0;
  if (launch.find_texture(text) >= 0) {  // a texture object: its handle
    p.kind = ParamValue::Kind::texture;
    p.buffer = text;
    return p;
  }
  if (read_buffer_reference(r, n, path, launch, text, p)) return p;
  if (YAML::convert<int64_t>::decode(n, p.integer)) {
    p.kind = ParamValue::Kind::integer;
  } else if (!text.starts_with("-") && YAML::convert<uint64_t>::decode(n, unsigned_value)) {
    p.kind = ParamValue::Kind::integer;  // above INT64_MAX: the bit pattern of a u64
    p.integer = int64_t(unsigned_value);
  } else if (is_real_literal(text)) {
    p.kind = ParamValue::Kind::real;
    p.text = text;
    uint8_t bytes[8];
    if (const std::string error = encode_element(ptx::Type::f64, text, bytes); !error.empty())
      r.fail(n, path, error);  // e.g. 1e400 overflows f64
    std::memcpy(&p.real, bytes, 8);
  } else {
    p.kind = ParamValue::Kind::expression;
    p.text = text;
    try {
      check_expression(text, load_scope(r, launch), "");
    } catch (const LaunchError& e) {
      r.fail(n, path,
             fmt::format("'{}' is neither a buffer name, a number nor an integer expression in i: {}", text,
                         std::string(e.what()).substr(2)));
    }
  }
  return p;
}

ParamValue read_struct(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  ParamValue p;
  p.line = Reader::line_of(n);
  p.kind = ParamValue::Kind::fields;
  if (!n.IsSequence()) r.fail(n, path, "expected a list of fields such as {u32: 5}, {f32: 1.5}, {ptr: data}");
  for (size_t k = 0; k < n.size(); ++k) {
    const std::string fp = fmt::format("{}[{}]", path, k);
    const YAML::Node field = n[k];
    if (!field.IsMap() || field.size() != 1)
      r.fail(field, fp, "expected one {type: value} pair, e.g. {u32: 5}");
    const auto kv = *field.begin();
    const std::string type = kv.first.Scalar();
    ParamValue v = read_scalar_param(r, kv.second, fp + "." + type, launch);
    if (type == "ptr") {
      if (v.kind != ParamValue::Kind::buffer && v.kind != ParamValue::Kind::null)
        r.fail(kv.second, fp + ".ptr", "expected a buffer (with an optional offset) or null");
      v.field_type = ptx::Type::u64;
    } else {
      const auto parsed = parse_buffer_type(type);
      if (!parsed)
        r.fail(kv.first, fp,
               fmt::format("'{}' is not one of ptr u8 s8 u16 s16 u32 s32 u64 s64 f32 f64", type));
      if (v.kind == ParamValue::Kind::buffer || v.kind == ParamValue::Kind::null)
        r.fail(kv.second, fp + "." + type, "a pointer field is written {ptr: buffer}");
      v.field_type = *parsed;
    }
    p.fields.push_back(std::move(v));
  }
  return p;
}

}  // namespace

ParamValue read_param(const Reader& r, const YAML::Node& n, const std::string& path, const Launch& launch) {
  if (!n.IsMap()) return read_scalar_param(r, n, path, launch);
  if (n["struct"]) {
    r.require_map(n, path, {"struct"});
    return read_struct(r, n["struct"], path + ".struct", launch);
  }
  r.require_map(n, path, {"struct", "bytes"});
  ParamValue p;
  p.line = Reader::line_of(n);
  p.kind = ParamValue::Kind::bytes;
  const std::string hex = r.string(r.required(n, path, "bytes"), path + ".bytes");
  std::string digits;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      r.fail(n["bytes"], path + ".bytes", "expected hexadecimal digits");
    digits.push_back(c);
  }
  if (digits.size() % 2) r.fail(n["bytes"], path + ".bytes", "an odd number of hexadecimal digits");
  for (size_t k = 0; k < digits.size(); k += 2)
    p.bytes.push_back(uint8_t(std::stoul(digits.substr(k, 2), nullptr, 16)));
  return p;
}

}  // namespace simtlm::launch::detail
