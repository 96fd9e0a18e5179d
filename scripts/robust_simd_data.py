"""What the Robust SIMD study's report reads (scripts/study_robust_simd_report.py): the paper's kernels,
organizations and Table III, and the sweeps' finished jobs as numbers per kernel and mechanism."""
import csv
import json
import os

import robust_simd_plots as plots
from sweep_results import SweepDirError

PAPER_SUFFIX = "_paper"
KERNELS = ["fft", "edge_filter", "hotspot", "lu", "merge_sort", "short_path", "kmeans", "svm_kernel"]
PAPER_NAME = {"fft": "FFT", "edge_filter": "Filter", "hotspot": "HotSpot", "lu": "LU", "merge_sort": "Merge",
              "short_path": "Short", "kmeans": "KMeans", "svm_kernel": "SVM"}
ORGS = [(w, d) for w in plots.WIDTHS for d in plots.DEPTHS if w * d <= 64]
CONFIGS = ["32KB-8way", "16KB-4way"]
CONFIG_TITLE = {"32KB-8way": "32 KB 8-way D-caches", "16KB-4way": "16 KB 4-way D-caches"}
# Every speed-up, at both cache sizes, is over 1x1 with the 32 KB cache: four single-threaded in-order cores of
# the paper's machine (Table III's caption), the machine Figure 7 is normalised to too.
BASELINE = ("32KB-8way", "static-1x1")
ADAPTIVE = [("robust-32x1", "RobustSIMD (32×1)"), ("dws-16x2", "DWS (16×2)"),
            ("robust_dws-16x2", "RobustDWS (16×2)")]
POLLUTED = [("static-8x4", "StaticSIMD 8×4"), ("robust-32x1", "RobustSIMD 32×1"), ("dws-16x2", "DWS 16×2")]
LEVELS = [0.12, 0.25, 0.5, 0.75]
CONVERGENCE = ["edge_filter", "hotspot"]
QUICK_MECHANISMS = ["static-1x1", "static-4x4", "static-8x4", "static-16x2", "static-32x1", "static-8x8",
                    "robust-32x1", "dws-16x2", "robust_dws-16x2"]
QUICK_LEVELS, QUICK_SEEDS = ["0.25", "0.5"], ["1", "2"]

# robust-simd.txt, Table III: speed-ups over single-threaded in-order cores; rows 3-8 (32 KB 8-way D-caches)
# and 10-15 (16 KB 4-way). Numbers: harmonic mean first, then FFT, Filter, HotSpot, LU, Merge, Short, KMeans,
# SVM (the order of KERNELS).
PAPER_TABLE3 = {
    "32KB-8way": {"static": ("8x4", [3.47, 3.23, 9.47, 6.22, 4.03, 1.26, 4.28, 4.56, 4.30]),
                  "app_best": ["8x4", "32x1", "8x4", "8x4", "4x2", "16x1", "8x2", "2x8"],
                  "optimal": [4.15, 3.23, 20.18, 6.22, 4.03, 1.76, 4.96, 5.20, 5.02],
                  "robust-32x1": [4.07, 3.36, 20.32, 6.31, 3.18, 1.79, 4.88, 7.62, 4.00],
                  "dws-16x2": [4.14, 3.51, 11.68, 5.49, 3.80, 1.95, 3.97, 6.92, 4.79],
                  "robust_dws-16x2": [4.27, 3.33, 16.62, 6.16, 3.66, 1.96, 4.96, 6.90, 4.59]},
    "16KB-4way": {"static": ("8x4", [1.24, 2.03, 2.75, 1.11, 0.64, 0.85, 0.88, 2.14, 2.70]),
                  "app_best": ["4x4", "8x1", "4x2", "4x2", "2x4", "8x1", "4x2", "2x8"],
                  "optimal": [2.92, 2.94, 6.99, 3.14, 2.17, 1.57, 3.29, 3.51, 4.01],
                  "robust-32x1": [2.63, 2.84, 9.07, 3.09, 2.03, 1.19, 3.19, 4.82, 2.44],
                  "dws-16x2": [1.62, 2.23, 2.76, 1.29, 0.84, 1.70, 0.91, 4.90, 3.66],
                  "robust_dws-16x2": [2.98, 2.93, 9.83, 2.71, 2.03, 1.72, 3.14, 4.91, 3.66]}}


def mech(w, d):
    return f"static-{w}x{d}"


def org_text(name):
    return name.split("-", 1)[1].replace("x", "×")


def org_counts(orgs):
    """"32×1 (17), 31×1 (1)": each organization (width, depth) with how many times it occurs, most first."""
    counts = {}
    for w, d in orgs:
        counts[f"{w}×{d}"] = counts.get(f"{w}×{d}", 0) + 1
    return ", ".join(f"{o} ({n})" for o, n in sorted(counts.items(), key=lambda t: -t[1]))


def hmean(values):
    return len(values) / sum(1 / v for v in values) if values and all(v > 0 for v in values) else None


def num(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def ratio(a, b):
    return a / b if a is not None and b else None


def slim(stats, keep_intervals):
    """What the report needs of a job's stats.json: whole-run cycles and Robust SIMD counters; for a launch
    sequence the totals are the top-level keys and WPU 0's intervals come from each launch's own section."""
    wpu = stats.get("wpu", {})
    s = {"cycles": stats["cycles"], "adaptation_share": wpu.get("adaptation_share"),
         "l1_misses": stats.get("l1", {}).get("misses"), "l1_hits": stats.get("l1", {}).get("hits"),
         "per_wpu": [{k: p.get(k) for k in ("width", "depth", "fallback", "dws", "adaptation_share")}
                     for p in wpu.get("per_wpu", [])]}
    rows = [p for l in stats["launches"] for p in l.get("wpu", {}).get("per_wpu", [])] \
        if stats.get("launches") else wpu.get("per_wpu", [])
    s["finals"] = [(p["width"], p["depth"]) for p in rows]
    s["fallbacks"] = sum(p.get("fallback", 0) for p in rows)
    s["tasks"] = wpu.get("tasks")
    # Per WPU-launch: its kernel, whether it fell back, and how many intervals its adaptation sampled.
    named = [(l["kernel"], p) for l in stats["launches"] for p in l.get("wpu", {}).get("per_wpu", [])] \
        if stats.get("launches") else [(stats.get("kernel"), p) for p in wpu.get("per_wpu", [])]
    s["wpu_launches"] = [{"kernel": k, "fallback": bool(p.get("fallback")), "width": p["width"],
                          "depth": p["depth"], "tasks": p.get("tasks"),
                          "adapt": sum(1 for i in p.get("intervals", []) if i["phase"] == "adapt")}
                         for k, p in named]
    if keep_intervals:
        parts = [(l["start_cycle"], l["wpu"]["per_wpu"][0]) for l in stats["launches"]] \
            if stats.get("launches") else [(0, wpu["per_wpu"][0])]
        s["segments"] = [{"start": start, "end": start + p["cycles"], "width": p["width"], "depth": p["depth"],
                          "intervals": p["intervals"]} for start, p in parts]
    return s


class Sweep:
    """One sweep directory, read line by line (results.jsonl holds every job's whole stats.json): the finished
    jobs by (launch, config, overrides, mechanism), the failed ones with their errors, the ones not run."""

    def __init__(self, d):
        self.dir = d
        self.done, self.failed, self.planned = {}, {}, []
        if not os.path.isfile(os.path.join(d, "plan.jsonl")):
            return
        if not os.path.isfile(os.path.join(d, "sweep.json")):
            raise SweepDirError(f"{d} is not a sweep directory (it has no sweep.json)")
        with open(os.path.join(d, "plan.jsonl")) as f:
            self.planned = [self.key(json.loads(line)["axes"]) for line in f if line.strip()]
        results = os.path.join(d, "results.jsonl")
        if os.path.isfile(results):
            with open(results) as f:
                for line in f:
                    if line.strip():
                        job = json.loads(line)
                        k = self.key(job["axes"])
                        keep = k[0] in CONVERGENCE and k[1] == "32KB-8way" and k[3] == "robust-32x1" and not k[2]
                        self.done[k] = slim(job["stats"], keep)
        failed = os.path.join(d, "failed.csv")
        if os.path.isfile(failed):
            with open(failed) as f:
                for row in csv.DictReader(f):
                    self.failed[self.key(row)] = f"{row['cause']}: {row['error']}"

    @staticmethod
    def key(axes):
        # The paper-scale sweeps run NAME_paper.yaml: the same kernel, keyed by its name.
        launch = axes["launch"].removesuffix(PAPER_SUFFIX)
        return (launch, axes["config"], axes["overrides"], axes["mechanism"])

    def get(self, launch, config, mechanism, overrides=""):
        return self.done.get((launch, config, overrides, mechanism))

    def missing(self):
        return [(k, self.failed.get(k, "not run")) for k in self.planned if k not in self.done]

    def values(self, axis):
        i = ["launch", "config", "overrides", "mechanism"].index(axis)
        return sorted({k[i] for k in self.planned})


class Study:
    def __init__(self, main, pollution):
        self.main, self.pol = main, pollution
        launches = set(main.values("launch"))
        self.kernels = [k for k in KERNELS if k in launches]
        self.base = {k: main.get(k, *BASELINE) for k in self.kernels}
        # Kernels without their baseline have no speed-ups at all: the missing-job list names them.
        self.kernels = [k for k in self.kernels if self.base[k]]

    def speedup(self, kernel, config, mechanism, overrides="", sweep=None):
        s = (sweep or self.main).get(kernel, config, mechanism, overrides)
        return self.base[kernel]["cycles"] / s["cycles"] if s else None

    def row(self, config, mechanism):
        return {k: self.speedup(k, config, mechanism) for k in self.kernels}

    def row_hmean(self, values):
        """The harmonic mean over the study's kernels, or None when one of them has no number."""
        vs = [values.get(k) for k in self.kernels]
        return hmean(vs) if vs and None not in vs else None

    def best_static(self, config):
        """The organization with the highest harmonic mean (only those every kernel ran), and that mean."""
        means = [(self.row_hmean(self.row(config, mech(w, d))), mech(w, d)) for w, d in ORGS]
        means = [m for m in means if m[0] is not None and m[1] != BASELINE[1]]
        return max(means) if means else (None, None)

    def app_best(self, config):
        """Per kernel: its fastest fixed organization and that speed-up."""
        best = {}
        for k in self.kernels:
            runs = [(self.speedup(k, config, mech(w, d)), mech(w, d)) for w, d in ORGS]
            runs = [r for r in runs if r[0] is not None]
            if runs:
                best[k] = max(runs)
        return best

    def cpt_spreads(self):
        """Organizations sampled more than once in one adaptation phase (WPU 0 of RobustSIMD 32x1 at 32 KB, the
        CONVERGENCE kernels whose intervals are kept): the largest CPT over the smallest, per organization."""
        spread = []
        for k in CONVERGENCE:
            s = self.main.get(k, "32KB-8way", "robust-32x1")
            for seg in (s or {}).get("segments", []):
                by_org = {}
                for i in seg["intervals"]:
                    if i["phase"] == "adapt" and i["tasks"]:
                        by_org.setdefault((i["width"], i["depth"]), []).append(i["cpt"])
                spread += [max(v) / min(v) for v in by_org.values() if len(v) > 1 and min(v) > 0]
        return sorted(spread)

    def polluted(self, kernel, mechanism, level):
        """Speed-up of the seeds' mean cycles (every seed the sweep finished) and how many seeds that is."""
        cycles = [s["cycles"] for (l, c, o, m), s in self.pol.done.items()
                  if l == kernel and m == mechanism and o.startswith(f"pollution-{level}-seed-")]
        if not cycles or not self.base.get(kernel):
            return None, 0
        return self.base[kernel]["cycles"] / (sum(cycles) / len(cycles)), len(cycles)

    def pollution_series(self):
        series = []
        for m, label in POLLUTED:
            kernels = {}
            for k in self.kernels:
                points = {0.0: self.speedup(k, "32KB-8way", m)} if self.speedup(k, "32KB-8way", m) else {}
                for level in LEVELS:
                    v, _ = self.polluted(k, m, level)
                    if v:
                        points[level] = v
                kernels[k] = points
            means = {}
            for level in [0.0] + LEVELS:
                vs = [kernels[k].get(level) for k in self.kernels]
                if vs and None not in vs:
                    means[level] = hmean(vs)
            series.append((label, {"hmean": means, "kernels": kernels}))
        return series
