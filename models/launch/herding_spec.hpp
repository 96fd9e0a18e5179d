// What a run herds (branch and data herding paper; docs/herding.md): the `herding:` section of a launch file,
// the command line's --herd-* options, and the file `simtlm herd-profile` writes. Plain data: the hooks that
// carry it out live in hw/herding/, which resolves the sites against the PTX.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ptx/herd_safety_rule.hpp"

namespace YAML {
class Node;
}

namespace simtlm::launch {

// One static branch or load: a PC of the kernel's code, or every instruction of a CUDA source line.
struct HerdSite {
  bool by_pc = true;
  uint32_t pc = 0;
  std::string file;  // by_pc false: the .file name as the PTX writes it, or any suffix of it after a '/'
  uint32_t line = 0;
  std::string text() const;  // "12" or "mandelbrot.cu:31", as the launch file takes it back
  bool operator==(const HerdSite&) const = default;
};

// Throws std::invalid_argument: "12" (a PC) or "FILE:LINE".
HerdSite parse_herd_site(const std::string& text);

struct HerdTargets {
  bool all = false;  // every safe site of the kernel
  std::vector<HerdSite> sites;
  bool any() const { return all || !sites.empty(); }
  bool operator==(const HerdTargets&) const = default;
};

// Which way a branch goes when exactly `threshold` of its active lanes take it.
enum class HerdTie : uint8_t { not_taken, taken };

struct HerdingSpec {
  HerdTargets branches;              // branch herding
  HerdTargets loads;                 // data herding, by static load
  std::vector<std::string> buffers;  // data herding of every global load whose address lies in these buffers
  std::vector<std::string> kernels;  // only these kernels (empty: every kernel of the launch)
  uint64_t max_instances = 0;        // herding switches off after this many herding instances (0: never)
  double threshold = 0.5;            // a herded branch is taken when more than this fraction of lanes take it
  HerdTie tie = HerdTie::not_taken;
  uint32_t branch_cycles = 0;  // cycles a herded branch's majority decision adds (the paper's bound: 1)
  // Cycles a herded load's block selection adds. Unset: the latency of the machine's popular-block selector
  // (lsu.herding_selector_rounds; docs/herding.md); a given value, 0 included, overrides it.
  std::optional<uint32_t> load_cycles;
  uint32_t block_bytes = 128;  // data herding's memory block: the address bits above it name the block
  // Data herding keeps one block per group of this many lanes: 32 (a warp) or 16 (a half-warp, as compute
  // 1.x coalescers such as GT200's work), or 8.
  uint32_t group_lanes = 32;
  bool force_unsafe = false;  // herd sites the safety analysis refuses (a wrong address stays a KernelError)
  ptx::HerdSafetyRule safety = ptx::HerdSafetyRule::strict;  // the analysis's rule (`safety: relaxed`)
  bool any() const { return branches.any() || loads.any() || !buffers.empty(); }
  bool operator==(const HerdingSpec&) const = default;
};

class HerdingSpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a `herding:` map; errors name `file`, the line and the key (HerdingSpecError).
HerdingSpec read_herding_section(const YAML::Node& node, const std::filesystem::path& file);
// The same map as YAML text (indented by `indent` spaces), which read_herding_section reads back unchanged.
std::string herding_yaml(const HerdingSpec& spec, int indent = 2);
// Checks the values read_herding_section also checks (command-line changes); throws std::invalid_argument.
void check_herding_spec(const HerdingSpec& spec);

}  // namespace simtlm::launch
