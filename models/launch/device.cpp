#include "models/launch/device.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/location.hpp"
#include "models/launch/buffers.hpp"
#include "models/ptx/call_link.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::launch {

using ptx::Type;

namespace {

bool is_float(Type t) {
  return t == Type::f32 || t == Type::f64 || t == Type::f16 || t == Type::bf16;
}
bool is_signed_only(Type t) {
  return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64;
}

// PTX declares untyped variables as .b8/.b16/...: the launch file reads them as unsigned integers.
Type declared_element_type(Type t) {
  switch (t) {
    case Type::b8:
      return Type::u8;
    case Type::b16:
      return Type::u16;
    case Type::b32:
      return Type::u32;
    case Type::b64:
      return Type::u64;
    default:
      return parse_buffer_type(ptx::type_name(t)).value_or(Type::u8);
  }
}

// Struct layouts hold at most a few dozen fields of at most 8 bytes: far from overflow, but checked anyway.
uint64_t align_up(uint64_t v, uint64_t a) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(v, a - 1, &sum)) throw std::length_error("struct layout overflows 64 bits");
  return sum / a * a;
}

// Natural layout of a by-value struct: each field aligned to its size, the whole padded to the largest.
uint64_t struct_bytes(const std::vector<ParamValue>& fields, std::vector<uint64_t>* offsets) {
  uint64_t end = 0, max_align = 1;
  for (const ParamValue& f : fields) {
    const uint64_t size = element_bytes(f.field_type);
    end = align_up(end, size);
    if (offsets) offsets->push_back(end);
    end += size;
    max_align = std::max(max_align, size);
  }
  return align_up(end, max_align);
}

}  // namespace

Launch with_symbol_views(const Launch& launch, const ptx::Module& module) {
  Launch view = launch;
  const ModuleVariables variables(module);
  auto add = [&](const std::string& name, uint32_t line, const std::string& key) {
    if (view.find_buffer_spec(name)) return;
    BufferSpec spec = symbol_spec(launch, variables, name, line, key);
    spec.is_symbol = true;
    view.add_buffer(std::move(spec));
  };
  for (const SymbolSpec& s : launch.symbols) add(s.name, s.line, "symbols." + s.name);
  for (size_t k = 0; k < launch.outputs.size(); ++k) {
    add(launch.outputs[k], top_level_key_line(launch.path, "outputs"), fmt::format("outputs[{}]", k));
  }
  return view;
}

void add_symbol_views(const Launch& view, const ptx::Module& module,
                      const std::vector<uint64_t>& symbol_address, const ptx::GlobalMemory& memory,
                      std::map<std::string, uint64_t>& addresses,
                      std::map<std::string, std::vector<uint8_t>>& initial) {
  const ModuleVariables variables(module);
  for (const BufferSpec& spec : view.buffers) {
    if (!spec.is_symbol) continue;
    const uint64_t addr = symbol_address[size_t(variables.find(spec.name))];
    std::vector<uint8_t> bytes(spec.count * element_bytes(spec.type));
    memory.read(addr, bytes.data(), bytes.size());
    addresses[spec.name] = addr;
    initial[spec.name] = std::move(bytes);
  }
}

std::unique_ptr<ptx::Module> load_module(const std::filesystem::path& ptx, const Launch& launch) {
  auto module = std::make_unique<ptx::Module>(ptx::load_ptx_file(ptx.string()));
  if (launch.call_stack_bytes) ptx::set_call_stack_bytes(*module, launch.call_stack_bytes);
  return module;
}

uint32_t top_level_key_line(const std::filesystem::path& file, const std::string& key) {
  try {
    const YAML::Node root = YAML::LoadFile(file.string());
    for (const auto& kv : root) {
      if (kv.first.Scalar() == key) return uint32_t(kv.first.Mark().line + 1);
    }
  } catch (const YAML::Exception&) {
  }
  return 1;
}

void place_buffers(const Launch& launch, ptx::GlobalMemory& memory,
                   std::map<std::string, uint64_t>& addresses,
                   std::map<std::string, std::vector<uint8_t>>& initial) {
  for (const BufferSpec& spec : launch.buffers) {
    if (spec.is_symbol) continue;
    std::vector<uint8_t> bytes = init_buffer(launch, spec);
    uint64_t addr = 0;
    try {
      addr = memory.allocate(std::max<uint64_t>(bytes.size(), 1), kBufferAlign, spec.name, spec.padding);
    } catch (const std::length_error& e) {
      throw LaunchError(common::at_location(launch.path.string(), spec.line,
                                            fmt::format("buffers.{}: {}", spec.name, e.what())));
    }
    if (!bytes.empty()) memory.write(addr, bytes.data(), bytes.size());
    addresses[spec.name] = addr;
    initial[spec.name] = std::move(bytes);
  }
}

namespace {

bool is_module_variable(const ptx::Symbol& s) {
  return s.function < 0 && (s.space == ptx::Space::global || s.space == ptx::Space::constant);
}

}  // namespace

int find_module_variable(const ptx::Module& module, const std::string& name) {
  for (size_t k = 0; k < module.symbols.size(); ++k) {
    if (module.symbols[k].name == name && is_module_variable(module.symbols[k])) return int(k);
  }
  return -1;
}

ModuleVariables::ModuleVariables(const ptx::Module& module) : module_(module) {
  for (size_t k = 0; k < module.symbols.size(); ++k) {
    if (is_module_variable(module.symbols[k])) index_.emplace(module.symbols[k].name, int(k));
  }
}

int ModuleVariables::find(const std::string& name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

BufferSpec symbol_spec(const Launch& launch, const ptx::Module& module, const std::string& name,
                       uint32_t line, const std::string& key) {
  return symbol_spec(launch, ModuleVariables(module), name, line, key);
}

BufferSpec symbol_spec(const Launch& launch, const ModuleVariables& variables, const std::string& name,
                       uint32_t line, const std::string& key) {
  const ptx::Module& module = variables.module();
  const int index = variables.find(name);
  auto fail = [&](const std::string& msg) {
    throw LaunchError(common::at_location(launch.path.string(), line, key + ": " + msg));
  };
  if (index < 0) {
    std::string names;
    for (const ptx::Symbol& s : module.symbols) {
      if (s.function < 0 && (s.space == ptx::Space::global || s.space == ptx::Space::constant) && s.size)
        names += (names.empty() ? "" : ", ") + s.name;
    }
    fail(fmt::format("'{}' is neither a buffer nor a __device__/__constant__ variable of {} (variables: {})",
                     name, module.path, names.empty() ? "none" : names));
  }
  const ptx::Symbol& sym = module.symbols[size_t(index)];
  BufferSpec spec;
  spec.name = name;
  spec.line = line;
  spec.is_symbol = true;
  spec.type = declared_element_type(sym.type);
  const SymbolSpec* given = launch.find_symbol_spec(name);
  if (given && given->type != Type::none) spec.type = given->type;
  const uint64_t esize = element_bytes(spec.type);
  spec.count = given && given->count ? given->count : sym.size / esize;
  if (spec.count * esize != sym.size) {
    fail(fmt::format("{} {} elements are {} bytes but {} declares {} bytes", spec.count,
                     ptx::type_name(spec.type), spec.count * esize, name, sym.size));
  }
  if (given) spec.init = given->init;
  return spec;
}

std::vector<uint64_t> place_symbols(const Launch& launch, const ptx::Module& module, bool apply_specs,
                                    ptx::GlobalMemory& memory,
                                    std::map<std::string, std::vector<uint8_t>>& initial,
                                    std::set<std::string>& initialised) {
  std::vector<uint64_t> address(module.symbols.size(), 0);
  uint64_t total = 0;
  for (const BufferSpec& spec : launch.buffers) {
    if (!spec.is_symbol) total += spec.count * element_bytes(spec.type);  // load_launch bounded the sum
  }
  for (size_t k = 0; k < module.symbols.size(); ++k) {
    const ptx::Symbol& sym = module.symbols[k];
    if ((sym.space != ptx::Space::global && sym.space != ptx::Space::constant) || sym.size == 0) continue;
    const auto fail = [&](const std::string& what) {
      throw LaunchError(fmt::format("{}: module variable {} ({}:{}, {} bytes): {}", launch.path.string(),
                                    sym.name, module.path, sym.line, sym.size, what));
    };
    if (__builtin_add_overflow(total, sym.size, &total) || total > kMaxLaunchBytes) {
      fail(fmt::format(
          "with the buffers and earlier module variables it exceeds the limit of {} bytes (2 GiB) "
          "of a launch",
          kMaxLaunchBytes));
    }
    uint64_t addr = 0;
    try {
      addr = memory.allocate(sym.size, std::max<uint64_t>(sym.align, kBufferAlign), sym.name);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    if (!sym.init.empty()) memory.write(addr, sym.init.data(), std::min<uint64_t>(sym.init.size(), sym.size));
    address[k] = addr;
  }
  if (!apply_specs) return address;
  const ModuleVariables variables(module);
  for (const SymbolSpec& given : launch.symbols) {
    const BufferSpec spec = symbol_spec(launch, variables, given.name, given.line, "symbols." + given.name);
    std::vector<uint8_t> bytes = init_buffer(launch, spec);
    const uint64_t addr = address[size_t(variables.find(given.name))];
    memory.write(addr, bytes.data(), bytes.size());
    initial[given.name] = std::move(bytes);
    initialised.insert(given.name);
  }
  return address;
}

void validate_params(const Launch& launch, const ptx::Function& kernel, const std::vector<ParamValue>& values,
                     const std::string& where) {
  const auto& params = kernel.params;
  if (params.size() != values.size()) {
    std::string names;
    for (const auto& p : params)
      names += fmt::format("{}.{} {}", names.empty() ? "" : ", ", ptx::type_name(p.type), p.name);
    throw LaunchError(fmt::format("{}: kernel {} takes {} parameters ({}) but {} are given", where,
                                  kernel.name, params.size(), names, values.size()));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ptx::Param& p = params[i];
    const ParamValue& v = values[i];
    auto fail = [&](const std::string& msg) {
      throw LaunchError(common::at_location(
          launch.path.string(), v.line,
          fmt::format("params[{}]: {} (.param .{} {})", i, msg, ptx::type_name(p.type), p.name)));
    };
    const unsigned bytes = element_bytes(p.type);
    if (bytes == 0 || p.size != bytes) {
      if (v.kind == ParamValue::Kind::bytes) {
        if (v.bytes.size() != p.size)
          fail(fmt::format("{} bytes given for a {}-byte parameter", v.bytes.size(), p.size));
        continue;
      }
      if (v.kind == ParamValue::Kind::fields) {
        const uint64_t size = struct_bytes(v.fields, nullptr);
        if (size != p.size)
          fail(fmt::format("the struct's fields take {} bytes with natural alignment, the parameter {}", size,
                           p.size));
        continue;
      }
      fail(fmt::format("a by-value parameter of {} bytes: give {{struct: [...]}} or {{bytes: \"...\"}}",
                       p.size));
    }
    if (v.kind == ParamValue::Kind::bytes || v.kind == ParamValue::Kind::fields) {
      if (v.kind == ParamValue::Kind::bytes && v.bytes.size() == bytes) continue;
      if (v.kind == ParamValue::Kind::fields && struct_bytes(v.fields, nullptr) == bytes) continue;
      fail(fmt::format("the value does not fill the {}-byte parameter", bytes));
    }
    if (v.kind == ParamValue::Kind::texture) {
      if (bytes != 8 || is_float(p.type))
        fail(fmt::format("texture '{}' passes a 64-bit texture object (cudaTextureObject_t)", v.buffer));
      continue;
    }
    if (v.kind == ParamValue::Kind::buffer || v.kind == ParamValue::Kind::null) {
      if (bytes != 8 || is_float(p.type))
        fail(v.kind == ParamValue::Kind::null ? "null passes a 64-bit pointer"
                                              : fmt::format("buffer '{}' passes a 64-bit address", v.buffer));
      continue;
    }
    if (is_float(p.type)) {
      if (p.type != Type::f32 && p.type != Type::f64) fail("half-precision parameters are not supported");
      if (v.kind == ParamValue::Kind::real) {
        uint8_t probe[8];
        const std::string error = encode_element(p.type, v.text, probe);
        if (!error.empty()) fail(error);
      }
      continue;
    }
    if (v.kind == ParamValue::Kind::expression) continue;  // range-checked per launch, when i is known
    // A real with an integral value ("3.0") is accepted; anything else would silently truncate.
    if (v.kind == ParamValue::Kind::real &&
        (std::nearbyint(v.real) != v.real || std::fabs(v.real) > 0x1.0p63)) {
      fail(fmt::format("{} is not an integer", v.text));
    }
    const int64_t value = v.kind == ParamValue::Kind::real ? int64_t(v.real) : v.integer;
    const unsigned bits = bytes * 8;
    // nvcc declares int and short parameters as .u32/.u16, so unsigned types also take negative values.
    const __int128 lo = -(__int128(1) << (bits - 1));
    const __int128 hi = is_signed_only(p.type) ? (__int128(1) << (bits - 1)) - 1 : (__int128(1) << bits) - 1;
    if (bits < 64 && (value < lo || value > hi)) fail(fmt::format("{} is out of range", value));
  }
}

namespace {

// Writes one scalar value of type `type` (a parameter or a struct field) at dst.
void write_scalar(const Launch& launch, const ParamValue& v, Type type, uint32_t size,
                  const std::map<std::string, uint64_t>& addresses, const ExpressionScope& scope,
                  uint8_t* dst, const std::string& key) {
  auto fail = [&](const std::string& msg) {
    throw LaunchError(common::at_location(launch.path.string(), v.line, key + ": " + msg));
  };
  switch (v.kind) {
    case ParamValue::Kind::null:
      std::memset(dst, 0, 8);
      return;
    case ParamValue::Kind::texture: {
      const uint64_t handle = ptx::texture_handle(size_t(launch.find_texture(v.buffer)));
      std::memcpy(dst, &handle, 8);
      return;
    }
    case ParamValue::Kind::buffer: {
      const BufferSpec* spec = launch.find_buffer_spec(v.buffer);
      const uint64_t bytes = spec->count * element_bytes(spec->type);
      int64_t offset =
          v.offset.empty()
              ? 0
              : evaluate_expression(v.offset, scope, common::at_location(launch.path.string(), v.line, key));
      const __int128 offset_bytes = __int128(offset) * (v.offset_in_bytes ? 1 : element_bytes(spec->type));
      if (offset_bytes < 0 || offset_bytes > __int128(bytes)) {
        fail(fmt::format("offset {}{} ({}) is outside buffer {} of {} bytes", offset,
                         v.offset_in_bytes ? " bytes" : " elements", scope.describe(), v.buffer, bytes));
      }
      const uint64_t addr = addresses.at(v.buffer) + uint64_t(offset_bytes);
      std::memcpy(dst, &addr, 8);
      return;
    }
    default:
      break;
  }
  if (type == Type::f32 || type == Type::f64) {
    if (v.kind == ParamValue::Kind::real) {
      (void)encode_element(type, v.text, dst);  // straight from the text: one rounding
      return;
    }
    const int64_t n =
        v.kind == ParamValue::Kind::expression
            ? evaluate_expression(v.text, scope, common::at_location(launch.path.string(), v.line, key))
            : v.integer;
    if (type == Type::f32) {
      const float f = float(n);
      std::memcpy(dst, &f, 4);
    } else {
      const double d = double(n);
      std::memcpy(dst, &d, 8);
    }
    return;
  }
  int64_t value = v.integer;
  if (v.kind == ParamValue::Kind::real) {
    if (std::nearbyint(v.real) != v.real || std::fabs(v.real) > 0x1.0p63)
      fail(fmt::format("{} is not an integer", v.text));
    value = int64_t(v.real);
  }
  if (v.kind == ParamValue::Kind::expression) {
    value = evaluate_expression(v.text, scope, common::at_location(launch.path.string(), v.line, key));
  }
  const unsigned bits = size * 8;
  const __int128 lo = -(__int128(1) << (bits - 1));
  const __int128 hi = is_signed_only(type) ? (__int128(1) << (bits - 1)) - 1 : (__int128(1) << bits) - 1;
  if (bits < 64 && (value < lo || value > hi))
    fail(fmt::format("{} is out of range for {} ({})", value, ptx::type_name(type), scope.describe()));
  const uint64_t raw = uint64_t(value);  // little-endian low bytes: two's complement truncation
  std::memcpy(dst, &raw, size);
}

}  // namespace

std::vector<uint8_t> build_param_buffer(const Launch& launch, const ptx::Function& kernel,
                                        const std::vector<ParamValue>& params,
                                        const std::map<std::string, uint64_t>& addresses, int64_t i) {
  ExpressionScope scope;
  scope.i = i;
  scope.constants = &launch.constants;
  return build_param_buffer(launch, kernel, params, addresses, scope);
}

std::vector<uint8_t> build_param_buffer(const Launch& launch, const ptx::Function& kernel,
                                        const std::vector<ParamValue>& params,
                                        const std::map<std::string, uint64_t>& addresses,
                                        const ExpressionScope& scope) {
  uint32_t size = kernel.param_bytes;
  for (const auto& p : kernel.params) size = std::max(size, p.offset + p.size);
  std::vector<uint8_t> buffer(size, 0);
  for (size_t k = 0; k < kernel.params.size(); ++k) {
    const ptx::Param& p = kernel.params[k];
    const ParamValue& v = params[k];
    uint8_t* dst = &buffer[p.offset];
    const std::string key = fmt::format("params[{}]", k);
    if (v.kind == ParamValue::Kind::bytes) {
      std::memcpy(dst, v.bytes.data(), v.bytes.size());
    } else if (v.kind == ParamValue::Kind::fields) {
      std::vector<uint64_t> offsets;
      struct_bytes(v.fields, &offsets);
      for (size_t f = 0; f < v.fields.size(); ++f) {
        const ParamValue& field = v.fields[f];
        write_scalar(launch, field, field.field_type, element_bytes(field.field_type), addresses, scope,
                     dst + offsets[f], fmt::format("{}.struct[{}]", key, f));
      }
    } else {
      write_scalar(launch, v, p.type, p.size, addresses, scope, dst, key);
    }
  }
  return buffer;
}

std::vector<ptx::TextureObject> texture_objects(const Launch& launch,
                                                const std::map<std::string, uint64_t>& addresses) {
  std::vector<ptx::TextureObject> objects;
  for (const TextureSpec& spec : launch.textures) {
    ptx::TextureObject t;
    t.base = addresses.at(spec.buffer);
    std::copy(spec.dims.begin(), spec.dims.end(), t.dims);
    t.ndims = spec.ndims;
    t.element = spec.type;
    t.name = spec.name;
    objects.push_back(std::move(t));
  }
  return objects;
}

std::vector<uint32_t> const_symbols_read(const ptx::Module& module, const ptx::Function& kernel) {
  std::set<uint32_t> found;
  auto visit = [&](const ptx::Operand& op) {
    if (op.sym == ptx::kNoSym || op.sym >= module.symbols.size()) return;
    const ptx::Symbol& s = module.symbols[op.sym];
    if (s.space == ptx::Space::constant && s.function < 0 && s.size) found.insert(op.sym);
  };
  // A kernel's code image holds the .funcs it calls (models/ptx/call_link.hpp); the call graph is walked
  // as well, so this holds for any code a kernel can reach.
  std::set<const ptx::Function*> seen;
  std::vector<const ptx::Function*> work = {&kernel};
  while (!work.empty()) {
    const ptx::Function* fn = work.back();
    work.pop_back();
    if (!seen.insert(fn).second) continue;
    for (const ptx::Instr& in : fn->code) {
      for (const ptx::Operand& op : in.src) visit(op);
      for (const ptx::Operand& op : in.dst) visit(op);
    }
    for (uint32_t callee : fn->callees) {
      if (callee < module.functions.size()) work.push_back(&module.functions[callee]);
    }
  }
  return {found.begin(), found.end()};
}

std::vector<std::string> uninitialised_const_warnings(const ptx::Module& module, const ptx::Function& kernel,
                                                      const std::set<std::string>& initialised) {
  std::vector<std::string> warnings;
  for (uint32_t sym : const_symbols_read(module, kernel)) {
    const ptx::Symbol& s = module.symbols[sym];
    if (!s.init.empty() || initialised.count(s.name)) continue;
    warnings.push_back(fmt::format(
        "kernel {} reads __constant__ {} (PTX line {}), which nothing initialised (no PTX initialiser, no "
        "symbols: entry, no earlier set); it reads zeros",
        ptx::cuda_name(kernel.name) == kernel.name
            ? kernel.name
            : fmt::format("{} ({})", ptx::cuda_name(kernel.name), kernel.name),
        s.name, s.line));
  }
  return warnings;
}

}  // namespace simtlm::launch
