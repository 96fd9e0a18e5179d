"""Reading a sweep directory (`simtlm sweep SWEEP.yaml --out DIR`, docs/sweeps.md) from Python: the report
generators of scripts/study-slp and scripts/validate-divergence-cost, and scripts/plot-sweep."""
import json
import os

AXES = ["launch", "config", "overrides", "mechanism", "seed"]


class SweepDirError(Exception):
    pass


def load_sweep(d, complete=False):
    """DIR/sweep.json and the finished jobs of DIR/results.jsonl ({"job", "axes", "stats"}) in plan order.
    With complete, every job of DIR/plan.jsonl must have finished: a report is never made of part of a sweep."""
    summary_path = os.path.join(d, "sweep.json")
    if not os.path.isfile(summary_path):
        raise SweepDirError(f"{d} is not a sweep directory (it has no sweep.json; `simtlm sweep SWEEP.yaml "
                            f"--out {d}` makes one)")
    with open(summary_path) as f:
        summary = json.load(f)
    jobs = []
    results_path = os.path.join(d, "results.jsonl")
    if os.path.isfile(results_path):
        with open(results_path) as f:
            jobs = [json.loads(line) for line in f if line.strip()]
    if complete:
        with open(os.path.join(d, "plan.jsonl")) as f:
            planned = sum(1 for line in f if line.strip())
        if len(jobs) != planned:
            raise SweepDirError(f"{d}: {planned - len(jobs)} of {planned} jobs have not finished "
                                f"(simtlm sweep --status {d})")
    elif not jobs:
        raise SweepDirError(f"{d}: no finished job yet (results.jsonl is empty or missing; "
                            f"simtlm sweep --status {d})")
    return summary, jobs


def stat_value(doc, dotted):
    """The value at a dotted key ("l1.misses", "sms.0.cycles"), as sim/sweep_store.cpp's stats_value, or None."""
    at = doc
    for part in dotted.split("."):
        if isinstance(at, dict) and part in at:
            at = at[part]
        elif isinstance(at, list) and part.isdigit() and int(part) < len(at):
            at = at[int(part)]
        else:
            return None
    return at
