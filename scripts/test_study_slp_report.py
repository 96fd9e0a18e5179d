"""Unit tests of the SLP study's performance report (slp_metrics, slp_performance, study_slp_report.py) on small
synthetic sweep results. Run: /usr/bin/python3 -m unittest discover -s scripts -p test_study_slp_report.py"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import slp_metrics as m  # noqa: E402
import slp_performance as perf  # noqa: E402
import slp_sensitivity as sens  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "study_slp_report.py")


def run_stats(cycles, fraction=0.0, stalls=None, capri=None, util=None):
    """A timed run's stats.json with only the keys the report reads."""
    stats = {"cycles": cycles, "divergent_fraction": fraction, "l1": {"misses": 10, "hits": 30},
             "compaction": dict(capri or {})}
    if util is not None:
        stats["simd_utilization"] = util
    if stalls is not None:
        stats["stalls"] = stalls
    return stats


def capri_counts(lookups, skipped, free, outcomes, correct):
    return {"capri_lookups": lookups, "capri_skipped": skipped, "capri_free_regions": free,
            "capri_outcomes": outcomes, "capri_correct": correct}


class HarmonicMeanTest(unittest.TestCase):
    def test_mean_of_rates(self):
        self.assertAlmostEqual(m.hmean([1.0, 2.0, 4.0]), 3 / 1.75)

    def test_missing_value_makes_the_mean_unmeasured(self):
        self.assertIsNone(m.hmean([1.0, None, 2.0]))
        self.assertIsNone(m.hmean([]))

    def test_speedups_over_a_subset(self):
        timing = {"a": {"no_tbc": run_stats(1000), "capri+identity": run_stats(800)},
                  "b": {"no_tbc": run_stats(1000), "capri+identity": run_stats(2000)}}
        self.assertAlmostEqual(m.speedup(timing, "a", "capri+identity"), 1.25)
        self.assertAlmostEqual(m.mean_speedups(timing, ["a", "b"], "capri+identity"), 2 / (0.8 + 2.0))
        self.assertAlmostEqual(m.mean_speedups(timing, ["a"], "capri+identity"), 1.25)
        self.assertIsNone(m.mean_speedups(timing, ["a", "b"], "capri+balanced"))


class DivergentSelectionTest(unittest.TestCase):
    def test_threshold_is_ten_percent_inclusive(self):
        self.assertEqual(m.DIVERGENT_THRESHOLD, 0.10)
        timing = {"at": {"no_tbc": run_stats(1, 0.10)}, "below": {"no_tbc": run_stats(1, 0.0999)},
                  "high": {"no_tbc": run_stats(1, 0.5)}, "untimed": {"tbc+identity": run_stats(1, 0.9)}}
        self.assertEqual(m.divergent_kernels(timing, ["high", "below", "untimed", "at", "absent"]), ["high", "at"])

    def test_fraction_comes_from_the_no_compaction_run(self):
        timing = {"k": {"no_tbc": run_stats(1, 0.05), "tbc+identity": run_stats(1, 0.5)}}
        self.assertEqual(m.divergent_kernels(timing, ["k"]), [])
        self.assertEqual(m.divergent_kernels(timing, ["k"], threshold=0.05), ["k"])


class StallClassTest(unittest.TestCase):
    STALLS = {"no_warp": 1, "memory": 2, "memory_backpressure": 4, "scoreboard": 8, "pipeline": 16, "branch": 32,
              "stack": 64, "compaction": 128, "barrier": 256}

    def test_reasons_fall_into_their_class(self):
        self.assertEqual(m.stall_classes(run_stats(1, stalls=self.STALLS)),
                         {"issue": 0, "synchronization": 384, "memory": 6, "pipeline": 121, "idle": 0})

    def test_issue_and_idle_come_from_the_sms_and_every_sm_cycle_is_counted_once(self):
        stalls = {"no_warp": 1, "memory": 2, "memory_backpressure": 4, "compaction": 128}  # 135 in all
        stats = run_stats(1000, stalls=stalls)
        stats["sms"] = [{"issue_cycles": 700, "active_cycles": 835}, {"issue_cycles": 300, "active_cycles": 300}]
        got = m.stall_classes(stats)
        self.assertEqual(got, {"issue": 1000, "synchronization": 128, "memory": 6, "pipeline": 1, "idle": 865})
        self.assertEqual(sum(got.values()), 2 * 1000)  # cycles x SMs

    def test_run_without_stalls_is_unmeasured(self):
        self.assertIsNone(m.stall_classes(run_stats(1)))
        self.assertIsNone(m.stall_deltas(run_stats(1, stalls=self.STALLS), run_stats(1)))

    def test_class_that_grew_most_not_the_largest(self):
        base = run_stats(1, stalls=dict(self.STALLS))
        grown = dict(self.STALLS, memory=2 + 300, compaction=128 + 100, scoreboard=8 - 8)
        self.assertEqual(m.stall_deltas(base, run_stats(1, stalls=grown)),
                         {"issue": 0, "synchronization": 100, "memory": 300, "pipeline": -8, "idle": 0})
        self.assertEqual(m.most_grown_class(base, run_stats(1, stalls=grown)), ("memory", 300))


class AccuracyTest(unittest.TestCase):
    def test_correct_over_outcomes(self):
        p = m.capri_prediction(run_stats(1, capri=capri_counts(200, 50, 5, 40, 30)))
        self.assertAlmostEqual(p["accuracy"], 0.75)
        self.assertAlmostEqual(p["skipped_share"], 0.25)
        self.assertEqual(p["capri_free_regions"], 5)

    def test_no_outcomes_or_old_results_are_unmeasured(self):
        self.assertIsNone(m.capri_prediction(run_stats(1, capri=capri_counts(3, 0, 0, 0, 0)))["accuracy"])
        old = m.capri_prediction(run_stats(1, capri={"capri_skipped": 7}))
        self.assertIsNone(old["accuracy"])
        self.assertIsNone(old["capri_lookups"])
        self.assertIsNone(m.capri_prediction(None)["accuracy"])

    def test_mean_over_kernels_with_outcomes(self):
        timing = {"a": {"capri+identity": run_stats(1, capri=capri_counts(9, 1, 0, 10, 9))},
                  "b": {"capri+identity": run_stats(1, capri=capri_counts(9, 1, 0, 4, 2))},
                  "c": {"capri+identity": run_stats(1, capri=capri_counts(9, 1, 0, 0, 0))},
                  "d": {"no_tbc": run_stats(1)}}
        mean, n = m.mean_accuracy(timing, ["a", "b", "c", "d"])
        self.assertAlmostEqual(mean, (0.9 + 0.5) / 2)
        self.assertEqual(n, 2)
        self.assertEqual(m.mean_accuracy(timing, ["c", "d"]), (None, 0))


class OffenderTest(unittest.TestCase):
    def timing(self):
        return {name: {"no_tbc": run_stats(1000), "capri+identity": run_stats(c)}
                for name, c in (("exact", 1010), ("over", 1011), ("faster", 900), ("much", 1500))}

    def test_more_than_one_percent_slower(self):
        found = m.offenders(self.timing(), ["exact", "over", "faster", "much", "absent"], "capri+identity")
        self.assertEqual([k for k, _ in found], ["over", "much"])
        self.assertAlmostEqual(found[0][1], 0.011)
        self.assertAlmostEqual(found[1][1], 0.5)

    def test_worst_kernel(self):
        worst = m.worst_kernel(self.timing(), ["exact", "over", "faster", "much"], "capri+identity")
        self.assertEqual(worst[0], "much")
        self.assertAlmostEqual(worst[1], 1000 / 1500)
        self.assertIsNone(m.worst_kernel(self.timing(), ["exact"], "capri+balanced"))

    def test_claim_text_lists_offenders(self):
        text = perf.offender_text(self.timing(), ["exact", "over", "faster"], "capri+identity")
        self.assertIn("does not hold: 1 of 3 kernels", text)
        self.assertIn("over (+1.1% cycles)", text)
        self.assertNotIn("exact", text)
        self.assertIn("holds on all 2 measured kernels",
                      perf.offender_text(self.timing(), ["exact", "faster"], "capri+identity"))


def functional_doc():
    """A compare.json with every mechanism the functional sections read and nothing compacted."""
    kinds = {"paths": 2, "compacted": 1, "compacted_by_fraction": [1, 0], "paths_by_fraction": [2, 0]}
    mechs = ["no_tbc", "ideal"] + [f"tbc+{p}" for p in m.PERMUTATIONS]
    return {"fraction_bins": ["[0,50%)", "[50%,100%]"],
            "mechanisms": {c: {"p_branches": dict(kinds), "d_branches": dict(kinds), "simd_utilization": 0.5}
                           for c in mechs}}


def write_sweep(d, kernels, mechanisms, jobs):
    os.makedirs(d)
    with open(os.path.join(d, "sweep.json"), "w") as f:
        json.dump({"axes": {"launch": kernels, "mechanism": mechanisms}}, f)
    with open(os.path.join(d, "plan.jsonl"), "w") as f:
        f.writelines(json.dumps({"job": str(i)}) + "\n" for i in range(len(jobs)))
    with open(os.path.join(d, "results.jsonl"), "w") as f:
        f.writelines(json.dumps({"job": str(i), "axes": axes, "stats": stats}) + "\n"
                     for i, (axes, stats) in enumerate(jobs))


class PaperSetTest(unittest.TestCase):
    def test_utilization_below_99_percent_under_no_compaction(self):
        self.assertEqual(m.PAPER_UTILIZATION_LIMIT, 0.99)
        timing = {"low": {"no_tbc": run_stats(1, util=0.5)}, "at": {"no_tbc": run_stats(1, util=0.99)},
                  "just": {"no_tbc": run_stats(1, util=0.9899)},
                  "other": {"no_tbc": run_stats(1, util=1.0), "tbc+identity": run_stats(1, util=0.5)}}
        self.assertEqual(m.paper_set(timing, ["at", "low", "other", "just", "absent"]), ["low", "just"])


def sms(finishes, ctas=4, resident=2):
    return [{"finish_cycle": f, "ctas": ctas, "max_resident_ctas": resident} for f in finishes]


class MachineFillTest(unittest.TestCase):
    def test_waves_and_spread(self):
        stats = {"sms": sms([100, 110, 120, 200]), "block": [16, 16, 1]}
        self.assertEqual(m.machine_fill(stats), {"ctas": 16, "ctas_per_sm": 2, "warps_per_sm": 16, "waves": 2.0})
        self.assertAlmostEqual(m.finish_spread(stats), 200 / 115)
        self.assertIsNone(m.finish_spread({"sms": []}))
        self.assertIsNone(m.machine_fill({}))

    def test_a_mean_over_a_kernel_that_waits_for_one_sm_is_flagged(self):
        even, uneven = {"sms": sms([100, 100, 105])}, {"sms": sms([100, 100, 111])}
        timing = {"a": {"no_tbc": even, "tbc+identity": even}, "b": {"no_tbc": even, "tbc+identity": uneven}}
        self.assertFalse(m.spread_flagged(timing, ["a"], "tbc+identity"))
        self.assertTrue(m.spread_flagged(timing, ["a", "b"], "tbc+identity"))
        self.assertFalse(m.spread_flagged(timing, ["b"], "capri+identity"))
        self.assertIn("| a | 12 | 2 | n/a | 2.00 | n/a | – | 1.050 | n/a | n/a | n/a | n/a |",
                      perf.inputs_section({"a": {"no_tbc": even}}, ["a"]))


class SensitivityTest(unittest.TestCase):
    def test_each_variant_gives_the_headline_over_the_set(self):
        base = {"a": {"no_tbc": run_stats(1000), "capri+identity": run_stats(800), "capri+balanced": run_stats(500)}}
        jobs = [{"axes": {"config": "l1-40", "launch": "a", "mechanism": mech}, "stats": run_stats(c)}
                for mech, c in (("no_tbc", 1000), ("capri+identity", 1000), ("capri+balanced", 800))]
        text = "\n".join(sens.sensitivity_section(base, sens.by_config(jobs), ["a"]))
        self.assertIn("| fermi-slp (Table 2) | +25.0% | +100.0% | +60.0% |", text)
        self.assertIn("| L1 hit 40 cycles | +0.0% | +25.0% | +25.0% |", text)
        self.assertIn("| L1 hit 4 cycles (base 20) | n/a | n/a | n/a |", text)


class PredictorTest(unittest.TestCase):
    def test_accuracy_per_variant_over_the_divergent_and_other_kernels(self):
        timing = {"d": {"no_tbc": run_stats(1000, 0.5)}, "f": {"no_tbc": run_stats(500, 0.0)}}
        predictor = {"d": {"capri-8-adequate": run_stats(800, capri=capri_counts(10, 5, 1, 10, 8))},
                     "f": {"capri-8-adequate": run_stats(500, capri=capri_counts(10, 0, 0, 4, 4))}}
        text = "\n".join(sens.predictor_section(timing, predictor, ["d", "f"], ["d"]))
        self.assertIn("| 8 | adequate | 80.0% (1) | 100.0% (1) | 1.111 |", text)
        self.assertIn("| 128 | not adequate | n/a | n/a | n/a |", text)


class ReportEndToEndTest(unittest.TestCase):
    def test_doc_from_partial_results(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_sweep(os.path.join(tmp, "c"), ["div", "flat"], [""],
                        [({"launch": k}, functional_doc()) for k in ("div", "flat")])
            stalls = {"memory": 10, "compaction": 0}
            runs = [("div", "no_tbc", run_stats(1000, 0.4, stalls, util=0.6)),
                    ("div", "tbc+identity", run_stats(1250, 0.4, stalls)),
                    ("div", "capri+identity", run_stats(800, 0.4, dict(stalls, compaction=5),
                                                        capri_counts(100, 20, 3, 50, 45))),
                    ("flat", "no_tbc", run_stats(500, 0.02, stalls, util=0.995)),
                    ("flat", "capri+identity", run_stats(600, 0.02, dict(stalls, memory=70)))]
            write_sweep(os.path.join(tmp, "t"), ["div", "flat"], ["no_tbc", "tbc+identity", "capri+identity"],
                        [({"launch": k, "mechanism": c}, s) for k, c, s in runs])
            out = os.path.join(tmp, "doc", "slp.md")
            os.makedirs(os.path.dirname(out))
            subprocess.run([sys.executable, SCRIPT, os.path.join(tmp, "c"), os.path.join(tmp, "t"), "--out", out],
                           check=True, cwd=tmp)
            with open(out) as f:
                doc = f.read()
            self.assertTrue(os.path.isfile(os.path.join(tmp, "doc", "slp-simd-util.png")))
        self.assertIn("| div | 60.0% | **yes** | 1000 | 0.800 | n/a | n/a | 1.250 | n/a |", doc)
        self.assertIn("| flat | 99.5% |  | 500 | n/a | n/a | n/a | 0.833 | n/a |", doc)
        # All kernels: TBC is missing on flat, so its mean is n/a; CAPRI's is 2 / (0.8 + 1.2).
        self.assertIn("| **harmonic mean, all 2 kernels** | | | | n/a | n/a | n/a | 1.000 |", doc)
        self.assertIn("| **harmonic mean, the 1 kernels below 99% SIMD utilization** | | | | 0.800 | n/a | n/a | 1.250 |", doc)
        self.assertIn("- Over the 1 kernels below 99% SIMD utilization: CAPRI +25.0% over no compaction and +56.2% over TBC", doc)
        self.assertIn("- CAPRI's worst kernel is flat, -16.7% against no compaction.", doc)
        self.assertIn("| CAPRI over no compaction (harmonic mean) | consistently faster | +0.0% | +25.0% |", doc)
        self.assertIn("| CAPRI over TBC (harmonic mean) | consistently faster | n/a | +56.2% |", doc)
        self.assertIn("here it loses more than 1% on 1 of 2 kernels. By the class of SM-cycles that grew most: "
                      "memory (warps waiting for their CTA no longer hide the others' memory latency): flat.", doc)
        self.assertIn("- flat: +20.0% cycles; memory grew most (+60 SM-cycles against no_tbc) (warps waiting for "
                      "their CTA no longer hide the others' memory latency).", doc)
        self.assertIn("| div | capri+identity | 800 (-200) | 0 (+0) | 5 (+5) | 10 (+0) | 0 (+0) | 0 (+0) | n/a |", doc)
        self.assertIn("| div | **yes** | 100 | 20 (20.0%) | 3 | 50 | 45 | 90.0% |", doc)
        self.assertIn("90.0% over 1 divergent kernels, non-divergent kernels not measured", doc)


if __name__ == "__main__":
    unittest.main()
