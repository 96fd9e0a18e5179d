// The run's two guards. The watchdog stops a run that makes no progress: for run.watchdog_cycles no
// instruction issued and no request was accepted or answered anywhere in the memory system. A request that
// waits behind a long queue that moves is progress, so only a real hang (a lost response, a target that
// never answers, every warp waiting on something that cannot come) fires it. run.max_cycles stops a
// runaway kernel, one that keeps making progress but never ends, when the user sets it (0, the default, is
// no limit: an endless kernel is caught by progress, here and by the livelock watch, gpu_livelock.cpp); it
// counts from the kernel's start, so a launch sequence of many short kernels is never stopped by their total.
#include <fmt/format.h>

#include <algorithm>

#include "hw/sc/gpu.hpp"
#include "hw/sc/reports.hpp"

namespace simtlm::hw {

uint64_t Gpu::progress() const {
  uint64_t n = grid_thread_instructions_ + memory_.progress();
  for (const auto& sm : sms_) n += sm->lsu().responses();
  return n;
}

void Gpu::arm_watchdog(uint64_t now) {
  watchdog_seen_progress_ = progress();
  uint64_t period = p_.watchdog_cycles;
  if (p_.max_cycles) {
    const uint64_t deadline = kernel_start_cycle_ + p_.max_cycles;
    period = std::min(period, deadline > now ? deadline - now : 1);
  }
  watchdog_.notify(p_.sm.clock * static_cast<double>(std::max<uint64_t>(period, 1)));
}

std::string Gpu::runaway_report(uint64_t now) const {
  std::string example;
  for (const auto& sm : sms_) {
    const std::string warps = sm->describe_warps();
    if (warps.empty()) continue;
    const size_t end = warps.find('\n', 1);
    example = warps.substr(3, end == std::string::npos ? std::string::npos : end - 3);
    break;
  }
  return fmt::format(
      "run.max_cycles ({}) reached before kernel {} finished ({} of {} CTAs done, {} still running{}{}). "
      "A kernel that does not end (an endless loop) is stopped here; if this one only needs longer, raise "
      "the limit, e.g. --set run.max_cycles={} (0 = no limit). Now cycle {} (the kernel started at cycle "
      "{}):{}",
      p_.max_cycles, k_.fn.name, done_ctas_, total_ctas_, next_cta_ - done_ctas_,
      example.empty() ? "" : "; e.g. ", example, p_.max_cycles * 10, now, kernel_start_cycle_,
      describe_state());
}

void Gpu::watchdog() {
  if (finished() || !error_.empty()) return;
  const uint64_t now = now_cycle();
  if (p_.max_cycles && now - kernel_start_cycle_ >= p_.max_cycles) {
    stop(runaway_report(now), true, report::kRunaway);
    return;
  }
  if (progress() != watchdog_seen_progress_) {
    arm_watchdog(now);
    return;
  }
  const std::string quiet = fmt::format(
      "no progress for {} cycles (run.watchdog_cycles): no instruction issued and no memory request was "
      "accepted or answered anywhere",
      p_.watchdog_cycles);
  const OutstandingRequest* oldest = nullptr;
  size_t oldest_sm = 0;
  for (size_t i = 0; i < sms_.size(); ++i) {
    const OutstandingRequest* r = sms_[i]->lsu().oldest();
    if (r && (!oldest || r->sent_cycle < oldest->sent_cycle)) oldest = r, oldest_sm = i;
  }
  if (oldest) {
    stop(fmt::format(
             "stuck memory request ({}): {} of {} bytes at address 0x{:x} from SM {}, warp slot {}, {}, "
             "outstanding since cycle {} (now {}); a memory target slower than that needs a larger "
             "run.watchdog_cycles{}",
             quiet, oldest->write ? "write" : "read", oldest->bytes, oldest->address, oldest_sm, oldest->warp,
             k_.where_pc(oldest->pc), oldest->sent_cycle, now, describe_state()),
         false, report::kStuck);
    return;
  }
  stop(fmt::format("{} in kernel {} ({} of {} CTAs done, {} still running):{}", quiet, k_.fn.name, done_ctas_,
                   total_ctas_, next_cta_ - done_ctas_, describe_state()),
       false, report::kDeadlock);
}

}  // namespace simtlm::hw
