// Device memory of a launch file and what goes into it: buffers with their guard padding, module variables
// with the host's symbols: initialisation, and kernel parameter buffers (used by single launches and
// sequences alike).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/launch/launch.hpp"
#include "models/ptx/ir.hpp"
#include "models/ptx/memory.hpp"

namespace simtlm::launch {

inline constexpr uint64_t kBufferAlign = 256;

// The launch with a BufferSpec (is_symbol) for every module variable of symbols: and outputs:, so outputs,
// expectations and references treat them like buffers. Checks every output name.
Launch with_symbol_views(const Launch& launch, const ptx::Module& module);

// After place_symbols: the address and current contents of every is_symbol spec go to addresses and initial.
void add_symbol_views(const Launch& view, const ptx::Module& module,
                      const std::vector<uint64_t>& symbol_address, const ptx::GlobalMemory& memory,
                      std::map<std::string, uint64_t>& addresses,
                      std::map<std::string, std::vector<uint8_t>>& initial);

// Loads a PTX module for `launch` with the launch's settings applied (call_stack_bytes).
std::unique_ptr<ptx::Module> load_module(const std::filesystem::path& ptx, const Launch& launch);

// Line of a top-level key of a launch file, for errors found after loading (1 when absent).
uint32_t top_level_key_line(const std::filesystem::path& file, const std::string& key);

// Allocates and initialises every buffer of the launch in file order.
void place_buffers(const Launch& launch, ptx::GlobalMemory& memory,
                   std::map<std::string, uint64_t>& addresses,
                   std::map<std::string, std::vector<uint8_t>>& initial);

// The module-scope global/const variables of a module by name, built once so that looking up every
// symbols: entry does not rescan the module (lookups only: nothing iterates the hash map).
class ModuleVariables {
 public:
  explicit ModuleVariables(const ptx::Module& module);
  const ptx::Module& module() const { return module_; }
  // The index in Module::symbols of variable `name` (the first declared), or -1.
  int find(const std::string& name) const;

 private:
  const ptx::Module& module_;
  std::unordered_map<std::string, int> index_;
};

// The element type and count of module variable `name` as the launch file sees it: the symbols: entry's
// type and count when given (checked against the declaration's size), else from the PTX declaration.
// Throws LaunchError at `line` naming `key` when the module has no such global or const variable.
BufferSpec symbol_spec(const Launch& launch, const ModuleVariables& variables, const std::string& name,
                       uint32_t line, const std::string& key);
// As above for a single lookup (indexes the module first).
BufferSpec symbol_spec(const Launch& launch, const ptx::Module& module, const std::string& name,
                       uint32_t line, const std::string& key);

// Allocates the module's global and const variables (per Module::symbols; 0 for other spaces) and writes
// their PTX initialisers; with `apply_specs` also the launch's symbols: entries, whose names go to
// `initialised` and whose contents to `initial`.
std::vector<uint64_t> place_symbols(const Launch& launch, const ptx::Module& module, bool apply_specs,
                                    ptx::GlobalMemory& memory,
                                    std::map<std::string, std::vector<uint8_t>>& initial,
                                    std::set<std::string>& initialised);

// The index of module-scope global/const variable `name`, or -1.
int find_module_variable(const ptx::Module& module, const std::string& name);

// Checks a parameter list against a kernel's .param declarations; `where` is "file:line: key" of the list.
void validate_params(const Launch& launch, const ptx::Function& kernel, const std::vector<ParamValue>& params,
                     const std::string& where);

// The kernel's param buffer for loop index i; offsets are range-checked against their buffers (one past the
// end allowed). Throws LaunchError naming the parameter's line and i.
std::vector<uint8_t> build_param_buffer(const Launch& launch, const ptx::Function& kernel,
                                        const std::vector<ParamValue>& params,
                                        const std::map<std::string, uint64_t>& addresses, int64_t i);
// The same with the loop variables and device reads of a sequence step.
std::vector<uint8_t> build_param_buffer(const Launch& launch, const ptx::Function& kernel,
                                        const std::vector<ParamValue>& params,
                                        const std::map<std::string, uint64_t>& addresses,
                                        const ExpressionScope& scope);

// The texture objects of the launch's textures: over its buffers at `addresses`, in file order (handle
// ptx::texture_handle(i) is element i).
std::vector<ptx::TextureObject> texture_objects(const Launch& launch,
                                                const std::map<std::string, uint64_t>& addresses);

// Module-scope const-space variables named by the kernel's code or by a .func it calls (statically).
std::vector<uint32_t> const_symbols_read(const ptx::Module& module, const ptx::Function& kernel);

// "kernel K reads __constant__ S, which nothing initialised ..." for every const variable the kernel reads
// that has no PTX initialiser and is not in `initialised`.
std::vector<std::string> uninitialised_const_warnings(const ptx::Module& module, const ptx::Function& kernel,
                                                      const std::set<std::string>& initialised);

}  // namespace simtlm::launch
