#include "models/ptx/ir.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simtlm::ptx {

const char* type_name(Type t) {
  static const char* const kNames[] = {"none", "pred", "b8",    "b16",  "b32",    "b64", "b128",
                                       "u8",   "u16",  "u32",   "u64",  "s8",     "s16", "s32",
                                       "s64",  "f16",  "f16x2", "bf16", "bf16x2", "f32", "f64"};
  auto index = static_cast<size_t>(t);
  return index < std::size(kNames) ? kNames[index] : "?";
}

const char* space_name(Space s) {
  static const char* const kNames[] = {"none",  "reg",   "global", "shared",
                                       "local", "param", "const",  "generic"};
  auto index = static_cast<size_t>(s);
  return index < std::size(kNames) ? kNames[index] : "?";
}

const char* op_name(Op op) {
  static const char* const kNames[] = {
      "bra",    "ret",  "exit",  "trap",  "call", "bar",       "bar.warp", "vote",  "shfl", "activemask",
      "membar", "nop",  "add",   "sub",   "mul",  "mad",       "mul24",    "mad24", "div",  "rem",
      "abs",    "neg",  "min",   "max",   "fma",  "copysign",  "sad",      "and",   "or",   "xor",
      "not",    "cnot", "shl",   "shr",   "shf",  "popc",      "clz",      "bfind", "brev", "bfe",
      "bfi",    "prmt", "lop3",  "setp",  "selp", "slct",      "testp",    "mov",   "cvt",  "cvta",
      "ld",     "st",   "atom",  "red",   "sqrt", "rsqrt",     "rcp",      "ex2",   "lg2",  "sin",
      "cos",    "tanh", "match", "redux", "fns",  "nanosleep", "tex"};
  static_assert(std::size(kNames) == static_cast<size_t>(Op::count_), "op_name table out of date");
  auto index = static_cast<size_t>(op);
  return index < std::size(kNames) ? kNames[index] : "?";
}

namespace {

// "_Z5helloPii" -> "hello"; returns the input when it does not demangle. The name before '(' keeps any
// namespace and template qualification ("ns::k<int>").
std::string unmangled_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !demangled) return mangled;
  const std::string full = demangled.get();
  // "(anonymous namespace)::k(float*)": that parenthesis and space belong to the name, not to the
  // parameter list or a return type.
  static const std::string kAnonymous = "(anonymous namespace)";
  int depth = 0;
  size_t name_start = 0, name_end = full.size();
  for (size_t i = 0; i < full.size(); ++i) {
    if (full.compare(i, kAnonymous.size(), kAnonymous) == 0) {
      i += kAnonymous.size() - 1;
      continue;
    }
    if (full[i] == '<') ++depth;
    if (full[i] == '>') --depth;
    if (depth != 0) continue;
    if (full[i] == '(') {
      name_end = i;
      break;
    }
    // Function template instances demangle with their return type first ("void ns::k<int>(int*)").
    if (full[i] == ' ') name_start = i + 1;
  }
  return full.substr(name_start, name_end - name_start);
}

}  // namespace

namespace {

// "kernel < 16u >" -> "kernel<16>": spaces and integer literal suffixes do not distinguish instantiations
// as a researcher writes them.
std::string loose_name(const std::string& name) {
  std::string out;
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  size_t digits_start = std::string::npos;  // start in `out` of the trailing run of digits, if a literal
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    const bool in_literal = digits_start != std::string::npos;
    if (in_literal && (c == 'u' || c == 'U' || c == 'l' || c == 'L')) continue;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (!in_literal && (out.empty() || !is_ident(out.back()))) digits_start = out.size();
    } else {
      digits_start = std::string::npos;
    }
    out.push_back(c);
  }
  return out;
}

// "ns::reduce<256u, float>" -> "ns::reduce": the name without its trailing template arguments.
std::string template_base(const std::string& name) {
  if (name.empty() || name.back() != '>') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

// True when `name` is `full` without some of its leading namespaces: "reduce6<float, 256u, true>" and
// "inner::deep<4>" name "demo::reduce6<float, 256u, true>" and "outer::inner::deep<4>", as host code inside
// those namespaces calls them.
bool names_in_scope(const std::string& full, const std::string& name) {
  if (full.size() < name.size() + 2 || full.compare(full.size() - name.size(), name.size(), name) != 0)
    return false;
  const size_t cut = full.size() - name.size();
  if (full.compare(cut - 2, 2, "::") != 0) return false;
  int depth = 0;  // the "::" must not be inside template arguments
  for (size_t i = 0; i < cut; ++i) depth += full[i] == '<' ? 1 : full[i] == '>' ? -1 : 0;
  return depth == 0;
}

}  // namespace

std::string cuda_name(const std::string& ptx_name) {
  return unmangled_name(ptx_name);
}

const Function* Module::find_entry(const std::string& name, std::string* error) const {
  auto it = function_index.find(name);
  if (it != function_index.end() && functions[it->second].is_entry) return &functions[it->second];
  std::vector<const Function*> entries;
  std::vector<std::string> demangled;
  for (const Function& function : functions) {
    if (!function.is_entry) continue;
    entries.push_back(&function);
    demangled.push_back(unmangled_name(function.name));
  }
  // Tighter matches first: the demangled name as is, then loosely, then a template's base name, then both
  // without the namespace.
  const std::string loose = loose_name(name);
  const std::function<bool(size_t)> rules[] = {
      [&](size_t i) { return demangled[i] == name; },
      [&](size_t i) { return loose_name(demangled[i]) == loose; },
      [&](size_t i) { return loose_name(template_base(demangled[i])) == loose; },
      [&](size_t i) { return names_in_scope(loose_name(demangled[i]), loose); },
      [&](size_t i) { return names_in_scope(loose_name(template_base(demangled[i])), loose); },
  };
  for (const auto& rule : rules) {
    std::vector<size_t> matches;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (rule(i)) matches.push_back(i);
    }
    if (matches.size() == 1) return entries[matches[0]];
    if (matches.size() > 1) {
      if (error) {
        *error = "kernel name '" + name + "' is ambiguous in " + path + " (" +
                 std::to_string(matches.size()) + " entries match:";
        for (size_t i : matches) *error += " " + demangled[i] + " [" + entries[i]->name + "]";
        *error += "); give the template arguments or the mangled PTX name";
      }
      return nullptr;
    }
  }
  if (error) {
    *error = "no kernel named '" + name + "' in " + path + "; entries:";
    for (size_t i = 0; i < entries.size(); ++i) {
      *error += " " + demangled[i];
      if (demangled[i] != entries[i]->name) *error += " [" + entries[i]->name + "]";
      *error += i + 1 < entries.size() ? "," : "";
    }
  }
  return nullptr;
}

}  // namespace simtlm::ptx
