// Name -> host reference table for launch files' `reference:` key.
#include <algorithm>
#include <iterator>
#include <utility>

#include "workloads/reference/reference.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr std::pair<const char*, ReferenceFn> kReferences[] = {
    {"backprop", backprop},
    {"bfs", bfs},
    {"bitonic", bitonic},
    {"convolution", convolution},
    {"double_loop", double_loop},
    {"histogram", histogram},
    {"julia", julia},
    {"mandelbrot", mandelbrot},
    {"mandelbrot_herding", mandelbrot_herding},
    {"nbody", nbody},
    {"recursive_gaussian", recursive_gaussian},
    {"reduction", reduction},
    {"single_loop", single_loop},
    {"sobel", sobel},
};

}  // namespace

ReferenceFn find_reference(const std::string& name) {
  const auto* found = std::find_if(std::begin(kReferences), std::end(kReferences),
                                   [&](const auto& entry) { return name == entry.first; });
  return found == std::end(kReferences) ? nullptr : found->second;
}

std::vector<std::string> reference_names() {
  std::vector<std::string> names;
  for (const auto& entry : kReferences) names.emplace_back(entry.first);
  return names;
}

}  // namespace simtlm::workloads
