"""scripts/area-timing refuses bad options, missing tools and unusable directories with one clean line
(options.py; ctest cli.area_timing_options). Every case stops before a tool runs: the PATH holds stand-ins
that fail if called, so no case can start the flow."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(HERE), "area-timing")
PROG = "scripts/area-timing: error: "


class AreaTimingOptions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        self.liberty = os.path.join(self.dir, "cells.lib")
        with open(self.liberty, "w") as f:
            f.write("library (x) { }\n")

    def tearDown(self):
        self.tmp.cleanup()

    def tools(self, *names):
        for old in os.listdir(self.bin):
            os.remove(os.path.join(self.bin, old))
        for name in names:
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\necho 'a stand-in tool was run' >&2\nexit 99\n")
            os.chmod(path, stat.S_IRWXU)

    def run_script(self, *args):
        env = dict(os.environ, PATH=self.bin)
        argv = [sys.executable, SCRIPT, "--liberty", self.liberty, "--out", os.path.join(self.dir, "out"),
                "--no-cache", *args]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)

    def refused(self, expected, *args, tools=("yosys", "sta", "nextpnr-ice40")):
        self.tools(*tools)
        p = self.run_script(*args)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertNotIn("stand-in tool was run", p.stderr)
        self.assertEqual(p.stderr.strip().splitlines()[-1], PROG + expected)

    def test_unknown_option(self):
        self.refused("unrecognized arguments: --widht 8", "--widht", "8")

    def test_bad_values(self):
        self.refused("--widths: '8x' is not a whole number", "--widths", "8,8x")
        self.refused("--widths: 0 is out of range (1 to 1024)", "--widths", "0")
        self.refused("--widths: 4096 is out of range (1 to 1024)", "--widths", "16,4096")
        self.refused("--widths: give at least one width", "--widths", ",")
        self.refused("--jobs: 0 is out of range (1 to 1024)", "--jobs", "0")
        self.refused("argument --jobs: invalid int value: 'two'", "--jobs", "two")
        self.refused("--timeout: -5 is out of range (1 to any)", "--timeout", "-5")
        self.refused("--abc-delay-ps: 0 is out of range (1 to any)", "--abc-delay-ps", "0")
        self.refused("--selector-aw: 65 is out of range (0 to 64)", "--selector-aw", "65")
        self.refused("--depth-factor: nan must be a positive number", "--depth-factor", "nan")
        self.refused("--depth-factor: -1.0 must be a positive number", "--depth-factor", "-1")
        self.refused("--selector-rounds: 'W/0' is not a positive number, 'W' or 'W/k' with k > 0",
                     "--selector-rounds", "W,W/0")
        self.refused("--selector-rounds: 'x' is not a positive number, 'W' or 'W/k' with k > 0",
                     "--selector-rounds", "x")
        self.refused("bad --param 'majority_unit.W' (want UNIT.NAME=VALUE)", "--param", "majority_unit.W")

    def test_unknown_units_and_inputs(self):
        self.refused("--units: no unit nosuch in %s (known: " % os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                                             "rtl")
                     + self.known_units() + ")", "--units", "majority_unit,nosuch")
        missing = os.path.join(self.dir, "missing")
        self.refused("--rtl-dir %s is not a directory" % missing, "--rtl-dir", missing)
        p = self.run_script("--liberty", missing)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.strip().splitlines()[-1], PROG + "--liberty %s: no such file" % missing)
        self.refused("--report-only: %s does not exist (run the sweep into --out %s first)"
                     % (os.path.join(missing, "results.json"), missing), "--report-only", "--out", missing)

    def known_units(self):
        rtl = os.path.join(os.path.dirname(os.path.dirname(HERE)), "rtl")
        return ", ".join(sorted(f[:-2] for f in os.listdir(rtl) if f.endswith(".v")) + ["ref_popcount"])

    def test_missing_tools(self):
        self.refused("yosys is not on PATH (apt-get install yosys)", tools=("sta", "nextpnr-ice40"))
        self.refused("sta is not on PATH (apt-get install opensta)", tools=("yosys",))
        self.refused("nextpnr-ice40 is not on PATH (apt-get install nextpnr-ice40; or skip its step with "
                     "--no-ice40)", tools=("yosys", "sta"))

    def test_a_tool_that_fails(self):
        # The first step (the FO4 measurement with sta) fails: one line naming it, not a traceback.
        self.tools("yosys", "sta", "nextpnr-ice40")
        p = self.run_script("--units", "majority_unit", "--widths", "8")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertTrue(p.stderr.startswith(PROG + "FO4 chain: expected 8 stage delays, got 0"), p.stderr)

    def test_output_directories(self):
        afile = os.path.join(self.dir, "afile")
        with open(afile, "w") as f:
            f.write("x")
        self.refused("--out %s is not a directory" % afile, "--out", afile)
        below = os.path.join(afile, "sub")
        self.refused("--out %s cannot be made: Not a directory" % below, "--out", below)
        self.refused("--build-dir %s cannot be made: Not a directory" % below, "--build-dir", below,
                     "--no-ice40", "--out", os.path.join(self.dir, "fine"), tools=("yosys", "sta"))
        if os.geteuid() != 0:  # root writes anywhere
            locked = os.path.join(self.dir, "locked")
            os.mkdir(locked, 0o500)
            self.refused("--out %s cannot be made: Permission denied" % os.path.join(locked, "out"), "--out",
                         os.path.join(locked, "out"))
        # Nothing was written where the refusals pointed.
        with open(afile) as f:
            self.assertEqual(f.read(), "x")


if __name__ == "__main__":
    unittest.main()
