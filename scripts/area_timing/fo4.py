"""The typical gate delay of a liberty, measured once per run with OpenSTA: a chain of NAND2X1 gates (one
input held at 1), each driving four NAND2X1 inputs (FO4). The delay-versus-depth rule of the flow compares
every critical path's delay per cell level against a multiple of this figure."""
import os
import re
import subprocess

STAGES = 8
MEASURED = range(3, 7)  # inner stages: their input slew is already the slew of an FO4 stage
GATE = "NAND2X1"


def chain_netlist():
    lines = ["module fo4_chain (input wire a, input wire en, output wire y);"]
    lines.append("  wire " + ", ".join("n%d" % i for i in range(1, STAGES + 1)) + ";")
    prev = "a"
    for i in range(1, STAGES + 1):
        lines.append("  %s s%d (.A(%s), .B(en), .Y(n%d));" % (GATE, i, prev, i))
        # three side loads, so that each stage drives four gate inputs like the next stage does
        for k in range(3):
            lines.append("  %s l%d_%d (.A(n%d), .B(en), .Y());" % (GATE, i, k, i))
        prev = "n%d" % i
    lines.append("  assign y = n%d;" % STAGES)
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def chain_tcl(liberty, netlist):
    return "\n".join([
        "read_liberty %s" % liberty,
        "read_verilog %s" % netlist,
        "link_design fo4_chain",
        "create_clock -name vclk -period 100",
        "set_case_analysis 1 [get_ports en]",
        "set_input_delay 0 -clock vclk [get_ports a]",
        "set_output_delay 0 -clock vclk [get_ports y]",
        "report_checks -rise_from [get_ports a] -to [get_ports y] -digits 5",
        "report_checks -fall_from [get_ports a] -to [get_ports y] -digits 5",
        ""])


def parse_stage_delays(log_text):
    """Delay (ns) of each measured stage in every reported path."""
    out = []
    for m in re.finditer(r"^\s*(-?[\d.]+)\s+(-?[\d.]+)\s+[\^v]\s+s(\d+)/Y\s+\(%s\)" % GATE, log_text, re.M):
        if int(m.group(3)) in MEASURED:
            out.append(float(m.group(1)))
    return out


def measure(liberty, work_dir):
    """FO4 delay in ns (mean over rising and falling inner stages)."""
    os.makedirs(work_dir, exist_ok=True)
    net = os.path.join(work_dir, "fo4_chain.v")
    tcl = os.path.join(work_dir, "fo4_chain.tcl")
    with open(net, "w") as f:
        f.write(chain_netlist())
    with open(tcl, "w") as f:
        f.write(chain_tcl(liberty, net))
    p = subprocess.run(["sta", "-no_splash", "-exit", tcl], capture_output=True, text=True, timeout=60)
    delays = parse_stage_delays(p.stdout + p.stderr)
    if len(delays) != 2 * len(MEASURED):
        raise RuntimeError("FO4 chain: expected %d stage delays, got %d:\n%s"
                           % (2 * len(MEASURED), len(delays), (p.stdout + p.stderr)[-2000:]))
    return sum(delays) / len(delays)
