#include "models/config/machine_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "models/config/yaml_file.hpp"

namespace simtlm::config {

namespace {

const ParamSpec* find_spec(const std::string& path) {
  for (const ParamSpec& spec : schema())
    if (path == spec.path) return &spec;
  return nullptr;
}

bool is_section(const std::string& prefix) {
  for (const ParamSpec& spec : schema())
    if (std::string(spec.path).rfind(prefix + ".", 0) == 0) return true;
  return false;
}

std::string range_text(const ParamSpec& spec) {
  std::ostringstream out;
  switch (spec.kind) {
    case ParamSpec::Kind::unsigned_int:
      out << (spec.power_of_two ? "a power of two in [" : "an unsigned integer in [") << uint64_t(spec.min)
          << ", " << uint64_t(spec.max) << "]";
      break;
    case ParamSpec::Kind::real:
      out << "a number in [" << spec.min << ", " << spec.max << "]";
      break;
    case ParamSpec::Kind::boolean:
      out << "true or false";
      break;
    case ParamSpec::Kind::choice:
      out << "one of";
      for (const char* c : spec.choices) out << " " << c;
      break;
  }
  return out.str();
}

// Returns the canonical text of a valid value, or an empty string.
std::string validate(const ParamSpec& spec, const std::string& text) {
  switch (spec.kind) {
    case ParamSpec::Kind::unsigned_int: {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return "";
      const double v = std::strtod(text.c_str(), nullptr);
      if (v < spec.min || v > spec.max) return "";
      const uint64_t value = std::strtoull(text.c_str(), nullptr, 10);
      if (spec.power_of_two && (value & (value - 1)) != 0) return "";
      return std::to_string(value);
    }
    case ParamSpec::Kind::real: {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !std::isfinite(v) || v < spec.min || v > spec.max) return "";
      return text;
    }
    case ParamSpec::Kind::boolean:
      return (text == "true" || text == "false") ? text : "";
    case ParamSpec::Kind::choice:
      for (const char* c : spec.choices)
        if (text == c) return text;
      return "";
  }
  return "";
}

std::string where(const std::string& file, const YAML::Node& node) {
  return file + ":" + std::to_string(node.Mark().line + 1);
}

void walk(MachineConfig& config, const std::string& file, const YAML::Node& map, const std::string& prefix) {
  std::set<std::string> seen;  // a key given twice would silently override the first
  for (const auto& item : map) {
    if (!item.first.IsScalar()) {  // "? [a, b]: 1": as<std::string>() would throw yaml-cpp's bad conversion
      throw ConfigError(where(file, item.first) + ": " + (prefix.empty() ? "(top level)" : prefix) +
                        ": a key is a parameter name, not a list or map");
    }
    const std::string key = item.first.Scalar();
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (!seen.insert(key).second) throw ConfigError(where(file, item.first) + ": " + path + ": given twice");
    const YAML::Node& value = item.second;
    if (find_spec(path)) {
      if (!value.IsScalar()) {
        throw ConfigError(where(file, value) + ": " + path + ": expected " + range_text(*find_spec(path)));
      }
      config.set(path, value.Scalar(), where(file, value));
    } else if (is_section(path)) {
      if (!value.IsMap())
        throw ConfigError(where(file, value) + ": " + path + ": expected a map of parameters");
      walk(config, file, value, path);
    } else {
      throw ConfigError(where(file, item.first) + ": " + path + ": unknown parameter (see docs/configs.md)");
    }
  }
}

}  // namespace

MachineConfig::MachineConfig() {
  for (const ParamSpec& spec : schema()) values_[spec.path] = spec.fallback;
}

void MachineConfig::set(const std::string& path, const std::string& value, const std::string& at) {
  const ParamSpec* spec = find_spec(path);
  if (!spec) throw ConfigError(at + ": " + path + ": unknown parameter (see docs/configs.md)");
  const std::string canonical = validate(*spec, value);
  if (canonical.empty()) {
    throw ConfigError(at + ": " + path + ": expected " + range_text(*spec) + ", got '" + value + "'");
  }
  values_[path] = canonical;
  if (!loading_) overrides_ += (overrides_.empty() ? "" : ", ") + at + " " + path + "=" + value;
  if (loading_) file_set_[path] = at;
  if (!spec->replaced_by) return;
  const std::string target = spec->replaced_by;
  const std::string now = values_.at(target);
  const std::string replacement = spec->translate(canonical, now);
  warnings_.push_back(at + ": " + path + " is deprecated: write " + target + ": " +
                      (replacement.empty() ? now : replacement) + " (docs/configs.md)");
  if (replacement.empty() || replacement == now) return;
  if (const auto earlier = file_set_.find(target); loading_ && earlier != file_set_.end()) {
    throw ConfigError(at + ": " + path + "=" + value + " asks for " + target + ": " + replacement + ", but " +
                      earlier->second + " set " + target + ": " + now + "; keep only " + target);
  }
  values_[target] = replacement;
  if (loading_) file_set_[target] = at;
}

std::string attribute_unit_refusal(const std::string& what, bool rtl_selected, const std::string& origin) {
  if (what.rfind("--rtl", 0) == 0) return what;
  const bool from_rtl = rtl_selected && (what.find("RTL") != std::string::npos ||
                                         what.find("permutation unit") != std::string::npos);
  return (from_rtl ? "--rtl" : origin) + ": " + what;
}

std::string MachineConfig::origin() const {
  return overrides_.empty() ? source_ : source_ + " with " + overrides_;
}

MachineConfig MachineConfig::load(const std::filesystem::path& path) {
  const std::string file = path.string();
  YAML::Node root;
  try {
    // walk() reports a key given twice with its parameter path; every map of a configuration passes it.
    root = yaml_file::load_single_document(path, "machine configuration", false);
  } catch (const yaml_file::YamlFileError& e) {
    throw ConfigError(yaml_file::located(path, e));
  }
  if (!root.IsMap()) throw ConfigError(file + ": a machine configuration is a map of sections");
  MachineConfig config;
  config.source_ = file;
  config.loading_ = true;
  walk(config, file, root, "");
  config.loading_ = false;
  config.file_set_.clear();
  for (const SchemaCheck check : schema_checks()) check(config);
  return config;
}

uint64_t MachineConfig::u(const std::string& path) const {
  return std::strtoull(values_.at(path).c_str(), nullptr, 10);
}
double MachineConfig::real(const std::string& path) const {
  return std::strtod(values_.at(path).c_str(), nullptr);
}
const std::string& MachineConfig::str(const std::string& path) const {
  return values_.at(path);
}
bool MachineConfig::flag(const std::string& path) const {
  return values_.at(path) == "true";
}

namespace {

// Where the bundled machines' numbers come from, and where a file departs from its source; the YAML
// comments say the same next to each value.
constexpr const char* kPresetSources = R"(
## Bundled machines: sources

Sources: **[T2]** Table 2 of the SLP paper (`slp-simd-lane-permutation.txt`, its GPGPU-Sim 2.1 machine);
**[WP]** NVIDIA, *NVIDIA's Next Generation CUDA Compute Architecture: Fermi* (whitepaper, 2009);
**[G480]** GPGPU-Sim's `configs/GTX480/gpgpusim.config`; **[GK110]** NVIDIA, *Kepler GK110* (whitepaper,
2012); **[DC]** the divergence-cost paper (`divergence-cost-cuda.txt`); **[RS]** Table I and Section V of the
Robust SIMD paper (`robust-simd.txt`); **[GQ]** GPGPU-Sim's `configs/QuadroFX5800/gpgpusim.config` (and its
default `-gpgpu_cache:dl2_texture_only 1`), from the 3.x distribution (the herding paper ran GPGPU-Sim 2.x);
**[CG]** NVIDIA, *CUDA C Programming Guide* (compute capability 1.x and 2.0 limits, the 1.2/1.3 coalescing
rule, arithmetic instruction throughput).

| file | parameter | value | source; disagreement |
|---|---|---|---|
| `fermi-slp.yaml` | `gpu.registers_per_sm` | 16384 | [T2] (a GT200 SM's count); a GF100 SM has 32,768 [WP], as [G480] (`-gpgpu_shader_registers 32768`). Followed since issue 28: 3 CTAs per SM instead of 4 for mummer, ray_trace and eigen_bisect (_large), 2 for convolution |
| `fermi-slp.yaml` | `gpu.sms`, `gpu.max_threads_per_sm` | 30, 1024 | [T2]; a GTX 480 has 15 SMs of 1536 threads [G480] |
| `fermi-slp.yaml` | `gpu.shared_bytes_per_sm` | 32768 | [T2]; GF100: 48 or 16 KB of a 64 KB array [WP] |
| `fermi-slp.yaml` | `l1.*`, `l2.*` lines | 64 B | [T2] 32KB/8-way/64B and 1024KB/64-way/64B; GF100 lines are 128 B, its L2 768 KB [WP], [G480]. 128-byte coalescing segments over these lines leave as two line requests |
| `fermi-slp.yaml` | `dram.channels` | 8 | [T2]; a GTX 480 has 6 [G480] |
| `fermi-slp.yaml`, defaults | `l2.atomic_cycles` | 9 | [GK110] gives Kepler one same-address atomic per clock, 9x Fermi's; taken in core cycles |
| `kepler-stack.yaml`, `maxwell-stack.yaml` | `l2.atomic_cycles` | 1 | [GK110], one same-address atomic per clock (Maxwell assumed no slower) |
| `kepler-stack.yaml` | `stack.*` | 16 entries, chunks of 4, preset `kepler` | [DC] Sections III and IV-A: 32 cycles per divergent branch, ~84 per spill and fill |
| `maxwell-stack.yaml` | `stack.preset` | `maxwell` | [DC]: 26 cycles per divergent branch from its fit (Section III; its conclusions say 24), ~176 per spill and fill |
| defaults | `dram.tCL` ... `dram.tCCD`, `dram.clock_ratio` (`gddr5`) | 12 12 12 28 2, 924/700 | [G480] GDDR5 timing (Hynix H5GQ1H24AFR) and clock domains |
| `mv5-wpu.yaml` | all but below | | [RS] Table I: four WPUs at 1 GHz, 32 KB 8-way 128 B write-back D-cache with 3-cycle hits and 256 MSHRs, 4096 KB 16-way L2 with 30-cycle hits, 57 GB/s crossbar, 300-cycle memory |
| `mv5-wpu.yaml` | `l2.mshrs` | 128 | [RS] 256 L2 MSHRs, over the 2 default banks |
| `mv5-wpu.yaml` | not representable | | SIMD width up to 64 (PTX warps are 32), MESI coherence, the crossbar's 300 MHz clock (its bandwidth is kept) |
| `gtx480.yaml` | `gpu.*`, `core.*`, `l1.*`, `l2.*` | 15 SMs of 1536 threads, 48 warps, 8 CTAs, 32768 registers, 48 KB shared; 32 lanes, 2 schedulers, GTO; 16 KB 4-way 128 B L1 (not sectored, 32 MSHRs x 8); 768 KB L2 in 12 banks, 8-way, 128 B lines, 32 MSHRs x 4 | [G480], [WP]; a full GF100 has 16 SMs [WP] |
| `gtx480.yaml` | `gpu.clock_mhz`, `core.issue_width` | 700, 2 | [G480] core clock domain (the 1400 MHz shader clock halved: a warp takes two shader cycles on 16 lanes); two warp schedulers [WP] |
| `gtx480.yaml` | `core.pipelines.*` | int, float 4/1; double 8/8 | [G480] ADD latency and initiation interval; others stay at the defaults |
| `gtx480.yaml` | `l2.latency` | 120 | [G480] `-rop_latency 120`, the partition's delay before its L2 |
| `gtx480.yaml` | `dram.*` | 6 channels, 16 banks, 4 KB rows, FR-FCFS, 16 queued; tCL tRCD tRP tRAS tCCD 12 12 12 28 2, ratio 924/700 | [G480]. Its 64-bit GDDR5 channel moves 64 bytes per burst of 8 beats in 2 command clocks (QDR); simtlm's DDR burst model takes that as 4 beats of 16 bytes (`burst_length` 4, `bus_width_bytes` 16: the same bytes and clocks per burst) |
| `gtx480.yaml` | not representable | | [G480]'s 256-byte channel interleave (`dramid@8`) and bank bit inside the column bits: simtlm interleaves partitions by the 128-byte L2 line and keeps rows contiguous; the crossbar and L1 hit latency keep the defaults (no figure in [G480]) |
| `quadro-fx5800.yaml` | `gpu.*`, `core.simd_width` | 30 SMs of 1024 threads, 32 warps, 8 CTAs, 16384 registers, 16 KB shared; 8 lanes | [GQ] (10 clusters x 3), [CG] compute 1.3 |
| `quadro-fx5800.yaml` | `gpu.clock_mhz` | 1300 | [GQ] issues a warp per 325 MHz core cycle; simtlm issues it in 4 passes of 8 lanes, so its cycle is 4 x 325 MHz |
| `quadro-fx5800.yaml` | `core.pipelines.double`, `.sfu` `initiation_interval` | 32, 16 | [CG] compute 1.3 throughput per SM per clock: 1 double-precision, 2 transcendental results |
| `quadro-fx5800.yaml` | `lsu.coalescing`, `lsu.shared_banks` | `compute13`, 16 | [CG] compute 1.2/1.3 coalescing per half-warp; 16 shared-memory banks. simtlm counts bank conflicts over the whole warp |
| `quadro-fx5800.yaml` | `l1.enabled`, `l2.enabled` | false, false | [GQ] has no `dl1`, and its `dl2` serves textures only (GPGPU-Sim's default); [CG] compute 1.x caches no global memory. Global and local requests go through the crossbar straight to DRAM; atomics are plain DRAM reads there |
| `quadro-fx5800.yaml` | `dram.*` | 8 channels, 8 banks, 2 KB rows, FR-FCFS, 16 queued; tCL tRCD tRP tRAS tCCD 10 12 10 25 2, burst 4 on 8 bytes, ratio 800/1300 | [GQ] GDDR3 (Samsung K4J52324QH-HC12 at 800 MHz), two 4-byte chips per controller |
| `quadro-fx5800.yaml` | not representable | | [GQ]'s 650 MHz crossbar clock (the crossbar keeps the defaults, in core cycles), its 256-byte channel interleave (simtlm's partitions interleave by 128 bytes, `l2.line_bytes`), the texture-only L2 (simtlm models no textures) |
)";

}  // namespace

std::string schema_markdown() {
  std::ostringstream out;
  out << "| parameter | default | values | meaning |\n|---|---|---|---|\n";
  for (const ParamSpec& spec : schema()) {
    out << "| `" << spec.path << "` | `" << spec.fallback << "` | " << range_text(spec) << " | " << spec.doc
        << " |\n";
  }
  out << kPresetSources;
  return out.str();
}

}  // namespace simtlm::config
