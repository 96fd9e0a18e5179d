"""One job of the sweep: a unit at one parameter set and width, either mapped to the standard-cell liberty
(area, timing, power: `asic_job`) or placed and routed on the iCE40 HX8K (`ice40_job`). A job returns a
result dict; a failing tool marks its own step FAIL with the tool's message and the job continues where it can."""
import json
import os
import re
import signal
import subprocess
import time

import sta_paths
import wrappers

HERE = os.path.dirname(os.path.abspath(__file__))
HX8K_LCS = 7680
ICE40_MAX_IO = 200          # HX8K ct256 has 206 user I/O; keep a margin
STA_PROBE_PERIOD_NS = 1000.0
ABC_DRIVE_CELL = "INVX1"    # what drives the unit's inputs in abc's view (the wrapper registers are X1 too)
DFF_D_PIN_FF = 8.83         # OSU018 DFFPOSX1 D pin capacitance: the load each unit output drives


def template(name, **kw):
    with open(os.path.join(HERE, name)) as f:
        return f.read().format(**kw)


RUNNING = set()  # process groups of the tools running now, ended by kill_running() when the driver stops


def kill_running():
    for pgid in list(RUNNING):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass


def run(cmd, log, timeout):
    """Run one tool process in its own process group (a timeout also ends abc); (ok, message, seconds)."""
    t0 = time.time()
    try:
        with open(log, "w") as out:
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            RUNNING.add(p.pid)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return False, "timeout after %ds" % timeout, time.time() - t0
            finally:
                RUNNING.discard(p.pid)
    except OSError as e:
        return False, str(e), time.time() - t0
    if p.returncode != 0:
        return False, "exit %d: %s" % (p.returncode, last_error(log)), time.time() - t0
    return True, "", time.time() - t0


def last_error(log):
    try:
        lines = open(log, errors="replace").read().splitlines()
    except OSError:
        return ""
    errs = [x for x in lines if re.search(r"error|ERROR|Error", x)]
    return (errs[-1] if errs else (lines[-1] if lines else "")).strip()[:240]


def load_json(path):
    with open(path) as f:
        return json.load(f)


def module_stat(path, top):
    """num_cells and num_cells_by_type of module `top` in a `stat -json` dump."""
    with open(path) as f:
        # Yosys 0.23 leaves a trailing comma after the modules when stat is given a selection
        mods = json.loads(re.sub(r",(\s*[}\]])", r"\1", f.read())).get("modules", {})
    m = mods.get("\\" + top) or mods.get(top) or (list(mods.values())[0] if mods else {})
    return m.get("num_cells", 0), dict(m.get("num_cells_by_type", {}))


def chip_area(path):
    txt = open(path, errors="replace").read()
    areas = re.findall(r"Chip area for (?:top )?module .*?:\s*([\d.]+)", txt)
    unknown = sorted(set(re.findall(r"Area for cell type (\S+) is unknown", txt)))
    return (float(areas[-1]) if areas else None), unknown


class Job:
    """Bookkeeping shared by both job kinds: the work dir, step status, errors and seconds."""

    def __init__(self, spec, kind, opts):
        self.spec, self.opts = spec, opts
        self.d = os.path.join(opts.build, "%s_%s" % (spec["key"], kind))
        os.makedirs(self.d, exist_ok=True)
        self.r = {"unit": spec["unit"], "W": spec["W"], "params": dict(spec["params"]),
                  "all_params": dict(spec["all_params"]),
                  "row": spec["row"], "status": {}, "errors": {}, "seconds": {}}
        chp = "".join(" -set %s %s" % (k, v) for k, v in sorted(spec["all_params"].items()))
        self.kw = dict(src=spec["src"], top=spec["unit"], d=self.d, lib=opts.liberty, chp=chp,
                       abc_ps=opts.abc_delay_ps)

    def step(self, name, cmd, timeout=None):
        log = os.path.join(self.d, name + ".log")
        ok, msg, dt = run(cmd, log, timeout or self.opts.timeout)
        if ok and cmd[0] == "sta":
            # OpenSTA exits 0 after a failed command in a script: its errors are in the log only
            errs = re.findall(r"^Error.*$", open(log, errors="replace").read(), re.M)
            if errs:
                ok, msg = False, errs[0][:240]
        self.r["seconds"][name] = round(dt, 2)
        self.r["status"][name] = "ok" if ok else "fail"
        if not ok:
            self.r["errors"][name] = "%s: %s" % (cmd[0], msg)
        return ok

    def fail(self, name, msg):
        self.r["status"][name] = "fail"
        self.r["errors"][name] = msg

    def skip(self, *names):
        for n in names:
            self.r["status"].setdefault(n, "skip")

    def write(self, name, text):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def ports(self):
        ys = self.write("ports.ys", template("ports.ys", **self.kw))
        if not self.step("ports", ["yosys", "-q", "-s", ys]):
            return None
        ports = wrappers.unit_ports(os.path.join(self.d, "ports.json"), self.spec["unit"])
        self.r["ports"] = ports
        self.r["clock_port"] = wrappers.clock_port(ports)
        return ports


def asic_job(spec, opts, power_mod, activity):
    job = Job(spec, "asic", opts)
    r, d, unit = job.r, job.d, spec["unit"]
    later = ("yosys", "sta", "power")
    try:
        ports = job.ports()
    except Exception as e:  # noqa: BLE001 — a parse failure is this job's failure, not the sweep's
        job.fail("ports", "ports.json: %s" % e)
        ports = None
    if ports is None:
        job.skip(*later)
        return r
    wrap_top = unit + "__regwrap"
    job.kw.update(wrap_top=wrap_top, wrap_src=job.write(wrap_top + ".v",
                                                         wrappers.parallel_wrapper(unit, ports, wrap_top)))
    job.write("abc.constr", template("abc.constr", drive_cell=ABC_DRIVE_CELL, load=DFF_D_PIN_FF))
    ys = job.write("asic.ys", template("asic.ys", **job.kw))
    if not job.step("yosys", ["yosys", "-q", "-s", ys]):
        job.skip("sta", "power")
        return r
    try:
        n, by = module_stat(os.path.join(d, "gen_stat.json"), unit)
        r.update(generic_cells=n, generic_cells_by_type=by)
        m = re.search(r"Estimated number of transistors:\s*(\d+)(\+?)", open(os.path.join(d, "gen_cmos.txt")).read())
        r["transistors_cmos"] = int(m.group(1)) if m else None
        m = re.search(r"\(length=(\d+)\)", open(os.path.join(d, "ltp.txt")).read())
        r["logic_depth"] = int(m.group(1)) if m else None
        n, by = module_stat(os.path.join(d, "lib_stat_unit.json"), unit)
        r.update(lib_cells=n, lib_cells_by_type=by)
        r["area_um2"], unknown = chip_area(os.path.join(d, "lib_stat_unit.txt"))
        r["wrapper_area_um2"], _ = chip_area(os.path.join(d, "lib_stat_wrap.txt"))
        if unknown:
            r["unmapped_cells"] = unknown
        r["abc_sizing"] = abc_sizing(os.path.join(d, "abc.log"))
    except Exception as e:  # noqa: BLE001
        job.fail("yosys", "parse: %s" % e)
        job.skip("sta", "power")
        return r
    timing(job, wrap_top)
    if r["status"].get("sta") == "ok" and power_mod is not None:
        power(job, wrap_top, power_mod, activity)
    else:
        job.skip("power")
    return r


def abc_sizing(log):
    """Which of abc's buffering and sizing commands ran (from abc's own echo of its script)."""
    txt = open(log, errors="replace").read()
    return [c for c in ("buffer", "upsize", "dnsize") if re.search(r"^ABC: \+ %s\b" % c, txt, re.M)]


def timing(job, wrap_top):
    r, unit = job.r, job.spec["unit"]
    comb = "" if r["clock_port"] else template(
        "sta_comb.tcl", probe=STA_PROBE_PERIOD_NS, drive_cell=ABC_DRIVE_CELL, load_pf=DFF_D_PIN_FF / 1000.0,
        **job.kw)
    tcl = job.write("sta_timing.tcl", template("sta_timing.tcl", probe=STA_PROBE_PERIOD_NS, comb=comb,
                                               **job.kw))
    if not job.step("sta", ["sta", "-no_splash", "-exit", tcl]):
        return
    try:
        log = open(os.path.join(job.d, "sta.log"), errors="replace").read()
        path = sta_paths.parse_path(sta_paths.section(log, "REG2REG"))
        if path is None:
            job.fail("sta", "no register-to-register path")
            return
        r["min_period_ns"] = sta_paths.marker_value(log, "MIN_PERIOD")
        r["confirm_slack_ns"] = sta_paths.marker_value(log, "CONFIRM_SLACK")
        if r["confirm_slack_ns"] is None or r["confirm_slack_ns"] < 0:
            job.fail("sta", "no timing closure at the computed minimum period (slack %s)" % r["confirm_slack_ns"])
        net = open(os.path.join(job.d, "wrap_net.v"), errors="replace").read()
        names = sta_paths.register_names(net, [path["start"], path["end"]], wrap_top, "u", unit)
        r["critical_path"] = {k: path[k] for k in ("arrival_ns", "setup_ns", "clk_to_q_ns", "logic_ns", "levels")}
        r["critical_path"]["start"] = sta_paths.endpoint_label(names.get(path["start"], path["start"]),
                                                               path["start_kind"])
        r["critical_path"]["end"] = sta_paths.endpoint_label(names.get(path["end"], path["end"]),
                                                             path["end_kind"])
        r["fmax_mhz"] = round(1000.0 / r["min_period_ns"], 1) if r["min_period_ns"] else None
        if not r["clock_port"]:
            comb_path = sta_paths.parse_path(sta_paths.section(log, "COMB"))
            if comb_path:
                r["comb_delay_ns"] = comb_path["arrival_ns"]
                r["comb_levels"] = comb_path["levels"]
    except Exception as e:  # noqa: BLE001
        job.fail("sta", "parse: %s" % e)


# How many clock cycles one operation of each unit takes, and whether the activity file counts the unit's
# toggles per event (inputs held for the whole operation) rather than per cycle.
def cycles_per_op(unit, params, entry):
    if unit == "popular_block_selector":
        return int(params.get("ROUNDS", 0)) + 1
    if unit == "priority_encoder_compactor" and entry and entry.get("events"):
        return entry["cycles"] / entry["events"]
    return 1


def workload_pins(power_mod, activity, workload, unit, w, params):
    """Per-cycle pin activity of one workload (None when the workload has no event for this unit)."""
    entry = activity["workloads"][workload].get(unit, {}).get(str(w))
    if not entry or not entry.get("events"):
        return None
    rounds = int(params["ROUNDS"]) if "ROUNDS" in params else None
    if hasattr(power_mod, "unit_pins"):
        return power_mod.unit_pins(activity, workload, unit, w, rounds)
    held = rounds + 1 if unit == "popular_block_selector" and rounds is not None else 1
    return {pin: (t / held, d) for pin, (t, d) in entry["pins"].items()}


def power(job, wrap_top, power_mod, activity):
    """OpenSTA power of the registered wrapper at the unit's minimum period: once with default activity, then
    once per workload of the activity file. Each figure is its own OpenSTA process: within one process the
    figures of later scripts depended on the earlier ones (bitonic's majority W=32 power came out 7.9 mW after
    bfs in the same process, 15.1 mW alone)."""
    r, unit, w = job.r, job.spec["unit"], job.spec["W"]
    runs = [("default", None, None)]
    params = job.spec["all_params"]
    for wl in sorted((activity or {}).get("workloads", {})):
        pins = workload_pins(power_mod, activity, wl, unit, w, params)
        if pins:
            runs.append((wl, pins, activity["workloads"][wl][unit][str(w)]))
    net = os.path.join(job.d, "wrap_net.v")
    default_act = getattr(power_mod, "DEFAULT_ACTIVITY", (0.1, 0.5))
    out = {}
    for name, pins, entry in runs:
        tcl = job.write("power_%s.tcl" % name, power_mod.power_tcl(
            job.opts.liberty, net, wrap_top, "clk", r["min_period_ns"], pins, default_act) + "\n")
        if not job.step("power", ["sta", "-no_splash", "-exit", tcl]):
            return
        try:
            p = power_mod.parse_power(open(os.path.join(job.d, "power.log"), errors="replace").read())
        except Exception as e:  # noqa: BLE001
            job.fail("power", "parse (%s): %s" % (name, e))
            return
        cyc = cycles_per_op(unit, params, entry)
        dyn = p["internal_w"] + p["switching_w"]
        out[name] = {"dynamic_w": dyn, "leakage_w": p["leakage_w"], "total_w": p["total_w"],
                     "cycles_per_op": cyc,
                     "energy_per_op_j": power_mod.energy_per_op_j(p["total_w"], r["min_period_ns"], cyc)}
    r["power"] = out
    r["power_default_activity"] = list(default_act)


def ice40_job(spec, opts):
    job = Job(spec, "ice40", opts)
    r, d, unit = job.r, job.d, spec["unit"]
    try:
        ports = job.ports()
    except Exception as e:  # noqa: BLE001
        job.fail("ports", "ports.json: %s" % e)
        ports = None
    if ports is None:
        job.skip("ice40_yosys", "nextpnr")
        return r
    npins = wrappers.pin_count(ports)
    if npins > ICE40_MAX_IO:
        top = unit + "__serwrap"
        src = job.write(top + ".v", wrappers.serial_wrapper(unit, ports, top))
        r["ice40_wrapper"] = "serial in, 16-bit signature out (%d unit pins > %d)" % (npins, ICE40_MAX_IO)
    else:
        top = unit + "__regwrap"
        src = job.write(top + ".v", wrappers.parallel_wrapper(unit, ports, top))
        r["ice40_wrapper"] = "parallel"
    ys = job.write("ice40.ys", template("ice40.ys", ice_wrap_src=src, ice_wrap_top=top, **job.kw))
    if not job.step("ice40_yosys", ["yosys", "-q", "-s", ys]):
        job.skip("nextpnr")
        return r
    _, by = module_stat(os.path.join(d, "ice_wrap_stat.json"), top)
    r["ice40_luts"] = by.get("SB_LUT4", 0)
    r["ice40_ffs"] = sum(v for k, v in by.items() if k.startswith("SB_DFF"))
    rpt = os.path.join(d, "nextpnr_report.json")
    ok = job.step("nextpnr", ["nextpnr-ice40", "--hx8k", "--package", "ct256", "--pcf-allow-unconstrained",
                              "--timing-allow-fail", "--freq", "100", "--parallel-refine", "--json", os.path.join(d, "ice_wrap.json"),
                              "--asc", os.path.join(d, "ice_wrap.asc"), "--report", rpt])
    log = open(os.path.join(d, "nextpnr.log"), errors="replace").read()
    used = re.findall(r"ICESTORM_LC:\s+(\d+)/\s*(\d+)", log)
    if used:
        r["ice40_lcs"] = int(used[-1][0])
    if not ok:
        if used and int(used[-1][0]) > int(used[-1][1]):
            # not a tool failure: the configuration is larger than the device
            r["status"]["nextpnr"] = "does not fit"
            r["errors"].pop("nextpnr", None)
            r["ice40_fit"] = "does not fit (%s LCs > %s)" % used[-1]
        return r
    try:
        rep = load_json(rpt)
        ach = [v["achieved"] for v in rep.get("fmax", {}).values() if "achieved" in v]
        r["ice40_fmax_mhz"] = round(min(ach), 1) if ach else None
        lc = rep.get("utilization", {}).get("ICESTORM_LC", {})
        r["ice40_lcs"] = lc.get("used", r.get("ice40_lcs"))
        r["ice40_fit"] = "fits"
    except Exception as e:  # noqa: BLE001
        job.fail("nextpnr", "report parse: %s" % e)
    return r
