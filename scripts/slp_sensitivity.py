"""The latency sensitivity of the SLP study's headline (docs/validation/slp.md, scripts/study_slp_report.py): the
paper's means over its set, as configs/sweeps/slp-sensitivity.yaml's machine variants move them. `timing` is the
main sweep's {kernel: {mechanism: stats}} on fermi-slp itself; `variants` is {config: {kernel: {mechanism:
stats}}} of the sensitivity sweep."""

import slp_metrics as m
from slp_performance import NA, change

CAPRI, BALANCED = "capri+identity", "capri+balanced"
# What each variant of the sweep changes, in report order.
VARIANTS = [("shared-4", "shared memory 4 cycles (base 20)"), ("shared-40", "shared memory 40 cycles"),
            ("alu-2", "integer and f32 pipelines 2 cycles (base 4)"), ("alu-8", "integer and f32 pipelines 8 cycles"),
            ("l1-4", "L1 hit 4 cycles (base 20)"), ("l1-40", "L1 hit 40 cycles"),
            ("dram-x2", "DRAM timings x2 in core cycles (clock ratio 0.66, base GDDR5's 1.32)"),
            ("dram-x0.5", "DRAM timings x0.5 (clock ratio 2.64)")]


def by_config(jobs):
    out = {}
    for j in jobs:
        a = j["axes"]
        out.setdefault(a["config"], {}).setdefault(a["launch"], {})[a["mechanism"]] = j["stats"]
    return out


def row(name, timing, kernels):
    capri = m.mean_speedups(timing, kernels, CAPRI)
    balanced = m.mean_speedups(timing, kernels, BALANCED)
    return f"| {name} | {change(capri)} | {change(balanced)} | {change(m.ratio(balanced, capri))} |"


def sensitivity_section(timing, variants, selected):
    """The headline over the paper's set on fermi-slp and on each variant (a mean is n/a when a kernel of the set
    was not measured there)."""
    lines = ["## Sensitivity to the latencies Table 2 leaves open", "",
             "`configs/sweeps/slp-sensitivity.yaml` varies one latency at a time around `configs/fermi-slp.yaml`; each",
             f"row gives the harmonic means over the paper's set ({len(selected)} kernels, selected on fermi-slp).", "",
             "| machine | CAPRI over no compaction | CAPRI + Balanced over no compaction | CAPRI + Balanced over CAPRI |",
             "|---|---:|---:|---:|", row("fermi-slp (Table 2)", timing, selected)]
    for config, text in VARIANTS:
        lines.append(row(text, variants.get(config, {}), selected) if config in variants
                     else f"| {text} | {NA} | {NA} | {NA} |")
    return lines + [""]


# The predictor variants of configs/sweeps/slp-capri-predictor.yaml: (mechanism, entries, miss policy).
PREDICTOR_VARIANTS = [(f"capri-{e}-{miss}", e, miss) for e in (8, 32, 128) for miss in ("adequate", "not_adequate")]
PUBLISHED_ACCURACY = {"divergent": 0.866, "non-divergent": 0.998}


def by_mechanism(jobs):
    out = {}
    for j in jobs:
        a = j["axes"]
        out.setdefault(a["launch"], {})[a["mechanism"]] = j["stats"]
    return out


def predictor_section(timing, predictor, kernels, divergent):
    """Accuracy of each table size and miss policy over the divergent and the other kernels (mean of the
    per-kernel accuracies, kernels without outcomes left out) and its harmonic-mean speed-up over no compaction.
    `predictor` is {kernel: {variant: stats}}; the no-compaction cycles come from the main sweep."""
    others = [k for k in kernels if k not in divergent]
    lines = ["## CAPRI's predictor: table size and miss policy", "",
             "`configs/sweeps/slp-capri-predictor.yaml` runs CAPRI (identity permutation) with 8, 32 and 128 table",
             "entries and both miss policies (`compaction.capri_miss`). CAPRI's abstract reports "
             f"{100 * PUBLISHED_ACCURACY['divergent']:.1f}% accuracy on",
             f"divergent and {100 * PUBLISHED_ACCURACY['non-divergent']:.1f}% on non-divergent benchmarks; "
             f"here *divergent* is the {len(divergent)} kernels",
             f"whose no-compaction divergent fraction is at least {100 * m.DIVERGENT_THRESHOLD:.0f}%. "
             "The table's lifetime (`compaction.capri_clear`) does not",
             "matter in this study: every launch runs one kernel.", "",
             "| entries | miss predicts | accuracy, divergent | accuracy, other | speed-up over no compaction (all) |",
             "|---:|---|---:|---:|---:|"]
    for variant, entries, miss in PREDICTOR_VARIANTS:
        merged = {k: dict(timing.get(k, {}), **{variant: predictor.get(k, {}).get(variant)}) for k in kernels}
        merged = {k: {mech: s for mech, s in runs.items() if s is not None} for k, runs in merged.items()}
        div_acc, div_n = m.mean_accuracy(merged, divergent, variant)
        other_acc, other_n = m.mean_accuracy(merged, others, variant)
        speed = m.mean_speedups(merged, kernels, variant)
        acc = lambda a, n: NA if a is None else f"{100 * a:.1f}% ({n})"
        lines.append(f"| {entries} | {miss.replace('_', ' ')} | {acc(div_acc, div_n)} | {acc(other_acc, other_n)} | "
                     f"{NA if speed is None else f'{speed:.3f}'} |")
    return lines + [""]
