#include "sim/waveform.hpp"

#include <string>

namespace simtlm::sim {

Waveform::Waveform(const std::filesystem::path& path, hw::Gpu& gpu, const sc_core::sc_time& clock) {
  std::string stem = path.string();
  if (stem.size() > 4 && stem.ends_with(".vcd")) stem.resize(stem.size() - 4);  // SystemC appends .vcd
  file_ = sc_core::sc_create_vcd_trace_file(stem.c_str());
  file_->set_time_unit(1, sc_core::SC_PS);  // DRAM clocks need not be whole core cycles
  waves_ = std::make_unique<mem::Waves>(file_, clock, std::string(gpu.name()) + ".clk");
  gpu.trace_waves(*waves_);
}

Waveform::~Waveform() {
  sc_core::sc_close_vcd_trace_file(file_);
}

}  // namespace simtlm::sim
