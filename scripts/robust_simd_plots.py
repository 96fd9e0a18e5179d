"""The figures of the Robust SIMD study's report (scripts/study_robust_simd_report.py): Figure 8's heat maps of
the fixed organizations, Figure 7's pollution curves and the adaptation's convergence over a run. Each PNG gets a
CSV of exactly the numbers drawn next to it."""
import csv

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator
import numpy as np

WIDTHS = [1, 2, 4, 8, 16, 32]
DEPTHS = [1, 2, 4, 8, 16, 32, 64]


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            w.writerow([repr(v) if isinstance(v, float) else v for v in row])


def heatmaps(panels, title, path):
    """panels: [(label, {(width, depth): speed-up})], one heat map each, width across and depth down; an
    organization without a number stays blank."""
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    csv_rows = []
    for ax, (label, cells) in zip(axes.flat, panels):
        grid = np.full((len(DEPTHS), len(WIDTHS)), np.nan)
        for (w, d), v in cells.items():
            grid[DEPTHS.index(d), WIDTHS.index(w)] = v
            csv_rows.append([label, w, d, v])
        # Lighter is faster, as in the paper's Figure 8.
        im = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
        finite = grid[np.isfinite(grid)]
        top = finite.max() if finite.size else 1.0
        for i in range(len(DEPTHS)):
            for j in range(len(WIDTHS)):
                if np.isfinite(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=7,
                            color="black" if grid[i, j] > 0.6 * top else "white")
        ax.set_xticks(range(len(WIDTHS)))
        ax.set_xticklabels(WIDTHS, fontsize=7)
        ax.set_yticks(range(len(DEPTHS)))
        ax.set_yticklabels(DEPTHS, fontsize=7)
        ax.set_xlabel("SIMD width", fontsize=8)
        ax.set_ylabel("depth (warps)", fontsize=8)
        ax.set_title(label, fontsize=9)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04).ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    write_csv(path[:-4] + ".csv", ["panel", "width", "depth", "speedup"], csv_rows)


def pollution_curves(series, levels, path):
    """series: [(label, {"hmean": {level: speed-up}, "kernels": {kernel: {level: speed-up}}})], one panel
    each (per-kernel lines light, the harmonic mean bold) and a last panel of the harmonic means together."""
    fig, axes = plt.subplots(1, len(series) + 1, figsize=(4.2 * (len(series) + 1), 3.8), squeeze=False)
    csv_rows = []
    top = max([v for _, s in series for k in s["kernels"].values() for v in k.values()] +
              [v for _, s in series for v in s["hmean"].values()] + [1.0])
    for ax, (label, s) in zip(axes.flat, series):
        for kernel, points in sorted(s["kernels"].items()):
            xs = [x for x in levels if x in points]
            ax.plot([100 * x for x in xs], [points[x] for x in xs], color="grey", alpha=0.35, linewidth=1)
            if xs:
                ax.annotate(kernel, (100 * xs[-1], points[xs[-1]]), fontsize=6, color="grey")
            csv_rows += [[label, kernel, x, points[x]] for x in xs]
        xs = [x for x in levels if x in s["hmean"]]
        ax.plot([100 * x for x in xs], [s["hmean"][x] for x in xs], marker="o", color="C3", linewidth=2,
                label="H-mean")
        csv_rows += [[label, "H-mean", x, s["hmean"][x]] for x in xs]
        ax.set_title(label, fontsize=9)
        ax.set_ylim(0, top * 1.08)
        ax.set_xlabel("% of D-cache lines polluted", fontsize=8)
        ax.set_ylabel("speed-up over unpolluted 1x1", fontsize=8)
        ax.legend(fontsize=7)
    ax = axes.flat[len(series)]
    for i, (label, s) in enumerate(series):
        xs = [x for x in levels if x in s["hmean"]]
        ax.plot([100 * x for x in xs], [s["hmean"][x] for x in xs], marker="o", color=f"C{i}", label=label)
    ax.set_title("harmonic means", fontsize=9)
    ax.set_xlabel("% of D-cache lines polluted", fontsize=8)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    write_csv(path[:-4] + ".csv", ["organization", "kernel", "pollution", "speedup"], csv_rows)


def convergence(kernel, segments, path):
    """segments: per launch of the run, WPU 0's adaptation intervals and its execution phase:
    {"intervals": [{start_cycle, cycles, width, depth}], "end": cycle, "width", "depth"}. Width and depth as
    steps over cycles, adaptation intervals shaded; the right column zooms on the first adaptation phase."""
    steps = []  # (start, end, width, depth, phase)
    for seg in segments:
        for i in seg["intervals"]:
            steps.append((i["start_cycle"], i["start_cycle"] + i["cycles"], i["width"], i["depth"], "adapt"))
        begin = steps[-1][1] if seg["intervals"] else seg["start"]
        if seg["end"] > begin:
            steps.append((begin, seg["end"], seg["width"], seg["depth"], "execute"))
    first_adapt_end = segments[0]["intervals"][-1]["start_cycle"] + segments[0]["intervals"][-1]["cycles"] \
        if segments and segments[0]["intervals"] else None
    fig, axes = plt.subplots(2, 2, figsize=(11, 5), squeeze=False, sharey="row")
    for col, limit in enumerate([None, first_adapt_end]):
        for row, (index, name) in enumerate(((2, "width"), (3, "depth"))):
            ax = axes[row][col]
            for s in steps:
                if s[4] == "adapt":
                    ax.axvspan(s[0], s[1], color="C1", alpha=0.12, linewidth=0)
            xs = [s[0] for s in steps] + [steps[-1][1]] if steps else []
            ys = [s[index] for s in steps] + [steps[-1][index]] if steps else []
            ax.step(xs, ys, where="post", color="C0")
            ax.set_ylabel(name, fontsize=8)
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylim(0, max(ys + [1]) * 1.1 + 0.5)
            if limit:
                ax.set_xlim(0 if col else None, limit * 1.05)
            ax.tick_params(labelsize=7)
        axes[1][col].set_xlabel("cycle" + (" (first adaptation phase)" if col else ""), fontsize=8)
    fig.suptitle(f"{kernel}: WPU 0's organization per sampling interval (shaded: adaptation)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    write_csv(path[:-4] + ".csv", ["start_cycle", "end_cycle", "width", "depth", "phase"], steps)
