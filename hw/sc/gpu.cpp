#include "hw/sc/gpu.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "hw/sc/cooperative.hpp"
#include "hw/sc/machine_refusals.hpp"
#include "hw/sc/reports.hpp"

namespace simtlm::hw {

Gpu::Gpu(sc_core::sc_module_name name, const GpuParams& params, const TimingKernel& kernel,
         const SmUnits& units, const mem::MemorySystem::ChannelTarget& channel_target)
    : sc_module(name), p_(params), k_(kernel), memory_(p_.memory, channel_target), drain_("drain") {
  for (uint32_t i = 0; i < p_.sms; ++i) {
    auto sm = std::make_unique<Sm>(("sm" + std::to_string(i)).c_str(), i, p_.sm, k_, units);
    sm->on_cta_done = [this](uint32_t s) { cta_done(s); };
    sm->on_error = [this](const std::string& m, bool fault) {
      stop(m, fault,
           !fault                          ? report::kSmError
           : m.starts_with("memory error") ? report::kMemoryError
                                           : report::kKernelFault);
    };
    sm->grid_thread_instructions = &grid_thread_instructions_;
    sm->livelock_due = &livelock_due_;
    sm->on_livelock_check = [this](uint64_t now) { return livelock_check(now); };
    sm->out().bind(memory_.sm_port(i));
    sms_.push_back(std::move(sm));
  }
  for (auto& sm : sms_) drain_.watch(sm->lsu().idle_event());
  memory_.watch_idle(drain_);
  memory_.set_device_memory(k_.launch.global);  // debug transport's bytes (docs/tlm-protocol.md)
  memory_.on_error([this](const std::string& m) { stop(m, true, report::kMemoryError); });
  make_work();
  declare_method_process(start_handle, "start_method", SC_CURRENT_USER_MODULE, start);
  sensitive << start_;
  dont_initialize();
  start_.notify(sc_core::SC_ZERO_TIME);
  declare_method_process(watchdog_handle, "watchdog_method", SC_CURRENT_USER_MODULE, watchdog);
  sensitive << watchdog_;
  dont_initialize();
  declare_method_process(kernel_ended_handle, "kernel_ended_method", SC_CURRENT_USER_MODULE, kernel_ended);
  sensitive << kernel_end_;
  dont_initialize();
}

uint64_t Gpu::now_cycle() const {
  return static_cast<uint64_t>(std::ceil(sc_core::sc_time_stamp() / p_.sm.clock - 1e-9));
}

void Gpu::start() {
  // Refused before any CTA starts: a grid that cannot be resident at once would spin at its first grid
  // barrier until the watchdog (sim/cooperative_limit.hpp refuses it earlier on the command line).
  if (k_.launch.cooperative) {
    if (const std::string why = cooperative_refusal(p_, k_); !why.empty()) {
      stop(why, false, report::kDoesNotFit);
      return;
    }
  }
  // One CTA per SM per round, so the first CTAs spread over the whole machine.
  bool placed = true;
  while (placed && next_cta_ < total_ctas_) {
    placed = false;
    for (auto& sm : sms_) {
      if (next_cta_ < total_ctas_ && sm->can_accept()) {
        sm->launch_cta(next_cta_++);
        placed = true;
      }
    }
  }
  if (next_cta_ == 0 && total_ctas_ > 0) {
    stop(cta_does_not_fit(k_, cta_shortfall(p_.sm, k_)), false, report::kDoesNotFit);
    return;
  }
  arm_watchdog(now_cycle());
  arm_livelock();
}

void Gpu::dispatch(uint32_t sm) {
  while (next_cta_ < total_ctas_ && sms_[sm]->can_accept()) sms_[sm]->launch_cta(next_cta_++);
}

void Gpu::cta_done(uint32_t sm) {
  ++done_ctas_;
  if (progress_sink) progress_sink->cta_done(done_ctas_, total_ctas_, grid_thread_instructions_, now_cycle());
  dispatch(sm);
  if (finished()) {
    watchdog_.cancel();
    livelock_due_ = ~uint64_t{0};
    // The kernel ends when its memory requests are answered (the completing cycle counts); its dirty lines
    // are written back after that, timed apart from the kernel (write_back.cycles).
    drain_memory([this] { end_cycle_ = now_cycle() + 1; },
                 [this] {
                   write_back_end_cycle_ = now_cycle();
                   // In a process of its own: the SM that finished the last CTA is still on the stack.
                   if (on_kernel_end) kernel_end_.notify(sc_core::SC_ZERO_TIME);
                 });
  }
}

void Gpu::kernel_ended() {
  if (on_kernel_end()) begin_next_kernel();
}

void Gpu::make_work() {
  work_ = make_work_source(p_.sm.divergence, k_, p_.sms);
  for (auto& sm : sms_) sm->set_work(*work_);
  total_ctas_ = work_->units();
}

void Gpu::begin_next_kernel() {
  memory_.set_device_memory(k_.launch.global);
  make_work();
  next_cta_ = done_ctas_ = 0;
  grid_thread_instructions_ = 0;
  kernel_start_cycle_ = now_cycle();
  for (auto& sm : sms_) sm->next_kernel();
  start_.notify(sc_core::SC_ZERO_TIME);
}

void Gpu::stop(const std::string& message, bool kernel_fault, const char* type) {
  if (!error_.empty()) return;
  error_ = message;
  kernel_fault_ = kernel_fault;
  end_cycle_ = now_cycle();
  sc_core::sc_stop();
  // Last: with SystemC's default actions for SC_ERROR the report is thrown from here out of sc_start.
  const std::string text = fmt::format("kernel {}: {}", k_.fn.name, message);
  sc_core::sc_report_handler::report(sc_core::SC_ERROR, type, text.c_str(), __FILE__, __LINE__);
}

std::string Gpu::describe_state() const {
  std::string s;
  for (const auto& sm : sms_) {
    s += "\n SM " + std::to_string(&sm - sms_.data()) + ":";
    const std::string warps = sm->describe_warps();
    s += warps.empty() ? " no resident warp" : warps;
    if (const OutstandingRequest* r = sm->lsu().oldest()) {
      s += "\n  oldest memory request: address 0x" + fmt::format("{:x}", r->address) + " from " +
           k_.where_pc(r->pc) + ", sent at cycle " + std::to_string(r->sent_cycle) + "; " +
           std::to_string(sm->lsu().outstanding()) + " outstanding";
    }
  }
  return s;
}

void Gpu::trace_waves(mem::Waves& waves) {
  for (auto& sm : sms_) sm->trace_waves(waves);
  memory_.trace_waves(waves);
}

std::vector<std::string> Gpu::warnings() const {
  // One line per kernel and (write PC, read PC) over every SM: the first SM's instance, every SM's count.
  std::map<std::tuple<std::string, uint32_t, uint32_t>, std::pair<std::string, uint64_t>> merged;
  std::vector<std::tuple<std::string, uint32_t, uint32_t>> order;
  for (const auto& sm : sms_) {
    for (const WarpSyncChecker::Hazard& h : sm->warp_sync_hazards()) {
      auto [it, added] = merged.try_emplace({h.kernel, h.write_pc, h.read_pc}, h.message, 0);
      if (added) order.push_back(it->first);
      it->second.second += h.count;
    }
  }
  std::vector<std::string> out;
  for (const auto& key : order) {
    const auto& [message, count] = merged.at(key);
    out.push_back(message + " (" + std::to_string(count) + (count == 1 ? " such read)" : " such reads)"));
  }
  return out;
}

}  // namespace simtlm::hw
