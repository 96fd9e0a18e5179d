// A SystemC user's top on simtlm (docs/systemc.md): the user's own memory, a fixed-latency AT target, stands
// in every DRAM channel of the GPU; simtlm's run (CTA dispatch, drain, watchdog, statistics) does the rest.
//   custom_memory LAUNCH.yaml OUT_DIR [CONFIG.yaml] [LATENCY_NS]
// writes OUT_DIR/stats.json and prints the cycles and the requests each memory served.
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/launch/stats_json.hpp"
#include "models/mem/memory_system.hpp"
#include "sim/timing_run.hpp"
#include "sim/timing_sequence.hpp"
#include "workloads/reference/reference.hpp"

namespace {

// A memory that answers every request `latency` after it arrives, with any number of initiators bound to its
// socket (one per L2 bank of the channel). Base protocol, approximately timed: BEGIN_REQ is accepted at once
// (END_REQ on the return path), BEGIN_RESP follows on the backward path, and one binding has at most one
// response in flight until its END_RESP. Loosely timed initiators get the same latency through b_transport.
// It keeps no data: simtlm's timing model moves none through its sockets (the functional model holds it).
class FixedLatencyMemory : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<FixedLatencyMemory> in{"in"};

  SC_HAS_PROCESS(FixedLatencyMemory);
  FixedLatencyMemory(sc_core::sc_module_name name, sc_core::sc_time latency)
      : sc_module(name), latency_(latency), due_("due") {
    in.register_nb_transport_fw(this, &FixedLatencyMemory::nb_transport_fw);
    in.register_b_transport(this, &FixedLatencyMemory::b_transport);
    in.register_transport_dbg(this, &FixedLatencyMemory::transport_dbg);
    SC_THREAD(respond);
  }

  uint64_t requests() const { return requests_; }
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }

 private:
  using Payload = tlm::tlm_generic_payload;
  struct Binding {
    std::deque<Payload*> ready;  // past their latency, waiting for the binding's response phase
    bool responding = false;     // a BEGIN_RESP waits for its END_RESP
  };

  void end_of_elaboration() override { bindings_.resize(in.size()); }

  void count(const Payload& p) {
    ++requests_;
    (p.is_write() ? writes_ : reads_) += 1;
  }

  tlm::tlm_sync_enum nb_transport_fw(int binding, Payload& p, tlm::tlm_phase& phase, sc_core::sc_time& t) {
    if (phase == tlm::BEGIN_REQ) {
      count(p);
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      from_[&p] = binding;
      due_.notify(p, t + latency_);
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    if (phase == tlm::END_RESP) {
      bindings_[binding].responding = false;
      next_.notify(t);
      return tlm::TLM_COMPLETED;
    }
    SC_REPORT_ERROR("custom_memory", "an initiator sent a phase other than BEGIN_REQ or END_RESP");
    return tlm::TLM_COMPLETED;
  }

  void b_transport(int, Payload& p, sc_core::sc_time& t) {
    count(p);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    t += latency_;
  }

  unsigned int transport_dbg(int, Payload&) { return 0; }  // no backing store

  // Sends each binding's next response once its latency has passed and its previous response has ended.
  void respond() {
    for (;;) {
      wait(due_.get_event() | next_);
      while (Payload* p = due_.get_next_transaction()) bindings_[from_.at(p)].ready.push_back(p);
      for (size_t i = 0; i < bindings_.size(); ++i) {
        Binding& b = bindings_[i];
        if (b.responding || b.ready.empty()) continue;
        Payload* p = b.ready.front();
        b.ready.pop_front();
        from_.erase(p);
        tlm::tlm_phase phase = tlm::BEGIN_RESP;
        sc_core::sc_time t = sc_core::SC_ZERO_TIME;
        const tlm::tlm_sync_enum status = in[static_cast<int>(i)]->nb_transport_bw(*p, phase, t);
        // TLM_ACCEPTED: END_RESP comes on the forward path. TLM_COMPLETED or TLM_UPDATED with END_RESP: the
        // response phase ends after t, when the next response may go.
        b.responding = status == tlm::TLM_ACCEPTED;
        if (!b.responding) next_.notify(t);
      }
    }
  }

  const sc_core::sc_time latency_;
  tlm_utils::peq_with_get<Payload> due_;
  sc_core::sc_event next_;
  std::map<const Payload*, int> from_;
  std::vector<Binding> bindings_;
  uint64_t requests_ = 0, reads_ = 0, writes_ = 0;
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  using namespace simtlm;
  namespace fs = std::filesystem;
  if (argc < 3 || argc > 5) {
    std::cerr << "usage: " << argv[0] << " LAUNCH.yaml OUT_DIR [CONFIG.yaml] [LATENCY_NS]\n";
    return 2;
  }
  try {
    launch::Launch l = launch::load_launch(argv[1]);
    const fs::path out = argv[2];
    const config::MachineConfig machine =
        argc > 3 ? config::MachineConfig::load(argv[3]) : config::MachineConfig();
    const sc_core::sc_time latency(argc > 4 ? std::atof(argv[4]) : 200.0, sc_core::SC_NS);

    // The user's memories, top-level modules built before the run: one per DRAM channel.
    std::vector<std::unique_ptr<FixedLatencyMemory>> memories;
    for (uint64_t c = 0; c < machine.u("dram.channels"); ++c)
      memories.push_back(
          std::make_unique<FixedLatencyMemory>(("memory" + std::to_string(c)).c_str(), latency));
    sim::TimingOptions options;
    options.channel_target = [&memories](uint32_t channel) -> mem::TargetSocket& {
      return memories.at(channel)->in;
    };

    launch::SessionOptions session_options;
    session_options.find_reference = workloads::find_reference;  // the bundled workloads' host references
    launch::SessionResult result;
    nlohmann::json doc;
    if (l.is_sequence()) {
      launch::SequenceSession session(std::move(l), session_options);
      doc = sim::run_timing_sequence(session, machine, result, options);
    } else {
      const launch::Session session(std::move(l), session_options);
      const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
      const sim::TimingResult timing = sim::run_timing(session, *image, machine, options);
      result.buffers = timing.buffers;
      session.verify(result, *image);
      doc = launch::launch_json(session.launch(), session.kernel());
      doc.update(timing.stats.json());
    }

    nlohmann::json served = nlohmann::json::array();
    uint64_t total = 0;
    for (const auto& m : memories) {
      served.push_back(
          {{"name", m->name()}, {"requests", m->requests()}, {"reads", m->reads()}, {"writes", m->writes()}});
      total += m->requests();
    }
    doc["custom_memory"] = {
        {"latency_ns", latency.to_seconds() * 1e9}, {"channels", served}, {"requests", total}};
    doc["failures"] = result.failures;
    fs::create_directories(out);
    std::ofstream(out / "stats.json") << doc.dump(2) << '\n';

    std::cout << "cycles: " << doc.value("cycles", uint64_t{0}) << '\n';
    for (const nlohmann::json& m : served)
      std::cout << m["name"].get<std::string>() << ": " << m["requests"] << " requests served\n";
    std::cout << "requests served: " << total << '\n';
    for (const std::string& f : result.failures) std::cout << "check failed: " << f << '\n';
    std::cout << (result.failures.empty() ? "check ok" : "check FAILED") << '\n';
    return result.failures.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "custom_memory: " << e.what() << '\n';
    return 1;
  }
}
