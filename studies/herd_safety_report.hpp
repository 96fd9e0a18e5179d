// The herding safety verdicts (models/ptx/herd_safety.hpp) of a launch file's kernels, as a text table and
// as JSON. A launch sequence reports every distinct kernel (PTX file and entry) once, in order of first use.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/launch/launch.hpp"

namespace simtlm::studies {

// Per kernel: a title line, then one row per conditional branch and load in PC order: kind (branch/load),
// PC, PTX line, CUDA file:line, safe/unsafe, reasons ("store_address@52"); notes and the exits a safe site
// needs unherded follow in the last column. Throws launch::LaunchError for a kernel the module lacks.
std::string herd_safety_report(const launch::Launch& launch);

// {"kernels": [{"kernel", "ptx", "sites": [{"kind", "pc", "ptx_line", "cuda", "safe", "reasons": [{"kind",
// "pc", "ptx_line", "cuda"}], "note", "requires_unherded": [pc...]}]}]}; "cuda" is null without a .loc.
nlohmann::json herd_safety_json(const launch::Launch& launch);

}  // namespace simtlm::studies
