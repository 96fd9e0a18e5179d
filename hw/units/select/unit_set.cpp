#include "hw/units/select/unit_set.hpp"

#include <string_view>

#include "hw/units/width.hpp"

namespace simtlm::hw {
namespace {

std::string valid_names() {
  std::string names;
  for (const char* name : kRtlUnitNames) names += std::string(names.empty() ? "" : ", ") + name;
  return names + " (or all)";
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

void select_unit(UnitSelection& selection, std::string_view name, const std::string& whole_list) {
  if (name == "permutation") {
    selection.rtl_permutation = true;
  } else if (name == "majority") {
    selection.rtl_majority = true;
  } else if (name == "compactor") {
    selection.rtl_compactor = true;
  } else if (name == "popular_block") {
    selection.rtl_popular_block = true;
  } else if (name == "all") {
    selection.rtl_permutation = selection.rtl_majority = selection.rtl_compactor =
        selection.rtl_popular_block = true;
  } else {
    throw std::invalid_argument(
        "--rtl \"" + whole_list + "\": " +
        (name.empty() ? std::string("empty unit name") : "unknown unit \"" + std::string(name) + "\"") +
        "; valid units: " + valid_names());
  }
}

// The twins exist only at the widths cmake/rtl.cmake verilates.
void check_twin_width(uint32_t simd_width) {
  if (simd_width != 8 && simd_width != 16 && simd_width != 32 && simd_width != 64) {
    throw std::invalid_argument("--rtl: the Verilated twins exist for SIMD widths 8, 16, 32 and 64, not " +
                                std::to_string(simd_width));
  }
}

template <typename Interface>
std::unique_ptr<Interface> choose(bool rtl, bool check, std::unique_ptr<Interface> model,
                                  std::unique_ptr<Interface> (*make_twin)(const UnitOptions&, uint32_t),
                                  const UnitOptions& options, uint32_t simd_width,
                                  std::unique_ptr<Interface> (*make_checked)(std::unique_ptr<Interface>,
                                                                             std::unique_ptr<Interface>,
                                                                             const uint64_t*),
                                  const uint64_t* cycle_counter) {
  if (!rtl) return model;
  std::unique_ptr<Interface> twin = make_twin(options, simd_width);
  if (!check) return twin;
  return make_checked(std::move(model), std::move(twin), cycle_counter);
}

std::unique_ptr<LanePermutation> permutation_twin(const UnitOptions& options, uint32_t simd_width) {
  return make_rtl_permutation(simd_width, options.permutation_warp_ids);
}
std::unique_ptr<BranchMajority> majority_twin(const UnitOptions& options, uint32_t simd_width) {
  return make_rtl_majority(simd_width, options.majority_tie);
}
std::unique_ptr<WarpCompaction> compactor_twin(const UnitOptions& options, uint32_t simd_width) {
  return make_rtl_compactor(simd_width, options.compactor_max_warps);
}
std::unique_ptr<BlockSelection> popular_block_twin(const UnitOptions& options, uint32_t simd_width) {
  if (options.address_bits != 64) {
    throw std::invalid_argument(
        "--rtl popular_block: the Verilated twin is built with 64-bit addresses, not " +
        std::to_string(options.address_bits));
  }
  return make_rtl_popular_block(simd_width);
}

std::string report(std::optional<uint64_t> cycle, const std::string& unit, const std::string& inputs,
                   const std::string& model_output, const std::string& rtl_output) {
  return "RTL mismatch in unit " + unit + " at cycle " + (cycle ? std::to_string(*cycle) : "(unknown)") +
         "\n  inputs:    " + inputs + "\n  C++ model: " + model_output + "\n  RTL twin:  " + rtl_output;
}

}  // namespace

UnitSelection parse_rtl_units(const std::string& comma_list, bool check) {
  UnitSelection selection;
  selection.check = check;
  if (!trim(comma_list).empty()) {
    std::string_view rest = comma_list;
    while (true) {
      const auto comma = rest.find(',');
      select_unit(selection, trim(rest.substr(0, comma)), comma_list);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (check && !selection.any_rtl()) {
    throw std::invalid_argument(
        "--rtl-check compares the C++ model with the RTL of the units named by --rtl, "
        "and none is named; valid units: " +
        valid_names());
  }
  return selection;
}

std::string describe(const UnitSelection& selection) {
  const char* rtl = selection.check ? "rtl+check" : "rtl";
  const bool chosen[] = {selection.rtl_permutation, selection.rtl_majority, selection.rtl_compactor,
                         selection.rtl_popular_block};
  std::string text;
  for (size_t unit = 0; unit < std::size(kRtlUnitNames); ++unit) {
    text += std::string(text.empty() ? "" : " ") + kRtlUnitNames[unit] + "=" + (chosen[unit] ? rtl : "c++");
  }
  return text;
}

UnitSet make_unit_set(const UnitSelection& selection, uint32_t simd_width, const UnitOptions& options,
                      const uint64_t* cycle_counter) {
  if (selection.any_rtl()) check_twin_width(simd_width);
  check_simd_width(simd_width);
  UnitSet units;
  units.permutation =
      choose<LanePermutation>(selection.rtl_permutation, selection.check,
                              std::make_unique<PermutationTable>(simd_width, options.permutation_warp_ids),
                              permutation_twin, options, simd_width, make_checked_permutation, cycle_counter);
  units.majority =
      choose<BranchMajority>(selection.rtl_majority, selection.check,
                             std::make_unique<MajorityUnit>(simd_width, options.majority_tie), majority_twin,
                             options, simd_width, make_checked_majority, cycle_counter);
  units.compactor = choose<WarpCompaction>(
      selection.rtl_compactor, selection.check,
      std::make_unique<PriorityEncoderCompactor>(simd_width, options.compactor_max_warps), compactor_twin,
      options, simd_width, make_checked_compactor, cycle_counter);
  units.popular_block = choose<BlockSelection>(
      selection.rtl_popular_block, selection.check,
      std::make_unique<PopularBlockSelector>(simd_width, options.address_bits), popular_block_twin, options,
      simd_width, make_checked_popular_block, cycle_counter);
  return units;
}

RtlMismatch::RtlMismatch(std::optional<uint64_t> cycle, std::string unit, std::string inputs,
                         std::string model_output, std::string rtl_output)
    : std::runtime_error(report(cycle, unit, inputs, model_output, rtl_output)),
      cycle_(cycle),
      unit_(std::move(unit)),
      inputs_(std::move(inputs)),
      model_output_(std::move(model_output)),
      rtl_output_(std::move(rtl_output)) {}

}  // namespace simtlm::hw
