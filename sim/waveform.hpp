#pragma once
// --trace-vcd (docs/timing-model.md, "Waveforms"): a VCD file of the whole GPU's signals (Gpu::trace_waves)
// and a clock of the core's period, "gpu.clk", written as the simulation runs. Build it after the Gpu and
// before sc_start; the destructor closes the file.
#include <filesystem>
#include <memory>
#include <systemc>

#include "hw/sc/gpu.hpp"
#include "models/mem/waves.hpp"

namespace simtlm::sim {

class Waveform {
 public:
  Waveform(const std::filesystem::path& path, hw::Gpu& gpu, const sc_core::sc_time& clock);
  ~Waveform();
  Waveform(const Waveform&) = delete;
  Waveform& operator=(const Waveform&) = delete;

 private:
  sc_core::sc_trace_file* file_;
  std::unique_ptr<mem::Waves> waves_;
};

}  // namespace simtlm::sim
