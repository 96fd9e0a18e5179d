// The message types of the sc_reports the timing model issues when a run stops early (docs/systemc.md,
// "SystemC conventions"). Gpu::stop issues each as SC_ERROR with the message "kernel NAME: what happened";
// a user's sc_report_handler sees it whatever the actions. With SystemC's default actions for SC_ERROR the
// report is thrown out of sc_start as an sc_report; run_timing installs ReportActions (SC_LOG, no throw)
// for the run, so the command-line tool keeps its own exceptions and messages.
#pragma once

#include <systemc>

namespace simtlm::hw::report {

inline constexpr const char* kKernelFault = "simtlm/kernel_fault";  // a fault of the kernel (bad access...)
inline constexpr const char* kMemoryError = "simtlm/memory_error";  // an error response from the memory
inline constexpr const char* kSmError = "simtlm/sm_error";  // an SM refused to go on (RTL mismatch...)
inline constexpr const char* kDoesNotFit = "simtlm/cta_does_not_fit";  // a CTA fits no SM of the machine
inline constexpr const char* kRunaway = "simtlm/runaway";              // run.max_cycles reached
inline constexpr const char* kStuck = "simtlm/stuck";                  // the watchdog, a memory request open
inline constexpr const char* kDeadlock = "simtlm/deadlock";            // the watchdog, nothing in flight
inline constexpr const char* kLivelock = "simtlm/livelock";            // the livelock watch: state repeats
inline constexpr const char* kOutOfEvents = "simtlm/out_of_events";    // no event left, the kernel not done

inline constexpr const char* kAll[] = {kKernelFault, kMemoryError, kSmError,  kDoesNotFit, kRunaway,
                                       kStuck,       kDeadlock,    kLivelock, kOutOfEvents};

// For the lifetime of an instance: the simtlm message types' SC_ERROR reports are only logged (SC_LOG: to
// the log file if the user set one), neither displayed nor thrown, and SC_INFO reports (SystemC's own
// "simulation stopped" notes) are not displayed. The previous actions come back on destruction.
class ReportActions {
 public:
  ReportActions() {
    info_ = sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    for (size_t i = 0; i < std::size(kAll); ++i)
      errors_[i] = sc_core::sc_report_handler::set_actions(kAll[i], sc_core::SC_ERROR, sc_core::SC_LOG);
  }
  ~ReportActions() {
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, info_);
    for (size_t i = 0; i < std::size(kAll); ++i)
      sc_core::sc_report_handler::set_actions(kAll[i], sc_core::SC_ERROR, errors_[i]);
  }
  ReportActions(const ReportActions&) = delete;
  ReportActions& operator=(const ReportActions&) = delete;

 private:
  sc_core::sc_actions info_;
  sc_core::sc_actions errors_[std::size(kAll)];
};

}  // namespace simtlm::hw::report
