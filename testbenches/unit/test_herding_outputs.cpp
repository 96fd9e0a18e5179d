// Functional runs under herding (hw::Herding installed through SessionOptions::hooks, as sim::prepare_herding
// installs it) against host models of the herded kernels: mandelbrot with `branches: all` and the histogram
// with its data-dependent merge branch herded, byte for byte, with the exact herding statistics; and the
// max_instances budget on a run with more candidates than the budget.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "hw/herding/herding_hooks.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "models/launch/session.hpp"

namespace simtlm::herding_test {
namespace {

std::filesystem::path workload(const std::string& name) {
  return std::filesystem::path(SIMTLM_SOURCE_DIR) / "workloads" / name / (name + ".yaml");
}

struct HerdedRun {
  launch::SessionResult result;
  nlohmann::json stats;  // the hooks' statistics
  uint64_t instances = 0;
  std::map<std::string, std::vector<uint8_t>> initial;
};

// Runs `name` functionally with `spec` herded (nothing herded when spec herds nothing).
HerdedRun run_herded(const std::string& name, const launch::HerdingSpec& spec) {
  launch::Launch l = launch::load_launch(workload(name));
  l.reference.clear();  // the reference checks the exact kernel
  hw::MajorityUnit majority(
      32, spec.tie == launch::HerdTie::taken ? hw::MajorityTie::kTaken : hw::MajorityTie::kNotTaken);
  hw::PopularBlockSelector selector(32);
  hw::Herding herding(spec, majority, selector);
  launch::SessionOptions options;
  if (spec.any()) options.hooks = {&herding, &herding};
  launch::Session session(std::move(l), options);
  HerdedRun r;
  r.initial = session.prepare_device()->initial;
  r.result = session.run();
  r.stats = herding.statistics().json();
  r.instances = herding.instances();
  return r;
}

nlohmann::json branch_entry(const nlohmann::json& stats, const std::string& kernel, uint32_t pc) {
  for (const nlohmann::json& e : stats["kernels"][kernel]["branches"]) {
    if (e["pc"] == pc) return e;
  }
  return {};
}

// ---- Mandelbrot ----------------------------------------------------------------------------------------

// mandelbrot.yaml: 256x256 pixels in 16x16 CTAs of 16x16 threads; a warp is two rows of 16 pixels.
constexpr int kSide = 256, kMaxIterations = 64;
constexpr float kOrigin[2] = {-2.0f, -1.5f}, kStep = 0.01171875f;
constexpr uint32_t kLoopTestPc = 46, kFirstTestPc = 27, kMandelbrotBoundsPc = 18;

struct MandelbrotModel {
  std::vector<uint8_t> iterations = std::vector<uint8_t>(size_t(kSide) * kSide, 0);
  uint64_t loop_tests = 0, divergent = 0, lanes_forced = 0;
};

// The PTX's loop body for one lane (mandelbrot.ptx lines 78-93): IEEE single operations, no FMA.
struct Lane {
  float c_re = 0, c_im = 0, re = 0, im = 0, re2 = 0, im2 = 0;
  void step() {
    const float next_re = c_re + (re2 - im2);
    im = c_im + (re + re) * im;
    re2 = next_re * next_re;
    im2 = im * im;
    re = next_re;
  }
  bool inside() const { return re2 + im2 <= 4.0f; }
};

// herded: at each loop test every lane follows the strict majority of its warp (a tie exits); otherwise
// each lane leaves the loop on its own.
MandelbrotModel mandelbrot_model(bool herded) {
  MandelbrotModel m;
  for (int cta_y = 0; cta_y < 16; ++cta_y) {
    for (int cta_x = 0; cta_x < 16; ++cta_x) {
      for (int warp = 0; warp < 8; ++warp) {
        std::array<Lane, 32> lane;
        std::array<int, 32> x{}, y{}, count{};
        for (int l = 0; l < 32; ++l) {
          x[l] = cta_x * 16 + l % 16;
          y[l] = cta_y * 16 + warp * 2 + l / 16;
          lane[l].c_re = float(x[l]) * kStep + kOrigin[0];
          lane[l].c_im = float(y[l]) * kStep + kOrigin[1];
        }
        uint32_t running = 0xffffffffu;  // lanes still in the loop
        while (running) {
          uint32_t stay = 0;
          for (int l = 0; l < 32; ++l) {
            if (!(running >> l & 1)) continue;
            lane[l].step();
            ++count[l];
            if (count[l] < kMaxIterations && lane[l].inside()) stay |= 1u << l;
          }
          ++m.loop_tests;
          if (!herded) {
            running = stay;
            continue;
          }
          const int yes = std::popcount(stay);
          if (yes != 0 && stay != running) {
            ++m.divergent;
            const bool all_stay = 2 * yes > std::popcount(running);
            m.lanes_forced += uint64_t(all_stay ? std::popcount(running) - yes : yes);
            stay = all_stay ? running : 0;
          }
          running = stay;
        }
        for (int l = 0; l < 32; ++l) m.iterations[size_t(y[l] * kSide + x[l])] = uint8_t(count[l]);
      }
    }
  }
  return m;
}

TEST(HerdingOutputs, TheMandelbrotHostModelMatchesTheExactRun) {
  const HerdedRun r = run_herded("mandelbrot", {});
  EXPECT_EQ(r.result.buffers.at("iterations"), mandelbrot_model(false).iterations);
  EXPECT_GT(r.result.stats.divergent_branches, 0u);
}

TEST(HerdingOutputs, MandelbrotWithEveryBranchHerdedMatchesTheHerdedHostModel) {
  launch::HerdingSpec spec;
  spec.branches.all = true;
  const HerdedRun r = run_herded("mandelbrot", spec);
  const MandelbrotModel herded = mandelbrot_model(true);
  const std::vector<uint8_t>& out = r.result.buffers.at("iterations");
  EXPECT_EQ(out, herded.iterations);
  const std::vector<uint8_t> exact = mandelbrot_model(false).iterations;
  size_t differ = 0;
  for (size_t i = 0; i < exact.size(); ++i) differ += exact[i] != out[i];
  EXPECT_GT(differ, 100u);  // herding is visible in the output
  EXPECT_EQ(r.result.stats.divergent_branches, 0u);

  const nlohmann::json loop = branch_entry(r.stats, "mandelbrot", kLoopTestPc);
  EXPECT_EQ(loop["herd"], true);
  EXPECT_EQ(loop["executions"], herded.loop_tests);
  EXPECT_EQ(loop["divergent"], herded.divergent);
  EXPECT_EQ(loop["herded"], herded.divergent);
  EXPECT_EQ(loop["lanes_forced"], herded.lanes_forced);
  EXPECT_GT(herded.divergent, 0u);
  const nlohmann::json first = branch_entry(r.stats, "mandelbrot", kFirstTestPc);  // max_iterations < 1
  EXPECT_EQ(first["herd"], true);
  EXPECT_EQ(first["executions"], 2048u);
  EXPECT_EQ(first["divergent"], 0u);
  const nlohmann::json bounds = branch_entry(r.stats, "mandelbrot", kMandelbrotBoundsPc);  // guards the store
  EXPECT_EQ(bounds["herd"], false);
  EXPECT_EQ(bounds["executions"], 2048u);
  EXPECT_EQ(r.stats["kernels"]["mandelbrot"]["skipped"].size(), 1u);
  EXPECT_EQ(r.instances, herded.divergent);
  EXPECT_EQ(r.stats["switched_off"], false);
}

// The runtime threshold: with max_instances below the candidates, exactly that many are herded.
TEST(HerdingOutputs, MandelbrotHerdingSwitchesOffAtMaxInstances) {
  launch::HerdingSpec spec;
  spec.branches.all = true;
  spec.max_instances = 40;
  const HerdedRun r = run_herded("mandelbrot", spec);
  EXPECT_EQ(r.instances, 40u);
  EXPECT_EQ(r.stats["instances"], 40u);
  EXPECT_EQ(r.stats["switched_off"], true);
  EXPECT_EQ(r.stats["branches"]["herded"], 40u);
  // After the budget the branch diverges as written.
  EXPECT_GT(r.result.stats.divergent_branches, 0u);
  EXPECT_EQ(branch_entry(r.stats, "mandelbrot", kLoopTestPc)["divergent"],
            r.result.stats.divergent_branches + 40u);
  EXPECT_NE(r.result.buffers.at("iterations"), mandelbrot_model(false).iterations);
  EXPECT_NE(r.result.buffers.at("iterations"), mandelbrot_model(true).iterations);
}

// ---- Histogram -----------------------------------------------------------------------------------------

// histogram.yaml: 16 CTAs of 256 threads over 65536 bytes; CTA c counts bytes c*256 + t + k*4096 into shared
// bins, then each thread t adds bin t to the global bins unless it is 0 (the herded branch, taken = skip).
struct HistogramModel {
  std::vector<uint32_t> bins = std::vector<uint32_t>(256, 0);
  uint64_t divergent = 0, lanes_forced = 0;
};

HistogramModel histogram_model(const std::vector<uint8_t>& data, bool herded) {
  HistogramModel m;
  for (uint32_t cta = 0; cta < 16; ++cta) {
    std::array<uint32_t, 256> block{};
    for (uint32_t i = cta * 256; i < data.size(); i += 16 * 256) {
      for (uint32_t t = 0; t < 256; ++t) ++block[data[i + t]];
    }
    for (uint32_t warp = 0; warp < 8; ++warp) {
      int empty = 0;
      for (uint32_t t = warp * 32; t < warp * 32 + 32; ++t) empty += block[t] == 0;
      bool skip_all = false;
      if (herded && empty != 0 && empty != 32) {
        ++m.divergent;
        skip_all = 2 * empty > 32;
        m.lanes_forced += uint64_t(skip_all ? 32 - empty : empty);
      }
      if (skip_all) continue;
      for (uint32_t t = warp * 32; t < warp * 32 + 32; ++t) m.bins[t] += block[t];
    }
  }
  return m;
}

uint32_t merge_branch_pc(launch::Launch l) {
  l.reference.clear();
  const launch::Session session(std::move(l), {});
  const ptx::Function& k = session.kernel();
  for (uint32_t pc = 0; pc < k.code.size(); ++pc) {
    if (k.code[pc].op == ptx::Op::bra && k.code[pc].guard != ptx::kNoReg && k.code[pc].loc_line == 15)
      return pc;
  }
  throw std::runtime_error("histogram.ptx has no branch on line 15");
}

std::vector<uint32_t> as_u32(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

TEST(HerdingOutputs, TheHistogramWithItsMergeBranchHerdedMatchesTheHerdedHostModel) {
  launch::HerdingSpec spec;
  spec.branches.sites = {launch::parse_herd_site("histogram.cu:15")};
  // The analysis calls it unsafe (the atomic it skips has an address); herding it only adds zeros or drops
  // counts, never a bad address.
  spec.force_unsafe = true;
  const HerdedRun r = run_herded("histogram", spec);
  const std::vector<uint8_t>& data = r.initial.at("data");
  const HistogramModel herded = histogram_model(data, true);
  const std::vector<uint32_t> out = as_u32(r.result.buffers.at("bins"));
  EXPECT_EQ(out, herded.bins);
  EXPECT_NE(out, histogram_model(data, false).bins);  // the rare bins' counts are lost
  EXPECT_GT(herded.divergent, 0u);
  const uint32_t pc = merge_branch_pc(launch::load_launch(workload("histogram")));
  const nlohmann::json merge = branch_entry(r.stats, "histogram256", pc);
  EXPECT_EQ(merge["herd"], true);
  EXPECT_EQ(merge["executions"], 16u * 8);
  EXPECT_EQ(merge["divergent"], herded.divergent);
  EXPECT_EQ(merge["herded"], herded.divergent);
  EXPECT_EQ(merge["lanes_forced"], herded.lanes_forced);

  const HerdedRun exact = run_herded("histogram", {});
  EXPECT_EQ(as_u32(exact.result.buffers.at("bins")), histogram_model(data, false).bins);
}

}  // namespace
}  // namespace simtlm::herding_test
