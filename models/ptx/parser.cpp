#include "models/ptx/parser.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "models/ptx/call_link.hpp"
#include "models/ptx/decode.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/lexer.hpp"

namespace simtlm::ptx {

PtxError::PtxError(const std::string& file, uint32_t line, const std::string& message,
                   const std::string& text)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + message +
                         (text.empty() ? "" : "\n    " + text)),
      file_(file),
      line_(line) {}

namespace {

// Hash that lets maps keyed by std::string be searched with a string_view without allocating.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};
template <typename T>
using NameMap = std::unordered_map<std::string, T, StringHash, std::equal_to<>>;

const NameMap<SpecialReg>& special_registers() {
  static const NameMap<SpecialReg> table = {{"%tid.x", SpecialReg::tid_x},
                                            {"%tid.y", SpecialReg::tid_y},
                                            {"%tid.z", SpecialReg::tid_z},
                                            {"%ntid.x", SpecialReg::ntid_x},
                                            {"%ntid.y", SpecialReg::ntid_y},
                                            {"%ntid.z", SpecialReg::ntid_z},
                                            {"%ctaid.x", SpecialReg::ctaid_x},
                                            {"%ctaid.y", SpecialReg::ctaid_y},
                                            {"%ctaid.z", SpecialReg::ctaid_z},
                                            {"%nctaid.x", SpecialReg::nctaid_x},
                                            {"%nctaid.y", SpecialReg::nctaid_y},
                                            {"%nctaid.z", SpecialReg::nctaid_z},
                                            {"%laneid", SpecialReg::laneid},
                                            {"%warpid", SpecialReg::warpid},
                                            {"%nwarpid", SpecialReg::nwarpid},
                                            {"%smid", SpecialReg::smid},
                                            {"%nsmid", SpecialReg::nsmid},
                                            {"%gridid", SpecialReg::gridid},
                                            {"%clock", SpecialReg::clock},
                                            {"%clock_hi", SpecialReg::clock_hi},
                                            {"%clock64", SpecialReg::clock64},
                                            {"%globaltimer", SpecialReg::globaltimer},
                                            {"%lanemask_eq", SpecialReg::lanemask_eq},
                                            {"%lanemask_le", SpecialReg::lanemask_le},
                                            {"%lanemask_lt", SpecialReg::lanemask_lt},
                                            {"%lanemask_ge", SpecialReg::lanemask_ge},
                                            {"%lanemask_gt", SpecialReg::lanemask_gt}};
  return table;
}

inline constexpr uint64_t kPtxWarpSize = 32;  // value of WARP_SZ

uint64_t align_up(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

// Names declared in nested `{ }` blocks (call sequences) shadow outer ones until the block closes.
template <typename T>
class ScopedNames {
 public:
  const T* find(std::string_view name) const {
    auto it = map_.find(name);
    return it == map_.end() ? nullptr : &it->second.value;
  }
  // Returns false when the name already exists in the innermost scope.
  bool add(const std::string& name, T value) {
    auto it = map_.find(name);
    if (it != map_.end()) {
      if (it->second.depth == depth_) return false;
      undo_.push_back({name, it->second, depth_});
      it->second = Entry{value, depth_};
    } else {
      undo_.push_back({name, std::nullopt, depth_});
      map_.emplace(name, Entry{value, depth_});
    }
    return true;
  }
  void push() { ++depth_; }
  void pop() {
    while (!undo_.empty() && undo_.back().depth == depth_) {
      auto& undo = undo_.back();
      if (undo.previous) {
        map_[undo.name] = *undo.previous;
      } else {
        map_.erase(undo.name);
      }
      undo_.pop_back();
    }
    --depth_;
  }
  void clear() {
    map_.clear();
    undo_.clear();
    depth_ = 0;
  }

 private:
  struct Entry {
    T value;
    int depth;
  };
  struct Undo {
    std::string name;
    std::optional<Entry> previous;
    int depth;
  };
  NameMap<Entry> map_;
  std::vector<Undo> undo_;
  int depth_ = 0;
};

struct PendingBranch {
  uint32_t instr;
  std::string_view label;
  uint32_t line;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  Module run() {
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

 private:
  // --- Token access ---------------------------------------------------------------------------------

  const Token& peek(size_t ahead = 0) const {
    size_t index = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[index];
  }
  const Token& take() {
    const Token& token = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return token;
  }
  bool is_punct(char c, size_t ahead = 0) const {
    return peek(ahead).kind == Tok::punct && peek(ahead).punct == c;
  }
  bool accept(char c) {
    if (!is_punct(c)) return false;
    take();
    return true;
  }
  bool accept_directive(std::string_view name) {
    if (peek().kind != Tok::directive || peek().text != name) return false;
    take();
    return true;
  }
  void expect(char c, const char* context) {
    if (accept(c)) return;
    if (c == ';') fail(last_line(), std::string("missing ';' ") + context);
    fail(peek().line, std::string("expected '") + c + "' " + context + ", found " + describe(peek()));
  }
  uint32_t last_line() const { return pos_ > 0 ? tokens_[pos_ - 1].line : 1; }

  static std::string describe(const Token& token) {
    if (token.kind == Tok::end) return "end of file";
    return "'" + std::string(token.text) + "'";
  }

  std::string line_text(uint32_t line) const {
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
    return first == std::string_view::npos ? std::string()
                                           : std::string(text.substr(first, last - first + 1));
  }

  [[noreturn]] void fail(uint32_t line, const std::string& message) const {
    throw PtxError(path_, line, message, line_text(line));
  }

  // A well-formed instruction the model does not support; see parse_instruction_or_refuse.
  struct UnsupportedConstruct {
    uint32_t line;
    std::string message;
  };
  [[noreturn]] static void refuse(uint32_t line, const std::string& message) {
    throw UnsupportedConstruct{line, message};
  }

  uint64_t parse_unsigned(const char* what) {
    const Token& token = take();
    if (token.kind != Tok::integer)
      fail(token.line, std::string("expected ") + what + ", found " + describe(token));
    return integer_value(token);
  }

  uint64_t integer_value(const Token& token) const {
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

  // Reads a literal (with optional leading '-') into a ParsedOperand.
  ParsedOperand parse_literal() {
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

  // Skips every remaining token on `line` (directives such as .loc end at the newline, not at ';').
  void skip_rest_of_line(uint32_t line) {
    while (peek().kind != Tok::end && peek().line == line) take();
  }

  // --- Module level -------------------------------------------------------------------------------

  void parse_module_statement() {
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
      take();
      while (!is_punct(';') && peek().kind != Tok::end) take();
      expect(';', "after .pragma");
    } else {
      bool is_extern = false;
      while (true) {  // linkage
        if (accept_directive(".visible") || accept_directive(".weak") || accept_directive(".common"))
          continue;
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

  void parse_file_directive() {
    uint32_t line = take().line;
    uint64_t index = parse_unsigned("a file number");
    const Token& path = take();
    if (path.kind != Tok::string) fail(line, "expected a file name string in .file");
    if (index > 65535) fail(line, ".file index too large");
    if (module_.files.size() <= index) module_.files.resize(index + 1);
    module_.files[index] = std::string(path.text.substr(1, path.text.size() - 2));
    skip_rest_of_line(line);  // optional timestamp and size
  }

  void parse_loc() {
    uint32_t line = take().line;
    uint64_t file = parse_unsigned("a file number");
    uint64_t source_line = parse_unsigned("a line number");
    if (file > 65535) fail(line, ".loc file index too large");
    loc_file_ = static_cast<uint16_t>(file);
    loc_line_ = static_cast<uint32_t>(source_line);
    skip_rest_of_line(line);  // column and ", function_name ..., inlined_at ..."
  }

  // One type directive such as ".u32"; fails on state spaces or vector types we do not model.
  Type parse_type() {
    const Token& token = take();
    if (token.kind != Tok::directive) fail(token.line, "expected a type, found " + describe(token));
    Type type = type_from_name(token.text.substr(1));
    if (type == Type::none) fail(token.line, "unsupported type " + describe(token));
    return type;
  }

  // [N][M]...: returns the element count, 0 for "[]".
  uint64_t parse_array_dims(bool* open_ended) {
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

  // `.global/.const/.shared/.local [.align N] .type name[dims] [= init];` after the state space.
  void parse_variable(Space space, bool is_extern, int32_t function, uint32_t line) {
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

  void parse_initializer(std::vector<ParsedOperand>& values) {
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

  void add_symbol(Symbol symbol, uint32_t line) {
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

  void finish_layout() {
    uint64_t dynamic_start = align_up(shared_bytes_, 16);
    for (uint32_t index : extern_shared_) module_.symbols[index].offset = dynamic_start;
    lay_out_kernels(module_);
  }

  // --- Functions ----------------------------------------------------------------------------------

  // `.param [.align N] .type [.ptr [.space] [.align N]] name[N]`
  Symbol parse_param_declaration() {
    uint32_t line = peek().line;
    if (!accept_directive(".param")) fail(line, "expected .param, found " + describe(peek()));
    Symbol symbol;
    symbol.space = Space::param;
    symbol.line = line;
    bool have_align = false;
    bool in_ptr = false;
    while (peek().kind == Tok::directive) {
      std::string_view text = peek().text;
      if (text == ".align") {
        take();
        uint32_t align = static_cast<uint32_t>(parse_unsigned("an alignment"));
        if (!in_ptr) {
          symbol.align = align;
          have_align = true;
        }
      } else if (text == ".ptr") {
        take();
        in_ptr = true;
      } else if (in_ptr && (text == ".global" || text == ".shared" || text == ".const" || text == ".local")) {
        take();
      } else {
        symbol.type = parse_type();
      }
    }
    if (symbol.type == Type::none) fail(line, "missing type in .param declaration");
    const Token& name = take();
    if (name.kind != Tok::ident) fail(name.line, "expected a parameter name, found " + describe(name));
    symbol.name = std::string(name.text);
    bool open_ended = false;
    uint64_t count = parse_array_dims(&open_ended);
    if (open_ended) fail(line, ".param arrays need a size");
    uint32_t element_bytes = std::max(1u, type_bits(symbol.type) / 8);
    symbol.size = count * element_bytes;
    if (!have_align) symbol.align = element_bytes;
    return symbol;
  }

  std::vector<Symbol> parse_param_list() {
    std::vector<Symbol> params;
    expect('(', "opening a parameter list");
    if (!is_punct(')')) {
      do {
        params.push_back(parse_param_declaration());
      } while (accept(','));
    }
    expect(')', "closing the parameter list");
    return params;
  }

  void parse_function(bool is_entry, bool is_extern, uint32_t line) {
    std::vector<Symbol> returns;
    if (!is_entry && is_punct('(')) returns = parse_param_list();
    const Token& name_token = take();
    if (name_token.kind != Tok::ident)
      fail(name_token.line, "expected a function name, found " + describe(name_token));
    std::string name(name_token.text);
    std::vector<Symbol> params;
    if (is_punct('(')) params = parse_param_list();
    // Performance hints and attributes: accepted and ignored.
    while (peek().kind == Tok::directive) {
      std::string_view directive = peek().text;
      uint32_t directive_line = peek().line;
      if (directive == ".maxntid" || directive == ".reqntid" || directive == ".minnctapersm" ||
          directive == ".maxnreg" || directive == ".maxnctapersm" || directive == ".reqnctapercluster" ||
          directive == ".maxclusterrank") {
        take();
        do {
          parse_unsigned("a number");
        } while (accept(','));
      } else if (directive == ".noreturn" || directive == ".explicitcluster") {
        take();
      } else if (directive == ".pragma") {
        take();
        while (!is_punct(';') && peek().kind != Tok::end) take();
        expect(';', "after .pragma");
      } else {
        fail(directive_line, "unknown directive " + describe(peek()) + " in function header");
      }
    }
    if (accept(';')) {  // prototype: .extern .func vprintf(...); or a forward declaration
      declared_functions_.emplace(name, is_entry);
      return;
    }
    if (is_extern) fail(line, ".extern function " + name + " cannot have a body");
    if (module_.function_index.count(name)) fail(line, "redefinition of function " + name);
    uint32_t index = static_cast<uint32_t>(module_.functions.size());
    module_.function_index.emplace(name, index);
    declared_functions_.emplace(name, is_entry);
    resolve_calls_to(name, index);
    Function& function = module_.functions.emplace_back();
    function.name = name;
    function.is_entry = is_entry;
    function.line = line;
    function_ = static_cast<int32_t>(index);
    regs_.clear();
    local_symbols_.clear();
    for (Symbol& symbol : params) {
      Param param{symbol.name,  symbol.type, static_cast<uint32_t>(symbol.size),
                  symbol.align, 0,           static_cast<uint32_t>(module_.symbols.size())};
      symbol.function = function_;
      uint32_t symbol_line = symbol.line;
      add_symbol(std::move(symbol), symbol_line);
      param.offset = static_cast<uint32_t>(module_.symbols[param.sym].offset);
      module_.functions[index].params.push_back(param);
    }
    for (Symbol& symbol : returns) {
      symbol.function = function_;
      uint32_t symbol_line = symbol.line;
      add_symbol(std::move(symbol), symbol_line);
    }
    uint32_t open_line = peek().line;
    expect('{', "opening the function body");
    parse_body(open_line);
    append_implicit_return();
    resolve_branches();
    function_ = -1;
  }

  void parse_body(uint32_t open_line) {
    std::vector<uint32_t> open_blocks = {open_line};
    while (true) {
      const Token& token = peek();
      if (token.kind == Tok::end) {
        fail(open_blocks.back(), "unterminated block: missing '}' for the '{' opened here");
      }
      if (token.kind == Tok::punct && token.punct == '{') {
        open_blocks.push_back(token.line);
        take();
        regs_.push();
        local_symbols_.push();
        continue;
      }
      if (token.kind == Tok::punct && token.punct == '}') {
        take();
        open_blocks.pop_back();
        if (open_blocks.empty()) return;
        regs_.pop();
        local_symbols_.pop();
        continue;
      }
      if (token.kind == Tok::directive) {
        parse_body_directive(open_blocks.size() > 1);
        continue;
      }
      if (token.kind == Tok::ident && is_punct(':', 1)) {
        uint32_t line = token.line;
        std::string label(take().text);
        take();
        Function& function = current();
        if (!function.labels.emplace(label, static_cast<uint32_t>(function.code.size())).second) {
          fail(line, "duplicate label " + label);
        }
        continue;
      }
      parse_instruction_or_refuse();
    }
  }

  // An unsupported construct refuses only its function and the kernels that reach it: the statement is
  // skipped and parsing goes on, so the module's other kernels still load. Syntax errors stay fatal.
  void parse_instruction_or_refuse() {
    const size_t start = pos_;
    try {
      parse_instruction();
    } catch (const UnsupportedConstruct& unsupported) {
      Function& function = current();
      if (function.unsupported.empty()) {
        function.unsupported = unsupported.message;
        function.unsupported_line = unsupported.line;
        function.unsupported_text = line_text(unsupported.line);
      }
      pos_ = start;
      while (!is_punct(';') && peek().kind != Tok::end) take();
      expect(';', "after instruction");
    }
  }

  // call with a register as callee (after the optional return list): an indirect call.
  bool is_indirect_call() const {
    size_t ahead = 0;
    if (is_punct('(')) {
      while (peek(ahead).kind != Tok::end && !is_punct(')', ahead)) ++ahead;
      ahead += 2;  // ')' and ','
    }
    const Token& callee = peek(ahead);
    return callee.kind == Tok::reg || (callee.kind == Tok::ident && regs_.find(callee.text));
  }

  Function& current() { return module_.functions[function_]; }

  void parse_body_directive(bool in_nested_block) {
    const Token& token = peek();
    std::string_view name = token.text;
    uint32_t line = token.line;
    if (name == ".reg") {
      take();
      parse_reg_declaration(line);
    } else if (name == ".loc") {
      parse_loc();
    } else if (name == ".pragma") {
      take();
      while (!is_punct(';') && peek().kind != Tok::end) take();
      expect(';', "after .pragma");
    } else if (name == ".local" || name == ".shared") {
      take();
      parse_variable(name == ".local" ? Space::local : Space::shared, false, function_, line);
    } else if (name == ".param") {
      if (!in_nested_block) fail(line, ".param inside a function body must be in a call block");
      Symbol symbol = parse_param_declaration();
      symbol.call_scope = true;
      symbol.function = function_;
      expect(';', "after .param declaration");
      add_symbol(std::move(symbol), line);
    } else if (name == ".extern") {
      take();
      if (!accept_directive(".shared")) fail(line, "only .extern .shared is supported inside a function");
      parse_variable(Space::shared, true, function_, line);
    } else {
      fail(line, "unknown or unsupported directive " + describe(token));
    }
  }

  void add_register(std::string name, Type type, uint32_t line) {
    Function& function = current();
    uint32_t index = static_cast<uint32_t>(function.regs.size());
    if (!regs_.add(name, index)) fail(line, "redeclaration of register " + name);
    function.regs.push_back(RegInfo{std::move(name), type});
  }

  void parse_reg_declaration(uint32_t line) {
    if (peek().text == ".v2" || peek().text == ".v4") fail(line, "vector registers are not supported");
    Type type = parse_type();
    do {
      const Token& name = take();
      if (name.kind != Tok::reg && name.kind != Tok::ident)
        fail(name.line, "expected a register name, found " + describe(name));
      if (accept('<')) {
        uint64_t count = parse_unsigned("a register count");
        expect('>', "closing the register range");
        std::string base(name.text);
        for (uint64_t i = 0; i < count; ++i) add_register(base + std::to_string(i), type, line);
      } else {
        add_register(std::string(name.text), type, line);
      }
    } while (accept(','));
    expect(';', "after .reg declaration");
  }

  // --- Instructions -------------------------------------------------------------------------------

  uint32_t lookup_register(const Token& token) {
    const uint32_t* index = regs_.find(token.text);
    if (!index) fail(token.line, "undeclared register " + std::string(token.text));
    return *index;
  }

  const uint32_t* lookup_symbol(std::string_view name) const {
    if (const uint32_t* index = local_symbols_.find(name)) return index;
    auto it = module_symbols_.find(name);
    return it == module_symbols_.end() ? nullptr : &it->second;
  }

  // A special register, or a register named by a %-token or an identifier; undeclared names are errors.
  ParsedOperand parse_register_operand(const Token& token) {
    ParsedOperand parsed;
    if (token.kind == Tok::reg) {
      auto special = special_registers().find(token.text);
      if (special != special_registers().end()) {
        parsed.operand.kind = OperandKind::special;
        parsed.operand.sreg = special->second;
        return parsed;
      }
    }
    parsed.operand.kind = OperandKind::reg;
    parsed.operand.reg = lookup_register(token);
    return parsed;
  }

  ParsedOperand parse_address() {
    uint32_t line = take().line;  // '['
    ParsedOperand parsed;
    parsed.operand.kind = OperandKind::mem;
    const Token& base = peek();
    bool need_offset = false;
    if (base.kind == Tok::reg || (base.kind == Tok::ident && regs_.find(base.text))) {
      take();
      parsed.operand.reg = lookup_register(base);
    } else if (base.kind == Tok::ident) {
      take();
      const uint32_t* symbol = lookup_symbol(base.text);
      if (!symbol) fail(base.line, "undefined symbol " + std::string(base.text));
      parsed.operand.sym = *symbol;
    } else {
      need_offset = true;
    }
    if (need_offset || is_punct('+') || is_punct('-')) {
      if (!need_offset && accept('+') && !is_punct('-') && peek().kind != Tok::integer &&
          peek().text != "WARP_SZ") {
        fail(line, "bad operand: expected an offset in the address, found " + describe(peek()));
      }
      ParsedOperand offset = parse_literal();
      if (offset.literal != ParsedOperand::Literal::integer)
        fail(line, "bad operand: address offset must be an integer");
      parsed.operand.imm = offset.operand.imm;
    }
    expect(']', "closing the address");
    return parsed;
  }

  ParsedOperand parse_operand() {
    const Token& token = peek();
    uint32_t line = token.line;
    if (token.kind == Tok::punct) {
      switch (token.punct) {
        case '[':
          return parse_address();
        case '!': {
          take();
          const Token& reg = take();
          if (reg.kind != Tok::reg && reg.kind != Tok::ident)
            fail(line, "bad operand: '!' needs a predicate");
          ParsedOperand parsed = parse_register_operand(reg);
          if (parsed.operand.kind != OperandKind::reg) fail(line, "bad operand: '!' needs a predicate");
          parsed.operand.negate = true;
          return parsed;
        }
        case '{': {
          take();
          ParsedOperand parsed;
          parsed.operand.kind = OperandKind::vec;
          do {
            if (parsed.operand.count == 4) fail(line, "bad operand: vector with more than 4 elements");
            const Token& element = take();
            uint32_t reg = kNoReg;
            if (element.kind == Tok::ident && element.text == "_") {
              reg = kNoReg;
            } else if (element.kind == Tok::reg || element.kind == Tok::ident) {
              reg = lookup_register(element);
            } else if (element.kind == Tok::integer || element.kind == Tok::float_lit) {
              --pos_;
              reg = materialize_literal(line);
            } else {
              fail(line, "bad operand: vector elements must be registers, found " + describe(element));
            }
            parsed.operand.vregs[parsed.operand.count++] = reg;
          } while (accept(','));
          expect('}', "closing the vector operand");
          return parsed;
        }
        case '-':
          return parse_literal();
        default:
          fail(line, "bad operand " + describe(token));
      }
    }
    if (token.kind == Tok::integer || token.kind == Tok::float_lit || token.text == "WARP_SZ")
      return parse_literal();
    if (token.kind == Tok::reg || (token.kind == Tok::ident && regs_.find(token.text))) {
      take();
      ParsedOperand parsed = parse_register_operand(token);
      if (accept('|')) {
        const Token& second = take();
        if (second.kind != Tok::reg && second.kind != Tok::ident) fail(line, "bad operand after '|'");
        parsed.pair_reg = lookup_register(second);
      }
      return parsed;
    }
    if (token.kind == Tok::ident) {
      take();
      ParsedOperand parsed;
      if (token.text == "_") {
        parsed.operand.kind = OperandKind::sink;
        return parsed;
      }
      if (const uint32_t* symbol = lookup_symbol(token.text)) {
        parsed.operand.kind = OperandKind::sym_addr;
        parsed.operand.sym = *symbol;
        if (accept('+')) parsed.operand.imm = parse_literal().operand.imm;
        return parsed;
      }
      parsed.operand.kind = OperandKind::label;  // resolved (or rejected) once the body is complete
      parsed.name = token.text;
      return parsed;
    }
    fail(line, "bad operand " + describe(token));
  }

  // nvcc writes immediates inside vector operands ("mov.b32 %f1, {0, %rs4};"). A vector holds registers
  // only, so the literal goes into a hidden register set by a mov emitted just before the instruction.
  uint32_t materialize_literal(uint32_t line) {
    ParsedOperand literal = parse_literal();
    if (literal.literal == ParsedOperand::Literal::decimal)
      fail(line, "bad operand: decimal float in a vector");
    Function& function = current();
    uint32_t reg = static_cast<uint32_t>(function.regs.size());
    function.regs.push_back(RegInfo{"%__vector_literal" + std::to_string(reg), Type::b64});
    Instr mov;
    mov.op = Op::mov;
    mov.type = Type::b64;
    mov.line = line;
    mov.loc_file = loc_file_;
    mov.loc_line = loc_line_;
    mov.ndst = 1;
    mov.dst[0].kind = OperandKind::reg;
    mov.dst[0].reg = reg;
    mov.nsrc = 1;
    mov.src[0] = literal.operand;
    literal_moves_.push_back(mov);
    return reg;
  }

  void parse_instruction() {
    Instr instr;
    uint32_t line = peek().line;
    instr.line = line;
    instr.loc_file = loc_file_;
    instr.loc_line = loc_line_;
    if (accept('@')) {
      instr.guard_neg = accept('!');
      const Token& guard = take();
      if (guard.kind != Tok::reg && guard.kind != Tok::ident)
        fail(line, "bad guard: expected a predicate register");
      instr.guard = lookup_register(guard);
      if (current().regs[instr.guard].type != Type::pred)
        fail(line, "guard " + std::string(guard.text) + " is not a predicate");
    }
    const Token& opcode = take();
    if (opcode.kind != Tok::ident) fail(opcode.line, "expected an instruction, found " + describe(opcode));
    if (opcode.text == "call" || opcode.text.starts_with("call.")) {
      if (is_indirect_call()) refuse(line, "indirect calls are not supported");
      parse_call(opcode, instr);
      return;
    }
    if (!is_supported_opcode(opcode.text))
      refuse(line, "unsupported instruction '" + std::string(opcode.text) + "'");
    operands_.clear();
    literal_moves_.clear();
    if (!is_punct(';')) {
      do {
        operands_.push_back(parse_operand());
      } while (accept(','));
    }
    expect(';', "after instruction");
    try {
      decode_instruction(opcode.text, operands_, instr);
    } catch (const UnsupportedError& error) {
      refuse(line, error.what());
    } catch (const DecodeError& error) {
      fail(line, error.what());
    }
    for (const Instr& mov : literal_moves_) current().code.push_back(mov);
    if (instr.op == Op::bra) {
      pending_branches_.push_back({static_cast<uint32_t>(current().code.size()), operands_[0].name, line});
    }
    current().code.push_back(instr);
  }

  // Parses a call argument list "(a, b)" of call-scope param names into symbol indices.
  std::vector<uint32_t> parse_call_params(uint32_t line) {
    std::vector<uint32_t> symbols;
    expect('(', "opening call parameters");
    if (!is_punct(')')) {
      do {
        const Token& name = take();
        const uint32_t* symbol = name.kind == Tok::ident ? lookup_symbol(name.text) : nullptr;
        if (!symbol)
          fail(line, "bad operand: call arguments must be declared .param names, found " + describe(name));
        if (module_.symbols[*symbol].space != Space::param)
          fail(line, "bad operand: call argument is not a .param");
        symbols.push_back(*symbol);
      } while (accept(','));
    }
    expect(')', "closing call parameters");
    return symbols;
  }

  void parse_call(const Token& opcode, Instr& instr) {
    uint32_t line = instr.line;
    instr.op = Op::call;
    std::string_view mods = opcode.text.substr(4);
    if (mods == ".uni") {
      instr.flags |= kUni;
    } else if (!mods.empty()) {
      fail(line, "unsupported modifier in '" + std::string(opcode.text) + "'");
    }
    std::vector<uint32_t> returns;
    if (is_punct('(')) {
      returns = parse_call_params(line);
      expect(',', "after call return parameters");
    }
    const Token& callee = take();
    if (callee.kind != Tok::ident) fail(line, "indirect calls are not supported");
    std::vector<uint32_t> args;
    if (accept(',')) args = parse_call_params(line);
    if (accept(',')) fail(line, "call prototypes (indirect calls) are not supported");
    expect(';', "after call");
    if (!declared_functions_.count(callee.text))
      fail(line, "call to undeclared function " + std::string(callee.text));
    size_t min_args = 0;
    if (callee.text == "vprintf") {
      instr.sub = Sub::call_vprintf;
      min_args = 2;
    } else if (callee.text == "__assertfail") {
      instr.sub = Sub::call_assertfail;
      min_args = 4;
    } else {
      // A device function: link_device_calls appends its body to every kernel that reaches it. The callee
      // index is set here when the body is already known and when the body is parsed otherwise.
      Function& caller = current();
      instr.call_site = static_cast<uint32_t>(caller.call_sites.size());
      caller.call_sites.push_back(CallSite{std::string(callee.text), std::move(args), std::move(returns)});
      auto defined = module_.function_index.find(std::string(callee.text));
      if (defined != module_.function_index.end()) instr.callee = defined->second;
      caller.code.push_back(instr);
      return;
    }
    if (args.size() < min_args || args.size() > min_args + 1 || returns.size() > 1) {
      fail(line, "wrong operand count in call to " + std::string(callee.text));
    }
    // __assertfail's fifth argument (character size) is always 1 and does not fit the four source slots.
    instr.nsrc = static_cast<uint8_t>(std::min<size_t>(args.size(), 4));
    for (size_t i = 0; i < instr.nsrc; ++i) {
      instr.src[i].kind = OperandKind::sym_addr;
      instr.src[i].sym = args[i];
    }
    if (!returns.empty()) {
      instr.dst[0].kind = OperandKind::sym_addr;
      instr.dst[0].sym = returns[0];
      instr.ndst = 1;
    }
    current().code.push_back(instr);
  }

  // Calls parsed before the body of `name` (after a forward declaration) learn its index now.
  void resolve_calls_to(const std::string& name, uint32_t index) {
    for (Function& caller : module_.functions) {
      for (Instr& instr : caller.code) {
        if (instr.call_site != kNoTarget && instr.callee == kNoFunction &&
            caller.call_sites[instr.call_site].callee_name == name)
          instr.callee = index;
      }
    }
  }

  // Falling off the end of a body (or branching to a label after the last instruction) means returning; an
  // explicit ret there keeps every branch target a valid instruction index.
  void append_implicit_return() {
    Function& function = current();
    bool label_at_end = false;
    for (const auto& [label, index] : function.labels) label_at_end |= index == function.code.size();
    const Instr* last = function.code.empty() ? nullptr : &function.code.back();
    bool terminated =
        last && last->guard == kNoReg &&
        (last->op == Op::ret || last->op == Op::exit || last->op == Op::trap || last->op == Op::bra);
    if (terminated && !label_at_end) return;
    Instr ret;
    ret.op = Op::ret;
    ret.line = last_line();
    ret.loc_file = loc_file_;
    ret.loc_line = loc_line_;
    function.code.push_back(ret);
  }

  void resolve_branches() {
    Function& function = current();
    for (const PendingBranch& branch : pending_branches_) {
      auto it = function.labels.find(std::string(branch.label));
      if (it == function.labels.end()) fail(branch.line, "undefined label " + std::string(branch.label));
      function.code[branch.instr].target = it->second;
    }
    pending_branches_.clear();
  }

  std::string_view text_;
  std::string path_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  Module module_;
  NameMap<uint32_t> module_symbols_;
  NameMap<bool> declared_functions_;
  ScopedNames<uint32_t> regs_;
  ScopedNames<uint32_t> local_symbols_;
  std::vector<uint32_t> extern_shared_;
  std::vector<PendingBranch> pending_branches_;
  std::vector<ParsedOperand> operands_;
  std::vector<Instr> literal_moves_;
  uint64_t shared_bytes_ = 0;
  int32_t function_ = -1;
  uint16_t loc_file_ = 0;
  uint32_t loc_line_ = 0;
};

}  // namespace

Module parse_ptx(const std::string& text, const std::string& path) {
  Module module = Parser(text, path).run();
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
