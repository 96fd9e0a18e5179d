"""The herding study's report (scripts/study-herding): docs/validation/herding.md and the figures and images
under docs/validation/herding/, from the sweeps configs/sweeps/herding*.yaml and the two profiles.

Usage: study_herding_report.py SWEEPS_DIR PROFILES_DIR (run from the repository's root)."""
import csv
import json
import os
import re
import shutil
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import yaml

import herding_differences as differences
import herding_figure3 as figure3
import herding_paper_means as paper_means
from sweep_results import SweepDirError, load_sweep

DOC = "docs/validation/herding.md"
ASSETS = "docs/validation/herding"
# herding.yaml's forced rows whose herded lanes leave their buffers: the safety analysis refused them rightly.
EXPECTED_FAILURES = {("sobel raw-load forced", "hw0"), ("sobel raw-load forced", "hw1"), ("sad forced", "hw0"),
                     ("sad forced", "hw1")}
# branch-data-herding.txt, Tables II and III: (% mismatch of the original program, % with herding).
PAPER_TABLE2 = {"mandelbrot": ("0.03", "1.87"), "histogram": ("0.00", "5.82"), "volume_render": ("6.72", "7.61"),
                "particles": ("18.24", "18.24"), "sobel": ("0.00", "6.00"), "ocean_fft": ("0.03", "0.03"),
                "sad": ("0.00", "0.42"), "lbm": ("6.7E-7", "5.6E-5")}
PAPER_TABLE3 = {"mandelbrot": ("0.02", "0.99"), "histogram": ("0.00", "0.6"), "nbody": ("0.00", "0.95"),
                "binomial_options": ("3.8E-5", "3.8E-5"), "sobel": ("0.00", "1.81"), "dxtc": ("0.019", "0.019"),
                "recursive_gaussian": ("0.00", "0.00")}
SWHERD_NAME = {"mandelbrot": "mandelbrot_swherd"}


class Sweep:
    """One sweep directory: finished jobs by (launch, mechanism), failures likewise, the launch order."""

    def __init__(self, d, expected_failures=frozenset()):
        self.dir = d
        summary, jobs = load_sweep(d)
        self.launches = summary["axes"]["launch"]
        self.done = {(j["axes"]["launch"], j["axes"]["mechanism"]): j for j in jobs}
        self.failed = {}
        failed_path = os.path.join(d, "failed.csv")
        if os.path.isfile(failed_path):
            with open(failed_path) as f:
                for row in csv.DictReader(f):
                    self.failed[(row["launch"], row["mechanism"])] = row["error"]
        with open(os.path.join(d, "plan.jsonl")) as f:
            planned = [json.loads(line)["axes"] for line in f if line.strip()]
        keys = {(a["launch"], a["mechanism"]) for a in planned}
        missing = keys - set(self.done) - set(self.failed)
        if missing:
            raise SweepDirError(f"{d}: {len(missing)} jobs have not run (simtlm sweep --status {d})")
        unexpected = set(self.failed) - set(expected_failures)
        if unexpected:
            raise SweepDirError(f"{d}: unexpected failures {sorted(unexpected)}: see {failed_path}")
        absent = set(expected_failures) - set(self.failed)
        if absent:
            raise SweepDirError(f"{d}: {sorted(absent)} were expected to fail and did not: update the study")

    def stats(self, launch, mech=""):
        j = self.done.get((launch, mech))
        return j["stats"] if j else None

    def out_dir(self, launch, mech=""):
        return os.path.join(self.dir, "jobs", self.done[(launch, mech)]["job"], "out")


def pct(x, digits=2):
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def gain(s):
    return "–" if s is None else f"{s:.3f}× ({100 * (s - 1):+.1f}%)"


def base_kernel(name):
    return name.split()[0]


def short_failure(error):
    """The kernel error without the path prefix: what went out of bounds and where."""
    m = re.search(r"failed: (out-of-bounds global access of \d+ bytes at address \S+ \([^)]*\)).*?"
                  r"(\(PTX line \d+, [^)]*\))", error)
    return f"{m.group(1)} at {m.group(2)[1:-1]}" if m else error.split("error: ")[-1]


def herded_branches(doc):
    """The static branches herding applied to (herd true), as PCs per kernel."""
    sites = []
    for kernel, k in doc["herding_stats"]["kernels"].items():
        pcs = [str(b["pc"]) for b in k["branches"] if b["herd"]]
        if pcs:
            sites.append(f"{kernel} PC {','.join(pcs)}" if len(doc["herding_stats"]["kernels"]) > 1 else
                         f"PC {','.join(pcs)}")
    return "; ".join(sites) if sites else "none"


def bytes_mismatch(exact_dir, other_dir):
    """Fraction of mismatching bytes over every output buffer (.bin) of the exact run, as compare counts."""
    total = mismatched = 0
    for name in sorted(os.listdir(exact_dir)):
        if not name.endswith(".bin"):
            continue
        with open(os.path.join(exact_dir, name), "rb") as f:
            exact = f.read()
        with open(os.path.join(other_dir, name), "rb") as f:
            other = f.read()
        if len(exact) != len(other):
            raise SweepDirError(f"{other_dir}/{name}: {len(other)} bytes, the exact run wrote {len(exact)}")
        total += len(exact)
        mismatched += sum(a != b for a, b in zip(exact, other))
    return mismatched / total if total else 0.0


def software_rows(sw):
    """Per kernel with a _swherd variant: exact and variant cycles, speed-up, mismatch, warp instructions."""
    rows = {}
    for launch in sw.launches:
        if launch.endswith("_swherd"):
            continue
        variant = SWHERD_NAME.get(launch, launch + "_swherd")
        exact, herd = sw.stats(launch), sw.stats(variant)
        rows[launch] = {"exact_cycles": exact["cycles"], "cycles": herd["cycles"],
                        "speedup": exact["cycles"] / herd["cycles"],
                        "instr_ratio": herd["warp_instructions"] / exact["warp_instructions"],
                        "mismatch": bytes_mismatch(sw.out_dir(launch), sw.out_dir(variant))}
    return rows


def paper_row(branch, kernel):
    """The row of herding.yaml that herds the branch the paper herded: the forced one when it ran, else the
    relaxed rule's, else the strict rule's."""
    for row in (f"{kernel} forced", f"{kernel} relaxed"):
        if branch.stats(row, "hw0"):
            return row
    return kernel


def relaxed_row(branch, kernel):
    """The relaxed rule's row where the study has one (it admits more there), else the strict rule's."""
    return f"{kernel} relaxed" if branch.stats(f"{kernel} relaxed", "hw0") else kernel


def mean_max(values):
    return (sum(values) / len(values), max(values)) if values else (None, None)


def summary_line(label, values, paper):
    mean, best = mean_max(values)
    return (f"| {label} | {len(values)} | {100 * (mean - 1):+.1f}% | {100 * (best - 1):+.1f}% | {paper} |"
            if values else f"| {label} | 0 | – | – | {paper} |")


def copy_images(sweep, launch, mech, prefix, images):
    out = sweep.out_dir(launch, mech)
    for name in sorted(os.listdir(out)):
        if name.endswith(".png"):
            target = f"{prefix}-{name}"
            shutil.copyfile(os.path.join(out, name), os.path.join(ASSETS, target))
            images.append(target)


def plot_bars(groups, series, path, title):
    """Grouped bars: groups is [(label, {series: speed-up})]."""
    fig, ax = plt.subplots(figsize=(max(6, len(groups) * 0.9), 4))
    width = 0.8 / len(series)
    for i, name in enumerate(series):
        xs = [g + i * width for g in range(len(groups))]
        ax.bar(xs, [values.get(name, 0) or 0 for _, values in groups], width, label=name)
    ax.set_xticks([g + width * (len(series) - 1) / 2 for g in range(len(groups))])
    ax.set_xticklabels([label for label, _ in groups], rotation=30, ha="right", fontsize=8)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("speed-up over exact")
    ax.set_title(title)
    ax.set_ylim(0, max(v or 0 for _, values in groups for v in values.values()) * 1.2)
    ax.legend(fontsize=8, loc="upper center", ncol=len(series))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_quality(points, path):
    """One panel per kernel: every herded variant as (speed-up, % mismatching bytes)."""
    kernels = list(points)
    cols = 4
    rows = (len(kernels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(13, 3 * rows), squeeze=False)
    styles = {"hw0": ("o", "C0"), "hw1": ("s", "C1"), "forced hw0": ("^", "C3"), "forced hw1": ("v", "C4"),
              "software": ("D", "C2"), "data": ("P", "C5"), "data forced": ("X", "C7"), "data +partials": ("p", "C8"),
              "profiled": ("*", "C6")}
    for ax, kernel in zip(axes.flat, kernels):
        for label, speedup, mismatch in points[kernel]:
            marker, colour = styles[label]
            ax.scatter([speedup], [100 * mismatch], marker=marker, color=colour, s=45, label=label)
        ax.axvline(1.0, color="grey", linewidth=0.6)
        ax.set_ylim(bottom=0)
        ax.set_title(kernel, fontsize=9)
        ax.set_xlabel("speed-up", fontsize=8)
        ax.set_ylabel("% mismatching bytes", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def branch_section(branch, sw_rows, out, quality_points):
    out += ["## Branch herding on the GTX 480 (Figure 12, Table II)", "",
            "`simtlm compare --herding --herd-branches all --config configs/gtx480.yaml` per kernel: every branch the",
            "static safety analysis allows, with the majority decision free (*hw 0*) and costing one cycle",
            "(`--herd-cycles 1`, *hw 1*, the paper's conservative bound). mandelbrot and julia are the SDK-structured",
            "port at the SDK's 800x600 (`workloads/mandelbrot_sdk`), histogram the SDK's retry-loop histogram256,",
            "sobel and volume_render the texture-fetch ports. A *relaxed* row herds what `--herd-safety relaxed`",
            "allows where it allows more; a *forced* row herds, with `--force-unsafe`, the branch the paper herded",
            "where both rules refuse it (the branch the kernel's `_swherd` variant votes on; *sobel raw-load forced*",
            "is sobel's border test in the port that reads with plain loads). *Software* is the `_swherd` variant's",
            "`simtlm run` (a warp vote in the CUDA source; the raw-load ports for sobel and volume_render) against",
            "the exact kernel's on the same machine: exact cycles over its cycles, and its output files compared",
            "byte by byte with the exact run's. Mismatch: % of mismatching output bytes (the paper's metric).", "",
            "| kernel | herded branches | hw 0 | hw 1 | hw mismatch | software | software mismatch | software instructions |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for launch in branch.launches:
        kernel = base_kernel(launch)
        sw = sw_rows.get(kernel) if launch == kernel else None
        sw_cells = ([gain(sw["speedup"]), pct(sw["mismatch"]), f"{sw['instr_ratio']:.2f}× exact"] if sw
                    else ["–", "–", "–"])
        doc0, doc1 = branch.stats(launch, "hw0"), branch.stats(launch, "hw1")
        if doc0 is None:
            error = short_failure(branch.failed[(launch, "hw0")])
            out.append(f"| {launch} | fails: {error} | – | – | – | " + " | ".join(sw_cells) + " |")
            continue
        out.append(f"| {launch} | {herded_branches(doc0)} | {gain(doc0['speedup'])} | {gain(doc1['speedup'])} | "
                   f"{pct(doc0['quality']['mismatch_fraction'])} | " + " | ".join(sw_cells) + " |")
        label = "forced " if launch != kernel else ""  # relaxed rows plot with the forced ones
        for mech, doc in (("hw0", doc0), ("hw1", doc1)):
            quality_points.setdefault(kernel, []).append(
                (label + mech, doc["speedup"], doc["quality"]["mismatch_fraction"]))
        if sw:
            quality_points[kernel].append(("software", sw["speedup"], sw["mismatch"]))
    out.append("")
    safe = [branch.stats(k, "hw0")["speedup"] for k in PAPER_TABLE2]
    relaxed = [branch.stats(relaxed_row(branch, k), "hw0")["speedup"] for k in PAPER_TABLE2]
    chosen = [branch.stats(paper_row(branch, k), "hw0")["speedup"] for k in PAPER_TABLE2]
    chosen1 = [branch.stats(paper_row(branch, k), "hw1")["speedup"] for k in PAPER_TABLE2]
    software = [sw_rows[k]["speedup"] for k in PAPER_TABLE2 if k in sw_rows]
    profiled, dropped = paper_means.software_profiled(sw_rows, PAPER_TABLE2)
    out += ["Mean (arithmetic, of the speed-ups) and largest improvement over the paper's eight Table II kernels",
            "(julia is extra and left out). *Paper's branches*: the forced row where one ran, else the relaxed row,",
            "else the safe row.", "",
            "| series | kernels | mean | max | paper |", "|---|---:|---:|---:|---|",
            summary_line("hardware, safe branches only (strict rule), no overhead", safe, "+30% mean, +55% max"),
            summary_line("hardware, the relaxed rule, no overhead", relaxed, "+30% mean, +55% max"),
            summary_line("hardware, paper's branches, no overhead", chosen, "+30% mean, +55% max"),
            summary_line("hardware, paper's branches, 1-cycle overhead", chosen1, "(shown, no numbers given)"),
            summary_line("software (`_swherd` variants)", software, "+13% mean, +34% max"),
            summary_line("software, the paper's rule: a vote kept only where it pays (" +
                         (", ".join(dropped) or "none") + " run exact)", profiled, "+13% mean, +34% max"), ""]
    return safe, chosen, software


def data_section(data, out, quality_points):
    out += ["## Data herding on the Quadro FX 5800 (Figure 16, Table III)", "",
            "`simtlm compare --herding --herd-buffers largest --herd-group-lanes 16 --config configs/quadro-fx5800.yaml`",
            "per kernel: every global load of the launch's largest buffer that the safety analysis allows is herded,",
            "one memory block per half-warp (compute 1.x coalescing). Requests: the herded loads' memory requests",
            "without and with herding (`herding_stats.loads`).", "",
            "| kernel | buffers | exact cycles | herded cycles | speed-up | requests before → after | mismatch |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for launch in data.launches:
        doc = data.stats(launch, "data")
        loads = doc["herding_stats"]["loads"]
        buffers = ", ".join(yaml.safe_load(doc["herding"])["buffers"])
        out.append(f"| {launch} | {buffers} | {doc['exact']['cycles']} | {doc['herded']['cycles']} | "
                   f"{gain(doc['speedup'])} | {loads['requests_before']} → {loads['requests_after']} | "
                   f"{pct(doc['quality']['mismatch_fraction'])} |")
        label = "data forced" if launch.endswith(" forced") else "data +partials" if "+" in launch else "data"
        quality_points.setdefault(base_kernel(launch), []).append(
            (label, doc["speedup"], doc["quality"]["mismatch_fraction"]))
    largest = [data.stats(k, "data")["speedup"] for k in data.launches if " " not in k]
    paper_buffers = [data.stats("histogram data+partials" if k == "histogram" else k, "data")["speedup"]
                     for k in data.launches if " " not in k]
    out += ["", "| series | kernels | mean | max | paper |", "|---|---:|---:|---:|---|",
            summary_line("largest buffer", largest, "+25% mean, +32% max"),
            summary_line("largest buffer; histogram with its sub-histograms too", paper_buffers,
                         "+25% mean, +32% max"),
            summary_line(f"the paper's set: {paper_means.set_names()}", paper_means.data_paper_set(data),
                         "+25% mean, +32% max"), ""]
    return largest


def quality_tables(branch, sw_rows, data, out):
    out += ["## Tables II and III next to ours", "",
            "The paper's *original* column is each benchmark's output against its own reference (the CUDA SDK's",
            "checks, a CPU version): nonzero where the GPU's floating point differs from the reference. Ours",
            "compares the herded run with the exact run of the same simulator on the same inputs, so our original",
            "is 0 by construction (and every exact run also matches its host reference when the launch has one).", "",
            "### Table II: branch herding, % mismatching bytes", "",
            "| kernel | paper original | paper herded | ours original | ours, safe branches | ours, paper's branches | ours, software |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for k, (orig, herded) in PAPER_TABLE2.items():
        safe = branch.stats(k, "hw0")["quality"]["mismatch_fraction"]
        row = paper_row(branch, k)
        chosen = branch.stats(row, "hw0")["quality"]["mismatch_fraction"]
        note = f" ({row.split()[1]})" if row != k else ""
        sw = sw_rows[k]["mismatch"] if k in sw_rows else None
        out.append(f"| {k} | {orig} | {herded} | 0 | {pct(safe, 3)} | {pct(chosen, 3)}{note} | {pct(sw, 3)} |")
    same = [k for k in sw_rows if k in PAPER_TABLE2 and
            sw_rows[k]["mismatch"] == branch.stats(paper_row(branch, k), "hw0")["quality"]["mismatch_fraction"]]
    out += ["", f"Where the software variant and the hardware herd the same branch with the same strict-majority "
            f"rule, their outputs mismatch the exact run in the same number of bytes: {', '.join(same)}.",
            "", "### Table III: data herding, % mismatching bytes", "",
            "(The forced and data+partials rows take their kernel's paper columns.)", "",
            "| kernel | paper original | paper herded | ours original | ours herded |", "|---|---:|---:|---:|---:|"]
    for launch in data.launches:
        k = base_kernel(launch)
        orig, herded = PAPER_TABLE3[k]
        mismatch = data.stats(launch, "data")["quality"]["mismatch_fraction"]
        out.append(f"| {launch} | {orig} | {herded} | 0 | {pct(mismatch, 3)} |")
    out.append("")
    paper_means.writers_table(
        [("II, branch: " + paper_row(branch, k), branch.stats(paper_row(branch, k), "hw0")["launch"], h,
          branch.stats(paper_row(branch, k), "hw0")["quality"]) for k, (_, h) in PAPER_TABLE2.items()] +
        [("III, data: " + l, data.stats(l, "data")["launch"], PAPER_TABLE3[base_kernel(l)][1],
          data.stats(l, "data")["quality"]) for l in data.launches], out)


# The profiled launches (scripts/study-herding profiles these files): mandelbrot at the suite's 160x120 of the
# SDK view, as a profile of the 800x600 run would take about 20 times as long.
PROFILED = {"mandelbrot": "workloads/mandelbrot_sdk/mandelbrot_sdk.yaml", "sobel": "workloads/sobel/sobel.yaml"}


def profile_section(profiles, out, quality_points):
    out += ["## The profiler's choice (Section V)", "",
            "`simtlm herd-profile --inputs 3 --max-quality-loss 0.05 --config configs/gtx480.yaml` picks, from the",
            "safe sites that diverge, those whose herding keeps the worst mismatch over three profiled inputs (the",
            "launch's seed + 1000 ..) under 5%, then the largest herding-instance threshold (`max_instances`) that",
            "still does; `simtlm compare` then measures the chosen `herding:` section on the launch's own input,",
            "next to herding every safe branch of the same launch (`--herd-branches all`).", "",
            "| launch | chosen herding: section | profiled worst loss | speed-up | mismatch | all safe branches |",
            "|---|---|---:|---:|---:|---:|"]
    for kernel, launch in PROFILED.items():
        with open(os.path.join(profiles, f"{kernel}.json")) as f:
            prof = json.load(f)
        chosen = "; ".join(f"{k}: {json.dumps(v)}" for k, v in yaml.safe_load(prof["chosen"]).items())
        with open(os.path.join(profiles, f"{kernel}-all", "compare.json")) as f:
            safe = json.load(f)
        worst = prof.get("worst_loss_at_threshold", prof.get("worst_loss_of_set"))
        compare = os.path.join(profiles, f"{kernel}-compare", "compare.json")
        if not os.path.exists(compare):  # scripts/study-herding measures nothing when nothing was chosen
            out.append(f"| {launch} | `{chosen}` (nothing pays within the bound) | {pct(worst)} | 1.000× | 0 | "
                       f"{gain(safe['speedup'])} at {pct(safe['quality']['mismatch_fraction'])} |")
            continue
        with open(compare) as f:
            doc = json.load(f)
        out.append(f"| {launch} | `{chosen}` | {pct(worst)} | {gain(doc['speedup'])} | "
                   f"{pct(doc['quality']['mismatch_fraction'])} | {gain(safe['speedup'])} at "
                   f"{pct(safe['quality']['mismatch_fraction'])} |")
        quality_points.setdefault(kernel, []).append(("profiled", doc["speedup"], doc["quality"]["mismatch_fraction"]))
    out += ["", "Neither launch has random input buffers (mandelbrot computes its plane, sobel reads `scene.pgm`), so",
            "the profiled inputs are the measured input and the measured loss is the profiled one; the paper",
            "measured on inputs it had not profiled.", ""]


def images_section(branch, data, out):
    images = []
    copy_images(branch, "volume_render", "hw0", "volume_render-branch", images)
    copy_images(branch, "sobel", "hw0", "sobel-branch", images)
    copy_images(data, "sobel", "data", "sobel-data", images)
    out += ["## Images with and without herding", "",
            "`simtlm compare`'s renderings (docs/herding.md): exact, herded, and the difference scaled so that the",
            "largest is white.", "", "| run | exact | herded | difference |", "|---|---|---|---|"]
    for prefix, what in (("volume_render-branch", "volume_render (texture port), branch herding (safe: the march exits)"),
                         ("sobel-branch", "sobel, branch herding (safe branches: the clamp)"),
                         ("sobel-data", "sobel, data herding (image, half-warps)")):
        cells = []
        for kind in ("exact", "herded", "diff"):
            name = next(n for n in images if n.startswith(prefix) and n.endswith(f".{kind}.png"))
            cells.append(f"![{kind}](herding/{name})")
        out.append(f"| {what} | " + " | ".join(cells) + " |")
    out.append("")



def main(sweeps, profiles):
    branch = Sweep(os.path.join(sweeps, "herding"), EXPECTED_FAILURES)
    software = Sweep(os.path.join(sweeps, "herding-software"))
    data = Sweep(os.path.join(sweeps, "herding-data"))
    fig3 = Sweep(os.path.join(sweeps, "herding-figure3"))
    os.makedirs(ASSETS, exist_ok=True)
    for name in os.listdir(ASSETS):
        if name.endswith(".png"):
            os.remove(os.path.join(ASSETS, name))
    sw_rows = software_rows(software)
    quality_points = {}
    out = ["# Branch and data herding study (branch-data-herding.txt, Sections II, VI and VII)", "",
           "Generated by `scripts/study-herding` (do not edit) from the sweeps `configs/sweeps/herding.yaml`,",
           "`herding-software.yaml`, `herding-data.yaml` and `herding-figure3.yaml` and two `simtlm herd-profile`",
           "runs. Branch herding runs on `configs/gtx480.yaml` (the paper measured on a GTX 480), data herding on",
           "`configs/quadro-fx5800.yaml` (the paper's GPGPU-Sim model). Speed-up: exact cycles over herded cycles;",
           "percentages next to it are the improvement. How herding and the quality numbers work: docs/herding.md.", ""]
    safe, chosen, sw = branch_section(branch, sw_rows, out, quality_points)
    plot_bars([(k, {"hw 0": branch.stats(paper_row(branch, k), "hw0")["speedup"],
                    "hw 1": branch.stats(paper_row(branch, k), "hw1")["speedup"],
                    "software": sw_rows.get(k, {}).get("speedup")}) for k in list(PAPER_TABLE2) + ["julia"]],
              ["hw 0", "hw 1", "software"], os.path.join(ASSETS, "figure12.png"),
              "Branch herding on the GTX 480 model (paper's branches)")
    out += ["![Figure 12](herding/figure12.png)", ""]
    largest = data_section(data, out, quality_points)
    plot_bars([(k, {"data herding": data.stats(k, "data")["speedup"]}) for k in data.launches], ["data herding"],
              os.path.join(ASSETS, "figure16.png"), "Data herding on the Quadro FX 5800 model")
    sets = paper_means.DATA_PAPER_SET
    paper_set = paper_means.data_paper_set(data)
    plot_bars([(f"{paper} ({row})", {"data herding": data.stats(row, "data")["speedup"]}) for row, paper in sets] +
              [("mean", {"data herding": sum(paper_set) / len(paper_set)})], ["data herding"],
              os.path.join(ASSETS, "figure16-paper-set.png"), "Data herding, the paper's Figure 16 set")
    out += ["![Figure 16](herding/figure16.png)", "", "The paper's set (the four benchmarks its mean is over):", "",
            "![Figure 16, the paper's set](herding/figure16-paper-set.png)", ""]
    quality_tables(branch, sw_rows, data, out)
    figure3.section(fig3, sw_rows, out, ASSETS, gain, pct)
    profile_section(profiles, out, quality_points)
    plot_quality(quality_points, os.path.join(ASSETS, "quality-speedup.png"))
    out += ["## Quality against speed-up", "",
            "Every herded variant of each kernel above: hardware branch herding (safe and forced, 0 and 1 cycle),",
            "software, data herding and the profiler's choice.", "", "![quality](herding/quality-speedup.png)", ""]
    images_section(branch, data, out)
    differences.section({"branch": branch, "data": data, "sw_rows": sw_rows, "largest": largest,
                         "kernels": list(PAPER_TABLE2), "paper_row": paper_row}, out)
    out += ["## Regenerating", "", "```", "scripts/study-herding", "```", "",
            "(`BUILD=DIR` picks the build directory, `SWEEPS=DIR` where the sweeps go, default `out/sweeps`;",
            "`JOBS=N` simulations at once.)", ""]
    with open(DOC, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        main(sys.argv[1], sys.argv[2])
    except SweepDirError as e:
        sys.exit(f"study_herding_report: {e}")
