"""Checks of scripts/area-timing's options before any tool runs (issue 32, point 7).

Each bad value, a missing tool, a missing input and an output directory that cannot be made end the script
with `scripts/area-timing: error: ...` naming the option or path and the reason (exit status 2, argparse's),
instead of a Python traceback or a failure in the middle of the sweep. Tested by test_options.py.
"""
import math
import os
import re
import shutil

# The tool each step runs, the Debian package that installs it, and the option that skips it (if any).
TOOLS = [("yosys", "yosys", None), ("sta", "opensta", None), ("nextpnr-ice40", "nextpnr-ice40", "--no-ice40")]
MAX_WIDTH = 1024


def _positive_int(ap, option, text, low=1, high=None):
    if not re.fullmatch(r"[0-9]+", text.strip()):
        ap.error("%s: %r is not a whole number" % (option, text))
    value = int(text)
    if value < low or (high is not None and value > high):
        ap.error("%s: %d is out of range (%d to %s)" % (option, value, low, high if high is not None else "any"))
    return value


def _directory_to_write(ap, option, path):
    """Makes PATH (mkdir -p) or names why it cannot be one."""
    if os.path.exists(path) and not os.path.isdir(path):
        ap.error("%s %s is not a directory" % (option, path))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        ap.error("%s %s cannot be made: %s" % (option, path, e.strerror or e))
    if not os.access(path, os.W_OK | os.X_OK):
        ap.error("%s %s is not writable" % (option, path))


def validate(ap, a, known_units, reference_unit):
    """Refuses bad option values of the parsed namespace `a`; called before anything is run or written."""
    widths = [x for x in a.widths.split(",") if x.strip()]
    if not widths:
        ap.error("--widths: give at least one width")
    for x in widths:
        _positive_int(ap, "--widths", x, 1, MAX_WIDTH)
    for option, value, low, high in (("--jobs", a.jobs, 1, 1024), ("--timeout", a.timeout, 1, None),
                                     ("--abc-delay-ps", a.abc_delay_ps, 1, None),
                                     ("--selector-aw", a.selector_aw, 0, 64)):
        if value < low or (high is not None and value > high):
            ap.error("%s: %d is out of range (%d to %s)" % (option, value, low, high if high is not None else "any"))
    if not math.isfinite(a.depth_factor) or a.depth_factor <= 0:
        ap.error("--depth-factor: %r must be a positive number" % a.depth_factor)
    for token in a.selector_rounds.split(","):
        token = token.strip()
        m = re.fullmatch(r"W/([0-9]+)", token)
        if token == "W" or (m and int(m.group(1)) > 0):
            continue
        if m or not re.fullmatch(r"[0-9]+", token) or int(token) == 0:
            ap.error("--selector-rounds: %r is not a positive number, 'W' or 'W/k' with k > 0" % token)
    if a.report_only:
        results = os.path.join(a.out, "results.json")
        if not os.path.isfile(results):
            ap.error("--report-only: %s does not exist (run the sweep into --out %s first)" % (results, a.out))
        return
    if not os.path.isdir(a.rtl_dir):
        ap.error("--rtl-dir %s is not a directory" % a.rtl_dir)
    want = [u.strip() for u in a.units.split(",") if u.strip()]
    unknown = [u for u in want if u not in known_units and u != reference_unit]
    if unknown:
        ap.error("--units: no unit %s in %s (known: %s)"
                 % (", ".join(unknown), a.rtl_dir, ", ".join(sorted(known_units) + [reference_unit])))
    if not os.path.isfile(a.liberty):
        ap.error("--liberty %s: no such file" % a.liberty)
    if not os.access(a.liberty, os.R_OK):
        ap.error("--liberty %s is not readable" % a.liberty)
    for tool, package, skip in TOOLS:
        if tool == "nextpnr-ice40" and not a.ice40:
            continue
        if shutil.which(tool) is None:
            ap.error("%s is not on PATH (apt-get install %s%s)"
                     % (tool, package, "; or skip its step with " + skip if skip else ""))
    _directory_to_write(ap, "--out", a.out)
    if a.build_dir:
        _directory_to_write(ap, "--build-dir", a.build_dir)
