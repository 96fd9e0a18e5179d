#include "models/ptx/ir.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

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
      "bra",        "ret",    "exit", "trap", "call", "bar",  "bar.warp", "vote",     "shfl",
      "activemask", "membar", "nop",  "add",  "sub",  "mul",  "mad",      "mul24",    "mad24",
      "div",        "rem",    "abs",  "neg",  "min",  "max",  "fma",      "copysign", "sad",
      "and",        "or",     "xor",  "not",  "cnot", "shl",  "shr",      "shf",      "popc",
      "clz",        "bfind",  "brev", "bfe",  "bfi",  "prmt", "lop3",     "setp",     "selp",
      "slct",       "testp",  "mov",  "cvt",  "cvta", "ld",   "st",       "atom",     "red",
      "sqrt",       "rsqrt",  "rcp",  "ex2",  "lg2",  "sin",  "cos",      "tanh"};
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
  std::string full = demangled.get();
  std::string name = full.substr(0, full.find('('));
  // Function template instances demangle with their return type first ("void ns::k<int>(int*)"): drop
  // everything up to the last space outside template arguments.
  int depth = 0;
  size_t name_start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == ' ' && depth == 0) name_start = i + 1;
  }
  return name.substr(name_start);
}

}  // namespace

const Function* Module::find_entry(const std::string& name, std::string* error) const {
  auto it = function_index.find(name);
  if (it != function_index.end() && functions[it->second].is_entry) return &functions[it->second];
  const Function* found = nullptr;
  int matches = 0;
  for (const Function& function : functions) {
    if (function.is_entry && unmangled_name(function.name) == name) {
      found = &function;
      ++matches;
    }
  }
  if (matches == 1) return found;
  if (error) {
    if (matches == 0) {
      *error = "no kernel named '" + name + "' in " + path + "; entries:";
      for (const Function& function : functions) {
        if (function.is_entry) *error += " " + function.name;
      }
    } else {
      *error = "kernel name '" + name + "' is ambiguous in " + path + " (" + std::to_string(matches) +
               " entries match); use the mangled PTX name";
    }
  }
  return nullptr;
}

}  // namespace simtlm::ptx
