"""Unit tests of the flow's parsers and bookkeeping (no EDA tool needed):
/usr/bin/python3 -m unittest discover -s scripts/area_timing -p 'test_flow.py'. Run by scripts/area-timing-ci."""
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import flow  # noqa: E402
import fo4  # noqa: E402
import report  # noqa: E402
import sta_paths  # noqa: E402
import wrappers  # noqa: E402

REG2REG = """@@REG2REG
Startpoint: u/_16711_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: _64_ (rising edge-triggered flip-flop clocked by clk)
Path Group: clk
Path Type: max

     Delay       Time   Description
-------------------------------------------------------------
   0.0000    0.0000   clock clk (rise edge)
   0.0000    0.0000   clock network delay (ideal)
   0.0000    0.0000 ^ u/_16711_/CLK (DFFPOSX1)
   0.0905    0.0905 ^ u/_16711_/Q (DFFPOSX1)
   0.1478    0.2383 ^ u/_09243_/Y (BUFX2)
   0.1321    0.3704 v u/_09405_/Y (NOR2X1)
   0.2714    0.6418 ^ u/_09408_/Y (NAND3X1)
   0.0000    0.6418 ^ _64_/D (DFFPOSX1)
             0.6418   data arrival time

 100.0000  100.0000   clock clk (rise edge)
                      -0.1899   99.8101   library setup time
             99.8101   data required time
-------------------------------------------------------------
             99.1683   slack (MET)

@@MIN_PERIOD 0.832
@@CONFIRM_SLACK 0.0001
"""

COMB = """@@COMB
     Delay       Time   Description
   0.0000    0.0000 ^ input external delay
   0.0000    0.0000 ^ taken[3] (in)
   0.1000    0.1000 v u1/Y (NAND2X1)
   0.2000    0.3000 ^ u2/Y (INVX1)
   0.0000    0.3000 ^ herd_taken (out)
             0.3000   data arrival time
"""

NETLIST = """module unit(a, y);
  DFFPOSX1 _16711_ (
    .CLK(clk),
    .D(_00008_),
    .Q(\\lane[8].column [15])
  );
  DFFPOSX1 _17_ (
    .CLK(clk),
    .D(_00009_),
    .Q(_00123_)
  );
endmodule
module unit__regwrap(clk, a, y);
  DFFPOSX1 _64_ (
    .CLK(clk),
    .D(_1_),
    .Q(herd_taken)
  );
endmodule
"""


class PathParsing(unittest.TestCase):
    def test_register_path(self):
        p = sta_paths.parse_path(sta_paths.section(REG2REG, "REG2REG"))
        self.assertEqual(p["levels"], 3)
        self.assertEqual(p["start"], "u/_16711_")
        self.assertEqual(p["end"], "_64_")
        self.assertAlmostEqual(p["clk_to_q_ns"], 0.0905)
        self.assertAlmostEqual(p["setup_ns"], 0.1899)
        self.assertAlmostEqual(p["logic_ns"], 0.5513)
        self.assertEqual(p["cells"], ["BUFX2", "NOR2X1", "NAND3X1"])
        self.assertEqual(sta_paths.marker_value(REG2REG, "MIN_PERIOD"), 0.832)

    def test_port_path(self):
        p = sta_paths.parse_path(COMB)
        self.assertEqual((p["levels"], p["start"], p["end"]), (2, "taken[3]", "herd_taken"))
        self.assertEqual((p["start_kind"], p["end_kind"], p["clk_to_q_ns"]), ("port", "port", 0.0))

    def test_no_path(self):
        self.assertIsNone(sta_paths.parse_path("No paths found.\n"))
        self.assertIsNone(sta_paths.section("nothing", "REG2REG"))

    def test_power_sections_end_at_the_next_run_only(self):
        log = "@@POWER default\n@@pins_without_port 0\nTotal 1 2 3 4\n@@POWER bfs\nTotal 5 6 7 8\n"
        self.assertIn("Total 1 2 3 4", sta_paths.section(log, "POWER default", "@@POWER "))
        self.assertNotIn("Total 5", sta_paths.section(log, "POWER default", "@@POWER "))

    def test_register_names_from_q_nets(self):
        names = sta_paths.register_names(NETLIST, ["u/_16711_", "u/_17_", "_64_"], "unit__regwrap", "u", "unit")
        self.assertEqual(names, {"u/_16711_": "u/lane[8].column[15]", "u/_17_": "u/_17_", "_64_": "herd_taken"})


class Fo4(unittest.TestCase):
    def test_stage_delays_of_inner_stages_only(self):
        log = "".join("   0.%d0000    1.00000 v s%d/Y (NAND2X1)\n" % (i, i) for i in range(1, 9))
        self.assertEqual(fo4.parse_stage_delays(log), [0.3, 0.4, 0.5, 0.6])

    def test_every_stage_drives_four_inputs(self):
        net = fo4.chain_netlist()
        self.assertEqual(net.count(".A(n3)"), 4)
        self.assertEqual(net.count("NAND2X1"), 4 * fo4.STAGES)


class Wrappers(unittest.TestCase):
    PORTS = [{"name": "clk", "dir": "input", "width": 1}, {"name": "addr_in", "dir": "input", "width": 40},
             {"name": "start", "dir": "input", "width": 1}, {"name": "addr_out", "dir": "output", "width": 40},
             {"name": "done", "dir": "output", "width": 1}]

    def test_clock_and_pins(self):
        self.assertEqual(wrappers.clock_port(self.PORTS), "clk")
        self.assertEqual(wrappers.pin_count(self.PORTS), 1 + 40 + 1 + 40 + 1)

    def test_serial_wrapper_folds_outputs_into_a_signature(self):
        v = wrappers.serial_wrapper("sel", self.PORTS, "sel__serwrap")
        self.assertIn("reg [40:0] isr;", v)          # 41 input bits
        self.assertIn("wire [40:0] od;", v)          # 41 output bits
        self.assertIn("reg [15:0] osr;", v)          # shifted out through 16 bits only
        self.assertIn("i < 41", v)
        self.assertIn(".clk(clk)", v)

    def test_parallel_wrapper_keeps_port_names(self):
        v = wrappers.parallel_wrapper("sel", self.PORTS, "w")
        self.assertIn("input wire [39:0] addr_in", v)
        self.assertIn(".addr_in(addr_in_q)", v)
        self.assertIn("output reg done", v)


class Bookkeeping(unittest.TestCase):
    def opts(self, **kw):
        return types.SimpleNamespace(**{"default_variants": False, "selector_rounds": "1,2,4,8,W",
                                        "selector_aw": 0, **kw})

    def test_variants(self):
        self.assertEqual(flow.variants("majority_unit", "parameter integer STRUCTURE = 0", 8, self.opts()),
                         [{"STRUCTURE": 0}, {"STRUCTURE": 1}, {"STRUCTURE": 2}])
        self.assertEqual(flow.variants("popular_block_selector", "parameter ROUNDS = 1", 8, self.opts()),
                         [{"ROUNDS": 1}, {"ROUNDS": 2}, {"ROUNDS": 4}, {"ROUNDS": 8}])
        self.assertEqual(flow.variants("popular_block_selector", "parameter ROUNDS = 1", 16, self.opts())[-1],
                         {"ROUNDS": 16})
        self.assertEqual(flow.variants("majority_unit", "parameter integer W = 32", 8, self.opts()), [{}])
        self.assertEqual(flow.variants("popular_block_selector", "parameter ROUNDS = 1", 32,
                                       self.opts(selector_rounds="W/4,W/2,W")),
                         [{"ROUNDS": 8}, {"ROUNDS": 16}, {"ROUNDS": 32}])
        self.assertEqual(flow.variants("popular_block_selector", "parameter ROUNDS = 1", 8,
                                       types.SimpleNamespace(default_variants=False, selector_rounds="W",
                                                             selector_aw=32)), [{"AW": 32, "ROUNDS": 8}])
        self.assertEqual(flow.rtl_defaults("parameter integer ROUNDS = 4,", ("ROUNDS", "STRUCTURE")), {"ROUNDS": 4})

    def test_depth_rule_flags_slow_levels(self):
        res = {"a": {"8": {"critical_path": {"logic_ns": 1.0, "levels": 10}, "logic_depth": 5}},
               "b": {"8": {"critical_path": {"logic_ns": 531.0, "levels": 12}}}}
        v = flow.depth_rule(res, 0.125, 3.0)
        self.assertEqual(len(v), 1)
        self.assertTrue(v[0].startswith("b W=8 reg→reg"))
        self.assertEqual(res["a"]["8"]["depth_rule"], [{"path": "reg→reg", "fo4_per_level": 0.8, "ok": True}])
        self.assertEqual(res["a"]["8"]["fo4_per_ltp_level"], 1.6)

    def test_subset_run_keeps_the_other_job_kind(self):
        prev = {"job_seconds_asic": 3, "job_seconds_ice40": 4, "area_um2": 1.0, "ice40_lcs": 99,
                "status": {"yosys": "ok", "ice40_yosys": "ok", "nextpnr": "ok"}, "errors": {}, "seconds": {}}
        cur = {"job_seconds_asic": 5, "area_um2": 2.0, "status": {"yosys": "ok"}, "errors": {}, "seconds": {}}
        flow.keep_other_kind(cur, prev)
        self.assertEqual((cur["area_um2"], cur["ice40_lcs"]), (2.0, 99))
        self.assertEqual(cur["status"], {"yosys": "ok", "ice40_yosys": "ok", "nextpnr": "ok"})

    def test_subset_run_keeps_why_a_job_of_the_other_kind_was_not_run(self):
        reason = "not run: W=32 already timed out (nextpnr, --timeout 240)"
        prev = {"job_seconds_asic": 3, "not_run_ice40": reason, "ice40_fit": reason,
                "status": {"yosys": "ok", "ice40_yosys": "skip", "nextpnr": "skip"}, "errors": {}, "seconds": {}}
        cur = {"job_seconds_asic": 5, "status": {"yosys": "ok"}, "errors": {}, "seconds": {}}
        flow.keep_other_kind(cur, prev)
        self.assertEqual((cur["not_run_ice40"], cur["ice40_fit"]), (reason, reason))
        self.assertEqual(cur["status"], {"yosys": "ok", "ice40_yosys": "skip", "nextpnr": "skip"})
        self.assertNotIn("job_seconds_ice40", cur)


class PlotSeries(unittest.TestCase):
    def test_selector_points_are_joined_by_candidate_lanes_per_cycle_not_by_rounds(self):
        results = {"popular_block_selector (AW=32, ROUNDS=2)": {"8": {"a": 1}},
                   "popular_block_selector (AW=32, ROUNDS=4)": {"8": {"a": 2}, "16": {"a": 3}},
                   "popular_block_selector (AW=32, ROUNDS=8)": {"8": {"a": 4}, "16": {"a": 5}},
                   "majority_unit": {"8": {"a": 6}, "16": {"a": 7}}}
        series = report.plot_series(results)
        self.assertEqual(series["popular_block_selector (AW=32, W/ROUNDS=4)"], {"8": {"a": 1}, "16": {"a": 3}})
        self.assertEqual(series["popular_block_selector (AW=32, W/ROUNDS=2)"], {"8": {"a": 2}, "16": {"a": 5}})
        self.assertEqual(series["popular_block_selector (AW=32, W/ROUNDS=1)"], {"8": {"a": 4}})
        self.assertEqual(series["majority_unit"], results["majority_unit"])


if __name__ == "__main__":
    unittest.main()
