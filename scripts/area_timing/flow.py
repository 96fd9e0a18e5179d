"""Area, timing and power sweep of the rtl/ units: Yosys with timing-driven liberty mapping (abc -constr:
buffering and gate sizing), OpenSTA (minimum period, critical path, power from recorded workload activity),
iCE40 HX8K place and route (nextpnr). Driven by scripts/area-timing; see `scripts/area-timing --help`.

Every (unit, parameter variant, W) is two jobs, `asic` and `ice40`, run on --jobs workers and cached by a
sha256 of everything that determines their result. A failing or timed-out job is reported with its tool and
message and never hides the others. Every critical path must satisfy the delay-versus-depth rule (logic delay
per cell level <= K x the liberty's FO4 delay); a violation makes the flow exit 1.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import fo4
import jobs
import options
from report import plots, write_md

try:
    import power as power_mod
except ImportError:  # scripts/area_timing/power.py not present: default-less, power is not run
    power_mod = None

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_LIB = "/usr/share/qflow/tech/osu018/osu018_stdcells.lib"
DEFAULT_ACTIVITY = os.path.join(REPO, "docs", "area-timing", "activity.json")
RESULTS_FORMAT = 2
EXPECTED = ["slp_permutation_unit", "majority_unit", "priority_encoder_compactor", "popular_block_selector"]
# An honest mapped path spends about one to two FO4 per cell level (a level is one gate with a fanout of a
# few, sometimes a buffer); the unbuffered netlists of the old flow gave hundreds. 3 leaves room for the
# slow cells (XOR, NOR3, MUX) without hiding a missing buffer tree.
DEFAULT_DEPTH_FACTOR = 3.0

POPCOUNT_REF = """// generated reference: W-bit population count (for the majority-logic claim)
module ref_popcount #(parameter W = 32) (input wire [W-1:0] x, output reg [$clog2(W+1)-1:0] n);
  integer i;
  always @* begin n = 0; for (i = 0; i < W; i = i + 1) n = n + x[i]; end
endmodule
"""


def has_parameter(src_text, name):
    return re.search(r"\bparameter\b(\s+integer)?\s+%s\b" % name, src_text) is not None


def rtl_defaults(src_text, names):
    out = {}
    for n in names:
        m = re.search(r"\bparameter\b(?:\s+integer)?\s+%s\s*=\s*(\d+)" % n, src_text)
        if m:
            out[n] = int(m.group(1))
    return out


def selector_rounds(token, w):
    """A --selector-rounds entry: a number, 'W' or 'W/k' (W/k rounds: k candidate lanes per cycle)."""
    if token == "W":
        return w
    m = re.match(r"^W/(\d+)$", token)
    if m:
        return w // int(m.group(1)) if int(m.group(1)) else 0
    return int(token)


def variants(unit, src_text, w, opts):
    """Parameter sets swept for a unit at width w (each becomes its own row)."""
    if opts.default_variants:
        return [{}]
    if unit == "majority_unit" and has_parameter(src_text, "STRUCTURE"):
        return [{"STRUCTURE": s} for s in (0, 1, 2)]
    if unit == "popular_block_selector" and has_parameter(src_text, "ROUNDS"):
        rounds = []
        for x in opts.selector_rounds.split(","):
            v = selector_rounds(x.strip(), w)
            if v and v <= w and w % v == 0 and v not in rounds:
                rounds.append(v)
        extra = {"AW": opts.selector_aw} if getattr(opts, "selector_aw", 0) else {}
        return [{**extra, "ROUNDS": v} for v in rounds]
    return [{}]


def row_name(unit, params):
    name = unit + (" (reference)" if unit == "ref_popcount" else "")
    if params:
        name += " (%s)" % ", ".join("%s=%s" % kv for kv in sorted(params.items()))
    return name


def sha256_text(text):
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


# The flow's files that decide a job's result (reports, plots and tests do not).
JOB_SCRIPTS = ("jobs.py", "wrappers.py", "sta_paths.py", "power.py")


def flow_scripts_hash():
    h = hashlib.sha256()
    for f in sorted(os.listdir(HERE)):
        if f in JOB_SCRIPTS or f.endswith((".ys", ".tcl", ".constr")):
            h.update(f.encode())
            h.update(open(os.path.join(HERE, f), "rb").read())
    return h.hexdigest()


def tool_versions():
    def first_line(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            txt = (out.stdout + out.stderr).strip().splitlines()
            return txt[-1].strip() if txt else "unknown"
        except (OSError, subprocess.SubprocessError) as e:
            return "unavailable (%s)" % e
    return {"yosys": first_line(["yosys", "-V"]), "opensta": first_line(["sta", "-version"]),
            "nextpnr-ice40": first_line(["nextpnr-ice40", "--version"]), "python": sys.version.split()[0]}


def job_key(spec, kind, opts, common):
    """Cache key: RTL text, unit, W, parameters, the options that change a result, liberty, tools, the flow's
    own scripts, and for power the activity file."""
    parts = {"kind": kind, "rtl": sha256_text(open(spec["src"]).read()), "unit": spec["unit"],
             "params": spec["all_params"], "timeout": opts.timeout, **common}
    if kind == "asic":
        parts.update(abc_ps=opts.abc_delay_ps, power=opts.power, activity=common["activity"])
    else:
        parts.pop("activity", None)
    return sha256_text(json.dumps(parts, sort_keys=True))


def run_job(spec, kind, opts, activity, cache_path):
    if cache_path and os.path.exists(cache_path):
        try:
            with open(cache_path) as f:
                r = json.load(f)
            r["cached"] = True
            return r
        except (OSError, ValueError):
            pass
    t0 = time.time()
    try:
        if kind == "asic":
            r = jobs.asic_job(spec, opts, power_mod if opts.power else None, activity)
        else:
            r = jobs.ice40_job(spec, opts)
    except Exception as e:  # noqa: BLE001 — never lose the sweep to one job
        r = {"unit": spec["unit"], "W": spec["W"], "params": spec["params"], "row": spec["row"],
             "status": {kind: "fail"}, "errors": {kind: "driver %s: %s" % (type(e).__name__, e)}}
    r["job_seconds_" + kind] = round(time.time() - t0, 1)
    r["cached"] = False
    if cache_path and not any(v == "fail" and "timeout" not in r["errors"].get(s, "")
                              for s, v in r["status"].items()):
        os.makedirs(os.path.dirname(cache_path), exist_ok=True)
        tmp = cache_path + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            json.dump(r, f)
        os.replace(tmp, cache_path)
    return r


def chain_cost_rank(spec):
    heavy = {"popular_block_selector": 0, "priority_encoder_compactor": 1, "slp_permutation_unit": 2}
    return (heavy.get(spec["unit"], 3), int(spec["all_params"].get("ROUNDS", 0)))


def run_chain(specs, kind, opts, activity, common):
    """One row's jobs of one kind, narrowest W first. Once a width times out, or does not fit the iCE40, the
    wider ones (which hold that logic and more) are not run: they are reported as such, not as failures."""
    out, reason = [], None
    for s in specs:
        if reason:
            steps = ("ice40_yosys", "nextpnr") if kind == "ice40" else ("ports", "yosys", "sta", "power")
            r = {"unit": s["unit"], "W": s["W"], "params": s["params"], "all_params": s["all_params"],
                 "row": s["row"], "status": {st: "skip" for st in steps}, "errors": {}, "seconds": {},
                 "not_run_" + kind: reason, "cached": False}
            if kind == "ice40":
                r["ice40_fit"] = reason
        else:
            cache = os.path.join(opts.cache_dir, job_key(s, kind, opts, common) + ".json") if opts.cache else None
            r = run_job(s, kind, opts, activity, cache)
            timeouts = [st for st, msg in r["errors"].items() if "timeout after" in msg]
            if timeouts:
                reason = "not run: W=%d already timed out (%s, --timeout %d)" % (s["W"], timeouts[0], opts.timeout)
            elif str(r.get("ice40_fit", "")).startswith("does not fit"):
                reason = "not run: W=%d already %s" % (s["W"], r["ice40_fit"])
        out.append((s, kind, r))
    return out


def merge_job(results, r):
    row = results.setdefault(r["row"], {})
    cur = row.get(str(r["W"]))
    if cur is None or cur.get("_run") is not True:
        cur = {"_run": True, "status": {}, "errors": {}, "seconds": {}}
        row[str(r["W"])] = cur
    for k, v in r.items():
        if k in ("status", "errors", "seconds"):
            cur[k].update(v)
        elif k != "cached":
            cur[k] = v


ICE40_STEPS = ("ice40_yosys", "nextpnr")


def keep_other_kind(cur, prev):
    """A subset run (e.g. --no-ice40) keeps the previous figures of the job kind it did not run, including the
    reason a job was not run (a narrower width timed out or did not fit)."""
    for kind in ("asic", "ice40"):
        marks = ("job_seconds_" + kind, "not_run_" + kind)
        if any(m in cur for m in marks) or not any(m in prev for m in marks):
            continue
        ice = kind == "ice40"
        for k, v in prev.items():
            if k not in cur and k.startswith("ice40") == ice:
                cur[k] = v
        for k in ("status", "errors", "seconds"):
            for step, v in prev.get(k, {}).items():
                if (step in ICE40_STEPS) == ice and step != "ports":
                    cur.setdefault(k, {})[step] = v
        for m in marks:
            if m in prev:
                cur[m] = prev[m]


def depth_rule(results, fo4_ns, k):
    """Checks every critical path: logic delay (clock-to-Q and setup excluded) per cell level <= k x FO4."""
    violations = []
    for row, byw in results.items():
        for w, r in byw.items():
            checks = []
            cp = r.get("critical_path")
            if cp and cp.get("levels"):
                checks.append(("reg→reg", cp["logic_ns"], cp["levels"]))
            if r.get("comb_delay_ns") and r.get("comb_levels"):
                checks.append(("in→out", r["comb_delay_ns"], r["comb_levels"]))
            r["depth_rule"] = []
            for what, delay, levels in checks:
                per = delay / levels / fo4_ns
                ok = per <= k
                r["depth_rule"].append({"path": what, "fo4_per_level": round(per, 2), "ok": ok})
                if not ok:
                    violations.append("%s W=%s %s: %.3f ns over %d levels = %.2f FO4 per level > %.1f"
                                      % (row, w, what, delay, levels, per, k))
            if cp and r.get("logic_depth"):
                r["fo4_per_ltp_level"] = round(cp["logic_ns"] / r["logic_depth"] / fo4_ns, 2)
    return violations


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="scripts/area-timing", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--widths", default="8,16,32,64", help="comma list of W (default 8,16,32,64)")
    ap.add_argument("--units", default="", help="comma list of unit names (default: all rtl/*.v + reference)")
    ap.add_argument("--liberty", default=DEFAULT_LIB)
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "area-timing"))
    ap.add_argument("--jobs", type=int, default=2, help="jobs at once (default 2)")
    ap.add_argument("--rtl-dir", default=os.path.join(REPO, "rtl"))
    ap.add_argument("--build-dir", default="", help="intermediate files (default: new dir in /tmp)")
    ap.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/simtlm-area-timing"))
    ap.add_argument("--no-cache", dest="cache", action="store_false", help="run every job, store nothing")
    ap.add_argument("--fresh", action="store_true",
                    help="do not merge with the rows of an existing OUT/results.json")
    ap.add_argument("--abc-delay-ps", type=int, default=1000, help="abc delay target (default 1000 ps)")
    ap.add_argument("--depth-factor", type=float, default=DEFAULT_DEPTH_FACTOR,
                    help="K of the delay-versus-depth rule (default %.1f)" % DEFAULT_DEPTH_FACTOR)
    # W/4, W/2, W: four, two or one candidate lanes per cycle. Fewer rounds (more candidates per cycle)
    # cost W comparators per candidate: at W = 64, ROUNDS = 1 is 2,016 tag comparators.
    ap.add_argument("--selector-rounds", default="W/4,W/2,W",
                    help="ROUNDS variants of popular_block_selector: numbers, 'W' (one candidate lane "
                    "per cycle) or 'W/k' (k candidate lanes per cycle); default W/4,W/2,W")
    # 32-bit addresses, as the data-herding paper's GT200 (compute 1.x) has; the co-simulation twins are
    # built at AW = 64 and 32 and proven equal at both.
    ap.add_argument("--selector-aw", type=int, default=32,
                    help="address bits AW of the swept popular_block_selector (default 32; 0: the RTL default)")
    ap.add_argument("--default-variants", action="store_true",
                    help="only the RTL's default parameters (no STRUCTURE/ROUNDS sweep)")
    ap.add_argument("--timeout", type=int, default=240, help="seconds per tool process (default 240)")
    ap.add_argument("--param", action="append", default=[], metavar="UNIT.NAME=VALUE",
                    help="parameter override for one unit (repeatable), recorded in the row name")
    ap.add_argument("--activity", default=DEFAULT_ACTIVITY, help="activity JSON (default %(default)s)")
    ap.add_argument("--no-power", dest="power", action="store_false")
    ap.add_argument("--no-ice40", dest="ice40", action="store_false")
    ap.add_argument("--no-reference", dest="reference", action="store_false",
                    help="skip the generated popcount reference")
    ap.add_argument("--no-plots", dest="plots", action="store_false")
    ap.add_argument("--report-only", action="store_true", help="regenerate results.md and plots from results.json")
    ap.add_argument("--check", action="store_true",
                    help="also exit 1 when a unit maps to zero standard cells (CI)")
    return ap, ap.parse_args(argv)


def collect_sources(a, ap):
    srcs = {}
    if os.path.isdir(a.rtl_dir):
        for f in sorted(os.listdir(a.rtl_dir)):
            if f.endswith(".v"):
                srcs[f[:-2]] = os.path.abspath(os.path.join(a.rtl_dir, f))
    want = [u.strip() for u in a.units.split(",") if u.strip()]
    if want:
        for u in want:
            if u not in srcs and u != "ref_popcount":
                print("warning: unit %s has no %s/%s.v" % (u, a.rtl_dir, u), file=sys.stderr)
        srcs = {u: s for u, s in srcs.items() if u in want}
    if a.reference and (not want or "ref_popcount" in want):
        ref = os.path.join(a.build, "ref_popcount.v")
        with open(ref, "w") as f:
            f.write(POPCOUNT_REF)
        srcs["ref_popcount"] = ref
    return srcs


def build_specs(srcs, widths, a):
    specs = []
    for u, src in sorted(srcs.items()):
        text = open(src).read()
        for w in widths:
            for v in variants(u, text, w, a):
                shown = {**v, **a.params.get(u, {})}
                # the RTL defaults of the swept parameters are made explicit: power and latency need ROUNDS
                all_params = {"W": w, **rtl_defaults(text, ("STRUCTURE", "ROUNDS")), **shown}
                key = re.sub(r"[^A-Za-z0-9_=]+", "_", "%s_W%d_%s" % (u, w, "_".join(
                    "%s=%s" % kv for kv in sorted(shown.items()))))
                specs.append({"unit": u, "src": src, "W": w, "params": shown, "all_params": all_params,
                              "row": row_name(u, shown), "key": key.strip("_")})
    return specs


def load_activity(path):
    if not path or not os.path.isfile(path):
        return None, "no activity file (%s): default activity only" % path
    try:
        with open(path) as f:
            d = json.load(f)
        return d, "activity from %s (%d workloads)" % (os.path.relpath(path, REPO) if path.startswith(REPO)
                                                       else path, len(d.get("workloads", {})))
    except (OSError, ValueError) as e:
        return None, "activity file %s unreadable (%s): default activity only" % (path, e)


def stop(signum, _frame):
    """Ctrl-C or a kill of the driver also ends the tools it started (they run in their own process groups)."""
    jobs.kill_running()
    print("area-timing: stopped by signal %d" % signum, file=sys.stderr, flush=True)
    os._exit(128 + signum)


def main(argv=None):
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    ap, a = parse_args(argv)
    known = [f[:-2] for f in os.listdir(a.rtl_dir) if f.endswith(".v")] if os.path.isdir(a.rtl_dir) else []
    options.validate(ap, a, known, "ref_popcount")
    t0 = time.time()
    if a.report_only:
        d = jobs.load_json(os.path.join(a.out, "results.json"))
        write_md(os.path.join(a.out, "results.md"), d["meta"], d["results"])
        if a.plots:
            plots(a.out, d["results"])
        return 0
    widths = [int(x) for x in a.widths.split(",") if x.strip()]
    a.params = {}
    for p in a.param:
        m = re.match(r"^(\w+)\.(\w+)=(\w+)$", p)
        if not m:
            ap.error("bad --param %r (want UNIT.NAME=VALUE)" % p)
        a.params.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
    a.liberty = os.path.abspath(a.liberty)
    if not os.path.isfile(a.liberty):
        ap.error("liberty not found: %s" % a.liberty)
    a.build = os.path.abspath(a.build_dir) if a.build_dir else tempfile.mkdtemp(prefix="area-timing-")
    os.makedirs(a.build, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    srcs = collect_sources(a, ap)
    specs = build_specs(srcs, widths, a)
    activity, activity_note = load_activity(a.activity) if a.power else (None, "power not run (--no-power)")
    if a.power and power_mod is None:
        activity_note = "power not run: scripts/area_timing/power.py is missing"
    try:
        fo4_ns = fo4.measure(a.liberty, os.path.join(a.build, "fo4"))
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        print("%s: error: %s" % (ap.prog, e), file=sys.stderr)
        return 1
    tools = tool_versions()
    common = {"liberty": sha256_text(open(a.liberty, "rb").read()), "tools": tools,
              "flow": flow_scripts_hash(),
              "activity": sha256_text(json.dumps(activity, sort_keys=True)) if activity else None}
    kinds = ["asic"] + (["ice40"] if a.ice40 else [])
    chains = {}
    for s in specs:
        for k in kinds:
            chains.setdefault((s["row"], k), []).append(s)
    # the costly units first, so that their long chains do not start last on the workers
    order = sorted(chains, key=lambda rk: (chain_cost_rank(chains[rk][0]), rk[1] != "ice40", rk[0]))
    njobs = len(specs) * len(kinds)
    print("area-timing: %d jobs (%s), widths %s, FO4 %.1f ps, build %s"
          % (njobs, ", ".join(sorted(srcs)), widths, fo4_ns * 1000, a.build), flush=True)
    results, hits, failed = {}, 0, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(run_chain, sorted(chains[rk], key=lambda s: s["W"]), rk[1], a, activity, common)
                for rk in order]
        for f in concurrent.futures.as_completed(futs):
            for s, k, r in f.result():
                hits += bool(r.get("cached"))
                merge_job(results, r)
                bad = ["%s (%s)" % (st, r["errors"].get(st, "")) for st, v in r["status"].items() if v == "fail"]
                failed += ["%s W=%d %s: %s" % (s["row"], s["W"], k, b) for b in bad]
                state = ("FAIL " + "; ".join(bad)) if bad else r.get("not_run_" + k, "ok")
                print("  %-44s W=%-3d %-6s %s%s" % (s["row"], s["W"], k, state,
                                                    " (cached)" if r.get("cached") else ""), flush=True)
    for byw in results.values():
        for r in byw.values():
            r.pop("_run", None)
    violations = depth_rule(results, fo4_ns, a.depth_factor)
    old = os.path.join(a.out, "results.json")
    if not a.fresh and os.path.exists(old):
        try:
            prev = jobs.load_json(old)
            if prev.get("meta", {}).get("format") == RESULTS_FORMAT:
                for row, byw in prev["results"].items():
                    for w, r in byw.items():
                        cur = results.setdefault(row, {}).setdefault(w, r)
                        if cur is not r:
                            keep_other_kind(cur, r)
        except (OSError, ValueError, KeyError):
            pass
    all_violations = depth_rule(results, fo4_ns, a.depth_factor)
    wall = round(time.time() - t0, 1)
    meta = {
        "format": RESULTS_FORMAT,
        "generated_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_seconds": wall, "jobs_run": njobs, "cache_hits": hits, "jobs": a.jobs,
        "widths": sorted({int(w) for byw in results.values() for w in byw}),
        "liberty": a.liberty, "liberty_sha256": common["liberty"], "abc_delay_ps": a.abc_delay_ps,
        "abc_drive_cell": jobs.ABC_DRIVE_CELL, "abc_load_ff": jobs.DFF_D_PIN_FF,
        "fo4_ns": round(fo4_ns, 5), "depth_factor": a.depth_factor, "depth_violations": all_violations,
        "activity": activity_note, "activity_meta": (activity or {}).get("meta"),
        "power_default_activity": list(getattr(power_mod, "DEFAULT_ACTIVITY", (0.1, 0.5))) if power_mod else None,
        "tools": tools, "build_dir": a.build,
        "missing_units": [u for u in EXPECTED if u not in srcs] if not a.units else [],
    }
    with open(old, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1, sort_keys=True)
    write_md(os.path.join(a.out, "results.md"), meta, results)
    if a.plots:
        try:
            plots(a.out, results)
        except Exception as e:  # noqa: BLE001
            print("area-timing: plots failed: %s" % e, file=sys.stderr)
    problems = violations + failed
    if a.check:
        for row, byw in results.items():
            for w, r in byw.items():
                if r["status"].get("yosys") == "ok" and not r.get("lib_cells"):
                    problems.append("%s W=%s: zero standard cells" % (row, w))
    print("area-timing: %d jobs, %d from cache, %d failed steps, %d depth-rule violations; wall %.1f s; wrote %s"
          % (njobs, hits, len(failed), len(violations), time.time() - t0, a.out))
    for p in failed:
        print("FAIL: " + p)
    for p in violations:
        print("DEPTH RULE: " + p)
    return 1 if problems else 0
