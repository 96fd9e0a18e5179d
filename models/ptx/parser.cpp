#include "models/ptx/parser.hpp"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/location.hpp"
#include "models/ptx/call_link.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser_internal.hpp"
#include "models/ptx/utf8.hpp"

namespace simtlm::ptx {

PtxError::PtxError(const std::string& file, uint32_t line, const std::string& message,
                   const std::string& text)
    : std::runtime_error(common::location(file, line) + ": " + printable_utf8(message) +
                         (text.empty() ? "" : "\n    " + printable_utf8(text))),
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
  check_limit(1, "the PTX text's size in bytes", text_.size(), limits::kMaxFileBytes,
              "split the module into several files");
  try {
    tokens_ = tokenize(text_);
  } catch (const LexError& error) {
    fail(error.line, error.what());
  }
  module_.path = path_;
  module_.files.emplace_back();
  while (peek().kind != Tok::end) parse_module_statement();
  for (FunctionAddress& address : module_.function_addresses) {
    auto defined = module_.function_index.find(address.name);
    if (defined != module_.function_index.end()) address.function = defined->second;
  }
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
    module_.version = printable_utf8(take().text);
    skip_rest_of_line(line);
  } else if (name == ".target") {
    take();
    module_.target = printable_utf8(take().text);
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
  check_limit(line, "the .file index", index, limits::kMaxFileIndex, "number the source files from 1");
  if (module_.files.size() <= index) module_.files.resize(index + 1);
  // The name reaches messages and the statistics JSON: keep it valid UTF-8 whatever bytes the file holds.
  module_.files[index] = printable_utf8(path.text.substr(1, path.text.size() - 2));
  skip_rest_of_line(line);  // optional timestamp and size
}

void Parser::parse_loc() {
  uint32_t line = take().line;
  uint64_t file = parse_unsigned("a file number");
  uint64_t source_line = parse_unsigned("a line number");
  check_limit(line, "the .loc file index", file, limits::kMaxFileIndex, "number the source files from 1");
  check_limit(line, "the .loc line number", source_line, UINT32_MAX, "source lines are 32-bit numbers");
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
    const uint32_t line = peek().line;
    const uint64_t dimension = parse_unsigned("an array size");
    if (dimension != 0 && count > UINT64_MAX / dimension)
      fail(line, "array dimensions overflow 64 bits: the product of [" + std::to_string(count) + "][" +
                     std::to_string(dimension) + "] is too large");
    count *= dimension;
    expect(']', "after array size");
  }
  return count;
}

uint32_t Parser::parse_alignment() {
  const uint32_t line = peek().line;
  const uint64_t align = parse_unsigned("an alignment");
  if (align == 0 || (align & (align - 1)) != 0)
    fail(line, ".align " + std::to_string(align) + " is not a power of two");
  check_limit(line, "the alignment", align, limits::kMaxAlignment, "align to at most a 4 KiB page");
  return static_cast<uint32_t>(align);
}

void Parser::check_variable_size(const Symbol& symbol, uint64_t count, uint32_t line) const {
  const uint64_t element_bytes = std::max(1u, type_bits(symbol.type) / 8);
  const uint64_t bytes = count > UINT64_MAX / element_bytes ? UINT64_MAX : count * element_bytes;
  const std::string what =
      "the size in bytes of ." + std::string(space_name(symbol.space)) + " " + symbol.name;
  switch (symbol.space) {
    case Space::shared:
      check_limit(line, what, bytes, limits::kMaxStaticSharedBytes,
                  "larger shared arrays must be extern .shared, sized by the launch's dynamic shared bytes");
      break;
    case Space::local:
      check_limit(line, what, bytes, limits::kMaxLocalBytesPerThread,
                  "per-thread local memory is limited as in CUDA; keep large arrays in global memory");
      break;
    case Space::global:
      check_limit(line, what, bytes, limits::kMaxGlobalVariableBytes,
                  "allocate large arrays as launch buffers instead of __device__ variables");
      break;
    case Space::constant:
      check_limit(line, what, bytes, limits::kMaxConstBytesPerModule, "the constant bank holds 64 KiB");
      break;
    case Space::param:
      check_limit(line, what, bytes, limits::kMaxParamBytes, "pass large data through a pointer");
      break;
    default:
      break;
  }
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
      symbol.align = parse_alignment();
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
  check_variable_size(symbol, count, line);
  std::vector<uint8_t> init;
  if (accept('=')) {
    if (space != Space::global && space != Space::constant)
      fail(line, "only .global and .const can be initialized");
    check_limit(line, "the size in bytes of initialized variable " + symbol.name, count * element_bytes,
                limits::kMaxInitializedBytes, "fill large tables from a launch buffer instead");
    const uint64_t max_elements = open_ended ? limits::kMaxInitializedBytes / element_bytes : count;
    std::string address;
    parse_initializer(InitializerTarget{init, symbol.type, element_bytes, max_elements, line, address});
    if (open_ended) count = init.size() / element_bytes;
    check_variable_size(symbol, count, line);
    if (!address.empty()) {
      module_.unsupported_symbols[static_cast<uint32_t>(module_.symbols.size())] = UnsupportedSymbol{
          "." + std::string(space_name(space)) + " " + symbol.name + " is initialised with " + address,
          line_text(line)};
    }
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

void Parser::parse_initializer(const InitializerTarget& target, uint32_t depth) {
  if (is_punct('{')) {
    check_limit(peek().line, "the nesting depth of '{' in an initializer", depth + 1,
                limits::kMaxInitializerDepth, "flatten the initializer");
    take();
    if (!is_punct('}')) {
      do {
        parse_initializer(target, depth + 1);
      } while (accept(','));
    }
    expect('}', "closing the initializer");
    return;
  }
  if (target.bytes.size() / target.element_bytes >= target.max_elements)
    fail(peek().line, "too many initializers: the variable holds " + std::to_string(target.max_elements));
  uint64_t bits = 0;
  std::string address;
  if (peek().kind == Tok::ident && declared_functions_.count(peek().text) && !lookup_symbol(peek().text) &&
      !is_punct('+', 1)) {
    // A function's address (function-pointer tables, vtables): its tagged value (ir.hpp).
    const Token& name = take();
    if (target.element_bytes == 8) {
      bits = function_address(name.text, name.line);
    } else {
      address = "the address of function " + std::string(name.text) + " in a " +
                std::to_string(target.element_bytes) + "-byte element (function addresses are 64-bit)";
    }
  } else if (peek().kind == Tok::ident) {
    address = parse_address_element(false);
  } else {
    const ParsedOperand value = parse_literal();
    if (is_punct('(')) {
      address = parse_address_element(true);
    } else {
      try {
        bits = literal_bits(value, target.type);
      } catch (const DecodeError& error) {
        fail(target.line, error.what());
      }
    }
  }
  if (!address.empty() && target.first_address.empty()) target.first_address = address;
  for (uint32_t b = 0; b < target.element_bytes; ++b)
    target.bytes.push_back(static_cast<uint8_t>(bits >> (8 * b)));
}

std::string Parser::parse_address_element(bool after_mask) {
  const uint32_t line = peek().line;
  const bool generic =
      !after_mask && peek().kind == Tok::ident && peek().text == "generic" && is_punct('(', 1);
  if (after_mask || generic) {
    if (generic) take();
    expect('(', "opening the address");
  }
  const Token& name = take();
  if (name.kind != Tok::ident)
    fail(line, "bad initializer: expected a variable or function name, found " + describe(name));
  std::string named;
  if (declared_functions_.count(name.text)) {
    named = "the address of function " + std::string(name.text) +
            " with an offset or a mask: only a function's plain name is a function address";
  } else {
    // A name declared further down (ptxas wants it declared first) refuses the same way.
    named = "the address of " + std::string(lookup_symbol(name.text) ? "variable " : "") +
            std::string(name.text) + ": address initializers are not supported";
  }
  if (after_mask || generic) expect(')', "closing the address");
  if (!after_mask && accept('+')) {
    if (parse_literal().literal != ParsedOperand::Literal::integer)
      fail(line, "bad initializer: an address offset must be an integer");
  }
  return named;
}

uint64_t Parser::function_address(std::string_view name, uint32_t line) {
  auto known = function_address_ids_.find(name);
  if (known != function_address_ids_.end()) return function_address_value(known->second);
  const auto id = static_cast<uint32_t>(module_.function_addresses.size());
  function_address_ids_.emplace(std::string(name), id);
  module_.function_addresses.push_back(FunctionAddress{std::string(name), kNoFunction, line});
  return function_address_value(id);
}

void Parser::add_symbol(Symbol symbol, uint32_t line) {
  check_limit(line, "the number of symbols (variables and parameters) in the module",
              module_.symbols.size() + 1, limits::kMaxSymbols, "split the module into several files");
  uint32_t index = static_cast<uint32_t>(module_.symbols.size());
  if (symbol.space == Space::global && !symbol.is_extern) {
    global_bytes_ += symbol.size;
    check_limit(line, "the module's .global variables in bytes", global_bytes_,
                limits::kMaxGlobalBytesPerModule,
                "allocate large arrays as launch buffers instead of __device__ variables");
  } else if (symbol.space == Space::constant && !symbol.is_extern) {
    const_bytes_ += symbol.size;
    check_limit(line, "the module's .const variables in bytes", const_bytes_, limits::kMaxConstBytesPerModule,
                "the constant bank holds 64 KiB");
  }
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
    check_limit(
        line,
        [&] {
          return "the .local bytes per thread of " + function.name + " (variables and call parameters)";
        },
        offset + symbol.size, limits::kMaxLocalBytesPerThread,
        "per-thread local memory is limited as in CUDA; keep large arrays in global memory");
    function.local_bytes = static_cast<uint32_t>(offset + symbol.size);
  } else if (symbol.space == Space::param) {
    Function& function = module_.functions[symbol.function];
    uint64_t offset = align_up(function.param_bytes, symbol.align);
    symbol.offset = offset;
    check_limit(
        line, [&] { return "the .param bytes of " + function.name; }, offset + symbol.size,
        limits::kMaxParamBytes, "pass large data through a pointer");
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
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw PtxError(path, 0, "cannot open PTX file", "");
  const auto size = static_cast<uint64_t>(std::max<std::streamoff>(file.tellg(), 0));
  if (size > limits::kMaxFileBytes) {
    throw PtxError(path, 1,
                   limits::limit_message("the PTX file's size in bytes", size, limits::kMaxFileBytes,
                                         "split the module into several files"),
                   "");
  }
  file.seekg(0);
  std::ostringstream contents;
  contents << file.rdbuf();
  return parse_ptx(contents.str(), path);
}

}  // namespace simtlm::ptx
