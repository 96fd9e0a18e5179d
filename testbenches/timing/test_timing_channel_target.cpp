// A user's own memory in every DRAM channel through sim::TimingOptions::channel_target (docs/systemc.md): a
// tiny fixed-latency AT target written here stands behind the L2 (or the crossbar without it), the run keeps
// its outputs, drain and statistics, and the target sees the requests the built-in channels would have seen.
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/launch/sequence.hpp"
#include "testbenches/timing/timing_fixture.hpp"

// Named, so that a unity batch with other timing tests keeps these helpers apart from theirs.
namespace simtlm::channel_target_test {

using namespace simtlm::timing_test;

// Answers every request `latency` after it arrives: END_REQ at once (TLM_UPDATED), BEGIN_RESP on the
// backward path, at most one response in flight per binding (the base protocol's response exclusion rule).
class FixedTarget : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<FixedTarget> in{"in"};
  uint64_t requests = 0, responses = 0;

  SC_HAS_PROCESS(FixedTarget);
  FixedTarget(sc_core::sc_module_name name, sc_core::sc_time latency)
      : sc_module(name), latency_(latency), due_("due") {
    in.register_nb_transport_fw(this, &FixedTarget::fw);
    SC_THREAD(respond);
  }

 private:
  using Gp = tlm::tlm_generic_payload;
  struct Port {
    std::deque<Gp*> ready;
    bool busy = false;  // a BEGIN_RESP awaits its END_RESP
  };

  void end_of_elaboration() override { ports_.resize(in.size()); }

  tlm::tlm_sync_enum fw(int port, Gp& p, tlm::tlm_phase& phase, sc_core::sc_time& t) {
    if (phase == tlm::BEGIN_REQ) {
      ++requests;
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      origin_[&p] = port;
      due_.notify(p, t + latency_);
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    if (phase == tlm::END_RESP) {
      ports_[port].busy = false;
      freed_.notify(t);
      return tlm::TLM_COMPLETED;
    }
    ADD_FAILURE() << "unexpected phase " << phase;
    return tlm::TLM_COMPLETED;
  }

  void respond() {
    for (;;) {
      wait(due_.get_event() | freed_);
      while (Gp* p = due_.get_next_transaction()) ports_[origin_[p]].ready.push_back(p);
      for (size_t i = 0; i < ports_.size(); ++i) {
        Port& port = ports_[i];
        if (port.busy || port.ready.empty()) continue;
        Gp* p = port.ready.front();
        port.ready.pop_front();
        origin_.erase(p);
        ++responses;
        tlm::tlm_phase phase = tlm::BEGIN_RESP;
        sc_core::sc_time t = sc_core::SC_ZERO_TIME;
        const tlm::tlm_sync_enum s = in[static_cast<int>(i)]->nb_transport_bw(*p, phase, t);
        port.busy = s == tlm::TLM_ACCEPTED;
        if (!port.busy) freed_.notify(t);  // completed at once: the next response may follow
      }
    }
  }

  const sc_core::sc_time latency_;
  tlm_utils::peq_with_get<Gp> due_;
  sc_core::sc_event freed_;
  std::map<const Gp*, int> origin_;
  std::vector<Port> ports_;
};

// The run with a FixedTarget in every channel, and the requests each target saw ("custom_requests").
nlohmann::json run_with_targets(const launch::Launch& l, const config::MachineConfig& m) {
  // Built in the child, inside the Gpu's elaboration; the child exits without destroying them.
  auto targets = std::make_shared<std::vector<FixedTarget*>>();
  sim::TimingOptions options;
  options.channel_target = [targets](uint32_t channel) -> mem::TargetSocket& {
    targets->push_back(new FixedTarget(("custom_dram" + std::to_string(channel)).c_str(),
                                       sc_core::sc_time(200, sc_core::SC_NS)));
    return targets->back()->in;
  };
  sim::ChildReport report;
  report.report = [targets](nlohmann::json& out) {
    for (FixedTarget* t : *targets) {
      out["custom_requests"].push_back(t->requests);
      out["custom_responses"].push_back(t->responses);
      out["custom_ports"].push_back(t->in.size());
    }
  };
  return sim::run_timing_in_child(l, session_options(), m, options, report);
}

std::map<std::string, std::string> functional_sha256(const launch::Launch& l) {
  if (l.is_sequence()) {
    launch::SequenceSession session(l, session_options());
    return sha256_of(session.run().buffers);
  }
  launch::Session session(l, session_options());
  return sha256_of(session.run().buffers);
}

}  // namespace simtlm::channel_target_test

using namespace simtlm;
using simtlm::timing_test::failures_text;
using simtlm::timing_test::machine;
using simtlm::timing_test::source_path;

namespace {

struct ChannelTargetCase {
  const char* launch;  // under the source tree
  const char* config;  // under configs/
};

void PrintTo(const ChannelTargetCase& c, std::ostream* os) {
  *os << c.launch << " on " << c.config;
}

std::string channel_target_case_name(const ::testing::TestParamInfo<ChannelTargetCase>& info) {
  static const char* const kNames[] = {"Reduction", "ReductionNoL2", "Sequence"};
  return kNames[info.index];
}

class TimingChannelTarget : public ::testing::TestWithParam<ChannelTargetCase> {};

TEST_P(TimingChannelTarget, CustomTargetsServeEveryChannelAndOutputsMatchTheFunctionalRun) {
  const launch::Launch l = launch::load_launch(source_path(GetParam().launch));
  const config::MachineConfig m = machine(GetParam().config);
  const nlohmann::json doc = channel_target_test::run_with_targets(l, m);
  const sim::ChildResult r = sim::read_child_result(doc);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.failures.empty()) << failures_text(r);
  EXPECT_EQ(r.sha256, channel_target_test::functional_sha256(l));
  EXPECT_GT(r.cycles(), 0u);

  // One target per channel, each bound by the channel's share of the L2 banks (or crossbar bank ports).
  const uint64_t channels = m.u("dram.channels");
  const uint64_t banks = m.u("l2.banks");
  ASSERT_EQ(doc["custom_requests"].size(), channels);
  for (size_t c = 0; c < channels; ++c) {
    EXPECT_GT(doc["custom_requests"][c].get<uint64_t>(), 0u) << "channel " << c;
    EXPECT_EQ(doc["custom_responses"][c], doc["custom_requests"][c]) << "channel " << c;
    EXPECT_EQ(doc["custom_ports"][c].get<uint64_t>(), banks / channels);
  }
  // The built-in channels were not built: no rows, zero totals.
  const nlohmann::json& dram = r.stats_json["dram"];
  EXPECT_TRUE(dram.value("per_channel", nlohmann::json::array()).empty()) << dram.dump();
  EXPECT_EQ(dram["reads"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Runs, TimingChannelTarget,
    ::testing::Values(ChannelTargetCase{"workloads/reduction/reduction.yaml", "default.yaml"},
                      // Without the L2: the crossbar's bank ports bind the targets directly.
                      ChannelTargetCase{"workloads/reduction/reduction.yaml", "quadro-fx5800.yaml"},
                      // A launch sequence: two kernels, the kernel-end write-back in between.
                      ChannelTargetCase{"testbenches/launch/seq_l2_reuse.yaml", "default.yaml"}),
    channel_target_case_name);

}  // namespace
