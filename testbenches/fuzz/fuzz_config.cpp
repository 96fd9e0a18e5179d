// libFuzzer target: bytes -> machine configuration YAML -> validated MachineConfig -> every parameter read
// back at its schema kind, as the timing model's gpu_params() does. (gpu_params() itself is SystemC code,
// outside this build: docs/reliability-fuzz.md.) ConfigError is the expected answer to a bad file; anything
// else is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>

#include "models/config/machine_config.hpp"
#include "testbenches/fuzz/fuzz_common.hpp"

namespace {

using simtlm::config::ConfigError;
using simtlm::config::MachineConfig;
using simtlm::config::ParamSpec;

volatile uint64_t g_sink = 0;

void read_every_parameter(const MachineConfig& config) {
  for (const ParamSpec& spec : simtlm::config::schema()) {
    switch (spec.kind) {
      case ParamSpec::Kind::unsigned_int:
        g_sink = g_sink + config.u(spec.path);
        break;
      case ParamSpec::Kind::real:
        g_sink = g_sink + static_cast<uint64_t>(config.real(spec.path) != 0);
        break;
      case ParamSpec::Kind::choice:
        g_sink = g_sink + config.str(spec.path).size();
        break;
      case ParamSpec::Kind::boolean:
        g_sink = g_sink + config.flag(spec.path);
        break;
    }
  }
  g_sink = g_sink + config.origin().size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto path = simtlm::fuzz::scratch_dir() / "machine.yaml";
  simtlm::fuzz::write_file(path, data, size);
  try {
    read_every_parameter(MachineConfig::load(path));
  } catch (const ConfigError&) {
  } catch (const std::exception& e) {
    simtlm::fuzz::unexpected_exception("fuzz_config", e);
  }
  return 0;
}
