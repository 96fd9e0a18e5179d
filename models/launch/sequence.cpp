#include "models/launch/sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/location.hpp"
#include "models/launch/buffers.hpp"
#include "models/launch/device.hpp"
#include "models/launch/loop_check.hpp"
#include "models/launch/sequence_totals.hpp"
#include "models/launch/stats_json.hpp"
#include "models/ptx/call_link.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/runner.hpp"

namespace simtlm::launch {

using ptx::Type;

namespace {

nlohmann::json dim3(const ptx::Dim3& d) {
  return nlohmann::json::array({d.x, d.y, d.z});
}

// An element as a comparable number: integers exactly (as __int128), floats as double.
struct Number {
  bool floating = false;
  __int128 integer = 0;
  double real = 0;
};

Number decode(Type type, const uint8_t* p) {
  Number n;
  uint64_t raw = 0;
  std::memcpy(&raw, p, element_bytes(type));
  switch (type) {
    case Type::f32: {
      float f;
      std::memcpy(&f, p, 4);
      n.floating = true;
      n.real = f;
      return n;
    }
    case Type::f64:
      n.floating = true;
      std::memcpy(&n.real, p, 8);
      return n;
    case Type::s8:
      n.integer = int8_t(raw);
      return n;
    case Type::s16:
      n.integer = int16_t(raw);
      return n;
    case Type::s32:
      n.integer = int32_t(raw);
      return n;
    case Type::s64:
      n.integer = int64_t(raw);
      return n;
    default:
      n.integer = raw;
      return n;
  }
}

const char* cmp_name(UntilSpec::Cmp c) {
  switch (c) {
    case UntilSpec::Cmp::equals:
      return "equals";
    case UntilSpec::Cmp::not_equals:
      return "not_equals";
    case UntilSpec::Cmp::less:
      return "less";
    case UntilSpec::Cmp::less_equal:
      return "less_equal";
    case UntilSpec::Cmp::greater:
      return "greater";
    default:
      return "greater_equal";
  }
}

void add_stats(ptx::RunStats& total, const ptx::RunStats& s) {
  total.warp_instructions += s.warp_instructions;
  total.thread_instructions += s.thread_instructions;
  total.active_lane_sum += s.active_lane_sum;
  total.branches += s.branches;
  total.divergent_branches += s.divergent_branches;
  total.barriers += s.barriers;
  total.max_stack_depth = std::max(total.max_stack_depth, s.max_stack_depth);
  total.ctas += s.ctas;
  total.warps += s.warps;
}

}  // namespace

nlohmann::json PlannedLaunch::describe() const {
  return {{"step", index},
          {"kernel", kernel->name},
          {"line", step->line},
          {"iteration", iteration},
          {"grid", dim3(context->grid)},
          {"block", dim3(context->block)},
          {"shared_bytes", context->dynamic_shared_bytes}};
}

SequenceSession::SequenceSession(Launch launch, SessionOptions options)
    : launch_(std::move(launch)), options_(options) {
  if (!launch_.is_sequence()) throw LaunchError(launch_.path.string() + ": not a launch sequence");
  modules_[launch_.ptx.string()] = load_module(launch_.ptx, launch_);
  launch_ = with_symbol_views(launch_, *modules_.at(launch_.ptx.string()));
  resolve_steps(launch_.steps);
  if (!launch_.reference.empty()) {
    reference_ = options_.find_reference ? options_.find_reference(launch_.reference) : nullptr;
    if (!reference_) {
      fail(top_level_key_line(launch_.path, "reference"),
           fmt::format("reference: no host reference named '{}'", launch_.reference));
    }
  }
}

SequenceSession::~SequenceSession() = default;

void SequenceSession::fail(uint32_t line, const std::string& message) const {
  throw LaunchError(common::at_location(launch_.path.string(), line, message));
}

void SequenceSession::resolve_steps(const std::vector<Step>& steps) {
  for (const Step& step : steps) {
    switch (step.kind) {
      case Step::Kind::kernel: {
        auto& module = modules_[step.ptx.string()];
        if (!module) module = load_module(step.ptx, launch_);
        std::string error;
        const ptx::Function* kernel = module->find_entry(step.kernel, &error);
        if (!kernel) fail(step.line, "kernel: " + error);
        validate_params(launch_, *kernel, step.params,
                        common::at_location(launch_.path.string(), step.line, "kernel " + step.kernel));
        if (!cfgs_.count(kernel)) cfgs_[kernel] = std::make_unique<ptx::Cfg>(*kernel);
        resolved_[&step] = Resolved{module.get(), kernel, nullptr};
        if (std::none_of(kernels_.begin(), kernels_.end(),
                         [&](const Resolved& r) { return r.kernel == kernel; }))
          kernels_.push_back(resolved_[&step]);
        break;
      }
      case Step::Kind::set:
        for (const SetSpec& set : step.sets) {
          const BufferSpec spec = data_named(set.name, set.line, "set." + set.name).second;
          if (set.values.size() > spec.count)
            fail(set.line,
                 fmt::format("set.{}: {} values for {} elements", set.name, set.values.size(), spec.count));
          for (size_t k = 0; k < set.values.size(); ++k) {
            uint8_t probe[8];
            const std::string error = encode_element(spec.type, set.values[k], probe);
            if (!error.empty()) fail(set.line, fmt::format("set.{}[{}]: {}", set.name, k, error));
          }
        }
        break;
      case Step::Kind::loop: {
        const UntilSpec& u = step.until;
        const BufferSpec spec = data_named(u.name, u.line, "until." + u.name).second;
        if (spec.is_symbol != u.symbol) {
          fail(u.line, fmt::format("until: {} is a {}: write {{{}: {}}}", u.name,
                                   spec.is_symbol ? "module variable" : "buffer",
                                   spec.is_symbol ? "symbol" : "buffer", u.name));
        }
        if (u.element >= spec.count)
          fail(u.line,
               fmt::format("until: element {} of {} which has {} elements", u.element, u.name, spec.count));
        uint8_t probe[8];
        const std::string error = encode_element(spec.type, u.value, probe);
        if (!error.empty()) fail(u.line, fmt::format("until.{}: {}", cmp_name(u.cmp), error));
        resolve_steps(step.steps);
        break;
      }
      case Step::Kind::repeat:
      case Step::Kind::for_loop:
        resolve_steps(step.steps);
        break;
      case Step::Kind::copy2d:
        break;
    }
  }
}

std::pair<uint64_t, BufferSpec> SequenceSession::data_named(const std::string& name, uint32_t line,
                                                            const std::string& key) const {
  if (const BufferSpec* b = launch_.find_buffer_spec(name))
    return {addresses_.count(name) ? addresses_.at(name) : 0, *b};
  const ptx::Module& file_module = module();
  BufferSpec spec = symbol_spec(launch_, file_module, name, line, key);
  uint64_t addr = 0;
  auto it = symbol_address_.find(launch_.ptx.string());
  if (it != symbol_address_.end()) addr = it->second[size_t(find_module_variable(file_module, name))];
  return {addr, spec};
}

std::vector<ptx::PtxError> SequenceSession::refusals() const {
  std::vector<ptx::PtxError> refused;
  for (const Resolved& r : kernels_) {
    if (std::optional<ptx::PtxError> refusal = ptx::kernel_refusal(*r.module, *r.kernel))
      refused.push_back(*refusal);
  }
  return refused;
}

uint64_t SequenceSession::instruction_budget() const {
  if (options_.instruction_budget) return options_.instruction_budget;
  if (launch_.instruction_budget) return launch_.instruction_budget;
  return ptx::RunOptions{}.instruction_budget;
}

uint64_t SequenceSession::budget_left() const {
  const uint64_t budget = instruction_budget();
  const uint64_t used = kernel_instructions_ + host_steps_;
  return budget - std::min(budget, used);
}

void SequenceSession::host_step(uint32_t line, const char* what) {
  ++host_steps_;
  if (host_steps_ > kMaxHostSteps) {
    fail(line, fmt::format("{}: the sequence took more than {} host steps (set: writes and loop iterations), "
                           "simtlm's limit per run (docs/reliability.md)",
                           what, kMaxHostSteps));
  }
  const uint64_t budget = instruction_budget();
  if (host_steps_ + kernel_instructions_ > budget) {
    fail(line, fmt::format("{}: the thread-instruction budget of {} is used up by {} host steps (set: writes "
                           "and loop iterations, one each) and {} kernel thread instructions; raise budget: "
                           "or --budget",
                           what, budget, host_steps_, kernel_instructions_));
  }
}

void SequenceSession::reset() {
  memory_ = std::make_unique<ptx::GlobalMemory>();
  memory_->set_out_of_bounds(out_of_bounds_mode(launch_, options_));
  addresses_.clear();
  initial_.clear();
  symbol_address_.clear();
  host_written_.clear();
  warned_.clear();
  warnings_.clear();
  place_buffers(launch_, *memory_, addresses_, initial_);
  // The file's module first, so its variables get the same addresses whatever the steps use.
  const std::string file_ptx = launch_.ptx.string();
  symbol_address_[file_ptx] = place_symbols(launch_, module(), true, *memory_, initial_, host_written_);
  for (const auto& [path, module] : modules_) {
    if (path == file_ptx) continue;
    std::set<std::string> none;
    symbol_address_[path] = place_symbols(launch_, *module, false, *memory_, initial_, none);
  }
  add_symbol_views(launch_, module(), symbol_address_.at(file_ptx), *memory_, addresses_, initial_);
  for (auto& [step, r] : resolved_) r.symbol_address = &symbol_address_.at(step->ptx.string());
  frames_.assign(1, Frame{&launch_.steps, 0, nullptr, 0});
  grid_workspace_ = 0;
  launches_ = 0;
  host_steps_ = 0;
  kernel_instructions_ = 0;
}

void SequenceSession::apply_set(const SetSpec& set) {
  auto [addr, spec] = data_named(set.name, set.line, "set." + set.name);
  const unsigned esize = element_bytes(spec.type);
  std::vector<uint8_t> bytes;
  if (set.refill) {
    spec.init = set.init;
    bytes = init_buffer(launch_, spec);
  } else {
    int64_t at = 0;
    if (!set.at.empty()) {
      const ExpressionScope s = scope();
      at = evaluate_expression(
          set.at, s, common::at_location(launch_.path.string(), set.line, "set." + set.name + ".at"));
      if (at < 0 || uint64_t(at) + set.values.size() > spec.count) {
        fail(set.line,
             fmt::format("set.{}: elements {}..{} ({}) are outside {} which has {} elements", set.name, at,
                         uint64_t(at) + set.values.size() - 1, s.describe(), set.name, spec.count));
      }
    }
    addr += uint64_t(at) * esize;
    bytes.resize(set.values.size() * esize);
    for (size_t k = 0; k < set.values.size(); ++k)
      (void)encode_element(spec.type, set.values[k], &bytes[k * esize]);
  }
  memory_->write(addr, bytes.data(), bytes.size());
  if (spec.is_symbol) host_written_.insert(set.name);
}

bool SequenceSession::until_holds(const Step& loop) const {
  const UntilSpec& u = loop.until;
  const auto [addr, spec] = data_named(u.name, u.line, "until." + u.name);
  const unsigned esize = element_bytes(spec.type);
  uint8_t element[8] = {}, wanted[8] = {};
  memory_->read(addr + u.element * esize, element, esize);
  (void)encode_element(spec.type, u.value, wanted);
  const Number a = decode(spec.type, element), b = decode(spec.type, wanted);
  auto cmp = [&](auto x, auto y) {
    switch (u.cmp) {
      case UntilSpec::Cmp::equals:
        return x == y;
      case UntilSpec::Cmp::not_equals:
        return x != y;
      case UntilSpec::Cmp::less:
        return x < y;
      case UntilSpec::Cmp::less_equal:
        return x <= y;
      case UntilSpec::Cmp::greater:
        return x > y;
      default:
        return x >= y;
    }
  };
  return a.floating ? cmp(a.real, b.real) : cmp(a.integer, b.integer);
}

std::unique_ptr<PlannedLaunch> SequenceSession::next() {
  while (!frames_.empty()) {
    Frame& f = frames_.back();
    if (f.next == f.steps->size()) {
      const Step* owner = f.owner;
      if (!owner) {
        frames_.pop_back();
        continue;
      }
      if (owner->kind == Step::Kind::for_loop) {
        host_step(owner->line, "for");
        if (!continue_for(f)) frames_.pop_back();
        continue;
      }
      host_step(owner->line, owner->kind == Step::Kind::repeat ? "repeat" : "loop");
      if (owner->kind == Step::Kind::repeat) {
        if (++f.iteration < owner->count) {
          f.next = 0;
        } else {
          frames_.pop_back();
        }
        continue;
      }
      if (until_holds(*owner)) {
        frames_.pop_back();
        continue;
      }
      if (const auto reason = until_never_changes(launch_, *owner)) {
        const UntilSpec& u = owner->until;
        fail(owner->line, fmt::format("loop: until {{buffer: {}, element: {}, {}: {}}} does not hold after "
                                      "iteration {} and never will: {}",
                                      u.name, u.element, cmp_name(u.cmp), u.value, f.iteration, *reason));
      }
      if (++f.iteration >= owner->count) {
        const UntilSpec& u = owner->until;
        fail(owner->line,
             fmt::format("loop: until {{{}: {}, element: {}, {}: {}}} still does not hold after max = {} "
                         "iterations",
                         u.symbol ? "symbol" : "buffer", u.name, u.element, cmp_name(u.cmp), u.value,
                         owner->count));
      }
      f.next = 0;
      continue;
    }
    const Step& step = (*f.steps)[f.next++];
    switch (step.kind) {
      case Step::Kind::set:
        host_step(step.line, "set");
        for (const SetSpec& set : step.sets) apply_set(set);
        break;
      case Step::Kind::repeat:
        if (step.count > 0) frames_.push_back(Frame{&step.steps, 0, &step, 0});
        break;
      case Step::Kind::loop:
        frames_.push_back(Frame{&step.steps, 0, &step, 0});
        break;
      case Step::Kind::for_loop:
        enter_for(step);
        break;
      case Step::Kind::copy2d:
        host_step(step.line, "copy2d");
        apply_copy2d(step.copy);
        break;
      case Step::Kind::kernel:
        return plan(step);
    }
  }
  return nullptr;
}

std::unique_ptr<PlannedLaunch> SequenceSession::plan(const Step& step) {
  const Resolved& r = resolved_.at(&step);
  const std::string where = common::at_location(launch_.path.string(), step.line, "kernel " + step.kernel);
  const ExpressionScope s = scope();
  const int64_t i = s.i;
  auto value = [&](const std::string& expr, const std::string& key, int64_t lo, int64_t hi) {
    const int64_t v = evaluate_expression(expr, s, where + ": " + key);
    if (v < lo || v > hi) {
      throw LaunchError(
          fmt::format("{}: {} = {} ({}) is outside [{}, {}]", where, key, v, s.describe(), lo, hi));
    }
    return uint32_t(v);
  };
  auto geometry = [&](const std::array<std::string, 3>& e, const char* name,
                      const std::array<uint32_t, 3>& limits) {
    return ptx::Dim3{value(e[0], fmt::format("{}[0]", name), 1, limits[0]),
                     value(e[1], fmt::format("{}[1]", name), 1, limits[1]),
                     value(e[2], fmt::format("{}[2]", name), 1, limits[2])};
  };
  auto p = std::make_unique<PlannedLaunch>();
  p->step = &step;
  p->index = launches_++;
  p->iteration = i;
  p->module = r.module;
  p->kernel = r.kernel;
  p->cfg = cfgs_.at(r.kernel).get();
  p->context = std::make_unique<ptx::LaunchContext>();
  ptx::LaunchContext& c = *p->context;
  c.module = r.module;
  c.kernel = r.kernel;
  c.grid = geometry(step.grid, "grid", kMaxGridDims);
  c.block = geometry(step.block, "block", kMaxBlockDims);
  if (const std::string bad = block_limit_violation(c.block); !bad.empty())
    throw LaunchError(fmt::format("{}: {} ({})", where, bad, s.describe()));
  if (const std::string bad = ptx::launch_bounds_violation(*r.kernel, c.block.x, c.block.y, c.block.z);
      !bad.empty()) {
    throw LaunchError(fmt::format("{}: {} ({})", where, bad, s.describe()));
  }
  if (const std::string bad = grid_limit_violation(c.grid, c.block); !bad.empty())
    throw LaunchError(fmt::format("{}: grid: {} ({})", where, bad, s.describe()));
  c.dynamic_shared_bytes = value(step.shared_bytes, "shared_bytes", 0, 1 << 20);
  c.global = memory_.get();
  c.hooks = options_.hooks;
  c.symbol_address = *r.symbol_address;
  c.param_buffer = build_param_buffer(launch_, *r.kernel, step.params, addresses_, s);
  c.textures = texture_objects(launch_, addresses_);
  if (step.cooperative) make_cooperative(c, *memory_, grid_workspace_, options_, where);
  const bool file_module = step.ptx == launch_.ptx;
  for (std::string& w : uninitialised_const_warnings(*r.module, *r.kernel,
                                                     file_module ? host_written_ : std::set<std::string>{})) {
    if (warned_.insert(w).second) warnings_.push_back(std::move(w));
  }
  return p;
}

void SequenceSession::finish(SessionResult& result) {
  result.buffers.clear();
  for (const BufferSpec& spec : launch_.buffers) {
    std::vector<uint8_t> bytes(initial_.at(spec.name).size());
    if (!bytes.empty()) memory_->read(addresses_.at(spec.name), bytes.data(), bytes.size());
    result.buffers[spec.name] = std::move(bytes);
  }
  result.warnings = warnings_;
  result.out_of_bounds_warn = memory_->tolerates_out_of_bounds();
  result.out_of_bounds = memory_->out_of_bounds_log();
  verify_outputs(launch_, reference_, result, initial_);
}

SessionResult SequenceSession::run() {
  SessionResult result;
  reset();
  const auto start = std::chrono::steady_clock::now();
  while (std::unique_ptr<PlannedLaunch> p = next()) {
    if (options_.capture_printf) p->context->printf_sink = &result.printf_output;
    ptx::RunOptions run_options;
    run_options.instruction_budget = budget_left();
    run_options.observer = options_.observer;
    run_options.progress = progress();
    if (progress()) progress()->launch_started(p->index, p->context->grid.count());
    ptx::RunStats stats;
    try {
      if (run_options.instruction_budget == 0)
        throw ptx::KernelError("the thread-instruction budget is used up");
      ptx::FunctionalRunner runner(*p->context, *p->cfg, run_options);
      stats = runner.run();
    } catch (const ptx::KernelError& e) {
      throw ptx::KernelError(fmt::format("launch {} (kernel {} at line {}, i = {}): {}", p->index,
                                         p->kernel->name, p->step->line, p->iteration, e.what()));
    }
    add_stats(result.stats, stats);
    charge_kernel(stats.thread_instructions);
    nlohmann::json entry = p->describe();
    nlohmann::json body = stats_json(launch_, *p->module, *p->kernel, stats, 0);
    for (const char* key : {"kernel", "launch", "grid", "block", "shared_bytes", "host"}) body.erase(key);
    entry.update(body);
    result.launches.push_back(std::move(entry));
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress()) progress()->run_finished();
  finish(result);
  return result;
}

nlohmann::json sequence_stats_json(const SequenceSession& session, const SessionResult& result,
                                   const ptx::RunStats& totals) {
  const SequenceBranchTotals branches = sum_launch_branches(result.launches);
  const double divergent_fraction =
      totals.branches ? double(totals.divergent_branches) / double(totals.branches) : 0.0;
  nlohmann::json doc = {{"kernel", branches.kernel_list},
                        {"launch", std::filesystem::path(session.launch().path).filename().string()},
                        {"grid", nullptr},
                        {"block", nullptr},
                        {"shared_bytes", nullptr},
                        {"warp_instructions", totals.warp_instructions},
                        {"thread_instructions", totals.thread_instructions},
                        {"simd_utilization", totals.simd_utilization()},
                        {"branches", totals.branches},
                        {"divergent_branches", totals.divergent_branches},
                        {"divergent_fraction", divergent_fraction},
                        {"per_branch", branches.per_branch},
                        {"barriers", totals.barriers},
                        {"max_stack_depth", totals.max_stack_depth},
                        {"ctas", totals.ctas},
                        {"warps", totals.warps},
                        {"launch_count", result.launches.size()},
                        {"launches", result.launches},
                        {"host", {{"wall_seconds", result.wall_seconds}}}};
  return doc;
}

}  // namespace simtlm::launch
