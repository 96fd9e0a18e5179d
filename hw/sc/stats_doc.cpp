// docs/stats-schema.md: the timing model's tables generated from the statistics declarations; the functional
// runner's document, the launch description and launch sequences are described here in words until they are
// declared too.
#include <string>

#include "hw/sc/gpu_stats.hpp"

namespace simtlm::hw {

namespace {

constexpr const char* kFunctional =
    R"(`simtlm run` writes `DIR/stats.json` next to the output buffers (`simtlm demo` writes one per workload in
`OUT/<workload>/`). One JSON object; every field except `host` is deterministic for a given launch file and PTX.

| field | type | meaning |
|---|---|---|
| `kernel` | string | PTX entry name of the kernel that ran (mangled when the source was C++) |
| `launch` | string | file name of the launch file |
| `grid` | [x, y, z] | CTAs per dimension |
| `block` | [x, y, z] | threads per CTA per dimension |
| `shared_bytes` | integer | dynamic shared memory per CTA, bytes |
| `warp_instructions` | integer | issued warp instructions (at least one lane in the mask) |
| `thread_instructions` | integer | sum over issued warp instructions of the active lanes (guard-false lanes count) |
| `simd_utilization` | number | `thread_instructions / (warp_instructions * 32)`, 0 when nothing was issued |
| `branches` | integer | warp-level executions of conditional (guarded, non-`.uni`) branches |
| `divergent_branches` | integer | of those, executions where some active lanes took the branch and some did not |
| `divergent_fraction` | number | `divergent_branches / branches`, 0 when there were no branches |
| `per_branch` | object | one entry per conditional branch that executed, keyed by its PC (instruction index, as a string) |
| `per_branch.PC.executed` | integer | warp-level executions of this branch |
| `per_branch.PC.divergent` | integer | of those, the divergent ones |
| `per_branch.PC.ptx_line` | integer | line of the branch in the PTX file |
| `per_branch.PC.cuda` | string or null | `file.cu:line` from the PTX `.loc` before the branch (file name only), null without line info |
| `barriers` | integer | CTA-wide barrier completions |
| `max_stack_depth` | integer | deepest reconvergence stack of any warp |
| `ctas` | integer | CTAs run |
| `warps` | integer | warps run |
| `host` | object | facts about the host run; not deterministic, excluded from comparisons |
| `host.wall_seconds` | number | wall-clock seconds of the grid's execution (not loading or checking) |

)";

constexpr const char* kTimingIntro = R"(## Timing mode (`simtlm run --config …`)

The same file, produced by the SystemC model (`docs/timing-model.md`). It keeps `kernel`, `launch`, `grid`,
`block`, `shared_bytes` and `host` with the meanings above and adds `config` (string: file name of the machine
configuration, or `defaults`), `overrides` ([string]: the `--set PATH=VALUE` overrides), `units` (string: which
units run as C++ models or RTL twins, `--rtl`) and `host.thread_instructions_per_second`,
`host.cycles_per_second` (number: simulation speed of this run). There is no `max_stack_depth`: see
`stack.max_depth`. Everything else is the timing model's statistics document, whose rows below are generated
from the declarations next to the units that count them. The merge column says how a GPU total is formed from
its parts (SMs, L1s, L2 banks, DRAM channels): sums add, maxima take the larger, means are weighted by the
named counters, formulas are recomputed from the merged statistics, labels keep the first part's.

)";

constexpr const char* kTail = R"(## Warnings and out-of-bounds counts

| field | type | meaning |
|---|---|---|
| `warnings` | [string] | e.g. a kernel reading a `__constant__` variable that nothing initialised (`docs/launch-files.md`); present for sequences always, for single launches only when there is a warning |
| `out_of_bounds` | object | only with `out_of_bounds: warn`: `{mode: "warn", loads, stores, first: [...]}`, accesses outside every buffer (loads read zeros, stores dropped) and the first 8 with kernel, CTA, thread and PC |

## Launch sequences

For a file with `launches:` the document keeps the keys above as **totals over all launches** and adds
`launches`:

| field | type | meaning |
|---|---|---|
| `kernel` | string | the kernels launched, in order of first launch, comma-separated |
| `grid`, `block`, `shared_bytes` | null | per launch in `launches[]` |
| `launch_count` | integer | kernel launches run |
| `per_branch` | object | keyed `KERNEL:PC`, counts summed over that kernel's launches |
| `max_stack_depth`, `stack.max_depth`, `*max*` | integer | maxima over launches |
| `launches[k]` | object | launch k in run order: `step` (= k), `kernel`, `line` (of the step in the launch file), `iteration` (`i`), `grid`, `block`, `shared_bytes`, then that launch's statistics with the single-launch keys (functional: `warp_instructions` … `warps`; timing: `cycles` … `sms`) |

Timing mode adds per launch `start_cycle` (the cycle the launch began: 0, then the end of the previous launch's
write-back) and gives `cycles`, `ipc`, `thread_ipc` for that launch alone. Its `l1`, `l2`, `interconnect`,
`dram` and `write_back` counters are that launch's increments; averages (`*_avg*`) are left out of the
per-launch memory objects and maxima are since the start of the sequence. The top-level `cycles` is the cycle
the last launch's requests completed (it includes earlier launches' write-backs); `ipc`, `thread_ipc`,
`simd_utilization`, `divergent_fraction`, `memory.requests_per_memory_instruction` and
`compaction.compaction_rate`, `compaction.capri_accuracy` are recomputed from the totals; the memory-system objects are the whole sequence's;
`write_back` describes the last launch's.
)";

}  // namespace

std::string stats_schema_markdown() {
  std::string text =
      "# stats.json\n\nGenerated by `scripts/gen-stats-doc` from the statistics declarations "
      "(`common/stats.hpp`; "
      "the timing model's in `hw/sc/gpu_stats.cpp`, `hw/sc/sm_stats.cpp`, "
      "`hw/divergence/divergence_stats.cpp`, "
      "`hw/sc/load_store_unit.cpp`, `models/mem/mem_stats.cpp`): do not edit.\n\n";
  text += kFunctional;
  text += kTimingIntro;
  text += stats::schema_table(timing_stats_decl());
  text += "\n";
  text += kTail;
  return text;
}

}  // namespace simtlm::hw
