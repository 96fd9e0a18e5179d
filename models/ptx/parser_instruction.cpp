// Parser: operands (registers, special registers, addresses, literals, vectors), instructions handed to the
// decoder, call sequences, and branch targets resolved once a body is complete.
#include <charconv>

#include "models/ptx/operand_types.hpp"
#include "models/ptx/parser_internal.hpp"

namespace simtlm::ptx::parse_detail {

namespace {

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
                                            {"%lanemask_gt", SpecialReg::lanemask_gt},
                                            {"%envreg1", SpecialReg::envreg1},
                                            {"%envreg2", SpecialReg::envreg2}};
  return table;
}

// %envreg0 .. %envreg31, as PTX spells them.
bool is_envreg(std::string_view name) {
  if (!name.starts_with("%envreg")) return false;
  const std::string_view digits = name.substr(7);
  unsigned value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return error == std::errc() && end == digits.data() + digits.size() && value < 32 &&
         (digits.size() == 1 || digits[0] != '0');
}

// Why a PTX special register the model does not provide is not modelled; empty for any other name. A
// kernel reading one is refused, where an undeclared register name is an error of the whole module.
std::string unmodelled_special_register(std::string_view name) {
  if (is_envreg(name)) {
    return "special register " + std::string(name) +
           " is not supported: only %envreg1 and %envreg2, the grid workspace of a cooperative launch "
           "(cooperative_groups::this_grid()), are modelled";
  }
  static const NameMap<bool> others = {{"%dynamic_smem_size", true}, {"%total_smem_size", true},
                                       {"%aggr_smem_size", true},    {"%globaltimer_lo", true},
                                       {"%globaltimer_hi", true},    {"%is_explicit_cluster", true},
                                       {"%cluster_ctarank", true},   {"%cluster_nctarank", true}};
  const bool cluster = name.starts_with("%clusterid.") || name.starts_with("%nclusterid.") ||
                       name.starts_with("%cluster_ctaid.") || name.starts_with("%cluster_nctaid.");
  const bool counter = name.size() >= 4 && name.starts_with("%pm") && name[3] >= '0' && name[3] <= '7' &&
                       (name.size() == 4 || name.substr(4) == "_64");
  if (others.count(name) || cluster || counter)
    return "special register " + std::string(name) + " is not supported";
  return {};
}

}  // namespace

uint32_t Parser::lookup_register(const Token& token) {
  const uint32_t* index = regs_.find(token.text);
  if (!index) {
    if (std::string why = unmodelled_special_register(token.text); !why.empty()) refuse(token.line, why);
    fail(token.line, "undeclared register " + std::string(token.text));
  }
  return *index;
}

const uint32_t* Parser::lookup_symbol(std::string_view name) const {
  if (const uint32_t* index = local_symbols_.find(name)) return index;
  auto it = module_symbols_.find(name);
  return it == module_symbols_.end() ? nullptr : &it->second;
}

ParsedOperand Parser::parse_register_operand(const Token& token) {
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

ParsedOperand Parser::parse_address() {
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

ParsedOperand Parser::parse_operand() {
  const Token& token = peek();
  uint32_t line = token.line;
  if (token.kind == Tok::punct) {
    switch (token.punct) {
      case '[':
        return parse_address();
      case '!': {
        take();
        const Token& reg = take();
        if (reg.kind != Tok::reg && reg.kind != Tok::ident) fail(line, "bad operand: '!' needs a predicate");
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
          // ld/st .v8 exist for newer targets; the IR holds four elements, so only the kernel is refused.
          if (parsed.operand.count == 4)
            refuse(line, "vector operands of more than 4 elements are not supported");
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
    if (declared_functions_.count(token.text) && !is_punct('+')) {
      // `mov.u64 %rd, f;`: the function's address, a tagged 64-bit value (ir.hpp, function_address_value).
      parsed.operand.kind = OperandKind::imm;
      parsed.literal = ParsedOperand::Literal::integer;
      parsed.operand.imm = function_address(token.text, line);
      return parsed;
    }
    parsed.operand.kind = OperandKind::label;  // resolved (or rejected) once the body is complete
    parsed.name = token.text;
    return parsed;
  }
  fail(line, "bad operand " + describe(token));
}

void Parser::parse_texture_operands(uint32_t line) {
  operands_.push_back(parse_operand());  // the destination vector (checked by the decoder)
  expect(',', "after the tex destination");
  expect('[', "opening the texture operand [object, {coordinates}]");
  const Token& object = peek();
  if (object.kind == Tok::ident && !regs_.find(object.text))
    refuse(line, "texture references (.texref " + std::string(object.text) +
                     ") are not supported: pass a texture object (cudaTextureObject_t)");
  if (object.kind != Tok::reg && object.kind != Tok::ident)
    fail(line, "bad operand: expected a texture object register, found " + describe(object));
  operands_.push_back(parse_operand());
  expect(',', "after the texture object");
  if (!is_punct('{')) {
    if (peek().kind == Tok::reg || peek().kind == Tok::ident)
      refuse(line, "separate sampler operands (.texmode_independent) are not supported");
    fail(line, "bad operand: expected the coordinate vector {...}, found " + describe(peek()));
  }
  operands_.push_back(parse_operand());
  expect(']', "closing the texture operand");
  while (accept(',')) operands_.push_back(parse_operand());  // offsets, depth compare: refused by the decoder
}

uint32_t Parser::materialize_literal(uint32_t line) {
  ParsedOperand literal = parse_literal();
  if (literal.literal == ParsedOperand::Literal::decimal)
    fail(line, "bad operand: decimal float in a vector");
  Function& function = current();
  check_limit(
      line, [&] { return "the number of registers of " + function.name; }, function.regs.size() + 1,
      limits::kMaxRegistersPerFunction, "declare fewer registers");
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

void Parser::parse_instruction() {
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
    parse_call(opcode, instr);
    return;
  }
  if (!is_supported_opcode(opcode.text))
    refuse(line, "unsupported instruction '" + std::string(opcode.text) + "'");
  operands_.clear();
  literal_moves_.clear();
  if (opcode.text == "tex" || opcode.text.starts_with("tex.")) {
    parse_texture_operands(line);
  } else if (!is_punct(';')) {
    do {
      operands_.push_back(parse_operand());
    } while (accept(','));
  }
  expect(';', "after instruction");
  try {
    decode_instruction(opcode.text, operands_, instr);
    check_operand_types(instr, current().regs, opcode.text);
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

std::vector<uint32_t> Parser::parse_call_params(uint32_t line) {
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

void Parser::parse_call(const Token& opcode, Instr& instr) {
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
  if (is_indirect_call()) {
    parse_indirect_call(instr, std::move(returns));
    return;
  }
  const Token& callee = take();
  if (callee.kind != Tok::ident) fail(line, "bad call target " + describe(callee));
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
    CallSite site;
    site.callee_name = std::string(callee.text);
    site.args = std::move(args);
    site.returns = std::move(returns);
    caller.call_sites.push_back(std::move(site));
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

void Parser::parse_indirect_call(Instr& instr, std::vector<uint32_t> returns) {
  const uint32_t line = instr.line;
  const Token& target = take();
  const uint32_t reg = lookup_register(target);
  if (type_bits(current().regs[reg].type) != 64)
    fail(line, "bad operand: the target of an indirect call must be a 64-bit register");
  std::vector<uint32_t> args;
  expect(',', "after the target of an indirect call");
  if (is_punct('(')) {
    args = parse_call_params(line);
    expect(',', "before the call prototype");
  }
  const Token& name = take();
  if (name.kind != Tok::ident) fail(line, "expected a .callprototype name, found " + describe(name));
  expect(';', "after call");
  auto prototype = prototypes_.find(name.text);
  if (prototype == prototypes_.end()) {
    refuse(line, "indirect call naming " + std::string(name.text) +
                     ", which is no .callprototype of the function (.calltargets lists are not supported)");
  }
  auto matches = [&](const std::vector<uint32_t>& symbols, const std::vector<uint32_t>& sizes) {
    if (symbols.size() != sizes.size()) return false;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (module_.symbols[symbols[i]].size != sizes[i]) return false;
    return true;
  };
  if (!matches(args, prototype->second.args) || !matches(returns, prototype->second.returns)) {
    refuse(line, "indirect call whose arguments or return values do not match its prototype " +
                     std::string(name.text));
  }
  instr.op = Op::call;
  instr.nsrc = 1;
  instr.src[0].kind = OperandKind::reg;
  instr.src[0].reg = reg;
  Function& caller = current();
  instr.call_site = static_cast<uint32_t>(caller.call_sites.size());
  CallSite site;
  site.callee_name = "the function pointer in " + caller.regs[reg].name;
  site.indirect = true;
  site.args = std::move(args);
  site.returns = std::move(returns);
  site.prototype_args = prototype->second.args;
  site.prototype_returns = prototype->second.returns;
  caller.call_sites.push_back(std::move(site));
  caller.code.push_back(instr);
}

void Parser::resolve_calls_to(const std::string& name, uint32_t index) {
  for (Function& caller : module_.functions) {
    for (Instr& instr : caller.code) {
      if (instr.call_site != kNoTarget && instr.callee == kNoFunction &&
          caller.call_sites[instr.call_site].callee_name == name)
        instr.callee = index;
    }
  }
}

void Parser::append_implicit_return() {
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

void Parser::resolve_branches() {
  Function& function = current();
  for (const PendingBranch& branch : pending_branches_) {
    auto it = function.labels.find(std::string(branch.label));
    if (it == function.labels.end()) fail(branch.line, "undefined label " + std::string(branch.label));
    function.code[branch.instr].target = it->second;
  }
  pending_branches_.clear();
}

}  // namespace simtlm::ptx::parse_detail
