// Parser: function headers and parameter lists, bodies with nested call blocks and labels, and the
// declarations inside them (.reg, .local, .shared, call-scope .param).
#include <algorithm>
#include <iterator>

#include "models/ptx/parser_internal.hpp"

namespace simtlm::ptx::parse_detail {

Symbol Parser::parse_param_declaration() {
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
      uint32_t align = parse_alignment();
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
  check_variable_size(symbol, count, line);
  uint32_t element_bytes = std::max(1u, type_bits(symbol.type) / 8);
  symbol.size = count * element_bytes;
  if (!have_align) symbol.align = element_bytes;
  return symbol;
}

std::vector<Symbol> Parser::parse_param_list() {
  std::vector<Symbol> params;
  expect('(', "opening a parameter list");
  if (!is_punct(')')) {
    do {
      check_limit(peek().line, "the number of parameters", params.size() + 1, limits::kMaxParamsPerFunction,
                  "pass a struct or a pointer instead");
      params.push_back(parse_param_declaration());
    } while (accept(','));
  }
  expect(')', "closing the parameter list");
  return params;
}

void Parser::parse_function(bool is_entry, bool is_extern, uint32_t line) {
  std::vector<Symbol> returns;
  if (!is_entry && is_punct('(')) returns = parse_param_list();
  const Token& name_token = take();
  if (name_token.kind != Tok::ident)
    fail(name_token.line, "expected a function name, found " + describe(name_token));
  std::string name(name_token.text);
  std::vector<Symbol> params;
  if (is_punct('(')) params = parse_param_list();
  // Performance hints and attributes: .maxntid and .reqntid constrain the launch; the others are ignored.
  uint32_t max_threads[3] = {0, 0, 0}, required_threads[3] = {0, 0, 0};
  while (peek().kind == Tok::directive) {
    std::string_view directive = peek().text;
    uint32_t directive_line = peek().line;
    if (directive == ".maxntid" || directive == ".reqntid") {
      uint32_t* dims = directive == ".maxntid" ? max_threads : required_threads;
      take();
      dims[0] = dims[1] = dims[2] = 1;
      for (int d = 0; d < 3; ++d) {
        const uint64_t v = parse_unsigned("a thread count");
        if (v == 0 || v > 1024)
          fail(directive_line, std::string(directive) + " dimension out of range 1..1024");
        dims[d] = static_cast<uint32_t>(v);
        if (!accept(',')) break;
      }
      check_limit(directive_line, std::string("the thread count of ") + std::string(directive),
                  uint64_t(dims[0]) * dims[1] * dims[2], limits::kMaxThreadsPerBlock,
                  "a CUDA block holds at most 1024 threads");
    } else if (directive == ".minnctapersm" || directive == ".maxnreg" || directive == ".maxnctapersm" ||
               directive == ".reqnctapercluster" || directive == ".maxclusterrank") {
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
  check_limit(line, "the number of functions in the module", declared_functions_.size() + 1,
              limits::kMaxFunctions, "split the module into several files");
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
  std::copy(std::begin(max_threads), std::end(max_threads), function.max_threads);
  std::copy(std::begin(required_threads), std::end(required_threads), function.required_threads);
  function_ = static_cast<int32_t>(index);
  regs_.clear();
  local_symbols_.clear();
  prototypes_.clear();
  last_label_.clear();
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
  finished_instructions_ += current().code.size();
  function_ = -1;
}

void Parser::parse_body(uint32_t open_line) {
  std::vector<uint32_t> open_blocks = {open_line};
  while (true) {
    const Token& token = peek();
    if (token.kind == Tok::end) {
      fail(open_blocks.back(), "unterminated block: missing '}' for the '{' opened here");
    }
    if (token.kind == Tok::punct && token.punct == '{') {
      check_limit(token.line, "the nesting depth of '{' blocks", open_blocks.size(), limits::kMaxBlockDepth,
                  "flatten the nested blocks");
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
      check_limit(
          line, [&] { return "the number of labels in " + function.name; }, function.labels.size() + 1,
          limits::kMaxLabelsPerFunction, "split the function");
      if (!function.labels.emplace(label, static_cast<uint32_t>(function.code.size())).second) {
        fail(line, "duplicate label " + label);
      }
      last_label_ = label;
      continue;
    }
    parse_instruction_or_refuse();
  }
}

void Parser::parse_instruction_or_refuse() {
  const size_t start = pos_;
  // A vector operand may add up to four literal moves before the instruction itself.
  check_limit(
      peek().line, [&] { return "the number of instructions in " + current().name; },
      current().code.size() + 5, limits::kMaxInstructionsPerFunction, "split the function");
  check_limit(peek().line, "the number of instructions in the module",
              finished_instructions_ + current().code.size() + 5, limits::kMaxLinkedInstructionsPerModule,
              "split the module into several files");
  try {
    parse_instruction();
  } catch (const UnsupportedConstruct& unsupported) {
    note_refusal(unsupported);
    pos_ = start;
    skip_statement("after instruction");
  }
}

void Parser::note_refusal(const UnsupportedConstruct& unsupported) {
  Function& function = current();
  if (!function.unsupported.empty()) return;
  function.unsupported = unsupported.message;
  function.unsupported_line = unsupported.line;
  function.unsupported_text = line_text(unsupported.line);
}

void Parser::skip_statement(const char* context) {
  while (!is_punct(';') && peek().kind != Tok::end) take();
  expect(';', context);
}

bool Parser::is_indirect_call() const {
  size_t ahead = 0;
  if (is_punct('(')) {
    while (peek(ahead).kind != Tok::end && !is_punct(')', ahead)) ++ahead;
    ahead += 2;  // ')' and ','
  }
  const Token& callee = peek(ahead);
  return callee.kind == Tok::reg || (callee.kind == Tok::ident && regs_.find(callee.text));
}

void Parser::parse_call_prototype(uint32_t line) {
  take();
  // The label before it (taken as a branch label by parse_body) names the prototype.
  Function& function = current();
  auto label = function.labels.find(last_label_);
  if (last_label_.empty() || label == function.labels.end() || label->second != function.code.size())
    fail(line, ".callprototype needs a name: `name : .callprototype ...;`");
  const std::string name = last_label_;
  function.labels.erase(label);
  last_label_.clear();
  auto sizes = [](const std::vector<Symbol>& params) {
    std::vector<uint32_t> out;
    for (const Symbol& p : params) out.push_back(static_cast<uint32_t>(p.size));
    return out;
  };
  CallPrototype prototype;
  if (is_punct('(')) prototype.returns = sizes(parse_param_list());
  const Token& sink = take();
  if (sink.kind != Tok::ident || sink.text != "_")
    fail(line, "expected '_' for the function in .callprototype, found " + describe(sink));
  if (is_punct('(')) prototype.args = sizes(parse_param_list());
  while (peek().kind == Tok::directive && peek().text == ".noreturn") take();
  expect(';', "after .callprototype");
  prototypes_.insert_or_assign(name, std::move(prototype));
}

void Parser::parse_body_directive(bool in_nested_block) {
  const Token& token = peek();
  std::string_view name = token.text;
  uint32_t line = token.line;
  if (name == ".reg") {
    take();
    parse_reg_declaration(line);
  } else if (name == ".loc") {
    parse_loc();
  } else if (name == ".pragma") {
    skip_pragma();
  } else if (name == ".callprototype") {
    parse_call_prototype(line);
  } else if (name == ".calltargets") {
    // `name : .calltargets f, g;`: an indirect call restricted to a list of functions.
    note_refusal({line,
                  "indirect calls through a .calltargets list are not supported (nvcc writes "
                  ".callprototype)"});
    skip_statement("after .calltargets");
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

void Parser::add_register(std::string name, Type type, uint32_t line) {
  Function& function = current();
  check_limit(
      line, [&] { return "the number of registers of " + function.name; }, function.regs.size() + 1,
      limits::kMaxRegistersPerFunction, "declare fewer registers");
  uint32_t index = static_cast<uint32_t>(function.regs.size());
  if (!regs_.add(name, index)) fail(line, "redeclaration of register " + name);
  function.regs.push_back(RegInfo{std::move(name), type});
}

void Parser::parse_reg_declaration(uint32_t line) {
  if (peek().text == ".v2" || peek().text == ".v4") fail(line, "vector registers are not supported");
  Type type = parse_type();
  do {
    const Token& name = take();
    if (name.kind != Tok::reg && name.kind != Tok::ident)
      fail(name.line, "expected a register name, found " + describe(name));
    if (accept('<')) {
      uint64_t count = parse_unsigned("a register count");
      expect('>', "closing the register range");
      // Checked before any name is made, so an absurd range fails at once instead of filling memory.
      check_limit(line,
                  "the number of registers of " + current().name + " with " + std::string(name.text) + "<" +
                      std::to_string(count) + ">",
                  count > limits::kMaxRegistersPerFunction ? count : current().regs.size() + count,
                  limits::kMaxRegistersPerFunction, "declare fewer registers");
      std::string base(name.text);
      for (uint64_t i = 0; i < count; ++i) add_register(base + std::to_string(i), type, line);
    } else {
      add_register(std::string(name.text), type, line);
    }
  } while (accept(','));
  expect(';', "after .reg declaration");
}

}  // namespace simtlm::ptx::parse_detail
