#include "sim/timing_child.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "models/launch/sha256.hpp"
#include "sim/timing_sequence.hpp"

namespace simtlm::sim {

using namespace hw;  // the timing model this layer drives

namespace {

std::string to_hex(const std::vector<uint8_t>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    text[2 * i] = kDigits[bytes[i] >> 4];
    text[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return text;
}

void run_single(const launch::Launch& l, const launch::SessionOptions& session_options,
                const config::MachineConfig& machine, const TimingOptions& options, nlohmann::json& out,
                const ChildReport& extra) {
  const launch::Session session(l, session_options);
  auto image = session.prepare_device();
  TimingResult r = run_timing(session, *image, machine, options);
  if (options.warp_trace) options.warp_trace->flush();  // _exit below flushes nothing
  launch::SessionResult checked;
  checked.buffers = r.buffers;
  session.verify(checked, *image);
  out["stats"] = r.stats.json();
  for (const auto& [name, bytes] : r.buffers) {
    out["sha256"][name] = launch::sha256_hex(bytes);
    if (extra.buffers) out["buffers"][name] = to_hex(bytes);
  }
  out["failures"] = checked.failures;
  out["reference_checked"] = checked.reference_checked;
  if (extra.report) extra.report(out);  // while the session the hooks point into is alive
}

}  // namespace

std::vector<uint8_t> from_hex(const std::string& text) {
  const auto nibble = [](char c) { return uint8_t(c <= '9' ? c - '0' : c - 'a' + 10); };
  std::vector<uint8_t> bytes(text.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]));
  return bytes;
}

nlohmann::json run_timing_in_child(const launch::Launch& l, const launch::SessionOptions& session_options,
                                   const config::MachineConfig& machine, const TimingOptions& options,
                                   const ChildReport& extra) {
  int fds[2];
  if (pipe(fds) != 0) return {{"error", "pipe failed"}, {"error_kind", "other"}};
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child holds the parent's --out lock (an inherited descriptor): it must die with a killed parent, or
    // the next run into that directory is refused for as long as this simulation lasts.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    close(fds[0]);
    nlohmann::json out;
    try {
      if (l.is_sequence()) {  // the whole sequence in this child's one simulation
        launch::SequenceSession sequence(l, session_options);
        launch::SessionResult checked;
        out["stats"] = run_timing_sequence(sequence, machine, checked, options);
        for (const auto& [name, bytes] : checked.buffers) {
          out["sha256"][name] = launch::sha256_hex(bytes);
          if (extra.buffers) out["buffers"][name] = to_hex(bytes);
        }
        out["failures"] = checked.failures;
        out["reference_checked"] = checked.reference_checked;
        if (extra.report) extra.report(out);
      } else {
        run_single(l, session_options, machine, options, out, extra);
      }
    } catch (const ptx::KernelError& e) {
      out = {{"error", e.what()}, {"error_kind", "kernel"}};
    } catch (const TimingError& e) {
      out = {{"error", e.what()}, {"error_kind", "timing"}};
    } catch (const config::ConfigError& e) {
      out = {{"error", e.what()}, {"error_kind", "config"}};
    } catch (const std::exception& e) {
      out = {{"error", e.what()}, {"error_kind", "other"}};
    }
    const std::string text = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

ChildResult read_child_result(const nlohmann::json& document) {
  ChildResult r;
  if (document.contains("error")) {
    r.error = document["error"].get<std::string>();
    r.error_kind = document.value("error_kind", std::string("other"));
    return r;
  }
  r.stats_json = document.value("stats", nlohmann::json::object());
  // Named first: iterating items() of a temporary would outlive it.
  const nlohmann::json sha256 = document.value("sha256", nlohmann::json::object());
  for (const auto& [name, sha] : sha256.items()) r.sha256[name] = sha.get<std::string>();
  const nlohmann::json buffers = document.value("buffers", nlohmann::json::object());
  for (const auto& [name, hex] : buffers.items()) r.buffers[name] = from_hex(hex.get<std::string>());
  r.failures = document.value("failures", std::vector<std::string>{});
  r.reference_checked = document.value("reference_checked", false);
  if (document.contains("herding")) r.herding = document["herding"];
  return r;
}

ChildResult run_timing_child(const launch::Launch& launch, const launch::SessionOptions& session_options,
                             const config::MachineConfig& machine, const TimingOptions& options,
                             const ChildReport& extra) {
  return read_child_result(run_timing_in_child(launch, session_options, machine, options, extra));
}

}  // namespace simtlm::sim
