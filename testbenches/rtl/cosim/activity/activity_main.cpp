// unit_activity: records the suite's warp-level events on the functional model and writes the switching
// activity of every rtl/ unit's input pins at W = 8, 16, 32, 64 (format: scripts/area_timing/power.py;
// schedules: activity.hpp). Deterministic: the same workloads give the same file byte for byte.
//
//   unit_activity --out docs/area-timing/activity.json [--workloads bfs,sobel] [--units majority_unit]
//                 [--source-dir DIR]
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "testbenches/rtl/cosim/activity/activity.hpp"

namespace simtlm::cosim::activity {
namespace {

// Divergent (bfs, bitonic, reduction, mandelbrot: 62, 49, 33 and 10 % of their branches diverge), a
// load-heavy stencil (sobel) and a kernel without a divergent branch (nbody).
const std::vector<std::string> kDefaultWorkloads = {"bfs",        "bitonic", "reduction",
                                                    "mandelbrot", "sobel",   "nbody"};
const std::vector<uint32_t> kWidths = {8, 16, 32, 64};

using UnitFunction = std::function<UnitActivity(const WorkloadTrace&, uint32_t)>;

const std::vector<std::pair<std::string, UnitFunction>>& unit_functions() {
  static const std::vector<std::pair<std::string, UnitFunction>> units = {
      {"majority_unit", [](const WorkloadTrace& t, uint32_t w) { return majority_activity(t.branches, w); }},
      {"slp_permutation_unit",
       [](const WorkloadTrace& t, uint32_t w) { return permutation_activity(t.branches, w); }},
      {"priority_encoder_compactor",
       [](const WorkloadTrace& t, uint32_t w) { return compactor_activity(t.compactions, w); }},
      {"popular_block_selector",
       [](const WorkloadTrace& t, uint32_t w) { return selector_activity(t.loads, w); }},
  };
  return units;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    out.append(i == 0 ? "\"" : ", \"").append(items[i]).append("\"");
  }
  return out + "]";
}

std::string meta_json(const std::vector<std::string>& workloads, const std::vector<std::string>& units,
                      const std::map<std::string, std::string>& trace_counts) {
  std::ostringstream out;
  out << "{\n"
      << "    \"tool\": \"unit_activity (testbenches/rtl/cosim/activity/activity_main.cpp)\",\n"
      << "    \"source\": \"warp-level events of the functional model "
         "(testbenches/rtl/cosim/workload_trace.hpp), "
         "32 lanes wide\",\n"
      << "    \"workloads\": " << json_list(workloads) << ",\n"
      << "    \"default_workloads\": " << json_list(kDefaultWorkloads)
      << ",\n"
         "    \"default_workloads_why\": \"divergent: bfs, bitonic, reduction, mandelbrot (see "
         "divergent_branches); "
         "regular: sobel (load-heavy stencil), nbody (no divergent branch)\",\n"
      << "    \"units\": " << json_list(units) << ",\n"
      << "    \"widths\": [\"8\", \"16\", \"32\", \"64\"],\n"
      << "    \"trace_events\": {";
  bool first = true;
  for (const auto& [name, counts] : trace_counts) {
    out << (first ? "" : ",") << "\n      \"" << name << "\": " << counts;
    first = false;
  }
  out << "},\n"
      << "    \"toggles_per_cycle\": \"transitions of the pin between consecutive clock cycles of the unit's "
         "schedule, divided by the cycles; the first cycle starts from 0\",\n"
      << "    \"duty\": \"fraction of the schedule's cycles the pin is 1\",\n"
      << "    \"rounding\": \"6 decimals\",\n"
      << "    \"width_adaptation\": \"W < 32: each 32-lane event becomes 32/W consecutive W-lane events "
         "(lanes in "
         "order, warp id w*32/W + k); W = 64: consecutive pairs of events joined (first in the low lanes, "
         "warp "
         "id = first / 2; an odd last event is joined with an empty one)\",\n"
      << "    \"schedules\": {\n"
      << "      \"majority_unit\": \"one branch event per cycle, back to back: taken, active\",\n"
      << "      \"slp_permutation_unit\": \"one branch event per cycle: logical_mask = taken & active, warp "
         "= warp "
         "id mod 64, lane = first active lane (0 if none), mode = 2 (Balanced), rst = wr_en = wr_warp = "
         "wr_mask "
         "= 0\",\n"
      << "      \"priority_encoder_compactor\": \"per load one cycle load = 1 with pending_in = one side of "
         "a "
         "divergent branch, the CTA-wide mask re-chunked into W-lane warps (16 warps per load; groups with "
         "nothing pending skipped), then one cycle pop = 1 per compacted warp (C++ model); pending_in holds; "
         "rst = 0; events = loads\",\n"
      << "      \"popular_block_selector\": \"per global load one event: addr_in (AW = 64, inactive lanes "
         "0), "
         "active, line_shift = 7 (128-byte blocks), rst = 0, start pulse; PER EVENT: cycles = events, "
         "toggles "
         "per event, duty = fraction of events; start: 2 toggles and 1 high cycle per event\"},\n"
      << "    \"per_event_units\": {\"popular_block_selector\": {\"cycles_per_event\": \"L = ROUNDS + 1 "
         "(inputs "
         "held L cycles)\", \"divide_toggles_by_L\": true, \"divide_duty_by_L\": [\"start\"]}}\n"
      << "  }";
  return out.str();
}

int run(int argc, char** argv) {
  std::string out_path;
  std::string source_dir = SIMTLM_SOURCE_DIR;
  std::vector<std::string> workloads = kDefaultWorkloads;
  std::vector<std::string> units;
  for (const auto& [name, function] : unit_functions()) units.push_back(name);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--out") {
      out_path = value();
    } else if (arg == "--workloads") {
      workloads = split_list(value());
    } else if (arg == "--units") {
      units = split_list(value());
    } else if (arg == "--source-dir") {
      source_dir = value();
    } else if (arg == "--help" || arg == "-h") {
      std::cout << "unit_activity --out FILE [--workloads a,b,c] [--units u,v] [--source-dir DIR]\n"
                << "default workloads: " << json_list(kDefaultWorkloads) << "\n";
      return 0;
    } else {
      throw std::invalid_argument("unknown argument " + arg);
    }
  }
  if (out_path.empty()) throw std::invalid_argument("--out FILE is required");
  for (const std::string& unit : units) {
    bool known = false;
    for (const auto& [name, function] : unit_functions()) known |= name == unit;
    if (!known) throw std::invalid_argument("unknown unit " + unit);
  }

  std::ostringstream body;
  std::map<std::string, std::string> trace_counts;
  for (size_t w = 0; w < workloads.size(); ++w) {
    const auto start = std::chrono::steady_clock::now();
    const WorkloadTrace trace = record_workload(source_dir, workloads[w]);
    const auto divergent =
        std::count_if(trace.branches.begin(), trace.branches.end(),
                      [](const BranchEvent& b) { return b.taken != 0 && b.taken != b.active; });
    trace_counts[trace.workload] = "{\"branches\": " + std::to_string(trace.branches.size()) +
                                   ", \"divergent_branches\": " + std::to_string(divergent) +
                                   ", \"loads\": " + std::to_string(trace.loads.size()) +
                                   ", \"compactions\": " + std::to_string(trace.compactions.size()) + "}";
    body << (w == 0 ? "" : ",") << "\n    \"" << trace.workload << "\": {";
    bool first_unit = true;
    for (const auto& [name, function] : unit_functions()) {
      if (std::find(units.begin(), units.end(), name) == units.end()) continue;
      body << (first_unit ? "" : ",") << "\n      \"" << name << "\": {";
      first_unit = false;
      for (size_t i = 0; i < kWidths.size(); ++i) {
        body << (i == 0 ? "" : ",") << "\n        \"" << kWidths[i]
             << "\": " << unit_json(function(trace, kWidths[i]), 8);
      }
      body << "}";
    }
    body << "}";
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << "unit_activity: " << trace.workload << ": " << trace.branches.size() << " branches, "
              << trace.loads.size() << " loads, " << trace.compactions.size() << " compactions (" << seconds
              << " s)\n";
  }

  std::ofstream file(out_path);
  if (!file) throw std::runtime_error("cannot write " + out_path);
  file << "{\n  \"meta\": " << meta_json(workloads, units, trace_counts) << ",\n  \"workloads\": {"
       << body.str() << "\n  }\n}\n";
  if (!file.flush()) throw std::runtime_error("error writing " + out_path);
  return 0;
}

}  // namespace
}  // namespace simtlm::cosim::activity

int main(int argc, char** argv) {
  try {
    return simtlm::cosim::activity::run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "unit_activity: " << error.what() << "\n";
    return 1;
  }
}
