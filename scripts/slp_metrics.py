"""The numbers behind the performance half of the SLP study's report (scripts/study_slp_report.py): speed-ups,
harmonic means, the divergent-kernel selection, stall classes and CAPRI's prediction accuracy, computed from the
timed runs of configs/sweeps/slp-timing.yaml. `timing` is {kernel: {mechanism: stats.json document}}; a key a
run did not write (an older simulator, a mechanism or kernel not in the sweep) is "not measured": None."""

import statistics
from fractions import Fraction

from sweep_results import stat_value

# A kernel counts as divergent when at least this fraction of its warps' conditional branch executions split the
# warp under no compaction; the study's conclusions are stated for the full and for the divergent set.
DIVERGENT_THRESHOLD = 0.10

# The paper's benchmark rule (Section 5): it evaluates only the kernels whose SIMD utilization is below 99%; here
# that is the no-compaction run's on the timing model.
PAPER_UTILIZATION_LIMIT = 0.99

# A kernel whose latest SM finishes more than this factor after the median SM ends with its unluckiest SM, so its
# speed-up measures that SM rather than the mechanism; a mean over such a kernel is flagged.
SPREAD_LIMIT = 1.10

# The paper's Table 1 instruction counts ("#Instr.") of the kernels it names, by this suite's kernel name.
TABLE1_INSTRUCTIONS = {"backprop": "1M", "bfs": "256K", "mummer": "2.7M", "bitonic": "2K", "reduction": "44K",
                       "mandelbrot": "8.3M", "dxtc": "955K", "eigen_bisect": "6.7M", "convolution": "204K",
                       "sobel": "575K"}

# "Never more than 1% slower": a mechanism is an offender on a kernel when it takes more than this fraction of
# cycles beyond no compaction's.
SLOWDOWN_TOLERANCE = 0.01

PERMUTATIONS = ["identity", "balanced", "odd_even", "xor_half", "random", "wid", "rev_wid", "flip_odd",
                "rotate_odd_1"]
BASELINE = "no_tbc"
TIMING_MECHANISMS = ([BASELINE] + [f"tbc+{p}" for p in PERMUTATIONS] + ["ideal"] +
                     [f"capri+{p}" for p in PERMUTATIONS])

# The reasons of stats.stalls grouped by what an SM waited for. Synchronization is the price of CTA-wide
# compaction (warps waiting for their CTA at a branch or reconvergence point) plus barriers.
STALL_CLASSES = {
    "synchronization": ["compaction", "barrier"],
    "memory": ["memory", "memory_backpressure"],
    "pipeline": ["scoreboard", "pipeline", "branch", "stack", "no_warp"],
}
# Every SM-cycle of a run, cycles x SMs: issuing, stalled by class, or idle with no resident warp (the grid's
# tail: SMs that finished their CTAs wait for the last SM).
BREAKDOWN = ["issue"] + list(STALL_CLASSES) + ["idle"]

CAPRI_COUNTS = ["capri_lookups", "capri_skipped", "capri_free_regions", "capri_outcomes", "capri_correct"]


def hmean(values):
    """Harmonic mean, None when a value is missing (a mean over part of a set would compare unlike sets)."""
    if not values or any(v is None or v <= 0 for v in values):
        return None
    return len(values) / sum(1 / v for v in values)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def cycles(timing, kernel, mechanism):
    return stat_value(timing.get(kernel, {}).get(mechanism, {}), "cycles")


def speedup(timing, kernel, mechanism):
    """No compaction's cycles over the mechanism's cycles on the kernel."""
    return ratio(cycles(timing, kernel, BASELINE), cycles(timing, kernel, mechanism))


def divergent_fraction(timing, kernel):
    """Divergent over conditional branch executions, per warp, under no compaction."""
    return stat_value(timing.get(kernel, {}).get(BASELINE, {}), "divergent_fraction")


def divergent_kernels(timing, kernels, threshold=DIVERGENT_THRESHOLD):
    """The kernels whose no-compaction divergent fraction is at least the threshold, in the given order."""
    selected = []
    for k in kernels:
        fraction = divergent_fraction(timing, k)
        if fraction is not None and fraction >= threshold:
            selected.append(k)
    return selected


def simd_utilization(timing, kernel):
    return stat_value(timing.get(kernel, {}).get(BASELINE, {}), "simd_utilization")


def paper_set(timing, kernels, limit=PAPER_UTILIZATION_LIMIT):
    """The kernels whose no-compaction SIMD utilization is below the limit (the paper's rule), in order."""
    return [k for k in kernels if (u := simd_utilization(timing, k)) is not None and u < limit]


def suite_name(kernel):
    """The suite kernel a study launch file runs (`mummer_large` runs mummer)."""
    return kernel[:-len("_large")] if kernel.endswith("_large") else kernel


def finish_spread(stats):
    """The latest SM's finish cycle over the median SM's (`sms[i].finish_cycle`), None when not measured."""
    finishes = [s.get("finish_cycle") for s in (stats or {}).get("sms") or []]
    if not finishes or any(f is None for f in finishes) or statistics.median(finishes) <= 0:
        return None
    return max(finishes) / statistics.median(finishes)


def spread_flagged(timing, kernels, mechanism):
    """Whether a kernel of the set ends with its unluckiest SM (spread above SPREAD_LIMIT) under the mechanism
    or under no compaction."""
    for k in kernels:
        for mech in (BASELINE, mechanism):
            spread = finish_spread(timing.get(k, {}).get(mech))
            if spread is not None and spread > SPREAD_LIMIT:
                return True
    return False


def machine_fill(stats):
    """{ctas, ctas_per_sm, warps_per_sm, waves} of a run: CTAs run, the most resident at once on an SM, their
    warps, and CTAs over what the SMs hold at once. None when the run has no per-SM counts."""
    sms = (stats or {}).get("sms") or []
    if not sms or any("ctas" not in s or "max_resident_ctas" not in s for s in sms):
        return None
    per_sm = max(s["max_resident_ctas"] for s in sms)
    ctas = sum(s["ctas"] for s in sms)
    block = stats.get("block")
    warps_per_cta = -(-block[0] * block[1] * block[2] // 32) if block else None
    return {"ctas": ctas, "ctas_per_sm": per_sm, "warps_per_sm": per_sm * warps_per_cta if block else None,
            "waves": ctas / (len(sms) * per_sm) if per_sm else None}


def mean_speedups(timing, kernels, mechanism):
    return hmean([speedup(timing, k, mechanism) for k in kernels])


def slowdown(timing, kernel, mechanism):
    """The mechanism's cycles over no compaction's, minus one (0.05: 5% slower)."""
    r = ratio(cycles(timing, kernel, mechanism), cycles(timing, kernel, BASELINE))
    return None if r is None else r - 1


def offenders(timing, kernels, mechanism, tolerance=SLOWDOWN_TOLERANCE):
    """[(kernel, slowdown)] where the mechanism is more than `tolerance` slower than no compaction. Cycles are
    compared exactly, so a run exactly at the tolerance (1010 against 1000 cycles) is not an offender."""
    limit = Fraction(str(tolerance))
    found = []
    for k in kernels:
        mech, base = cycles(timing, k, mechanism), cycles(timing, k, BASELINE)
        if mech is not None and base and Fraction(mech) / Fraction(base) - 1 > limit:
            found.append((k, slowdown(timing, k, mechanism)))
    return found


def worst_kernel(timing, kernels, mechanism):
    """(kernel, speed-up) with the lowest speed-up of the mechanism, or None when nothing was measured."""
    measured = [(k, speedup(timing, k, mechanism)) for k in kernels]
    measured = [(k, s) for k, s in measured if s is not None]
    return min(measured, key=lambda ks: ks[1]) if measured else None


def stall_classes(stats):
    """{class of BREAKDOWN: SM-cycles}, None when the run has no stall breakdown. Issue and idle come from the
    per-SM counts (`sms[i].issue_cycles`, `active_cycles`); a run without them counts 0 for both."""
    stalls = stat_value(stats or {}, "stalls")
    if not isinstance(stalls, dict):
        return None
    out = {cls: sum(stalls.get(reason, 0) for reason in reasons) for cls, reasons in STALL_CLASSES.items()}
    sms = stats.get("sms") or []
    out["issue"] = sum(s.get("issue_cycles", 0) for s in sms)
    out["idle"] = sum(stats["cycles"] - s.get("active_cycles", 0) for s in sms)
    return {cls: out[cls] for cls in BREAKDOWN}


def stall_deltas(base_stats, stats):
    """{class: SM-cycles of the run minus those of the baseline run}, None when either lacks them."""
    base, run = stall_classes(base_stats), stall_classes(stats)
    if base is None or run is None:
        return None
    return {cls: run[cls] - base[cls] for cls in BREAKDOWN}


def most_grown_class(base_stats, stats):
    """(class, growth in SM-cycles) of the class that grew most against the baseline, or None."""
    deltas = stall_deltas(base_stats, stats)
    if deltas is None:
        return None
    cls = max(BREAKDOWN, key=lambda c: deltas[c])
    return cls, deltas[cls]


def sync_wait(stats):
    """Warp-cycles spent waiting for the CTA (compaction.sync_wait_cycles), None when not measured."""
    return stat_value(stats or {}, "compaction.sync_wait_cycles")


def capri_prediction(stats):
    """CAPRI's predictor counts of a run ({count: value or None}) and its accuracy, correct over outcomes
    (None when not measured or when no CTA-wide outcome trained the table)."""
    counts = {name: stat_value(stats or {}, f"compaction.{name}") for name in CAPRI_COUNTS}
    counts["accuracy"] = ratio(counts["capri_correct"], counts["capri_outcomes"])
    counts["skipped_share"] = ratio(counts["capri_skipped"], counts["capri_lookups"])
    return counts


def mean_accuracy(timing, kernels, mechanism="capri+identity"):
    """(arithmetic mean of the per-kernel accuracies, number of kernels it covers); kernels without a measured
    accuracy are left out, so the count says how many the mean speaks for."""
    accuracies = [capri_prediction(timing.get(k, {}).get(mechanism)).get("accuracy") for k in kernels]
    accuracies = [a for a in accuracies if a is not None]
    return (sum(accuracies) / len(accuracies) if accuracies else None), len(accuracies)
