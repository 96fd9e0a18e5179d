#include "models/ptx/parser.hpp"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "models/ptx/call_link.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser_internal.hpp"

namespace simtlm::ptx {

PtxError::PtxError(const std::string& file, uint32_t line, const std::string& message,
                   const std::string& text)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + message +
                         (text.empty() ? "" : "\n    " + text)),
      file_(file),
      line_(line) {}

namespace parse_detail {

namespace {

inline constexpr uint64_t kPtxWarpSize = 32;  // value of WARP_SZ

uint64_t align_up(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

}  // namespace

Module Parser::run() {
  try {
    tokens_ = tokenize(text_);
  } catch (const LexError& error) {
    fail(error.line, error.what());
  }
  module_.path = path_;
  module_.files.emplace_back();
  while (peek().kind != Tok::end) parse_module_statement();
  finish_layout();
  return std::move(module_);
}

std::string Parser::line_text(uint32_t line) const {
  size_t start = 0;
  for (uint32_t current = 1; current < line; ++current) {
    start = text_.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  size_t end = text_.find('\n', start);
  std::string_view text =
      text_.substr(start, end == std::string_view::npos ? text_.size() - start : end - start);
  size_t first = text.find_first_not_of(" \t");
  size_t last = text.find_last_not_of(" \t\r");
  return first == std::string_view::npos ? std::string() : std::string(text.substr(first, last - first + 1));
}

uint64_t Parser::parse_unsigned(const char* what) {
  const Token& token = take();
  if (token.kind != Tok::integer)
    fail(token.line, std::string("expected ") + what + ", found " + describe(token));
  return integer_value(token);
}

uint64_t Parser::integer_value(const Token& token) const {
  std::string_view text = token.text;
  if (!text.empty() && text.back() == 'U') text.remove_suffix(1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) {
    fail(token.line, "bad integer literal '" + std::string(token.text) + "'");
  }
  return value;
}

ParsedOperand Parser::parse_literal() {
  bool negative = accept('-');
  const Token& token = take();
  ParsedOperand parsed;
  parsed.operand.kind = OperandKind::imm;
  if (token.kind == Tok::ident && token.text == "WARP_SZ") {  // the PTX predefined constant
    parsed.literal = ParsedOperand::Literal::integer;
    parsed.operand.imm = negative ? ~uint64_t{kPtxWarpSize} + 1 : kPtxWarpSize;
  } else if (token.kind == Tok::integer) {
    parsed.literal = ParsedOperand::Literal::integer;
    uint64_t value = integer_value(token);
    parsed.operand.imm = negative ? ~value + 1 : value;
  } else if (token.kind == Tok::float_lit) {
    std::string_view text = token.text;
    if (text.size() > 2 && text[0] == '0' &&
        (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
      bool is_f32 = text[1] == 'f' || text[1] == 'F';
      uint64_t bits = 0;
      std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
      if (negative) bits ^= is_f32 ? 0x80000000ull : 0x8000000000000000ull;
      parsed.literal = is_f32 ? ParsedOperand::Literal::f32_bits : ParsedOperand::Literal::f64_bits;
      parsed.operand.imm = bits;
    } else {
      parsed.literal = ParsedOperand::Literal::decimal;
      parsed.decimal = std::strtod(std::string(text).c_str(), nullptr);
      if (negative) parsed.decimal = -parsed.decimal;
    }
  } else {
    fail(token.line, "bad operand: expected a number, found " + describe(token));
  }
  return parsed;
}

void Parser::parse_module_statement() {
  const Token& token = peek();
  if (token.kind != Tok::directive) fail(token.line, "expected a directive, found " + describe(token));
  std::string_view name = token.text;
  uint32_t line = token.line;
  if (name == ".version") {
    take();
    module_.version = std::string(take().text);
    skip_rest_of_line(line);
  } else if (name == ".target") {
    take();
    module_.target = std::string(take().text);
    skip_rest_of_line(line);
  } else if (name == ".address_size") {
    take();
    module_.address_size = static_cast<unsigned>(parse_unsigned("an address size"));
    if (module_.address_size != 64 && module_.address_size != 32) fail(line, "bad .address_size");
  } else if (name == ".file") {
    parse_file_directive();
  } else if (name == ".loc") {
    parse_loc();
  } else if (name == ".pragma") {
    skip_pragma();
  } else {
    bool is_extern = false;
    while (true) {  // linkage
      if (accept_directive(".visible") || accept_directive(".weak") || accept_directive(".common")) continue;
      if (accept_directive(".extern")) {
        is_extern = true;
        continue;
      }
      break;
    }
    const Token& what = peek();
    if (what.kind == Tok::directive && (what.text == ".entry" || what.text == ".func")) {
      take();
      parse_function(what.text == ".entry", is_extern, what.line);
    } else if (what.kind == Tok::directive &&
               (what.text == ".global" || what.text == ".const" || what.text == ".shared")) {
      take();
      Space space = what.text == ".global"  ? Space::global
                    : what.text == ".const" ? Space::constant
                                            : Space::shared;
      parse_variable(space, is_extern, -1, what.line);
    } else {
      fail(what.line, "unknown or unsupported directive " + describe(what));
    }
  }
}

void Parser::parse_file_directive() {
  uint32_t line = take().line;
  uint64_t index = parse_unsigned("a file number");
  const Token& path = take();
  if (path.kind != Tok::string) fail(line, "expected a file name string in .file");
  if (index > 65535) fail(line, ".file index too large");
  if (module_.files.size() <= index) module_.files.resize(index + 1);
  module_.files[index] = std::string(path.text.substr(1, path.text.size() - 2));
  skip_rest_of_line(line);  // optional timestamp and size
}

void Parser::parse_loc() {
  uint32_t line = take().line;
  uint64_t file = parse_unsigned("a file number");
  uint64_t source_line = parse_unsigned("a line number");
  if (file > 65535) fail(line, ".loc file index too large");
  loc_file_ = static_cast<uint16_t>(file);
  loc_line_ = static_cast<uint32_t>(source_line);
  skip_rest_of_line(line);  // column and ", function_name ..., inlined_at ..."
}

Type Parser::parse_type() {
  const Token& token = take();
  if (token.kind != Tok::directive) fail(token.line, "expected a type, found " + describe(token));
  Type type = type_from_name(token.text.substr(1));
  if (type == Type::none) fail(token.line, "unsupported type " + describe(token));
  return type;
}

uint64_t Parser::parse_array_dims(bool* open_ended) {
  uint64_t count = 1;
  *open_ended = false;
  while (accept('[')) {
    if (accept(']')) {
      *open_ended = true;
      continue;
    }
    count *= parse_unsigned("an array size");
    expect(']', "after array size");
  }
  return count;
}

void Parser::parse_variable(Space space, bool is_extern, int32_t function, uint32_t line) {
  Symbol symbol;
  symbol.space = space;
  symbol.is_extern = is_extern;
  symbol.function = function;
  symbol.line = line;
  bool have_align = false;
  while (peek().kind == Tok::directive) {
    if (accept_directive(".align")) {
      symbol.align = static_cast<uint32_t>(parse_unsigned("an alignment"));
      have_align = true;
    } else if (peek().text == ".v2" || peek().text == ".v4") {
      fail(peek().line, "vector variables are not supported");
    } else {
      symbol.type = parse_type();
    }
  }
  if (symbol.type == Type::none) fail(line, "missing type in variable declaration");
  const Token& name = take();
  if (name.kind != Tok::ident) fail(name.line, "expected a variable name, found " + describe(name));
  symbol.name = std::string(name.text);
  uint32_t element_bytes = std::max(1u, type_bits(symbol.type) / 8);
  if (!have_align) symbol.align = element_bytes;
  bool open_ended = false;
  uint64_t count = parse_array_dims(&open_ended);
  std::vector<uint8_t> init;
  if (accept('=')) {
    if (space != Space::global && space != Space::constant)
      fail(line, "only .global and .const can be initialized");
    std::vector<ParsedOperand> values;
    parse_initializer(values);
    init.resize(values.size() * element_bytes);
    for (size_t i = 0; i < values.size(); ++i) {
      uint64_t bits = 0;
      try {
        bits = literal_bits(values[i], symbol.type);
      } catch (const DecodeError& error) {
        fail(line, error.what());
      }
      for (uint32_t b = 0; b < element_bytes; ++b)
        init[i * element_bytes + b] = static_cast<uint8_t>(bits >> (8 * b));
    }
    if (open_ended) count = values.size();
    if (values.size() > count) fail(line, "too many initializers for " + symbol.name);
  } else if (open_ended && !(is_extern && space == Space::shared)) {
    if (!is_extern) fail(line, "array without size needs an initializer");
    count = 0;
  }
  symbol.size = open_ended && is_extern ? 0 : count * element_bytes;
  if (!init.empty()) init.resize(symbol.size);
  symbol.init = std::move(init);
  expect(';', "after variable declaration");
  add_symbol(std::move(symbol), line);
}

void Parser::parse_initializer(std::vector<ParsedOperand>& values) {
  if (accept('{')) {
    if (!is_punct('}')) {
      do {
        parse_initializer(values);
      } while (accept(','));
    }
    expect('}', "closing the initializer");
    return;
  }
  if (peek().kind == Tok::ident) fail(peek().line, "address initializers are not supported");
  values.push_back(parse_literal());
}

void Parser::add_symbol(Symbol symbol, uint32_t line) {
  uint32_t index = static_cast<uint32_t>(module_.symbols.size());
  if (symbol.space == Space::shared && !symbol.is_extern) {
    shared_bytes_ = align_up(shared_bytes_, symbol.align);
    symbol.offset = shared_bytes_;
    shared_bytes_ += symbol.size;
  } else if (symbol.space == Space::shared) {
    extern_shared_.push_back(index);
  } else if (symbol.space == Space::local || symbol.call_scope) {
    Function& function = module_.functions[symbol.function];
    uint64_t offset = align_up(function.local_bytes, symbol.align);
    symbol.offset = offset;
    function.local_bytes = static_cast<uint32_t>(offset + symbol.size);
  } else if (symbol.space == Space::param) {
    Function& function = module_.functions[symbol.function];
    uint64_t offset = align_up(function.param_bytes, symbol.align);
    symbol.offset = offset;
    function.param_bytes = static_cast<uint32_t>(offset + symbol.size);
  }
  if (symbol.function < 0) {
    if (!module_symbols_.emplace(symbol.name, index).second)
      fail(line, "redefinition of symbol " + symbol.name);
  } else if (!local_symbols_.add(symbol.name, index)) {
    fail(line, "redefinition of symbol " + symbol.name);
  }
  module_.symbols.push_back(std::move(symbol));
}

void Parser::finish_layout() {
  uint64_t dynamic_start = align_up(shared_bytes_, 16);
  for (uint32_t index : extern_shared_) module_.symbols[index].offset = dynamic_start;
  lay_out_kernels(module_);
}

}  // namespace parse_detail

Module parse_ptx(const std::string& text, const std::string& path) {
  Module module = parse_detail::Parser(text, path).run();
  link_device_calls(module);
  return module;
}

Module load_ptx_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw PtxError(path, 0, "cannot open PTX file", "");
  std::ostringstream contents;
  contents << file.rdbuf();
  return parse_ptx(contents.str(), path);
}

}  // namespace simtlm::ptx
