"""The "Differences from the paper" section of the herding study (scripts/study_herding_report.py): every
sentence is computed from the sweeps, so it follows the measured numbers."""
import yaml

import herding_paper_means as paper_means


def fmt_gain(s):
    return "–" if s is None else f"{s:.3f}× ({100 * (s - 1):+.1f}%)"


def fmt_pct(x, digits=2):
    return "–" if x is None else f"{100 * x:.{digits}f}%"


def mean(values):
    return sum(values) / len(values) if values else None


def divergent_fraction(doc):
    return doc["exact"]["divergent_branches"] / doc["exact"]["branches"] if doc["exact"]["branches"] else 0.0


def safety_bullets(ctx):
    branch, kernels, paper_row = ctx["branch"], ctx["kernels"], ctx["paper_row"]
    refused = [k for k in kernels if branch.stats(k, "hw0")["herding_stats"]["branches"]["herded"] == 0]
    relaxed = [(k, branch.stats(f"{k} relaxed", "hw0")) for k in kernels if branch.stats(f"{k} relaxed", "hw0")]
    forced = [(k, branch.stats(f"{k} forced", "hw0")) for k in kernels if f"{k} forced" in branch.launches]
    lines = [f"- **Safety.** Under the strict rule {len(refused)} of the {len(kernels)} Table II kernels "
             f"({', '.join(refused) or 'none'}) have no divergent branch to herd. The relaxed rule (the paper's "
             "Section V: a branch that can only skip the operations depending on it) herds, without forcing: " +
             ", ".join(f"{k} {fmt_gain(d['speedup'])} ({d['herding_stats']['branches']['herded']} herded "
                       "executions)" for k, d in relaxed) +
             ". It still refuses bounds checks (ocean_fft's, sad's frame-edge test, sobel's border test, whose "
             "stores or loads they guard) and loop exits without another bounded exit (histogram's retry loop: a "
             "herded retry spins while more than half of a warp's lanes lose their write, which the analysis "
             "cannot rule out). Forced anyway: " +
             ", ".join(f"{k} {fmt_gain(d['speedup'])}" if d else f"{k} fails (a lane leaves its buffer)"
                       for k, d in forced) + ".",
             "- **Texture reads.** The SDK reads sobel's image and volume_render's volume through textures, which "
             "clamp and cannot fault; the texture ports (`workloads/sobel_tex`, `volume_render_tex`) make the "
             "march exits safe under the strict rule (volume_render " +
             fmt_gain(branch.stats("volume_render", "hw0")["speedup"]) + " without forcing) and sobel's forced "
             "border test run without a fault (" + fmt_gain(branch.stats("sobel forced", "hw0")["speedup"]) +
             ") where the raw-load port's fails."]
    return lines


def gain_bullet(ctx):
    """Why the hardware mean stays below the paper's: each kernel's divergence and what herding removed."""
    branch, kernels, paper_row = ctx["branch"], ctx["kernels"], ctx["paper_row"]
    parts = []
    for k in kernels:
        row = paper_row(branch, k)
        d = branch.stats(row, "hw0")
        h = d["herding_stats"]["branches"]
        parts.append(f"{k} {fmt_gain(d['speedup'])}: {fmt_pct(divergent_fraction(d), 1)} of its branch "
                     f"executions diverge, {h['herded']} herded")
    chosen = mean([branch.stats(paper_row(branch, k), "hw0")["speedup"] for k in kernels])
    return (f"- **Hardware branch herding gains {100 * (chosen - 1):+.1f}% on the paper's branches (paper +30%).** "
            "Per kernel, with the exact run's divergence: " + "; ".join(parts) + ".")


def mandelbrot_bullet(ctx):
    branch = ctx["branch"]
    mb, jl = branch.stats("mandelbrot", "hw0"), branch.stats("julia", "hw0")
    q, jq = mb["quality"]["buffers"][0], jl["quality"]["buffers"][0]
    return (f"- **Mandelbrot quality.** Herding all of the SDK port's safe branches at the SDK's 800x600 view "
            f"changes {fmt_pct(mb['quality']['mismatch_fraction'])} of the RGBA bytes (paper: 1.87%) but the set "
            f"membership of only {fmt_pct(q['zero_mismatch_fraction'])} of the pixels (julia: "
            f"{fmt_pct(jl['quality']['mismatch_fraction'])} and {fmt_pct(jq['zero_mismatch_fraction'])}). "
            f"{fmt_pct(divergent_fraction(mb))} of the exact run's branch executions diverge (paper: under 1%); at "
            "each divergent escape test the minority lanes take the majority's way, so their count, and with it "
            "the pixel's colour, moves, while a pixel deep in the set stays black. Against the paper's 1.87% the "
            f"colour bytes are {mb['quality']['mismatch_fraction'] / 0.0187:.1f}× as many and the membership "
            f"changes {q['zero_mismatch_fraction'] / 0.0187:.2f}× as many. The paper gives neither its image "
            "size nor its view; ours are the SDK's defaults.")


def software_bullet(ctx):
    branch, sw_rows, kernels = ctx["branch"], ctx["sw_rows"], ctx["kernels"]
    software = [sw_rows[k]["speedup"] for k in kernels if k in sw_rows]
    slow = [k for k in kernels if k in sw_rows and sw_rows[k]["speedup"] < 1]
    profiled = paper_means.software_profiled(sw_rows, kernels)[0]
    text = (f"- **Software herding.** Mean {100 * (mean(software) - 1):+.1f}% over the variants, "
            f"{100 * (mean(profiled) - 1):+.1f}% with the paper's rule (a vote kept only where it pays; paper "
            "+13%). The vote (`__ballot_sync` and `__popc`) runs at every execution of the branch, diverging or "
            "not: " + ", ".join(f"{k} runs {sw_rows[k]['instr_ratio']:.2f}× the exact warp instructions and reaches "
                                f"{fmt_gain(sw_rows[k]['speedup'])}" for k in slow) + ".")
    hw_mb, sw_mb = branch.stats("mandelbrot", "hw0")["speedup"] - 1, sw_rows["mandelbrot"]["speedup"] - 1
    if sw_mb > 0:
        text += (f" For mandelbrot hardware herding gains {100 * hw_mb:.1f}% against software's {100 * sw_mb:.1f}% "
                 f"({hw_mb / sw_mb:.1f}× as much; the paper: about 3.5×).")
    else:
        text += (f" For mandelbrot hardware herding gains {100 * hw_mb:.1f}% where software's 21 votes per 20 "
                 f"iterations cost more than they save ({100 * sw_mb:+.1f}%; the paper: hardware about 3.5× software).")
    return text


def data_bullets(data, largest):
    """Why data herding gains less than the paper's: which loads were refused or never loaded, and quality."""
    unloaded, refused = [], []
    for launch in data.launches:
        doc = data.stats(launch, "data")
        if " " in launch or doc["herding_stats"]["loads"]["requests_before"]:
            continue
        with open(doc["launch"]) as f:
            outputs = yaml.safe_load(f)["outputs"]
        buffers = yaml.safe_load(doc["herding"])["buffers"]
        (unloaded if all(b in outputs for b in buffers) else refused).append(f"{launch} ({', '.join(buffers)})")
    herded = [(k, data.stats(k, "data")) for k in data.launches
              if data.stats(k, "data")["herding_stats"]["loads"]["requests_before"]]
    nb = data.stats("nbody 4096", "data")
    nb_loads = nb["herding_stats"]["loads"]
    lines = [f"- **Data herding gains less.** Mean {100 * (mean(largest) - 1):+.1f}% over every kernel, "
             f"{100 * (mean(paper_means.data_paper_set(data)) - 1):+.1f}% over the paper's set (paper +25%). The "
             f"largest buffer is only written, never loaded, in {', '.join(unloaded) or 'no kernel'}; in "
             f"{', '.join(refused) or 'no kernel'} the safety analysis refuses its loads. Where loads are herded the "
             "requests fall (" + ", ".join(f"{k} {d['herding_stats']['loads']['requests_before']} → "
                                           f"{d['herding_stats']['loads']['requests_after']}, {fmt_gain(d['speedup'])}"
                                           for k, d in herded) +
             "). Fewer requests pay where the herded loads were many and uncoalesced (histogram's strided partial "
             f"sums); nbody 4096 halves its requests ({nb_loads['requests_before']} → {nb_loads['requests_after']}) "
             f"but makes one herded request per {nb['exact']['cycles'] / nb_loads['requests_before']:.0f} cycles "
             f"of its {nb['exact']['cycles']:,}, so it gains {fmt_gain(nb['speedup'])}."]
    sobel, nbody, gauss = (data.stats(k, "data") for k in ("sobel", "nbody 4096", "recursive_gaussian"))
    lines.append(f"- **Quality under data herding.** A lane moved into the popular 128-byte block reads the element at "
                 f"its own offset there, not the one it wanted: sobel loses {fmt_pct(sobel['quality']['mismatch_fraction'])} "
                 f"of its bytes (paper 1.81%); nbody's float4 positions span two blocks per half-warp, so half of "
                 f"the lanes get another body ({fmt_pct(nbody['quality']['mismatch_fraction'])} of the bytes, paper "
                 f"0.95%); recursive_gaussian's outputs are sums along whole columns, so one moved pixel changes many "
                 f"({fmt_pct(gauss['quality']['mismatch_fraction'])}, paper 0%).")
    return lines


def overhead_bullet(branch):
    over = [(k, branch.stats(k, "hw0"), branch.stats(k, "hw1")) for k in branch.launches
            if branch.stats(k, "hw0") and branch.stats(k, "hw0")["herding_stats"]["branches"]["herded"]]
    name, d0, d1 = max(over, key=lambda t: t[1]["speedup"] - t[2]["speedup"])
    faster = [k for k, a, b in over if b["speedup"] > a["speedup"]]
    text = (f"- **The 1-cycle overhead** costs up to {100 * (d0['speedup'] - d1['speedup']):.1f} points ({name}: "
            f"{fmt_gain(d0['speedup'])} → {fmt_gain(d1['speedup'])}), whose herded run executes a branch every "
            f"{d0['herded']['warp_instructions'] / d0['herded']['branches']:.1f} warp instructions.")
    if faster:
        text += (f" In {', '.join(faster)} the cycle makes the run faster: it changes the order in which the GTO "
                 "schedulers issue warps.")
    return text


def section(ctx, out):
    branch = ctx["branch"]
    out += ["## Differences from the paper", ""]
    out += safety_bullets(ctx)
    out.append(gain_bullet(ctx))
    out.append(mandelbrot_bullet(ctx))
    out.append(software_bullet(ctx))
    out += data_bullets(ctx["data"], ctx["largest"])
    pf = branch.stats("particles forced", "hw0")
    if pf:
        errors = ", ".join(f"{b['name']} {b['mean_abs_error']:.4g}" for b in pf["quality"]["buffers"])
        out.append(f"- **particles.** Herding the pair test changes {fmt_pct(pf['quality']['mismatch_fraction'])} of "
                   f"the output bytes (paper: no change from the original 18.24%). Positions and velocities are f32 "
                   f"and every later step depends on them, so any changed collision changes their low bits; the "
                   f"mean absolute errors are small ({errors}, in a box of side 2).")
    out.append(overhead_bullet(branch))
    out.append("- **Machines.** The paper ran software herding natively on a GTX 480 and data herding on GPGPU-Sim's "
               "Quadro FX 5800; here everything runs on our timing model, branch herding with `configs/gtx480.yaml` "
               "and data herding with `configs/quadro-fx5800.yaml`. Our kernels are our own versions of the "
               "benchmarks (`workloads/*/`), written after the SDK's structure where it decides the herded branch, "
               "not the CUDA SDK and Parboil codes themselves.")
    out.append("")
