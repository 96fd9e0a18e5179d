// The PTX parser's class, shared by its translation units: parser.cpp (module level: directives, variables,
// literals), parser_function.cpp (function headers, bodies, declarations) and parser_instruction.cpp
// (operands, instructions, calls, branch targets). Not a public API.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "models/ptx/decode.hpp"
#include "models/ptx/lexer.hpp"
#include "models/ptx/limits.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx::parse_detail {

// Hash that lets maps keyed by std::string be searched with a string_view without allocating.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};
template <typename T>
using NameMap = std::unordered_map<std::string, T, StringHash, std::equal_to<>>;

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

// Where an initializer's values go: converted to the variable's bytes as they are read, so a long list
// never holds more than the variable's own size.
struct InitializerTarget {
  std::vector<uint8_t>& bytes;
  Type type;
  uint32_t element_bytes;
  uint64_t max_elements;
  uint32_t line;  // of the declaration, for conversion errors
  // Why the first element that names an address cannot be modelled ("the address of function f: ..."): such
  // elements read 0 here, and the variable refuses the kernels that use it (Symbol::unsupported).
  std::string& first_address;
};

struct PendingBranch {
  uint32_t instr;
  std::string_view label;
  uint32_t line;
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  Module run();

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
    std::string quoted = "'";  // built by appends: GCC 12 flags operator+ here with a false -Wrestrict
    quoted += token.text;
    quoted += '\'';
    return quoted;
  }

  std::string line_text(uint32_t line) const;

  [[noreturn]] void fail(uint32_t line, const std::string& message) const {
    throw PtxError(path_, line, message, line_text(line));
  }

  // Fails at `line` when `value` is over `limit` (models/ptx/limits.hpp). `what` is a string, or a callable
  // that makes one, so checks on every instruction or register build no message until one fails.
  template <typename What>
  void check_limit(uint32_t line, const What& what, uint64_t value, uint64_t limit,
                   const char* advice) const {
    if (value <= limit) return;
    if constexpr (std::is_invocable_v<const What&>) {
      fail(line, limits::limit_message(what(), value, limit, advice));
    } else {
      fail(line, limits::limit_message(std::string(what), value, limit, advice));
    }
  }

  // `.align N`: a power of two no larger than limits::kMaxAlignment.
  uint32_t parse_alignment();

  // A well-formed instruction the model does not support; see parse_instruction_or_refuse.
  struct UnsupportedConstruct {
    uint32_t line;
    std::string message;
  };
  [[noreturn]] static void refuse(uint32_t line, const std::string& message) {
    throw UnsupportedConstruct{line, message};
  }

  uint64_t parse_unsigned(const char* what);

  uint64_t integer_value(const Token& token) const;

  // Reads a literal (with optional leading '-') into a ParsedOperand.
  ParsedOperand parse_literal();

  // Skips every remaining token on `line` (directives such as .loc end at the newline, not at ';').
  void skip_rest_of_line(uint32_t line) {
    while (peek().kind != Tok::end && peek().line == line) take();
  }
  // `.pragma "...";` at module level or in a body: accepted and ignored.
  void skip_pragma() {
    take();
    while (!is_punct(';') && peek().kind != Tok::end) take();
    expect(';', "after .pragma");
  }

  // --- Module level -------------------------------------------------------------------------------

  void parse_module_statement();

  void parse_file_directive();

  void parse_loc();

  // One type directive such as ".u32"; fails on state spaces or vector types we do not model.
  Type parse_type();

  // [N][M]...: returns the element count, 0 for "[]"; a product that overflows 64 bits fails.
  uint64_t parse_array_dims(bool* open_ended);

  // Fails when a variable of `space` is larger than its limit (models/ptx/limits.hpp).
  void check_variable_size(const Symbol& symbol, uint64_t count, uint32_t line) const;

  // `.global/.const/.shared/.local [.align N] .type name[dims] [= init];` after the state space.
  void parse_variable(Space space, bool is_extern, int32_t function, uint32_t line);

  void parse_initializer(const InitializerTarget& target, uint32_t depth = 0);

  // One initializer element naming an address: `name`, `generic(name)`, either with `+ offset`, or
  // `mask(name)` after the mask literal. Returns what it names and why that is not modelled.
  std::string parse_address_element(bool after_mask);

  void add_symbol(Symbol symbol, uint32_t line);

  void finish_layout();

  // --- Functions ----------------------------------------------------------------------------------

  // `.param [.align N] .type [.ptr [.space] [.align N]] name[N]`
  Symbol parse_param_declaration();

  std::vector<Symbol> parse_param_list();

  void parse_function(bool is_entry, bool is_extern, uint32_t line);

  void parse_body(uint32_t open_line);

  // An unsupported construct refuses only its function and the kernels that reach it: the statement is
  // skipped and parsing goes on, so the module's other kernels still load. Syntax errors stay fatal.
  void parse_instruction_or_refuse();
  // Records the function's first unsupported construct (Function::unsupported).
  void note_refusal(const UnsupportedConstruct& unsupported);
  // Skips to the end of the statement and its ';'.
  void skip_statement(const char* context);

  // call with a register as callee (after the optional return list): an indirect call.
  bool is_indirect_call() const;
  // `name : .callprototype (.param .b32 _) _ (.param .b32 _);` after its label: the signature of indirect
  // calls that name it (CallSite::prototype_args, prototype_returns).
  void parse_call_prototype(uint32_t line);
  // The address value of function `name` (ir.hpp, function_address_value), registered on first use.
  uint64_t function_address(std::string_view name, uint32_t line);

  Function& current() { return module_.functions[function_]; }

  void parse_body_directive(bool in_nested_block);

  void add_register(std::string name, Type type, uint32_t line);

  void parse_reg_declaration(uint32_t line);

  // --- Instructions -------------------------------------------------------------------------------

  uint32_t lookup_register(const Token& token);

  const uint32_t* lookup_symbol(std::string_view name) const;

  // A special register, or a register named by a %-token or an identifier; undeclared names are errors.
  ParsedOperand parse_register_operand(const Token& token);

  ParsedOperand parse_address();

  ParsedOperand parse_operand();

  // nvcc writes immediates inside vector operands ("mov.b32 %f1, {0, %rs4};"). A vector holds registers
  // only, so the literal goes into a hidden register set by a mov emitted just before the instruction.
  uint32_t materialize_literal(uint32_t line);

  void parse_instruction();

  // tex: the destination, then [object, {coordinates}] pushed as two operands, then any further operands.
  void parse_texture_operands(uint32_t line);

  // Parses a call argument list "(a, b)" of call-scope param names into symbol indices.
  std::vector<uint32_t> parse_call_params(uint32_t line);

  void parse_call(const Token& opcode, Instr& instr);
  // The callee and what follows it in an indirect call: `%rd, (args), prototype;`.
  void parse_indirect_call(Instr& instr, std::vector<uint32_t> returns);

  // Calls parsed before the body of `name` (after a forward declaration) learn its index now.
  void resolve_calls_to(const std::string& name, uint32_t index);

  // Falling off the end of a body (or branching to a label after the last instruction) means returning; an
  // explicit ret there keeps every branch target a valid instruction index.
  void append_implicit_return();

  void resolve_branches();

  std::string_view text_;
  std::string path_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  Module module_;
  NameMap<uint32_t> module_symbols_;
  NameMap<bool> declared_functions_;
  NameMap<uint32_t> function_address_ids_;  // index in Module::function_addresses
  struct CallPrototype {
    std::vector<uint32_t> args, returns;  // .param sizes in bytes
  };
  NameMap<CallPrototype> prototypes_;  // of the function being parsed
  std::string last_label_;             // the label parsed last in the body (a .callprototype's name)
  ScopedNames<uint32_t> regs_;
  ScopedNames<uint32_t> local_symbols_;
  std::vector<uint32_t> extern_shared_;
  std::vector<PendingBranch> pending_branches_;
  std::vector<ParsedOperand> operands_;
  std::vector<Instr> literal_moves_;
  uint64_t shared_bytes_ = 0;
  uint64_t global_bytes_ = 0;
  uint64_t finished_instructions_ = 0;  // instructions of the functions parsed so far
  uint64_t const_bytes_ = 0;
  int32_t function_ = -1;
  uint16_t loc_file_ = 0;
  uint32_t loc_line_ = 0;
};

}  // namespace simtlm::ptx::parse_detail
