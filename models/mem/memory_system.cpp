#include "models/mem/memory_system.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/mem/pollution.hpp"

namespace simtlm::mem {

namespace {

template <typename Caches>
bool all_idle(const Caches& caches) {
  return std::all_of(caches.begin(), caches.end(), [](const auto& c) { return c->idle(); });
}

uint64_t cache_events(const CacheStats& s) {
  return s.reads + s.writes + s.atomics + s.fills + s.atomic_operations;
}

}  // namespace

MemorySystem::MemorySystem(sc_core::sc_module_name name, const MemoryParams& params,
                           const ChannelTarget& channel_target)
    : sc_module(name), p_(params), xbar_(std::make_unique<Crossbar>("xbar", p_.xbar)) {
  if (p_.dram.channels == 0 || p_.l2_banks % p_.dram.channels != 0)
    throw std::invalid_argument("MemoryParams: the L2 banks must be a multiple of the DRAM channels");
  if (p_.l1_enabled) {
    for (uint32_t i = 0; i < p_.sms; ++i) {
      auto l1 = std::make_unique<L1Cache>(("l1_" + std::to_string(i)).c_str(), p_.l1);
      if (p_.l1_disabled_fraction > 0) l1->disable_fraction(p_.l1_disabled_fraction);
      // Before any access, so nothing is written back; the set stays for every kernel of the run (the
      // paper's steady-state disruption), not redrawn per launch.
      if (p_.l1_pollution > 0) l1->pollute(p_.l1_pollution, pollution_seed_for(p_.l1_pollution_seed, i));
      link(l1->out, xbar_->in, "check_l1_" + std::to_string(i) + "_xbar");
      l1->set_target_name(xbar_->name());
      l1_.push_back(std::move(l1));
    }
  }
  std::vector<TargetSocket*> channels;
  for (uint32_t c = 0; c < p_.dram.channels; ++c) {
    if (channel_target) {
      channels.push_back(&channel_target(c));
      continue;
    }
    dram_.push_back(make_dram_channel(("dram" + std::to_string(c)).c_str(), p_.dram));
    channels.push_back(&dram_.back()->in);
  }
  for (uint32_t b = 0; b < p_.l2_banks; ++b) {
    TargetSocket& channel = *channels[b % p_.dram.channels];
    const std::string channel_name = "dram" + std::to_string(b % p_.dram.channels);
    if (!p_.l2_enabled) {
      link(xbar_->out, channel, "check_xbar_" + std::to_string(b) + "_" + channel_name);
      xbar_->set_target_name(b, socket_owner(channel.get_base_export()));
      continue;
    }
    auto l2 = std::make_unique<L2Cache>(("l2_" + std::to_string(b)).c_str(), p_.l2);
    link(xbar_->out, l2->in, "check_xbar_l2_" + std::to_string(b));
    xbar_->set_target_name(b, l2->name());
    link(l2->out, channel, "check_l2_" + std::to_string(b) + "_" + channel_name);
    l2->set_target_name(socket_owner(channel.get_base_export()));
    l2_.push_back(std::move(l2));
  }
  // The SM-side checkers are built here, so they are children of this module too; sm_port hands them out.
  for (uint32_t sm = 0; p_.tlm_check && sm < p_.sms; ++sm) {
    checkers_.push_back(std::make_unique<TlmChecker>(
        ("check_sm" + std::to_string(sm) + (p_.l1_enabled ? "_l1" : "_xbar")).c_str()));
    sm_checkers_.push_back(checkers_.back().get());
  }
}

TargetSocket& MemorySystem::sm_port(uint32_t sm) {
  // Without L1s the crossbar numbers its SM-side ports in binding order.
  if (sm != next_sm_ || sm >= p_.sms)
    throw std::invalid_argument("MemorySystem: bind SM " + std::to_string(next_sm_) + " next, not " +
                                std::to_string(sm));
  ++next_sm_;
  TargetSocket& first = p_.l1_enabled ? static_cast<TargetSocket&>(l1_[sm]->in) : xbar_->in;
  if (!p_.tlm_check) return first;
  sm_checkers_[sm]->out.bind(first);
  return sm_checkers_[sm]->in;
}

template <typename Initiator>
void MemorySystem::link(Initiator& initiator, TargetSocket& target, const std::string& name) {
  if (!p_.tlm_check) {
    initiator.bind(target);
    return;
  }
  checkers_.push_back(std::make_unique<TlmChecker>(name.c_str()));
  initiator.bind(checkers_.back()->in);
  checkers_.back()->out.bind(target);
}

std::vector<DrainSequence::Step> MemorySystem::write_back_steps(std::function<void()> written_back) {
  std::vector<DrainSequence::Step> steps;
  steps.push_back({[this] {
                     for (auto& l1 : l1_) l1->write_back_dirty();
                   },
                   [this] { return all_idle(l1_); },
                   {}});
  steps.push_back({[this] {
                     for (auto& l2 : l2_) l2->write_back_dirty();
                   },
                   [this] { return all_idle(l2_); }, std::move(written_back)});
  return steps;
}

void MemorySystem::watch_idle(DrainSequence& drain) const {
  for (const auto& l1 : l1_) drain.watch(l1->idle_event());
  for (const auto& l2 : l2_) drain.watch(l2->idle_event());
}

void MemorySystem::set_backing_store(BackingStore* store) {
  for (auto& d : dram_) d->set_backing_store(store);
}

void MemorySystem::set_device_memory(ptx::GlobalMemory* memory) {
  device_store_ = memory ? std::make_unique<GlobalMemoryStore>(*memory) : nullptr;
  set_backing_store(device_store_.get());
}

void MemorySystem::on_error(const std::function<void(const std::string&)>& fn) {
  for (auto& c : l1_) c->on_posted_error = fn;
  for (auto& c : l2_) c->on_posted_error = fn;
}

void MemorySystem::trace_waves(Waves& waves) {
  for (auto& c : l1_) c->trace_waves(waves);
  xbar_->trace_waves(waves);
  for (auto& c : l2_) c->trace_waves(waves);
  for (auto& d : dram_) d->trace_waves(waves);
}

uint64_t MemorySystem::progress() const {
  uint64_t n = 0;
  for (const auto& c : l1_) n += cache_events(c->stats());
  for (const auto& c : l2_) n += cache_events(c->stats());
  for (const auto& port : xbar_->port_stats()) n += port.requests + port.responses;
  for (const auto& d : dram_) n += d->stats().completed;
  return n;
}

}  // namespace simtlm::mem
