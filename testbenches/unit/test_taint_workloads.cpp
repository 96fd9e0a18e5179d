// The taint analysis on the workload suite: every conditional branch of every suite kernel against the P/D
// class read off its CUDA source (scripts/gen-taint-table turns this test's output into
// docs/validation/slp-taint.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "models/ptx/parser.hpp"
#include "models/ptx/taint.hpp"

namespace fs = std::filesystem;
using namespace simtlm::ptx;

namespace {

// The P/D class of every conditional branch, in pc order, per suite kernel, read off the CUDA sources:
// loop bounds and guards on ids, sizes and parameters are P; a test of a loaded value is D.
const std::map<std::string, std::string> kSuiteClasses = {
    {"backprop_forward", "PPPPP"},  // tx == 0, ty % power_two == 0 (Figure 8 (a)), loop, ty == 0
    {"bfs_step", "PDDDDD"},         // node < count; frontier[node], row_offsets loop, edges, visited
    // tid < count; frontier[tid]; the edge loop (bounds loaded from nodes[], unrolled by 4) and visited[]
    {"bfs_expand", "PDDDDDDDDDDD"},
    {"bfs_commit", "PD"},                      // tid < count; updating[tid]
    {"bitonic_sort", "PPPDPP"},                // size/stride loops, partner > tid; (a > b) == ascending is D
    {"convolution_separable", "PPPPPPPPPPP"},  // loops over ty * 16 + tx and the bounds guard
    {"double_loop", "PPPP"},                   // trip counts from the lane id and n
    {"make_dominant", "P"},                    // i < n
    {"Fan1", "P"},                             // row < n - 1 - t
    {"Fan2", "PP"},                            // 2-D bounds from ids, n and t; y == 0
    {"histogram256", "PPD"},                   // grid-stride loop; block_bins[tid] != 0 is D
    {"julia", "PPP"},                          // escape loop on values computed from ids and parameters
    {"mandelbrot", "PPP"},
    {"mandelbrot_herding", "PPPP"},  // the ballot of a programmatic predicate stays P
    {"nbody_step", "PPPPPPPP"},      // loops bounded by body_count and blockDim.x only
    // the unrolled anti-diagonal sweeps test tx against the wave: 1 + 16 + 15 guards on thread ids
    {"needle_lower", std::string(32, 'P')},
    {"needle_upper", std::string(32, 'P')},
    {"nw_borders", "P"},
    {"recursive_gaussian_columns", "PPPPPPPPPPP"},
    {"reduce_interleaved", "PPPP"},  // tid % (2 * stride) == 0
    {"single_loop", "PP"},
    {"sobel", "PPD"},      // image bounds P; magnitude > 255 is D
    {"sobel_tex", "PPD"},  // as sobel: the texels fetched by tex are loaded data
    // Herding study (issue 14):
    {"binomial_options", "PPPPPPP"},  // the strided j < level loops and barriers: ids and parameters only
    {"collide",
     "PDDDDDDDDDDDDPPP"},     // neighbour-cell loops over loaded cell bounds, the contact test on positions
    {"dxt1_compress", "DP"},  // flat block (loaded colours) D; texel 0 stores P
    {"find_cell_bounds", "PPDPP"},  // a key differs from the previous loaded key: D
    {"hash_particles", "P"},
    {"histogram64_partial", "PPPDDDDPPP"},  // the write-then-check retry on a loaded bin
    {"integrate", "P"},
    {"lbm_stream_collide", "PD"},  // cell bounds P; obstacle flag loaded: D
    {"merge_histogram64", "PPPPPPPP"},
    // histogram256 (SDK structure, 6 warps per CTA): zeroing and grid-stride loops P; the four inlined retry
    // loops test a reloaded shared bin indexed by the loaded word: D; the per-CTA sum loop P
    {"histogram256_partial", "PPPDDDDPPP"},
    // strided loop (2), the unrolled 256-thread tree's tid < stride (8), tid == 0
    {"merge_histogram256", "PPPPPPPPPPP"},
    // bounds check, the 20 unrolled escape tests and the loop exit: values from ids and parameters only
    {"mandelbrot_sdk", std::string(22, 'P')},
    {"ocean_spectrum", "P"},         // grid bounds
    {"sad_4x4", "PP"},               // frame-edge checks on displacements
    {"sort_keys", "PPPDPP"},         // bitonic: the compare-exchange on loaded keys is D
    {"volume_render", "PPPDP"},      // only the opaque exit (accumulated loaded densities) is D
    {"volume_render_tex", "PPPDP"},  // as volume_render, the densities fetched by tex3D
    // Robust SIMD study (issue 15), fft, edge_filter, hotspot, lu: tests on task ids and parameters only.
    {"fft_twiddles", "P"},  // the octant reduction compiles to selects: only the bounds check branches
    {"fft_bit_reverse", "P"},
    {"fft_butterfly", "P"},
    {"edge_filter", "PP"},       // bounds check; border pixel
    {"hotspot_step", "PPPPPP"},  // bounds check; interior cell; the four clamped neighbours
    {"lu_make_dominant", "PP"},  // bounds check; diagonal element
    {"lu_column", "P"},
    {"lu_update", "P"},
    // Robust SIMD Table II, merge_sort, short_path, kmeans, svm_kernel (issue 15):
    {"sort_runs", "PPPPPPPPDPP"},     // copy and run loops on ids; the insertion shift tests a loaded key: D
    {"merge_runs", "PPDDDDDDDDDDD"},  // the merge loop's indices advance by loaded-key selects: D from there
    {"short_path_row", "PPDPPD"},     // bounds, row 0, edges P; blocked gain and unreachable best D
    {"assign_points", "PPPDDDDDDDDDDDDDDPPDDDDDDD"},  // centre loops P; the early stop on distances D
    // the member test on loaded assignments is D; members == 0 only counts them (no loaded value): P
    {"update_centres", "PPPDDDDPPDPPPPPPPPP"},
    {"svm_decision", "PPDPD"},  // bounds and support loop P; the cutoff and sign tests on loaded features D
    // SLP study, divergent applications: mummer, ray_trace, eigen_bisect.
    // Read count and offset loop P; end-of-read, node boundary and mismatch tests on loaded bases/nodes D.
    {"mummer_match", "PPDDDDP"},
    // Bounds, the rejection-sampling loops (xorshift seeded from the pixel index) and the sphere loops P;
    // downward ray, sky, floor, lit side, shadow occluder, reflectivity and absorption tests on scene data D.
    {"ray_trace", "PPPPPPPPPDDDDPPDDDDPPDPDPDDPDP"},
    // Everything bounded by the loaded matrix size (size check, Gershgorin loop and its border tests) and the
    // tolerance and Sturm exits on loaded entries are D; the unrolled i > 0 test and the iteration cap are P.
    {"eigen_bisect", "DDDPDDDPDDPDDD"},
};

// Every conditional branch of the suite's kernels, one line each on stdout (scripts/gen-taint-table turns
// them into docs/validation/slp-taint.md), checked against kSuiteClasses.
TEST(TaintWorkloads, ClassifiesEveryConditionalBranchOfTheSuite) {
  std::map<std::string, std::string> classes;
  for (const auto& dir : fs::directory_iterator(fs::path(SIMTLM_SOURCE_DIR) / "workloads")) {
    const fs::path ptx = dir.path() / (dir.path().filename().string() + ".ptx");
    if (!fs::exists(ptx)) continue;
    const Module module = load_ptx_file(ptx.string());
    for (const Function& fn : module.functions) {
      if (!fn.is_entry) continue;
      const TaintAnalysis taint(module, fn);
      std::string& kernel_classes = classes[fn.name];
      for (const BranchTaint& b : taint.branches()) {
        kernel_classes += branch_class_letter(b.kind);
        const Instr& in = fn.code[b.pc];
        const uint32_t load_cuda_line = b.data_load_pc == kNoTarget ? 0 : fn.code[b.data_load_pc].loc_line;
        std::printf(
            "taint workload=%s kernel=%s pc=%u ptx_line=%u cuda_file=%s cuda_line=%u class=%c predicate=%s "
            "sources=%s load_cuda_line=%u\n",
            dir.path().filename().string().c_str(), fn.name.c_str(), b.pc, in.line,
            in.loc_file != 0 && in.loc_file < module.files.size() ? module.files[in.loc_file].c_str() : "-",
            in.loc_line, branch_class_letter(b.kind), fn.regs[b.predicate].name.c_str(),
            describe_sources(b.sources).c_str(), load_cuda_line);
      }
    }
  }
  EXPECT_EQ(classes, kSuiteClasses);
}

}  // namespace
