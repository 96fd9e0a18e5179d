"""Tests of power.py without OpenSTA: `python3 -m unittest discover -s scripts/area_timing -p 'test_power.py'`."""
import unittest

import power

REPORT = """Group                    Internal    Switching      Leakage        Total
                            Power        Power        Power        Power
------------------------------------------------------------------------
Sequential           1.630613e-03 4.813555e-05 1.092929e-08 1.678759e-03  40.1%
Combinational        1.681292e-03 8.276190e-04 3.602377e-08 2.508947e-03  59.9%
------------------------------------------------------------------------
Total                3.311906e-03 8.757544e-04 4.695306e-08 4.187707e-03 100.0%
                            79.1%        20.9%         0.0%
"""


class ParsePower(unittest.TestCase):
    def test_total_row(self):
        p = power.parse_power("@@POWER bfs\n" + REPORT)
        self.assertEqual(p, {"internal_w": 3.311906e-03, "switching_w": 8.757544e-04,
                             "leakage_w": 4.695306e-08, "total_w": 4.187707e-03})

    def test_missing_report(self):
        with self.assertRaises(ValueError):
            power.parse_power("Error: no design linked\n")
        with self.assertRaises(ValueError):
            power.parse_power(None)


class Energy(unittest.TestCase):
    def test_energy_per_op(self):
        # 4 mW for 3 cycles of 2.5 ns: 4e-3 * 7.5e-9 J.
        self.assertAlmostEqual(power.energy_per_op_j(4e-3, 2.5, 3), 3e-11, places=20)


class PerCyclePins(unittest.TestCase):
    ENTRY = {"events": 4, "cycles": 4, "pins": {"addr_in[3]": [0.5, 0.25], "start": [2, 1]}}

    def test_per_event_entry_divides_toggles_and_pulse_duty(self):
        pins = power.per_cycle_pins(self.ENTRY, 4, ("start",))
        self.assertEqual(pins, {"addr_in[3]": (0.125, 0.25), "start": (0.5, 0.25)})

    def test_entry_without_events_means_default(self):
        self.assertIsNone(power.per_cycle_pins({"events": 0, "cycles": 0, "pins": {}}))
        self.assertIsNone(power.per_cycle_pins(None))

    def test_unit_pins_reads_per_event_meta(self):
        activity = {"meta": {"per_event_units": {"popular_block_selector": {"divide_duty_by_L": ["start"]}}},
                    "workloads": {"bfs": {"popular_block_selector": {"8": self.ENTRY},
                                          "majority_unit": {"8": {"events": 2, "cycles": 2,
                                                                  "pins": {"taken[0]": [0.5, 0.5]}}}}}}
        self.assertEqual(power.unit_pins(activity, "bfs", "popular_block_selector", 8, rounds=1)["start"],
                         (1.0, 0.5))
        self.assertEqual(power.unit_pins(activity, "bfs", "majority_unit", 8), {"taken[0]": (0.5, 0.5)})
        self.assertIsNone(power.unit_pins(activity, "sobel", "majority_unit", 8))
        with self.assertRaises(ValueError):
            power.unit_pins(activity, "bfs", "popular_block_selector", 8)


class PowerTcl(unittest.TestCase):
    def test_clocked_script(self):
        tcl = power.power_tcl("/lib/x.lib", "/n/net.v", "top", "clk", 2.5,
                              {"taken[10]": (0.25, 0.5), "taken[2]": (1.0 / 3, 1), "clk": (2, 0.5)}, (0.1, 0.5))
        lines = tcl.splitlines()
        self.assertIn("create_clock -name clk -period 2.5 [get_ports {clk}]", lines)
        self.assertIn("set_power_activity -input -activity 0.1 -duty 0.5", lines)
        # Bus bits in numeric order, the clock port left to the clock definition.
        self.assertLess(lines.index("  {taken[2]} 0.333333 1"), lines.index("  {taken[10]} 0.25 0.5"))
        self.assertFalse(any(line.startswith("  {clk}") for line in lines))
        self.assertEqual(lines[-1], "report_power -digits 6")
        self.assertNotIn("activiity", tcl)

    def test_combinational_script_uses_a_virtual_clock(self):
        tcl = power.power_tcl("/lib/x.lib", "/n/net.v", "top", None, 10, None)
        self.assertIn("create_clock -name vclk -period 10", tcl)
        self.assertIn("set_input_delay 0 -clock vclk [all_inputs]", tcl)
        self.assertNotIn("simtlm_pin_activity", tcl)

    def test_names_that_would_break_tcl_are_refused(self):
        with self.assertRaises(ValueError):
            power.power_tcl("/lib/x.lib", "/n/net.v", "top", "clk", 1, {"a b": (0.1, 0.5)})


if __name__ == "__main__":
    unittest.main()
