"""results.md and the plots of the area/timing/power sweep (scripts/area_timing/flow.py). Every number in them
comes from results.json."""
import os
import re

from claims import claims_md


def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v == 0:
            return "0"
        return "%.1f" % v if abs(v) >= 100 else "%.*g" % (digits, v)
    return str(v)


def step_cell(r, step, value):
    st = r.get("status", {}).get(step) or ("fail" if "fail" in r.get("status", {}).values() else "skip")
    if st == "fail":
        return "FAIL"
    if st == "skip":
        return "—"
    return fmt(value)


def rows_sorted(results):
    def key(row):
        base = row.split(" (")[0]
        # numbers in the variant compare as numbers: ROUNDS=2 before ROUNDS=16
        return (base == "ref_popcount", base, [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", row)])
    return sorted(results, key=key)


def asic_table(results):
    L = ["| Unit (variant) | W | Generic cells | Transistors (est.) | Yosys ltp depth | Std cells | Area µm² | "
         "Min period ns | Fmax MHz | Critical path (start → end) | Cell levels | FO4/level | FO4/ltp level | "
         "Comb. delay ns | Comb. levels |",
         "|" + "---|" * 15]
    for row in rows_sorted(results):
        for w in sorted(results[row], key=int):
            r = results[row][w]
            cp = r.get("critical_path") or {}
            rule = {d["path"]: d for d in r.get("depth_rule", [])}
            per = rule.get("reg→reg", {}).get("fo4_per_level")
            comb_rule = rule.get("in→out")
            L.append("| " + " | ".join([
                row, w, step_cell(r, "yosys", r.get("generic_cells")),
                step_cell(r, "yosys", r.get("transistors_cmos")), step_cell(r, "yosys", r.get("logic_depth")),
                step_cell(r, "yosys", r.get("lib_cells")), step_cell(r, "yosys", r.get("area_um2")),
                step_cell(r, "sta", r.get("min_period_ns")), step_cell(r, "sta", r.get("fmax_mhz")),
                ("%s → %s" % (cp["start"], cp["end"])).replace("|", "/") if cp else step_cell(r, "sta", None),
                fmt(cp.get("levels")) if cp else "—",
                (fmt(per) + ("" if rule.get("reg→reg", {}).get("ok", True) else " **VIOLATION**"))
                if per is not None else "—",
                fmt(r.get("fo4_per_ltp_level")) if r.get("fo4_per_ltp_level") is not None else "—",
                ("%s (%s FO4/level%s)" % (fmt(r.get("comb_delay_ns")), fmt(comb_rule["fo4_per_level"]),
                                         "" if comb_rule["ok"] else " **VIOLATION**"))
                if comb_rule else ("sequential" if r.get("clock_port") else fmt(r.get("comb_delay_ns"))),
                fmt(r.get("comb_levels")) if r.get("comb_levels") is not None else "—"]) + " |")
    return L


def ice40_table(results):
    L = ["| Unit (variant) | W | Wrapper | LUTs | FFs | LCs (of 7680) | Fmax MHz | Place and route |",
         "|---|---|---|---|---|---|---|---|"]
    any_row = False
    for row in rows_sorted(results):
        for w in sorted(results[row], key=int):
            r = results[row][w]
            if "ice40_yosys" not in r.get("status", {}):
                continue
            any_row = True
            st = r["status"].get("nextpnr", "skip")
            pr = r.get("ice40_fit") or ("FAIL" if st == "fail" or r["status"]["ice40_yosys"] == "fail" else "—")
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                row, w, r.get("ice40_wrapper", "—").split(" (")[0],
                step_cell(r, "ice40_yosys", r.get("ice40_luts")), step_cell(r, "ice40_yosys", r.get("ice40_ffs")),
                fmt(r.get("ice40_lcs")), fmt(r.get("ice40_fmax_mhz")) if st == "ok" else "—", pr))
    return L if any_row else ["iCE40 was not run in this sweep (--no-ice40)."]


def _uw(x):
    return fmt(x * 1e6) if x is not None else "n/a"


def _pj(x):
    return fmt(x * 1e12) if x is not None else "n/a"


def power_tables(meta, results):
    L = ["### Power (OpenSTA report_power, registered wrapper at the unit's minimum period)", "",
         "- %s." % meta.get("activity", "")]
    if meta.get("power_default_activity"):
        L.append("- Default activity: %s toggles per cycle, duty %s on every input pin (what a designer assumes "
                 "without workload data)." % tuple(meta["power_default_activity"]))
    L.append("- Dynamic = internal + switching power. Energy per operation = total power × period × cycles per "
             "operation (1 for majority and permutation; the recorded load+pop cycles per compaction for the "
             "compactor; ROUNDS + 1 for the selector, whose recorded per-event toggles are spread over those "
             "cycles). Workload columns: minimum / mean / maximum over the workloads of the activity file.")
    L.append("")
    L.append("| Unit (variant) | W | Period ns | Cycles/op (workloads) | Dynamic µW default | Leakage µW | "
             "Energy/op pJ default | Dynamic µW workloads min/mean/max | Energy/op pJ workloads min/mean/max |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    per_wl = []
    seen = False
    for row in rows_sorted(results):
        for w in sorted(results[row], key=int):
            r = results[row][w]
            pw = r.get("power")
            if not pw:
                if r.get("status", {}).get("power") == "fail":
                    L.append("| %s | %s | FAIL | | | | | | |" % (row, w))
                continue
            seen = True
            d = pw.get("default", {})
            wl = {k: v for k, v in pw.items() if k != "default"}

            def mmm(key, conv):
                vals = [v[key] for v in wl.values() if v.get(key) is not None]
                if not vals:
                    return "—"
                return "%s / %s / %s" % (conv(min(vals)), conv(sum(vals) / len(vals)), conv(max(vals)))
            cyc = sorted({round(v["cycles_per_op"], 2) for v in wl.values()})
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                row, w, fmt(r.get("min_period_ns")), ", ".join(fmt(c) for c in cyc) if cyc else
                fmt(d.get("cycles_per_op")), _uw(d.get("dynamic_w")), _uw(d.get("leakage_w")),
                _pj(d.get("energy_per_op_j")), mmm("dynamic_w", _uw), mmm("energy_per_op_j", _pj)))
            if w == "32":
                for name, v in sorted(wl.items()):
                    per_wl.append("| %s | %s | %s | %s | %s | %s |" % (
                        row, name, fmt(v["cycles_per_op"]), _uw(v["dynamic_w"]), _uw(v["leakage_w"]),
                        _pj(v["energy_per_op_j"])))
    if not seen:
        return L[:3] + ["", "No power figures in this sweep."]
    if per_wl:
        L += ["", "Per workload at W = 32:", "",
              "| Unit (variant) | Workload | Cycles/op | Dynamic µW | Leakage µW | Energy/op pJ |",
              "|---|---|---|---|---|---|"] + per_wl
    return L


def notes(results):
    out = []
    for row in rows_sorted(results):
        for w in sorted(results[row], key=int):
            r = results[row][w]
            for s, msg in sorted(r.get("errors", {}).items()):
                out.append("- FAIL %s W=%s, %s: %s" % (row, w, s, msg.replace("|", "/")))
            if r.get("unmapped_cells"):
                out.append("- %s W=%s: cells without liberty area: %s" % (row, w, ", ".join(r["unmapped_cells"])))
            for kind in ("asic", "ice40"):
                if r.get("not_run_" + kind):
                    out.append("- %s W=%s, %s: %s" % (row, w, kind, r["not_run_" + kind]))
    return out


def write_md(path, meta, results):
    tools = "; ".join("%s `%s`" % kv for kv in sorted(meta["tools"].items()))
    viol = meta.get("depth_violations", [])
    npaths = sum(len(r.get("depth_rule", [])) for byw in results.values() for r in byw.values())
    L = ["# Area, timing and power of the rtl/ units", "",
         "Generated by `scripts/area-timing` — do not edit by hand.", "",
         "- Generated: %s; widths %s; the last run: %d jobs, %d from the cache, wall time %.1f s with %d parallel "
         "jobs (rows of earlier runs are kept unless --fresh)." % (
             meta["generated_utc"], meta["widths"], meta["jobs_run"], meta["cache_hits"], meta["wall_seconds"],
             meta["jobs"]),
         "- Tools: %s." % tools,
         "- Liberty `%s` (sha256 %s…). Timing-driven mapping: `dfflibmap`, then `abc -constr -D %d -liberty`: "
         "abc maps for a %d ps target, then buffers high-fanout nets and sizes gates (`buffer; upsize; dnsize`), "
         "with each unit input driven by %s and each output loading %.2f fF (a DFFPOSX1 D pin)." % (
             meta["liberty"], meta["liberty_sha256"][:12], meta["abc_delay_ps"], meta["abc_delay_ps"],
             meta["abc_drive_cell"], meta["abc_load_ff"]),
         "- abc's log shows `buffer`, `upsize` and `dnsize` in %d of the %d liberty mappings of this report." % (
             sum(1 for byw in results.values() for r in byw.values()
                 if set(r.get("abc_sizing", [])) == {"buffer", "upsize", "dnsize"}),
             sum(1 for byw in results.values() for r in byw.values() if "abc_sizing" in r)),
         "- The unit sits in a registered wrapper (every input and output through a flip-flop) and is kept as its "
         "own module: area, cell counts and logic depth are the unit's; the period is the wrapper's "
         "(clock-to-Q + logic + setup), found as probe period − worst slack and confirmed by a run at that period "
         "with slack ≥ 0. STA: no wire load, ideal clock. Comb. delay (combinational units only): input→output "
         "with inputs driven by %s and outputs loaded by a D pin." % meta["abc_drive_cell"],
         "- Delay-versus-depth rule: FO4 delay of this liberty measured by OpenSTA on a NAND2X1 chain with fanout "
         "4: **%.1f ps**. Every critical path must take at most K = %.1f FO4 per cell level for its logic delay "
         "(period − clock-to-Q − setup). %s" % (
             meta["fo4_ns"] * 1000, meta["depth_factor"],
             ("All %d paths pass." % npaths) if not viol else "**%d violations** (listed below)." % len(viol)),
         "- Cell levels are counted on the mapped critical path (buffers included); FO4/ltp level divides the same "
         "logic delay by Yosys' `ltp` depth of the generic netlist.",
         "- FAIL = that tool failed for that job (see Failures); — = not run.", ""]
    L += ["## Standard cells (OSU 0.18 µm) and timing", ""] + asic_table(results) + [""]
    if viol:
        L += ["### Delay-versus-depth violations", ""] + ["- " + v for v in viol] + [""]
    L += ["## iCE40 HX8K (nextpnr, 100 MHz target)", "",
          "Units with more port bits than the package's pins use a serial wrapper: inputs from a shift register, "
          "outputs XOR-folded into a 16-bit signature that is shifted out.", ""] + ice40_table(results) + [""]
    L += power_tables(meta, results) + [""]
    n = notes(results)
    if n:
        L += ["## Failures and notes", ""] + n + [""]
    if meta.get("missing_units"):
        L += ["Units expected but not present in rtl/ at sweep time: %s" % ", ".join(meta["missing_units"]), ""]
    L += ["Plots: `area_vs_w.png`, `period_vs_w.png`, `energy_vs_w.png`.", "", claims_md(results)]
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def plot_series(results):
    """{line label: {W: result}}. A selector variant is the same design along W when its candidate lanes per
    cycle (W / ROUNDS) stay the same, not its ROUNDS, so its points are joined by W / ROUNDS."""
    series = {}
    for row in rows_sorted(results):
        rounds = re.search(r"ROUNDS=(\d+)", row)
        for w, r in results[row].items():
            label = row
            if rounds:
                per = int(w) // int(rounds.group(1))
                label = re.sub(r"ROUNDS=\d+", "W/ROUNDS=%d" % per, row)
            series.setdefault(label, {})[w] = r
    return series


def _plot(out, results, name, ylabel, title, value, logy=True):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5))
    series = plot_series(results)
    for i, row in enumerate(series):
        pts = sorted((int(w), value(r)) for w, r in series[row].items() if value(r))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=row,
                    linestyle="-" if i < 10 else "--")
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("SIMD width W")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if ax.lines:
        ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)


def plots(out, results):
    _plot(out, results, "area_vs_w.png", "standard-cell area (µm², OSU 0.18 µm)", "Area vs SIMD width",
          lambda r: r.get("area_um2"))
    _plot(out, results, "period_vs_w.png", "minimum period of the registered unit (ns)",
          "Minimum clock period vs SIMD width", lambda r: r.get("min_period_ns"))
    _plot(out, results, "energy_vs_w.png", "energy per operation, default activity (pJ)",
          "Energy per operation vs SIMD width",
          lambda r: (r.get("power", {}).get("default", {}).get("energy_per_op_j") or 0) * 1e12)
