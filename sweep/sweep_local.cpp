#include "sweep/sweep_local.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

namespace simtlm::sweep {

SweepTally run_local(const std::filesystem::path& dir, const std::vector<JobSpec>& pending, unsigned parallel,
                     SweepProgress& progress) {
  std::atomic<size_t> next{0}, done{0}, failed{0}, running{0};
  std::mutex error_mutex;
  std::string first_error;
  std::atomic<bool> broken{false};
  auto worker = [&] {
    while (!stop_requested() && !broken) {
      const size_t i = next.fetch_add(1);
      if (i >= pending.size()) return;
      ++running;
      try {
        const JobStatus s = run_job(dir, pending[i]);
        if (s.state == JobState::done) ++done;
        if (s.state == JobState::failed) ++failed;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (first_error.empty()) first_error = "job " + pending[i].id + ": " + e.what();
        broken = true;
      }
      --running;
    }
  };
  const unsigned n =
      std::max(1u, std::min<unsigned>(parallel, unsigned(std::max<size_t>(pending.size(), 1))));
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < n; ++w) workers.emplace_back(worker);
  auto tally = [&] {
    SweepTally t;
    t.total = pending.size();
    t.done = done;
    t.failed = failed;
    t.running = running;
    return t;
  };
  // On a stop, SIGTERM each tick (a child that was starting gets it too), SIGKILL after a grace period.
  std::optional<std::chrono::steady_clock::time_point> stop_seen;
  while (done + failed < pending.size()) {
    if (stop_requested()) {
      const auto now = std::chrono::steady_clock::now();
      if (!stop_seen) stop_seen = now;
      terminate_children(now - *stop_seen < std::chrono::seconds(10) ? SIGTERM : SIGKILL);
    }
    if (running == 0 && (next >= pending.size() || stop_requested() || broken)) break;
    progress.update(tally());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (std::thread& t : workers) t.join();
  const SweepTally last = tally();
  progress.finish(last);
  if (broken) throw std::runtime_error(first_error);
  return last;
}

}  // namespace simtlm::sweep
