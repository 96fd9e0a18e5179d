"""Parsers of OpenSTA output (scripts/area_timing/sta_timing.tcl) and of the Yosys netlist, to name a critical
path the way a designer reads it: which register or port it starts and ends at, how many cell levels it
crosses, and how much of its delay is logic (not clock-to-Q or setup)."""
import re

PATH_LINE = re.compile(r"^\s*(-?[\d.]+)\s+(-?[\d.]+)\s+[\^v]\s+(\S+)\s+\((\S+)\)\s*$")
PORT_TYPES = ("in", "out")


def section(log_text, marker, next_marker="@@"):
    """The text after `@@marker` up to the next line starting with next_marker."""
    i = log_text.find("@@" + marker)
    if i < 0:
        return None
    j = log_text.find("\n" + next_marker, i + 2)
    return log_text[i: j if j >= 0 else len(log_text)]


def marker_value(log_text, marker):
    m = re.search(r"^@@%s (\S+)" % re.escape(marker), log_text, re.M)
    return float(m.group(1)) if m else None


def _instance(pin, cell_type):
    return pin if cell_type in PORT_TYPES else pin.rsplit("/", 1)[0]


def parse_path(text):
    """The worst path of one report_checks: dict with arrival_ns, slack_ns, setup_ns, clk_to_q_ns,
    logic_ns, levels, start/end (instance or port) and start_kind/end_kind ('register' or 'port');
    None when OpenSTA found no constrained path."""
    if text is None or "No paths found" in text or "data arrival time" not in text:
        return None
    arrival_part = text[: text.index("data arrival time")]
    steps = []
    for line in arrival_part.splitlines():
        m = PATH_LINE.match(line)
        if m:
            steps.append((float(m.group(1)), m.group(3), m.group(4)))
    if not steps:
        raise ValueError("path report without path lines")
    arrival = float(re.search(r"^\s*(-?[\d.]+)\s+data arrival time", text, re.M).group(1))
    slack = re.search(r"^\s*(-?[\d.]+)\s+slack", text, re.M)
    setup = re.search(r"^\s*(-?[\d.]+)\s+(-?[\d.]+)\s+library setup time", text, re.M)
    start_inst = _instance(steps[0][1], steps[0][2])
    end_inst = _instance(steps[-1][1], steps[-1][2])
    start_is_reg = steps[0][2] not in PORT_TYPES
    # clock-to-Q: the launch register's output pin is the second step of the path
    clk_to_q = steps[1][0] if start_is_reg and len(steps) > 1 and \
        _instance(steps[1][1], steps[1][2]) == start_inst else 0.0
    middle = []
    for _, pin, cell_type in steps:
        inst = _instance(pin, cell_type)
        if inst not in (start_inst, end_inst) and (not middle or middle[-1] != inst):
            middle.append(inst)
    return {
        "arrival_ns": arrival,
        "slack_ns": float(slack.group(1)) if slack else None,
        "setup_ns": abs(float(setup.group(1))) if setup else 0.0,
        "clk_to_q_ns": clk_to_q,
        "logic_ns": round(arrival - clk_to_q, 4),
        "levels": len(middle),
        "start": start_inst, "start_kind": "register" if start_is_reg else "port",
        "end": end_inst, "end_kind": "port" if steps[-1][2] in PORT_TYPES else "register",
        "cells": [c for _, p, c in steps if _instance(p, c) not in (start_inst, end_inst)],
    }


def _module_texts(netlist_text):
    mods = {}
    for m in re.finditer(r"^module\s+\\?(\S+?)\s*\((.*?)^endmodule", netlist_text, re.M | re.S):
        mods[m.group(1)] = m.group(2)
    return mods


def _clean_net(name):
    name = name.strip()
    if name.startswith("\\"):
        name = name[1:].replace(" ", "")
    return name


def register_names(netlist_text, instances, wrap_top, unit_instance="u", unit_top=None):
    """Readable names of flip-flop instances ('u/_123_' -> 'u/pending[8]'): the net on the Q pin, which
    Yosys names after the RTL register; falls back to the instance name when that net is anonymous."""
    mods = _module_texts(netlist_text)
    out = {}
    for inst in instances:
        if "/" in inst:
            scope, local = inst.split("/", 1)
            body = mods.get(unit_top, "") if scope == unit_instance else ""
            prefix = scope + "/"
        else:
            local, body, prefix = inst, mods.get(wrap_top, ""), ""
        m = re.search(r"^\s*\w+\s+\\?%s\s*\((.*?)\);" % re.escape(local), body, re.M | re.S)
        q = re.search(r"\.Q\(([^)]*)\)", m.group(1)) if m else None
        net = _clean_net(q.group(1)) if q else ""
        out[inst] = prefix + net if net and not re.match(r"^_\d+_$", net) else inst
    return out


def endpoint_label(name, kind):
    """'reg u/pending[8]', 'reg taken_q[3]', 'port taken[3]'."""
    return ("port " if kind == "port" else "reg ") + name
