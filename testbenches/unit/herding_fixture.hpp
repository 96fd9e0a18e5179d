// The hand-written kernel testbenches/herding/tiny_herd.ptx, parsed, with the PCs the herding tests call the
// hooks at, and hand-made hook events for it (test_herding_hooks.cpp, test_herding_plan.cpp).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "hw/herding/herding_hooks.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "models/ptx/hooks.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::herding_test {

inline constexpr uint32_t kFirstLoadPc = 7;    // ld.global data[tid]        (tiny_herd.cu:6)
inline constexpr uint32_t kSecondLoadPc = 8;   // ld.global data[tid + 32]   (tiny_herd.cu:6)
inline constexpr uint32_t kDataBranchPc = 11;  // @%p1 bra: skips an add     (tiny_herd.cu:7), safe
inline constexpr uint32_t kBoundsPc = 14;      // @%p2 bra: skips the store  (tiny_herd.cu:9), unsafe
inline constexpr ptx::LaneMask kAll = 0xffffffffu;

class TinyKernel {
 public:
  TinyKernel() {
    const std::filesystem::path path =
        std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/herding/tiny_herd.ptx";
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    module_ = std::make_unique<ptx::Module>(ptx::parse_ptx(text.str(), path.string()));
    std::string error;
    kernel_ = module_->find_entry("tiny_herd", &error);
    if (!kernel_) throw std::runtime_error(error);
    const auto guarded_bra = [&](uint32_t pc) {
      return kernel_->code.at(pc).op == ptx::Op::bra && kernel_->code.at(pc).guard != ptx::kNoReg;
    };
    const auto global_ld = [&](uint32_t pc) {
      return kernel_->code.at(pc).op == ptx::Op::ld && kernel_->code.at(pc).space == ptx::Space::global;
    };
    if (!guarded_bra(kDataBranchPc) || !guarded_bra(kBoundsPc) || !global_ld(kFirstLoadPc) ||
        !global_ld(kSecondLoadPc))
      throw std::logic_error("tiny_herd.ptx no longer has its branches and loads at the PCs the tests use");
  }
  const ptx::Module& module() const { return *module_; }
  const ptx::Function& kernel() const { return *kernel_; }

  ptx::BranchEvent branch(uint32_t pc, ptx::LaneMask active, ptx::LaneMask taken) const {
    return ptx::BranchEvent{
        .kernel = *kernel_, .pc = pc, .active = active, .taken = taken, .warp = {}, .module = module_.get()};
  }
  ptx::LoadEvent load(uint32_t pc, ptx::LaneMask active, const ptx::GlobalMemory* global,
                      ptx::Space space = ptx::Space::global) const {
    return ptx::LoadEvent{.kernel = *kernel_,
                          .pc = pc,
                          .space = space,
                          .active = active,
                          .bytes = 4,
                          .warp = {},
                          .module = module_.get(),
                          .global = global};
  }

 private:
  std::unique_ptr<ptx::Module> module_;
  const ptx::Function* kernel_ = nullptr;
};

// hw::Herding with the C++ majority unit (its tie rule the spec's) and popular-block selector.
class HerdingUnderTest {
 public:
  explicit HerdingUnderTest(launch::HerdingSpec spec)
      : majority_(32,
                  spec.tie == launch::HerdTie::taken ? hw::MajorityTie::kTaken : hw::MajorityTie::kNotTaken),
        selector_(32),
        herding_(std::move(spec), majority_, selector_) {}
  hw::Herding& operator*() { return herding_; }
  hw::Herding* operator->() { return &herding_; }

 private:
  hw::MajorityUnit majority_;
  hw::PopularBlockSelector selector_;
  hw::Herding herding_;
};

// The lanes first..last (inclusive).
inline ptx::LaneMask lanes(unsigned first, unsigned last) {
  ptx::LaneMask m = 0;
  for (unsigned l = first; l <= last; ++l) m |= ptx::LaneMask{1} << l;
  return m;
}

}  // namespace simtlm::herding_test
