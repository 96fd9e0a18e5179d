"""Reports of the area/timing sweep (scripts/area_timing/flow.py): results.md with the papers' claims next to
the measurements, and the plots."""
import math
import os

COLS = [
    ("Unit", None), ("W", None),
    ("Generic cells", "generic_cells"), ("Transistors (est.)", "transistors_cmos"),
    ("Logic depth", "logic_depth"), ("Std cells", "lib_cells"), ("Area µm²", "area_um2"),
    ("Comb. delay ns", "comb_delay_ns"), ("Reg→reg min period ns", "reg2reg_min_period_ns"),
    ("iCE40 LUTs (unit)", "ice40_unit_luts"), ("iCE40 LUTs (wrapper)", "ice40_wrapper_luts"),
    ("iCE40 FFs", "ice40_wrapper_ffs"), ("iCE40 Fmax MHz", "ice40_fmax_mhz"),
]
# which tool step produces each column
COL_STEP = {"generic_cells": "yosys", "transistors_cmos": "yosys", "logic_depth": "yosys",
            "lib_cells": "yosys", "area_um2": "yosys", "comb_delay_ns": "sta_comb",
            "reg2reg_min_period_ns": "sta_reg2reg", "ice40_unit_luts": "ice40_yosys",
            "ice40_wrapper_luts": "ice40_yosys", "ice40_wrapper_ffs": "ice40_yosys",
            "ice40_fmax_mhz": "nextpnr"}


def cell(r, key):
    st = r["status"].get(COL_STEP[key], "skip")
    if st == "fail":
        return "FAIL"
    if st == "skip":
        return "—"
    v = r.get(key)
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.1f" % v if abs(v) >= 100 else "%.3g" % v
    return str(v)


def per_type(r, names):
    return sum(r.get("generic_cells_by_type", {}).get(n, 0) for n in names)


def claims_md(results):
    out = ["## The papers' claims next to the measurements", ""]
    slp = results.get("slp_permutation_unit", {})
    out.append("**SIMD lane permutation (SLP), Balanced permutation.** The paper states that adding "
               "Balanced to a compacting pipeline costs only a per-SM table of XOR masks, 32 masks "
               "of 5 bits (160 bits), plus a few XOR gates per lane to move each thread to its "
               "permuted home lane.")
    out.append("")
    out.append("| W | mask bits log2(W) | masks (=W) | table bits (computed) | "
               "RTL loadable table (2^width(wr_warp) × width(wr_mask)) | "
               "synthesized FFs/latches in unit | XOR+XNOR cells per lane | MUX cells per lane | "
               "all generic cells per lane |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for w in sorted(set(int(k) for k in slp) | {8, 16, 32, 64}):
        b = int(math.log2(w))
        r = slp.get(str(w)) or slp.get(w)
        if r and r["status"].get("yosys") == "ok":
            by = r.get("generic_cells_by_type", {})
            seq = sum(v for k, v in by.items() if "DFF" in k or "LATCH" in k)
            x = per_type(r, ["$_XOR_", "$_XNOR_"]) / w
            m = per_type(r, ["$_MUX_"]) / w
            tot = r["generic_cells"] / w
            meas = "%d | %.2f | %.2f | %.2f" % (seq, x, m, tot)
            pw = {p["name"]: p["width"] for p in r.get("ports", [])}
            if "wr_warp" in pw and "wr_mask" in pw:
                rtl_bits = "%d × %d = %d" % (2 ** pw["wr_warp"], pw["wr_mask"],
                                              2 ** pw["wr_warp"] * pw["wr_mask"])
            else:
                rtl_bits = "n/a"
        else:
            meas, rtl_bits = "no RTL result | | | ", "n/a"
        out.append("| %d | %d | %d | %d | %s | %s |" % (w, b, w, w * b, rtl_bits, meas))
    r32 = slp.get("32") or slp.get(32)
    if r32 and r32["status"].get("yosys") == "ok":
        x = per_type(r32, ["$_XOR_", "$_XNOR_"]) / 32
        tot = r32["generic_cells"] / 32
        out.append("")
        out.append("Comparison (generated): at W=32 the table is %d masks × %d bits = %d bits "
                   "(paper: 160); the synthesized unit has %.2f XOR/XNOR cells and %.2f generic "
                   "cells in total per lane. Note that a lane permutation also needs the "
                   "routing multiplexers (counted in the MUX column), which the paper's "
                   "'XOR gates per lane' does not mention." % (32, 5, 160, x, tot))
    elif not slp:
        out.append("")
        out.append("Comparison: rtl/slp_permutation_unit.v was not present in this sweep; only the "
                   "computed table sizes are shown.")
    out.append("")
    maj = results.get("majority_unit", {})
    ref = results.get("ref_popcount", {})
    out.append("**Branch herding, majority logic.** The paper argues that the majority vote is "
               "simpler than a population count, which already fits in one cycle, so herding adds "
               "at most one cycle and likely none.")
    out.append("")
    if maj:
        out.append("| W | majority cells | majority area µm² | majority comb. delay ns | "
                   "popcount cells | popcount area µm² | popcount comb. delay ns | "
                   "area ratio maj/pop | delay ratio maj/pop |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for k in sorted(maj, key=int):
            m, p = maj[k], ref.get(k, {})
            def g(r, key):
                v = r.get(key)
                if v is None:
                    return "n/a"
                if isinstance(v, float):
                    return "%.1f" % v if abs(v) >= 100 else "%.3g" % v
                return str(v)
            def ratio(key):
                if m.get(key) and p.get(key):
                    return "%.2f" % (m[key] / p[key])
                return "n/a"
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k, g(m, "generic_cells"), g(m, "area_um2"), g(m, "comb_delay_ns"),
                g(p, "generic_cells"), g(p, "area_um2"), g(p, "comb_delay_ns"),
                ratio("area_um2"), ratio("comb_delay_ns")))
        out.append("")
        out.append("The popcount reference is a plain count of W bits generated by the "
                   "script (not part of rtl/); a ratio below 1 supports the claim. A majority unit "
                   "that votes among active lanes only (ports: %s) counts more than W bits, so "
                   "a ratio above 1 can come from its interface rather than from the vote itself." % ", ".join("%s[%d]" % (p["name"], p["width"]) for p in
                                  (maj.get("32") or list(maj.values())[0]).get("ports", [])) + " 'One cycle' "
                   "refers to the paper's GPU clock, so it is checked only relatively here "
                   "(OSU 0.18 µm cells; no wire load, no output load).")
    else:
        out.append("Comparison: rtl/majority_unit.v was not present in this sweep.")
    out.append("")
    return "\n".join(out)


def write_md(path, meta, results):
    L = ["# Area and timing of the rtl/ units", "",
         "Generated by `scripts/area-timing` — do not edit by hand.", "",
         "- Generated: %s; sweep wall time %.1f s; widths %s" % (
             meta["generated_utc"], meta["wall_seconds"], meta["widths"]),
         "- Tools: %s" % "; ".join("%s `%s`" % kv for kv in meta["tools"].items()),
         "- Liberty: `%s` (sha256 %s…); `abc%s -D %d`; STA with no wire load and "
         "no output load" % (meta["liberty"], meta["liberty_sha256"][:12],
                                        " -fast" if meta["abc_fast"] else "", meta["abc_delay_ps"]),
         "- Comb. delay: worst input→output arrival with zero input/output delay on a virtual "
         "clock. Reg→reg min period: the unit between input and output registers "
         "(clk→Q + logic + setup). iCE40: HX8K ct256, nextpnr at 100 MHz target; "
         "Fmax of the registered wrapper.",
         "- FAIL = that tool failed for that unit (see the notes below); — = not run.", ""]
    if meta.get("abc_fast"):
        L[-1:-1] = ["- Caution: the liberty mapping used `abc -fast`, which does no buffering or gate "
                    "sizing. Nets with a large fanout (wrapper registers of reset/enable/select inputs, "
                    "shared select lines) then get slews far outside the liberty tables, so the "
                    "OpenSTA figures of the large units (reg→reg periods of tens to thousands of ns) "
                    "are artefacts of the unbuffered netlist, not the logic depth; compare them with the "
                    "logic depth column, or rerun with `--abc-full` (much slower)."]
    L.append("| " + " | ".join(c for c, _ in COLS) + " |")
    L.append("|" + "---|" * len(COLS))
    fails = []
    for unit in sorted(results):
        for k in sorted(results[unit], key=int):
            r = results[unit][k]
            name = unit + (" (reference)" if unit == "ref_popcount" else "")
            if r.get("params"):
                name += " (%s)" % ", ".join("%s=%s" % kv for kv in sorted(r["params"].items()))
            L.append("| " + " | ".join([name, str(r["W"])] + [cell(r, key) for _, key in COLS[2:]])
                     + " |")
            for s, msg in r.get("errors", {}).items():
                fails.append("- %s W=%s, %s: %s" % (unit, r["W"], s, msg.replace("|", "/")))
            if r.get("unmapped_cells"):
                fails.append("- %s W=%s: cells without liberty area (area excludes them): %s"
                             % (unit, r["W"], ", ".join(r["unmapped_cells"])))
            if r.get("ice40_wrapper", "parallel") != "parallel":
                fails.append("- %s W=%s: iCE40 used a %s wrapper" % (unit, r["W"], r["ice40_wrapper"]))
    L.append("")
    if fails:
        L += ["### Notes and failures", ""] + fails + [""]
    missing = meta.get("missing_units")
    if missing:
        L += ["Units expected but not present in rtl/ at sweep time: %s" % ", ".join(missing), ""]
    L.append("Plots: `area_vs_w.png`, `delay_vs_w.png`.")
    L.append("")
    L.append(claims_md(results))
    open(path, "w").write("\n".join(L))


def plots(out, results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for unit in sorted(results):
        pts = [(int(k), r["area_um2"]) for k, r in results[unit].items() if r.get("area_um2")]
        if pts:
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=unit)
    ax.set_xscale("log", base=2); ax.set_yscale("log")
    ax.set_xlabel("SIMD width W"); ax.set_ylabel("standard-cell area (µm², OSU 0.18 µm)")
    ax.set_title("Area vs SIMD width"); ax.grid(True, which="both", alpha=0.3)
    if ax.lines: ax.legend(fontsize=8)
    fig.tight_layout(); fig.savefig(os.path.join(out, "area_vs_w.png"), dpi=110); plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, unit in enumerate(sorted(results)):
        color = "C%d" % i
        for key, style, lab in (("comb_delay_ns", "-", "comb."), ("reg2reg_min_period_ns", "--",
                                                                  "reg→reg period")):
            pts = sorted((int(k), r[key]) for k, r in results[unit].items() if r.get(key))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", color=color,
                        label="%s (%s)" % (unit, lab))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("SIMD width W"); ax.set_ylabel("ns (OpenSTA, OSU 0.18 µm)")
    ax.set_title("Worst path delay vs SIMD width"); ax.grid(True, which="both", alpha=0.3)
    if ax.lines: ax.legend(fontsize=7)
    fig.tight_layout(); fig.savefig(os.path.join(out, "delay_vs_w.png"), dpi=110); plt.close(fig)
