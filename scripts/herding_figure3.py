"""Figure 3 of the herding study (scripts/study_herding_report.py): the SDK-structured mandelbrot and julia
against the fraction of their static conditional branches herded, from configs/sweeps/herding-figure3.yaml
(written by scripts/make-herding-figure3-sweep: random subsets per fraction, as the paper draws them)."""
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

KERNELS = ("mandelbrot", "julia")


def fraction_of(row):
    """"mandelbrot 40% #2" -> 40."""
    return int(row.split()[1].rstrip("%"))


def membership(doc):
    """Pixels whose set membership changed (in-set pixels are black: zero_mismatch_fraction)."""
    return doc["quality"]["buffers"][0]["zero_mismatch_fraction"]


def points(fig3):
    """points[kernel][mech][fraction]: [(speed-up, mismatching bytes, membership changes)] per subset."""
    out = {}
    for (row, mech), job in fig3.done.items():
        s = job["stats"]
        out.setdefault(row.split()[0], {}).setdefault(mech, {}).setdefault(fraction_of(row), []).append(
            (s["speedup"], s["quality"]["mismatch_fraction"], membership(s)))
    return out


def plot(pts, sw_rows, path):
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), squeeze=False)
    for r, kernel in enumerate(KERNELS):
        for c, (index, label) in enumerate(((0, "speed-up over exact"), (1, "% mismatching bytes"))):
            ax = axes[r][c]
            for mech, name in (("hw0", "hardware, no overhead"), ("hw1", "hardware, 1-cycle overhead")):
                fracs = sorted(pts[kernel][mech])
                vals = [[1.0 if index == 0 else 0.0]] + [[p[index] * (1 if index == 0 else 100)
                                                          for p in pts[kernel][mech][f]] for f in fracs]
                xs = [0] + fracs
                means = [sum(v) / len(v) for v in vals]
                ax.errorbar(xs, means, yerr=[[m - min(v) for m, v in zip(means, vals)],
                                             [max(v) - m for m, v in zip(means, vals)]],
                            marker="o", capsize=4, label=name)
                if index == 1 and mech == "hw0":
                    flips = [0.0] + [100 * sum(p[2] for p in pts[kernel][mech][f]) / len(pts[kernel][mech][f])
                                     for f in fracs]
                    ax.plot(xs, flips, marker="x", linestyle=":", color="C3", label="% pixels changing set membership")
            sw = sw_rows.get(kernel)
            if sw:
                value = sw["speedup"] if index == 0 else 100 * sw["mismatch"]
                ax.scatter([100], [value], marker="D", color="C2", zorder=5, label="software (warp vote, 100%)")
            ax.set_xlabel("% of static conditional branches herded")
            ax.set_ylabel(label)
            ax.set_title(f"{kernel} (800x600, GTX 480 model)", fontsize=9)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def divergence_line(fig3, kernel, gain, pct):
    """How the exact run's divergence spreads over the static branches (from the row herding all of them)."""
    doc = fig3.stats(f"{kernel} 100%", "hw0")
    branches = next(iter(doc["herding_stats"]["kernels"].values()))["branches"]
    divergent = [b for b in branches if b["divergent"]]
    total = sum(b["divergent"] for b in branches)
    top = max(divergent, key=lambda b: b["divergent"])
    exact = doc["exact"]
    return (f"{kernel}: {pct(exact['divergent_branches'] / exact['branches'])} of the exact run's branch executions "
            f"diverge; {len(divergent)} of its {len(branches)} static branches diverge at least once, the most "
            f"divergent (PC {top['pc']}) holding {pct(top['divergent'] / total, 1)} of the divergent executions; "
            f"herding all of them: {gain(doc['speedup'])}, {pct(doc['quality']['mismatch_fraction'])} of the bytes "
            f"and {pct(membership(doc))} of the pixels' set membership change")


def section(fig3, sw_rows, out, assets, gain, pct):
    pts = points(fig3)
    plot(pts, sw_rows, os.path.join(assets, "figure3.png"))
    out += ["## Figure 3: mandelbrot and julia against the fraction of their branches herded", "",
            "The SDK-structured port (`workloads/mandelbrot_sdk`, the escape test unrolled 20 times) at the SDK's",
            "800x600 view has 22 static conditional branches: the image bounds check (unsafe, and never divergent),",
            "the 20 escape tests and the loop exit. As the paper, each fraction herds a uniformly random subset, here",
            "three per fraction drawn with a fixed seed (`scripts/make-herding-figure3-sweep`; `--force-unsafe` so",
            "that the bounds check can be drawn); the figure shows their mean with the smallest and largest as bars,",
            "and the software variant (every escape test and the loop exit decided by a warp vote) at 100%. Quality:",
            "mismatching bytes of the RGBA image (the paper's metric) and, dotted, the pixels whose membership of",
            "the set changed (in-set pixels are black; `zero_mismatch_fraction`): the paper notes that a wrongly",
            "coloured pixel may still be classified right.", "",
            "![Figure 3](herding/figure3.png)", "",
            "| herded branches | count | hw 0 | hw 1 | mismatching bytes | set membership changed |",
            "|---|---:|---:|---:|---:|---:|"]
    for row in fig3.launches:
        d0, d1 = fig3.stats(row, "hw0"), fig3.stats(row, "hw1")
        count = sum(b["herd"] for k in d0["herding_stats"]["kernels"].values() for b in k["branches"])
        out.append(f"| {row} | {count} | {gain(d0['speedup'])} | {gain(d1['speedup'])} | "
                   f"{pct(d0['quality']['mismatch_fraction'])} | {pct(membership(d0))} |")
    out += ["", "- " + divergence_line(fig3, "mandelbrot", gain, pct) + ".",
            "- " + divergence_line(fig3, "julia", gain, pct) + ".", ""]
    return pts
