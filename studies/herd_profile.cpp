#include "studies/herd_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "models/launch/quality.hpp"
#include "sim/herding_run.hpp"
#include "sim/host_references.hpp"
#include "sim/timing_child.hpp"

namespace simtlm::studies {

using namespace sim;  // the run this experiment drives
namespace {

using Buffers = std::map<std::string, std::vector<uint8_t>>;

struct Measure {
  double performance = 0;  // cycles or warp instructions: lower is faster
  double loss = 0;         // mismatching output bytes over all output bytes
  uint64_t instances = 0;
  Buffers buffers;
};

struct Candidate {
  bool branch = true;
  uint32_t pc = 0;
  uint64_t divergence = 0;  // divergent executions, or requests above one per execution
  std::string name;
};

class Profiler {
 public:
  explicit Profiler(const HerdProfileRequest& request) : request_(request) {
    if (!request.config.empty()) machine_ = config::MachineConfig::load(request.config);
    for (uint32_t k = 0; k < request.inputs; ++k) {
      launch::Launch l = launch::load_launch(request.launch, request.launch_sets);
      if (l.is_sequence()) throw std::runtime_error("herd-profile takes a single-launch file");
      std::vector<std::string> sets = request.launch_sets;
      sets.push_back(fmt::format("seed={}", l.seed + 1000 + k));
      inputs_.push_back(launch::load_launch(request.launch, sets));
      inputs_.back().herding = {};
    }
    for (const launch::Launch& input : inputs_) exact_.push_back(run(input, nullptr, false));
  }

  const Measure& exact(size_t k) const { return exact_[k]; }
  size_t inputs() const { return inputs_.size(); }

  Measure measure(const launch::HerdingSpec& spec, size_t k, bool observe = false,
                  nlohmann::json* statistics = nullptr) {
    Measure m = run(inputs_[k], &spec, observe, statistics);
    const std::vector<launch::BufferQuality> q =
        launch::compare_outputs(inputs_[k], exact_[k].buffers, m.buffers);
    uint64_t bytes = 0, mismatched = 0;
    for (const launch::BufferQuality& b : q) {
      bytes += b.bytes;
      mismatched += b.mismatched_bytes;
    }
    m.loss = bytes ? double(mismatched) / double(bytes) : 0.0;
    return m;
  }

 private:
  Measure run(const launch::Launch& input, const launch::HerdingSpec* spec, bool observe,
              nlohmann::json* statistics = nullptr) {
    launch::Launch l = input;
    launch::SessionOptions options;
    options.instruction_budget = request_.budget;
    options.find_reference = &find_host_reference;
    options.capture_printf = true;
    std::unique_ptr<HerdingRun> herding;
    if (spec && spec->any()) {
      l.herding = *spec;
      herding = prepare_herding(l, {}, {}, options, machine_ ? &*machine_ : nullptr);
      if (observe) herding->observe_only();
    }
    Measure m;
    if (!machine_) {
      launch::Session session(l, options);
      if (herding) herding->check(session.launch(), session.module(), {&session.kernel()});
      launch::SessionResult result = session.run();
      if (!result.ok()) throw std::runtime_error(l.path.string() + ": " + result.failures.front());
      m.performance = double(result.stats.warp_instructions);
      m.buffers = std::move(result.buffers);
      if (herding) {
        m.instances = herding->herding().instances();
        if (statistics) *statistics = herding->statistics().json();
      }
      return m;
    }
    sim::ChildReport extra;
    extra.buffers = true;
    if (herding)
      extra.report = [&herding](nlohmann::json& out) { out["herding"] = herding->statistics().json(); };
    const sim::ChildResult out = sim::run_timing_child(l, options, *machine_, {}, extra);
    if (!out.passed()) throw std::runtime_error(l.path.string() + ": " + out.problem());
    m.performance = double(out.cycles());
    m.buffers = out.buffers;
    if (!out.herding.is_null()) {
      m.instances = out.herding["instances"].get<uint64_t>();
      if (statistics) *statistics = out.herding;
    }
    return m;
  }

  const HerdProfileRequest& request_;
  std::optional<config::MachineConfig> machine_;
  std::vector<launch::Launch> inputs_;
  std::vector<Measure> exact_;
};

std::vector<Candidate> find_candidates(Profiler& profiler, const HerdProfileRequest& request) {
  launch::HerdingSpec observe;
  observe.branches.all = request.branches;
  observe.loads.all = request.loads;
  std::map<std::pair<bool, uint32_t>, Candidate> found;
  for (size_t k = 0; k < profiler.inputs(); ++k) {
    nlohmann::json stats;
    profiler.measure(observe, k, true, &stats);
    for (const auto& [kernel, sites] : stats["kernels"].items()) {
      for (const nlohmann::json& b : sites["branches"]) {
        if (!b["herd"].get<bool>() || b["divergent"].get<uint64_t>() == 0) continue;
        Candidate& c = found[{true, b["pc"].get<uint32_t>()}];
        c = {true, b["pc"].get<uint32_t>(), c.divergence + b["divergent"].get<uint64_t>(),
             "branch " + b["site"].get<std::string>()};
      }
      for (const nlohmann::json& l : sites["loads"]) {
        const uint64_t extra = l["requests_before"].get<uint64_t>() - l["executions"].get<uint64_t>();
        if (extra == 0) continue;
        Candidate& c = found[{false, l["pc"].get<uint32_t>()}];
        c = {false, l["pc"].get<uint32_t>(), c.divergence + extra, "load " + l["site"].get<std::string>()};
      }
    }
  }
  std::vector<Candidate> out;
  for (const auto& [key, c] : found) out.push_back(c);
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate& a, const Candidate& b) { return a.divergence > b.divergence; });
  return out;
}

void add_site(launch::HerdingSpec& spec, const Candidate& c) {
  launch::HerdSite site;
  site.pc = c.pc;
  (c.branch ? spec.branches : spec.loads).sites.push_back(site);
}

}  // namespace

HerdProfileResult herd_profile(const HerdProfileRequest& request) {
  if (request.inputs == 0) throw std::runtime_error("herd-profile: --inputs must be at least 1");
  if (!(request.max_quality_loss >= 0.0 && request.max_quality_loss <= 1.0))
    throw std::runtime_error("herd-profile: --max-quality-loss is a fraction 0..1");
  const auto log = [&](const std::string& line) {
    if (request.log) request.log(line);
  };
  Profiler profiler(request);
  HerdProfileResult result;
  result.performance_measure = request.config.empty() ? "warp instructions" : "cycles";
  std::vector<double> current;
  for (size_t k = 0; k < profiler.inputs(); ++k) current.push_back(profiler.exact(k).performance);
  result.baseline_performance = current;
  const std::vector<Candidate> candidates = find_candidates(profiler, request);
  log(fmt::format("{} candidates that diverge and are safe to herd", candidates.size()));
  launch::HerdingSpec set;
  for (const Candidate& c : candidates) {
    launch::HerdingSpec trial = set;
    add_site(trial, c);
    HerdProfileStep step;
    step.candidate = c.name;
    bool faster = false;
    for (size_t k = 0; k < profiler.inputs(); ++k) {
      const Measure m = profiler.measure(trial, k);
      step.performance.push_back(m.performance);
      step.quality_loss.push_back(m.loss);
      step.worst_loss = std::max(step.worst_loss, m.loss);
      faster = faster || m.performance < current[k];
    }
    step.kept = faster;
    log(fmt::format("{} {}: worst loss {:.4f}%", faster ? "keep" : "drop", c.name, 100.0 * step.worst_loss));
    if (faster) {
      set = trial;
      current = step.performance;
      result.worst_loss_of_set = step.worst_loss;
    }
    result.steps.push_back(std::move(step));
  }
  result.chosen = set;
  if (!set.any()) return result;
  uint64_t most = 0;
  for (size_t k = 0; k < profiler.inputs(); ++k) {
    const uint64_t n = profiler.measure(set, k).instances;
    result.instances.push_back(n);
    most = std::max(most, n);
  }
  result.worst_loss_at_threshold = result.worst_loss_of_set;
  if (result.worst_loss_of_set <= request.max_quality_loss) return result;
  // Bisection for the largest Th whose worst loss meets the bound (loss grows with Th, roughly).
  uint64_t good = 0, bad = most;
  double good_loss = 0;
  while (bad - good > 1) {
    const uint64_t mid = good + (bad - good) / 2;
    launch::HerdingSpec limited = set;
    limited.max_instances = mid;
    double worst = 0;
    for (size_t k = 0; k < profiler.inputs(); ++k) worst = std::max(worst, profiler.measure(limited, k).loss);
    log(fmt::format("threshold {}: worst loss {:.4f}%", mid, 100.0 * worst));
    if (worst <= request.max_quality_loss) {
      good = mid;
      good_loss = worst;
    } else {
      bad = mid;
    }
  }
  if (good == 0) {
    result.chosen = {};  // not even one herding instance meets the bound
    result.worst_loss_at_threshold = 0;
    return result;
  }
  result.chosen.max_instances = good;
  result.worst_loss_at_threshold = good_loss;
  return result;
}

nlohmann::json herd_profile_json(const HerdProfileRequest& request, const HerdProfileResult& result) {
  nlohmann::json doc;
  doc["launch"] = request.launch.string();
  doc["inputs"] = request.inputs;
  doc["max_quality_loss"] = request.max_quality_loss;
  doc["performance_measure"] = result.performance_measure;
  doc["baseline_performance"] = result.baseline_performance;
  doc["steps"] = nlohmann::json::array();
  for (const HerdProfileStep& s : result.steps) {
    doc["steps"].push_back({{"candidate", s.candidate},
                            {"kept", s.kept},
                            {"performance", s.performance},
                            {"quality_loss", s.quality_loss},
                            {"worst_loss", s.worst_loss}});
  }
  doc["chosen"] = launch::herding_yaml(result.chosen, 0);
  doc["instances"] = result.instances;
  doc["worst_loss_of_set"] = result.worst_loss_of_set;
  doc["worst_loss_at_threshold"] = result.worst_loss_at_threshold;
  return doc;
}

std::string herd_profile_yaml(const HerdProfileRequest& request, const HerdProfileResult& result) {
  std::string text = fmt::format(
      "# simtlm herd-profile --launch {} --inputs {} --max-quality-loss {}: {} of {} candidates kept; worst "
      "loss {:.4f}% without a threshold, {:.4f}% at max_instances {} ({}).\n",
      request.launch.string(), request.inputs, request.max_quality_loss,
      std::count_if(result.steps.begin(), result.steps.end(),
                    [](const HerdProfileStep& s) { return s.kept; }),
      result.steps.size(), 100.0 * result.worst_loss_of_set, 100.0 * result.worst_loss_at_threshold,
      result.chosen.max_instances, result.performance_measure);
  if (!result.chosen.any()) return text + "# nothing to herd under the bound\n";
  return text + "herding:\n" + launch::herding_yaml(result.chosen, 2);
}

}  // namespace simtlm::studies
