"""The papers' claims next to the measurements of the sweep (a section of results.md)."""
import math
import re


def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.1f" % v if abs(v) >= 100 else "%.3g" % v
    return str(v)


def per_type(r, names):
    return sum(r.get("generic_cells_by_type", {}).get(n, 0) for n in names)


def row_order(row):
    """Rows by unit, then by their parameters' numeric values (ROUNDS=2 before ROUNDS=16)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", row)]


def rows_of(results, unit):
    """{row name: {W: result}} of one unit's variants."""
    return {row: results[row] for row in sorted(results, key=row_order) if row.split(" (")[0] == unit}


def slp_md(results):
    slp = {}
    for byw in rows_of(results, "slp_permutation_unit").values():
        slp = byw
        break
    out = ["**SIMD lane permutation (SLP), Balanced permutation.** The paper states that adding Balanced to a "
           "compacting pipeline costs only a per-SM table of XOR masks, 32 masks of 5 bits (160 bits), plus a "
           "few XOR gates per lane to move each thread to its permuted home lane.", "",
           "| W | mask bits log2(W) | masks (=W) | table bits (computed) | RTL loadable table "
           "(2^width(wr_warp) × width(wr_mask)) | synthesized FFs/latches in unit | XOR+XNOR cells per lane | "
           "MUX cells per lane | all generic cells per lane |",
           "|---|---|---|---|---|---|---|---|---|"]
    for w in sorted(set(int(k) for k in slp) | {8, 16, 32, 64}):
        b = int(math.log2(w))
        r = slp.get(str(w))
        rtl_bits, meas = "n/a", "no RTL result | | | "
        if r and r.get("status", {}).get("yosys") == "ok":
            by = r.get("generic_cells_by_type", {})
            seq = sum(v for k, v in by.items() if "DFF" in k or "LATCH" in k)
            meas = "%d | %.2f | %.2f | %.2f" % (seq, per_type(r, ["$_XOR_", "$_XNOR_"]) / w,
                                                per_type(r, ["$_MUX_"]) / w, r["generic_cells"] / w)
            pw = {p["name"]: p["width"] for p in r.get("ports", [])}
            if "wr_warp" in pw and "wr_mask" in pw:
                rtl_bits = "%d × %d = %d" % (2 ** pw["wr_warp"], pw["wr_mask"], 2 ** pw["wr_warp"] * pw["wr_mask"])
        out.append("| %d | %d | %d | %d | %s | %s |" % (w, b, w, w * b, rtl_bits, meas))
    r32 = slp.get("32")
    if r32 and r32.get("status", {}).get("yosys") == "ok":
        out += ["", "Comparison (generated): at W=32 the table is 32 masks × 5 bits = 160 bits (paper: 160); the "
                "synthesized unit has %.2f XOR/XNOR cells and %.2f generic cells in total per lane. A lane "
                "permutation also needs the routing multiplexers (MUX column), which the paper's 'XOR gates per "
                "lane' does not mention." % (per_type(r32, ["$_XOR_", "$_XNOR_"]) / 32, r32["generic_cells"] / 32)]
    elif not slp:
        out += ["", "rtl/slp_permutation_unit.v was not in this sweep; only the computed table sizes are shown."]
    return out


def majority_md(results):
    maj = rows_of(results, "majority_unit")
    ref = next(iter(rows_of(results, "ref_popcount").values()), {})
    out = ["**Branch herding, majority logic.** The paper argues that the majority vote is simpler than a "
           "population count, which already fits in one cycle, so herding adds at most one cycle and likely "
           "none.", ""]
    if not maj:
        return out + ["rtl/majority_unit.v was not in this sweep."]
    out += ["| Majority variant | W | area µm² | popcount(W) area µm² | area ratio | popcount(2W) area µm² | "
            "ratio to popcount(2W) | comb. delay ns | popcount(W) comb. delay ns | delay ratio | min period ns | "
            "popcount(W) min period ns |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    smallest = {}
    for row, byw in maj.items():
        for w in sorted(byw, key=int):
            m, p = byw[w], ref.get(w, {})

            def ratio(key):
                return "%.2f" % (m[key] / p[key]) if m.get(key) and p.get(key) else "n/a"
            p2 = ref.get(str(2 * int(w)), {})
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                row, w, fmt(m.get("area_um2")), fmt(p.get("area_um2")), ratio("area_um2"),
                fmt(p2.get("area_um2")), "%.2f" % (m["area_um2"] / p2["area_um2"])
                if m.get("area_um2") and p2.get("area_um2") else "n/a",
                fmt(m.get("comb_delay_ns")), fmt(p.get("comb_delay_ns")), ratio("comb_delay_ns"),
                fmt(m.get("min_period_ns")), fmt(p.get("min_period_ns"))))
            if m.get("area_um2") and (w not in smallest or m["area_um2"] < smallest[w][1]):
                smallest[w] = (row, m["area_um2"])
    out += ["", "Smallest majority variant per W (generated): " + "; ".join(
        "W=%s: %s (%s µm²)" % (w, smallest[w][0], fmt(smallest[w][1])) for w in sorted(smallest, key=int)) + ".",
        "", "The popcount is a plain count of W bits generated by the script. The majority unit votes among the "
        "active lanes only: its inputs are two W-bit masks, and a vote over a variable set of voters is a "
        "threshold function of 2W + 1 bits (yes, not-no and the tie bit), so popcount(2W) is the fair yardstick; "
        "the paper's 'simpler than a population count' holds for a vote of all W lanes, which needs no active "
        "mask. The majority unit also gives all/none-taken for the ordinary branch unit."]
    # 'at most one cycle': the vote's delay against the popcount and against the other units' periods
    others = {}
    for row, byw in results.items():
        base = row.split(" (")[0]
        if base in ("majority_unit", "ref_popcount"):
            continue
        for w, r in byw.items():
            if r.get("min_period_ns"):
                cur = others.get(w)
                if cur is None or r["min_period_ns"] > cur[1]:
                    others[w] = (row, r["min_period_ns"])
    out += ["", "'Herding decided in at most one cycle' — the slowest majority variant's input→output delay "
            "against the popcount's and against the slowest other unit's minimum period at the same W:", "",
            "| W | slowest majority comb. delay ns | popcount comb. delay ns | slowest other unit (period ns) | "
            "majority delay / that period |", "|---|---|---|---|---|"]
    for w in sorted({w for byw in maj.values() for w in byw}, key=int):
        delays = [(byw[w].get("comb_delay_ns"), row) for row, byw in maj.items()
                  if w in byw and byw[w].get("comb_delay_ns")]
        if not delays:
            continue
        d, _ = max(delays)
        o = others.get(w)
        out.append("| %s | %s | %s | %s | %s |" % (
            w, fmt(d), fmt(ref.get(w, {}).get("comb_delay_ns")),
            "%s (%s)" % (o[0], fmt(o[1])) if o else "n/a", "%.2f" % (d / o[1]) if o else "n/a"))
    out += ["", "A ratio below 1 means the vote fits within a clock period that another unit of the same pipeline "
            "already needs (OSU 0.18 µm cells, so only the ratios carry over to the paper's GPU clock)."]
    return out


def selector_md(results):
    sel = rows_of(results, "popular_block_selector")
    out = ["**Data herding, popular-block selection latency.** The selector decides the most popular block of a "
           "warp's addresses over ROUNDS + 1 cycles (W/ROUNDS candidate lanes per cycle, one cycle to finish). "
           "The timing model takes its data-herding latency from this table: ns per selection = (ROUNDS + 1) × "
           "minimum period.", ""]
    if not sel:
        return out + ["rtl/popular_block_selector.v was not in this sweep."]
    out += ["| Variant | W | area µm² | min period ns | latency cycles | ns per selection |",
            "|---|---|---|---|---|---|"]
    for row, byw in sel.items():
        for w in sorted(byw, key=int):
            r = byw[w]
            rounds = r.get("all_params", r.get("params", {})).get("ROUNDS")
            cyc = int(rounds) + 1 if rounds is not None else None
            per = r.get("min_period_ns")
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                row, w, fmt(r.get("area_um2")), fmt(per), fmt(cyc) if cyc else "1 (combinational)" if not
                r.get("clock_port") else "n/a", fmt(cyc * per) if cyc and per else
                (fmt(r.get("comb_delay_ns")) if not r.get("clock_port") else "n/a")))
    return out


def claims_md(results):
    return "\n".join(["## The papers' claims next to the measurements", ""] + slp_md(results) + [""] +
                     majority_md(results) + [""] + selector_md(results) + [""])
