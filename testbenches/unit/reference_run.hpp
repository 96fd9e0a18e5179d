// Runs a workload's registered host reference on the buffers its launch file initialises, for tests that
// hold a reference to an independent formulation of its algorithm rather than to the kernel.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "models/launch/buffers.hpp"
#include "models/launch/device.hpp"
#include "models/launch/launch.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::workloads_test {

struct ReferenceRun {
  launch::Launch launch;
  workloads::Buffers initial, final;
};

// workloads/<name>/<name>.yaml with `overrides` applied as on the command line; `final` holds the buffers
// after the reference ran (unchanged, with a test failure, when no reference is registered under name).
inline ReferenceRun run_reference(const std::string& name, const std::vector<std::string>& overrides = {}) {
  ReferenceRun run;
  run.launch = launch::load_launch(
      std::filesystem::path(SIMTLM_SOURCE_DIR) / "workloads" / name / (name + ".yaml"), overrides);
  for (const launch::BufferSpec& spec : run.launch.buffers)
    run.initial[spec.name] = launch::init_buffer(run.launch, spec);
  run.final = run.initial;
  const workloads::ReferenceFn reference = workloads::find_reference(name);
  EXPECT_NE(reference, nullptr) << "no reference registered for " << name;
  if (reference) reference(run.launch, run.final);
  return run;
}

template <class T>
std::vector<T> elements_of(const workloads::Buffers& buffers, const std::string& name) {
  const std::vector<uint8_t>& bytes = buffers.at(name);
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

}  // namespace simtlm::workloads_test
