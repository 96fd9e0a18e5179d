// Runs the timing model in a forked child so one test can run it several times (SystemC allows one
// elaboration per process) and a crash or hang in the model fails the test instead of the test binary.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/sc/timing_run.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/session.hpp"
#include "models/launch/sha256.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::timing_test {

namespace fs = std::filesystem;

inline fs::path source_path(const std::string& relative) {
  return fs::path(SIMTLM_SOURCE_DIR) / relative;
}

inline fs::path workload_launch(const std::string& name) {
  return source_path("workloads/" + name + "/" + name + ".yaml");
}

inline launch::SessionOptions session_options() {
  launch::SessionOptions o;
  o.find_reference = workloads::find_reference;
  o.capture_printf = true;
  return o;
}

// What a child reports: the statistics, the sha256 of every buffer and the verification failures, or the
// error that stopped the run ("error" and "error_kind": kernel, timing, config or other).
inline nlohmann::json run_timing_child(const launch::Launch& l, const config::MachineConfig& machine,
                                       const hw::TimingOptions& options = {}) {
  int fds[2];
  if (pipe(fds) != 0) return {{"error", "pipe failed"}, {"error_kind", "other"}};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    nlohmann::json out;
    try {
      const launch::Session session(l, session_options());
      auto image = session.prepare_device();
      hw::TimingResult r = hw::run_timing(session, *image, machine, options);
      if (options.warp_trace) options.warp_trace->flush();  // _exit below flushes nothing
      launch::SessionResult checked;
      checked.buffers = r.buffers;
      session.verify(checked, *image);
      out["stats"] = r.stats;
      for (const auto& [name, bytes] : r.buffers) out["sha256"][name] = launch::sha256_hex(bytes);
      out["failures"] = checked.failures;
      out["reference_checked"] = checked.reference_checked;
    } catch (const ptx::KernelError& e) {
      out = {{"error", e.what()}, {"error_kind", "kernel"}};
    } catch (const hw::TimingError& e) {
      out = {{"error", e.what()}, {"error_kind", "timing"}};
    } catch (const config::ConfigError& e) {
      out = {{"error", e.what()}, {"error_kind", "config"}};
    } catch (const std::exception& e) {
      out = {{"error", e.what()}, {"error_kind", "other"}};
    }
    const std::string text = out.dump();
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    return {{"error", "the timing run crashed (status " + std::to_string(status) + ")"},
            {"error_kind", "crash"}};
  }
  return nlohmann::json::parse(text);
}

inline config::MachineConfig machine(const std::string& file,
                                     const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  config::MachineConfig m =
      file.empty() ? config::MachineConfig() : config::MachineConfig::load(source_path("configs/" + file));
  for (const auto& [path, value] : sets) m.set(path, value);
  return m;
}

}  // namespace simtlm::timing_test
