#!/usr/bin/env python3
"""The README's per-model table, measured in one run: `texmem bench --json`
on the built-in MobileNet v2 and on every cached MediaPipe model. The arena
columns are the buffer arena's (the default storage); the latency columns
give both arenas against shared objects.

usage: bench/models_table.py TEXMEM_BINARY [--runs N] [--repeat K] [--cache DIR]
                             [--oracle-log CTEST_LOG] [--driver-memory]

Memory and latency are fp32 (RGBA32F; MiB of the intermediate tensors);
latency is the median of N interleaved runs in one process, and with
--repeat K the median over K processes of that ratio (on llvmpipe one
process can sit 20% off in either storage for its whole life, whatever N). Models with operators the
runtime cannot execute get their memory columns from --plan-only. With
--oracle-log (a `ctest -V` log of test_rt_oracle), a column gives the worst
fp32 error against real TFLite, relative to the output's largest value.
With --driver-memory, a column gives what the driver counted for each
storage's runtime made alone (naive / objects / arena, MiB; `driver_bytes`
of the JSON), or "-" where the driver has no memory query."""
import json
import os
import re
import subprocess
import sys


def models_list(root):
    """(file, input_shape) pairs from tests/models_list.h."""
    text = open(os.path.join(root, "tests", "models_list.h")).read()
    out = []
    for m in re.finditer(r'\{"([^"]+\.tflite)",\s*(NULL|"[^"]*")', text):
        shape = None if m.group(2) == "NULL" else m.group(2).strip('"')
        out.append((m.group(1), shape))
    return out


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return p.returncode, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p.returncode, None


def mib(b):
    return b / (1 << 20)


def driver_cell(r):
    """naive / objects / arena driver deltas in MiB, "-" where none."""
    d = r.get("driver_bytes") if r else None
    if not d:
        return "-"
    return " / ".join(f"{mib(d[s]['delta']):.3f}" if d.get(s) else "-"
                      for s in ("naive", "objects", "arena"))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    exe = args[0]
    runs = args[args.index("--runs") + 1] if "--runs" in args else "5"
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 1
    cache = (args[args.index("--cache") + 1] if "--cache" in args else
             os.environ.get("TEXMEM_MODEL_CACHE", os.path.expanduser("~/.cache/texmem/models")))
    oracle = {}
    if "--oracle-log" in args:
        for line in open(args[args.index("--oracle-log") + 1], errors="replace"):
            # ctest -V prefixes "NN: [----]" to the test's lines.
            m = re.search(r"\s(\S+)\.tflite: (compared, worst error (\S+)|skipped: TFLite cannot load it.*)",
                          line)
            if m:
                oracle[m.group(1)] = m.group(3) if m.group(3) else "TFLite cannot load it"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = [("MobileNet v2 224 (built-in)", None, None)]
    rows += [(f[:-7], os.path.join(cache, f), s) for f, s in models_list(root)]
    driver = "--driver-memory" in args
    print("| model | operators | tensors | one texture each | shared objects (best) "
          "| arena | arena / max_live | objects / positional_max | weights (fp32) "
          "| latency buffer arena / objects | latency texture arena / objects "
          "| outputs bit-identical |" + (" error vs TFLite |" if oracle else "") +
          (" driver MiB naive / objects / arena |" if driver else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|" + ("---:|" if oracle else "") +
          ("---:|" if driver else ""))
    for name, path, shape in rows:
        base = [exe, "bench"] + ([path] if path else [])
        if shape:
            base += ["--input-shape", shape]
        code, mem = run(base + ["--precision", "fp32", "--plan-only", "--json"])
        if mem is None:
            print(f"| {name} | failed (exit {code}) |")
            continue
        ratios, tex_ratios, r = [], [], None
        for _ in range(repeat):
            code, rk = run(base + ["--precision", "fp32", "--runs", runs, "--json"])
            if rk is None or "outputs_identical" not in rk:
                r = None
                break
            if r is None or not rk["outputs_identical"]:
                r = rk
            lat = rk["storage_latency_ms"]
            ratios.append(lat["buffer"] / lat["objects"])
            tex_ratios.append(lat["arena"] / lat["objects"])
        plan = [exe, "plan"] + (["--model", path] if path else []) + (
            ["--input-shape", shape] if shape else [])
        code, pl = (run(plan + ["--dims", "3", "--kind", "offsets", "--layout", "linear",
                                "--strategy", "best", "--json"]) if path else (0, None))
        pb = mem["plan_bytes"]
        naive = min(pb["naive"].values())
        objects = min(pb["best"].values())
        pos = mem["lower_bound"]
        if r is not None:
            arena = r["storage_texture_bytes"]["buffer"]
            max_live = r["storage_max_live"]["buffer"]  # of the records it planned (fused)
        elif pl is not None:
            arena = pl["results"][0]["total"] * 16
            max_live = pl["lower_bounds"]["max_live"] * 16
        else:
            arena = max_live = 0
        ops = mem["tasks"]
        if r is not None:
            speed = (f"{sorted(ratios)[len(ratios) // 2]:.3f} | "
                     f"{sorted(tex_ratios)[len(tex_ratios) // 2]:.3f}")
            ident = "yes" if r["outputs_identical"] else "NO"
            weights = f"{mib(r['weights_bytes']):.3f}"
        else:
            unsup = ", ".join(f"{u['name']} x{u['count']}" for u in mem.get("unsupported_ops", []))
            speed, ident, weights = "- | -", f"not run: {unsup}", "-"
        arena_cols = (f"{mib(arena):.3f} | {arena / max_live:.4f}" if arena and max_live
                      else "- | -")
        print(f"| {name} | {ops} | {mem['tensors']} | {mib(naive):.3f} | {mib(objects):.3f} | "
              f"{arena_cols} | {objects / pos:.3f} | {weights} | {speed} | {ident} |" +
              (f" {oracle.get(name, '-')} |" if oracle else "") +
              (f" {driver_cell(r)} |" if driver else ""))


if __name__ == "__main__":
    main()
