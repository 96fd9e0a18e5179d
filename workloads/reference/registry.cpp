// Name -> host reference table for launch files' `reference:` key.
#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "models/launch/buffers.hpp"
#include "workloads/reference/reference.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr std::pair<const char*, ReferenceFn> kReferences[] = {
    {"backprop", backprop},
    {"bfs", bfs},
    {"bfs_graph", bfs_graph},
    {"binomial_options", binomial_options},
    {"bitonic", bitonic},
    {"convolution", convolution},
    {"double_loop", double_loop},
    {"dxtc", dxtc},
    {"edge_filter", edge_filter},
    {"eigen_bisect", eigen_bisect},
    {"fft", fft},
    {"gaussian", gaussian},
    {"histogram", histogram},
    {"histogram64", histogram64},
    {"histogram256", histogram256},
    {"hotspot", hotspot},
    {"julia", julia},
    {"kmeans", kmeans},
    {"lbm", lbm},
    {"lu", lu},
    {"mandelbrot", mandelbrot},
    {"mandelbrot_herding", mandelbrot_herding},
    {"mandelbrot_sdk", mandelbrot_sdk},
    {"merge_sort", merge_sort},
    {"mummer", mummer},
    {"nbody", nbody},
    {"ocean_fft", ocean_fft},
    {"needleman_wunsch", needleman_wunsch},
    {"particles", particles},
    {"ray_trace", ray_trace},
    {"recursive_gaussian", recursive_gaussian},
    {"reduction", reduction},
    {"sad", sad},
    {"short_path", short_path},
    {"single_loop", single_loop},
    {"sobel", sobel},
    {"sobel_tex", sobel_tex},
    {"svm_kernel", svm_kernel},
    {"volume_render", volume_render},
    {"volume_render_tex", volume_render_tex},
};

// References of workloads that are launch sequences (launches:): SequenceSession runs them, not the
// single-launch suites that iterate reference_names().
constexpr const char* kSequenceWorkloads[] = {
    "bfs_graph", "gaussian", "histogram64", "lbm",        "needleman_wunsch", "particles",   "fft",
    "hotspot",   "lu",       "merge_sort",  "short_path", "kmeans",           "histogram256"};

bool is_sequence_workload(const std::string& name) {
  return std::find(std::begin(kSequenceWorkloads), std::end(kSequenceWorkloads), name) !=
         std::end(kSequenceWorkloads);
}

}  // namespace

ReferenceFn find_reference(const std::string& name) {
  const auto* found = std::find_if(std::begin(kReferences), std::end(kReferences),
                                   [&](const auto& entry) { return name == entry.first; });
  return found == std::end(kReferences) ? nullptr : found->second;
}

std::vector<std::string> sequence_reference_names() {
  return {std::begin(kSequenceWorkloads), std::end(kSequenceWorkloads)};
}

std::vector<std::string> reference_names() {
  std::vector<std::string> names;
  for (const auto& entry : kReferences) {
    if (!is_sequence_workload(entry.first)) names.emplace_back(entry.first);
  }
  return names;
}

}  // namespace simtlm::workloads
