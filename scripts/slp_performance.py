"""The performance half of docs/validation/slp.md (scripts/study_slp_report.py): speed-ups on the timing model,
the stall breakdown, CAPRI's prediction accuracy, L1 misses and the note on the CAPRI baseline. Every number
comes from the timed runs (slp_metrics); whatever a run did not measure is printed as n/a."""

import slp_metrics as m

NA = "n/a"
TBC_COLUMNS = ["tbc+identity", "tbc+balanced", "ideal"]
CAPRI_COLUMNS = [f"capri+{p}" for p in m.PERMUTATIONS]
STALL_MECHANISMS = ["no_tbc", "tbc+identity", "capri+identity", "capri+balanced", "ideal"]
CAPRI = "capri+identity"
CAPRI_BALANCED = "capri+balanced"
TBC = "tbc+identity"


def num(x, digits=3):
    return NA if x is None else f"{x:.{digits}f}"


def pct(x):
    return NA if x is None else f"{100 * x:.1f}%"


def change(x):
    """A speed-up or ratio as a signed percentage change ("+3.1%")."""
    return NA if x is None else f"{100 * (x - 1):+.1f}%"


def label(mechanism):
    """TBC and CAPRI stand for their identity-permutation runs; other permutations are named as in docs/slp.md."""
    names = {"tbc+identity": "TBC", "capri+identity": "CAPRI"}
    if mechanism in names:
        return names[mechanism]
    return mechanism.replace("tbc+", "TBC+").replace("capri+", "CAPRI+")


def set_name(n_all, n_selected):
    return (f"all {n_all} kernels",
            f"the {n_selected} kernels below {100 * m.PAPER_UTILIZATION_LIMIT:.0f}% SIMD utilization")


def mean_cell(timing, kernels, mechanism, base=None):
    """A harmonic mean (over `base`'s when given, as a change), † when a kernel of the set ends with its
    unluckiest SM under the mechanism or no compaction."""
    a = m.mean_speedups(timing, kernels, mechanism)
    if base is None:
        text = num(a)
    else:
        b = m.mean_speedups(timing, kernels, base) if base != "none" else 1.0
        text = NA if a is None or b is None else change(a / b)
    return text + (" †" if text != NA and m.spread_flagged(timing, kernels, mechanism) else "")


def speedup_table(timing, kernels, selected, columns):
    head = ["kernel", "SIMD utilization (no_tbc)",
            f"in the paper's set (< {100 * m.PAPER_UTILIZATION_LIMIT:.0f}%)", "no_tbc cycles"]
    lines = ["| " + " | ".join(head + [label(c) for c in columns]) + " |",
             "|---|---:|:---:|---:|" + "---:|" * len(columns)]
    for k in kernels:
        marker = "**yes**" if k in selected else ""
        cells = [k, pct(m.simd_utilization(timing, k)), marker, str(m.cycles(timing, k, m.BASELINE) or NA)]
        lines.append("| " + " | ".join(cells + [num(m.speedup(timing, k, c)) for c in columns]) + " |")
    all_name, sel_name = set_name(len(kernels), len(selected))
    for name, subset in ((all_name, kernels), (sel_name, selected)):
        means = [mean_cell(timing, subset, c) for c in columns]
        lines.append(f"| **harmonic mean, {name}** | | | | " + " | ".join(means) + " |")
    return lines


SPREAD_MECHANISMS = ["no_tbc", "tbc+identity", "capri+identity", "capri+balanced", "ideal"]


def inputs_section(timing, kernels):
    """How each study input fills the machine, and how unevenly its SMs finish under each mechanism."""
    lines = ["## Study inputs", "",
             "Every kernel runs its study-sized launch file (`NAME_large.yaml`, issue 28) on the 30 SMs of",
             "`configs/fermi-slp.yaml`: *CTAs per SM* is the most an SM held at once (the occupancy its registers,",
             "shared memory and threads allow), *waves* the kernel's CTAs over what the SMs hold at once, *spread*",
             "the latest SM's finishing cycle over the median SM's. A spread above "
             f"{m.SPREAD_LIMIT:.2f} means the kernel ends with",
             "its unluckiest SM; means over such a kernel are marked †. Table 1 gives the paper's instruction counts",
             "for the kernels it names. nbody keeps its suite file (its work grows with the square of the bodies).", "",
             "| kernel | CTAs | CTAs per SM | warps per SM | waves | warp instructions (no_tbc) | Table 1 #Instr. | " +
             " | ".join(f"spread {label(c)}" for c in SPREAD_MECHANISMS) + " |",
             "|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(SPREAD_MECHANISMS)]
    for k in kernels:
        base = timing.get(k, {}).get(m.BASELINE)
        fill = m.machine_fill(base) or {}
        spreads = []
        for c in SPREAD_MECHANISMS:
            spread = m.finish_spread(timing.get(k, {}).get(c))
            spreads.append(NA if spread is None else f"{spread:.3f}" + (" †" if spread > m.SPREAD_LIMIT else ""))
        instructions = m.stat_value(base or {}, "warp_instructions")
        cells = [k, str(fill.get("ctas", NA)), str(fill.get("ctas_per_sm", NA)),
                 NA if fill.get("warps_per_sm") is None else str(fill["warps_per_sm"]),
                 num(fill.get("waves"), 2), str(instructions if instructions is not None else NA),
                 m.TABLE1_INSTRUCTIONS.get(m.suite_name(k), "–")]
        lines.append("| " + " | ".join(cells + spreads) + " |")
    return lines + [""]


def offender_text(timing, kernels, mechanism):
    """Whether the mechanism is never more than the tolerance slower than no compaction, with the offenders."""
    found = m.offenders(timing, kernels, mechanism)
    measured = [k for k in kernels if m.slowdown(timing, k, mechanism) is not None]
    claim = (f"\"{label(mechanism)} is never more than {100 * m.SLOWDOWN_TOLERANCE:.0f}% slower than no "
             "compaction\"")
    if not measured:
        return f"{claim}: not measured"
    if not found:
        return f"{claim} holds on all {len(measured)} measured kernels"
    listed = ", ".join(f"{k} ({100 * s:+.1f}% cycles)" for k, s in found)
    return f"{claim} does not hold: {len(found)} of {len(measured)} kernels are slower by more, {listed}"


def performance_sentence(timing, kernels, selected):
    all_name, sel_name = set_name(len(kernels), len(selected))
    lines = ["Measured (harmonic means of the speed-ups; \"over TBC\" and \"over CAPRI\" are ratios of those means):", ""]
    for name, subset in ((all_name, kernels), (sel_name, selected)):
        capri = m.mean_speedups(timing, subset, CAPRI)
        tbc = m.mean_speedups(timing, subset, TBC)
        capri_bal = m.mean_speedups(timing, subset, CAPRI_BALANCED)
        lines.append(f"- Over {name}: CAPRI {change(capri)} over no compaction and {change(m.ratio(capri, tbc))} "
                     f"over TBC; {label(CAPRI_BALANCED)} {change(m.ratio(capri_bal, capri))} over CAPRI.")
    worst = m.worst_kernel(timing, kernels, CAPRI)
    lines.append(f"- CAPRI's worst kernel is {worst[0]}, {change(worst[1])} against no compaction." if worst
                 else "- CAPRI's worst kernel: not measured.")
    lines += [f"- {offender_text(timing, kernels, CAPRI)}.", f"- {offender_text(timing, kernels, CAPRI_BALANCED)}."]
    return lines


def paper_table(timing, kernels, selected):
    """The paper's headline figures next to this model's, over all kernels and over the paper's set."""
    def over(mech, base, ks):
        return mean_cell(timing, ks, mech, base or "none")

    def kernel(mech, k):
        s = m.speedup(timing, k, mech)
        return change(s)

    balanced = "capri+balanced"
    rows = [("CAPRI over no compaction (harmonic mean)", "consistently faster", CAPRI, None),
            ("CAPRI over TBC (harmonic mean)", "consistently faster", CAPRI, "tbc+identity"),
            ("CAPRI + Balanced over no compaction (harmonic mean)", "+11.6%", balanced, None),
            ("CAPRI + Balanced over CAPRI (harmonic mean)", "+7%", balanced, CAPRI)]
    all_name, sel_name = set_name(len(kernels), len(selected))
    lines = [f"| measure | paper | {all_name} | {sel_name} |", "|---|---:|---:|---:|"]
    for name, paper, mech, base in rows:
        lines.append(f"| {name} | {paper} | {over(mech, base, kernels)} | {over(mech, base, selected)} |")
    for b in [k for k in kernels if m.suite_name(k) == "bitonic"]:
        lines.append(f"| {b}, CAPRI + Balanced over no compaction | +25.6% | {kernel(balanced, b)} | "
                     f"{kernel(balanced, b) if b in selected else NA} |")
    return lines


def performance_section(timing, kernels, selected):
    lines = ["## Performance on the timing model (`configs/fermi-slp.yaml`)", "",
             "Each mechanism runs on the SystemC model of Table 2's machine (`divergence.unit`,",
             "`compaction.permutation`; `docs/timing-model.md`): under TBC warps wait for their CTA at every branch",
             "and reconvergence point, CAPRI lets a warp go on where its predictor says compaction will not pay, the",
             "compactor emits one warp per cycle and compacted warps issue through the same pipelines and memory",
             "system. Speed-up is cycles of no compaction over cycles of the mechanism. Paper (Figure 15, over no",
             "compaction / over CAPRI, harmonic means): Balanced on CAPRI +11.6% / +7%, up to +25.6% on bitonic.", "",
             "The paper evaluates only kernels whose SIMD utilization is below "
             f"{pct(m.PAPER_UTILIZATION_LIMIT)} (Section 5); the harmonic",
             "means are given over all kernels and over that set, selected by the no_tbc run's `simd_utilization`.",
             "A mean is n/a when a kernel of its set was not measured under that mechanism, and marked † when a",
             f"kernel of its set has a finishing spread above {m.SPREAD_LIMIT:.2f} (Study inputs).", ""]
    lines += paper_table(timing, kernels, selected) + [""]
    lines += speedup_table(timing, kernels, selected, TBC_COLUMNS + CAPRI_COLUMNS)
    lines += [""] + performance_sentence(timing, kernels, selected) + ["", "### TBC under each permutation", ""]
    tbc_perms = [f"tbc+{p}" for p in m.PERMUTATIONS]
    lines += speedup_table(timing, kernels, selected, tbc_perms) + [""]
    return lines


def stall_cell(value, delta):
    if value is None:
        return NA
    return str(value) if delta is None else f"{value} ({delta:+d})"


# What growth in each class of m.BREAKDOWN means for a mechanism against no compaction.
GROWTH_MEANING = {
    "issue": "more warp instructions issued: compaction saved fewer than the warps it waited for",
    "synchronization": "cycles in which every live warp of an SM waited for its CTA or a barrier",
    "memory": "warps waiting for their CTA no longer hide the others' memory latency",
    "pipeline": "fewer ready warps to cover dependent instructions",
    "idle": "the grid's tail: the CTAs finished in another order and SMs idled while the last one ran",
}


def stall_section(timing, kernels):
    classes = list(m.BREAKDOWN)
    lines = ["## Where the cycles go", "",
             "Per kernel and mechanism, every SM-cycle of the run (cycles x SMs): issue (an instruction issued),",
             "the cycles in which resident warps issued nothing by class, synchronization (`stalls.compaction` +",
             "`stalls.barrier`), memory (`stalls.memory` + `stalls.memory_backpressure`), pipeline (`scoreboard` +",
             "`pipeline` + `branch` + `stack` + `no_warp`), and idle: the SM had no resident warp (it finished its",
             "CTAs and waits for the last SM: the grid's tail). In parentheses: the change against no_tbc on the same",
             "kernel. An SM-cycle without issue is charged to the most pressing reason among its live warps (the",
             "order of `hw/stall.hpp`), so synchronization counts only cycles in which every live warp waited; a warp",
             "waiting for its CTA while others wait for memory shows as more memory cycles, since it no longer hides",
             "them. The last column is what the waiting itself amounts to: `compaction.sync_wait_cycles`, the",
             "warp-cycles warps spent waiting for their CTA at branches and reconvergence points.", "",
             "| kernel | mechanism | cycles | " + " | ".join(classes) + " | warp-cycles waiting for the CTA |",
             "|---|---|---:|" + "---:|" * len(classes) + "---:|"]
    for k in kernels:
        base = timing.get(k, {}).get(m.BASELINE)
        base_cycles = m.cycles(timing, k, m.BASELINE)
        for mech in STALL_MECHANISMS:
            stats = timing.get(k, {}).get(mech)
            run = m.stall_classes(stats)
            deltas = None if mech == m.BASELINE else m.stall_deltas(base, stats)
            c = m.cycles(timing, k, mech)
            cycle_delta = None if mech == m.BASELINE or c is None or base_cycles is None else c - base_cycles
            cells = [k, mech, stall_cell(c, cycle_delta)]
            cells += [stall_cell(None if run is None else run[cls], None if deltas is None else deltas[cls])
                      for cls in classes]
            wait = m.sync_wait(stats)
            cells.append(NA if wait is None else str(wait))
            lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"Kernels where CAPRI is more than {100 * m.SLOWDOWN_TOLERANCE:.0f}% slower than no compaction, "
              "and the stall class that grew most:", ""]
    found = m.offenders(timing, kernels, CAPRI)
    for k, s in found:
        grown = m.most_grown_class(timing[k].get(m.BASELINE), timing[k].get(CAPRI))
        why = (NA if grown is None else
               f"{grown[0]} grew most ({grown[1]:+d} SM-cycles against no_tbc)")
        if grown is not None:
            why += f" ({GROWTH_MEANING[grown[0]]})"
        capri = timing[k].get(CAPRI)
        wait = m.sync_wait(capri)
        synced = m.stat_value(capri or {}, "compaction.cta_branches")
        diverged = m.stat_value(capri or {}, "compaction.divergent_cta_branches")
        if wait is not None and synced is not None:
            why += (f"; CAPRI synchronized {synced} CTA-wide branch executions ({diverged} of them divergent) and "
                    f"its warps waited {wait} warp-cycles for their CTA")
        lines.append(f"- {k}: {100 * s:+.1f}% cycles; {why}.")
    if not found:
        lines.append("- none.")
    return lines + [""]


def accuracy_section(timing, kernels, divergent):
    lines = ["## CAPRI's prediction accuracy", "",
             "Under CAPRI with the identity permutation: *lookups* are warp executions of conditional branches on",
             "the CTA's path that consulted the predictor table, *skipped* those predicted not to pay (the warp went",
             "on without waiting), *free regions* the skipped ones whose warp split and ran the region on its own",
             "stack; *outcomes* are CTA-wide outcomes that trained the table, *correct* those the table predicted",
             "right before its update. Accuracy is correct over outcomes. Rhu and Erez's abstract reports 99.8% on",
             "non-divergent and 86.6% on divergent workloads (their own benchmark split, not this threshold's).", "",
             "| kernel | divergent | lookups | skipped | free regions | outcomes | correct | accuracy |",
             "|---|:---:|---:|---:|---:|---:|---:|---:|"]
    for k in kernels:
        p = m.capri_prediction(timing.get(k, {}).get(CAPRI))
        skipped = NA if p["capri_skipped"] is None else f"{p['capri_skipped']} ({pct(p['skipped_share'])})"
        cells = [k, "**yes**" if k in divergent else "", str(p["capri_lookups"] if p["capri_lookups"] is not None
                                                              else NA), skipped]
        cells += [NA if p[c] is None else str(p[c]) for c in ("capri_free_regions", "capri_outcomes", "capri_correct")]
        lines.append("| " + " | ".join(cells + [pct(p["accuracy"])]) + " |")
    others = [k for k in kernels if k not in divergent]
    div_acc, div_n = m.mean_accuracy(timing, divergent)
    other_acc, other_n = m.mean_accuracy(timing, others)
    lines += ["", "Measured (mean of the per-kernel accuracies, kernels without outcomes left out): " +
              f"{mean_text(div_acc, div_n, 'divergent')}, {mean_text(other_acc, other_n, 'non-divergent')}.", ""]
    return lines


def mean_text(accuracy, n, kind):
    return f"{kind} kernels not measured" if not n else f"{pct(accuracy)} over {n} {kind} kernels"


def l1_section(timing, kernels):
    shown = ["no_tbc", "tbc+identity", "tbc+balanced", "ideal", "capri+identity", "capri+balanced"]
    lines = ["### L1 misses", "", "| kernel | " + " | ".join(shown) + " |", "|---|" + "---:|" * len(shown)]
    for k in kernels:
        cells = []
        for mech in shown:
            stats = timing.get(k, {}).get(mech, {})
            misses = m.stat_value(stats, "l1.misses")
            hits = m.stat_value(stats, "l1.hits")
            accesses = None if misses is None or hits is None else misses + hits
            cells.append(NA if misses is None else f"{misses} ({pct(m.ratio(misses, accesses))})")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return lines + [""]


def ipc_difference(timing, kernels):
    """The paper's CAPRI never loses to no compaction; the kernels where this one does, grouped by the class of
    SM-cycles that grew most (the measured cause, detailed under "Where the cycles go")."""
    found = m.offenders(timing, kernels, CAPRI)
    if not found:
        return "CAPRI is within 1% of no compaction or faster on every kernel, as the paper finds."
    by_class = {}
    for k, _ in found:
        grown = m.most_grown_class(timing[k].get(m.BASELINE), timing[k].get(CAPRI))
        by_class.setdefault(NA if grown is None else grown[0], []).append(k)
    causes = "; ".join(f"{cls} ({GROWTH_MEANING.get(cls, NA)}): {', '.join(ks)}" for cls, ks in by_class.items())
    return (f"The paper's CAPRI consistently outperforms no compaction; here it loses more than 1% on {len(found)} of "
            f"{len(kernels)} kernels. By the class of SM-cycles that grew most: {causes}. Under TBC's block-wide "
            "stack, which CAPRI keeps, a CTA still reconverges at every reconvergence point of a path it split, and "
            "with the launch files' grids fewer warps of other CTAs share an SM to hide that wait than in the paper's "
            "runs; the table is per SM and starts cold, so a small grid gives each SM few CTAs to learn from.")


def capri_baseline_section(timing, kernels):
    measured = [k for k in kernels if m.capri_prediction(timing.get(k, {}).get(CAPRI))["capri_lookups"] is not None]
    skipped = sum(m.capri_prediction(timing[k][CAPRI])["capri_skipped"] or 0 for k in measured)
    lookups = sum(m.capri_prediction(timing[k][CAPRI])["capri_lookups"] for k in measured)
    if measured:
        counted = (f"Over the {len(measured)} kernels whose runs report the predictor's counts, warps went on without "
                   f"waiting at {pct(m.ratio(skipped, lookups))} of the lookups (CAPRI with the identity permutation).")
    else:
        counted = "The timed runs do not report the predictor's counts (lookups: n/a)."
    return ["## Differences in the CAPRI baseline", "",
            "CAPRI (Rhu and Erez, ISCA 2012) is modelled as published: only warps at a branch predicted to gain",
            "from compaction wait; the others go on, on a stack of their own when their threads split. The",
            "table's geometry (entries, index, one history bit, a miss predicting adequate) is this model's choice;",
            "`docs/slp.md` (CAPRI) gives the sources and the rules the paper does not fix.",
            counted, ""]
