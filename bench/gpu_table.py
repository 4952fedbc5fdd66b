#!/usr/bin/env python3
"""The README's model table from `texmem bench --json` reports gathered on a GPU.

Each input is JSON lines {"model", "precision", "report"} (report: the bench's
--json object, or null where the run failed), as bench/gpu_session.sh writes
them (after.jsonl, before.jsonl, alone.jsonl). --after: the build measured; --before: an older build's reports from the
same machine (optional); --alone: `texmem bench MODEL --alone buffer --json`
reports (the driver's figure); --local: reports from any driver for models the
GPU runs lacked (memory columns only); --compare: runs of the same build with
another setting (gpu_session.sh's kernels.jsonl, unfused.jsonl), each printed
as a second table against --after; --compile: the warm phase's reports
(warm.jsonl, programs compiled in a fresh driver cache), a table of each
model's compile time per precision; --driver ALONE_BEFORE.jsonl: an older
build's --alone buffer reports (gpu_session.sh's alone_before.jsonl), a
table of the buffer arena's driver figures per model and precision, --alone's
beside them; --tiles: gpu_session.sh's tiles.jsonl, each tiled 1x1 layer's
GPU time in each split of the kernel against the per-layer choice;
--dispatch-cost: its dispatch_cost.jsonl, the least a dispatch costs;
--clocks CLOCKS.csv X.jsonl...: the GPU's SM clock and utilization during
each process of X (gpu_session.sh's clocks.csv, lines with t0 and t1), beside
its compile time, warm-up and latency; --kernels-vs PROFILE.jsonl
PROFILE_BEFORE.jsonl: the profile phase's two builds, each kernel's GPU time
a run side by side; --io: graph I/O through the CPU (the bench's io_ms) beside
the run, per model: what texmem_runtime_input_texture / _output_texture save
a GPU pipeline; --dispatches (with --before): each model's dispatches
(its default storage's) and latency in both builds, what a change in the
dispatch count was worth. Latency:
the median over processes of each process's median; memory: fp16 MiB.

    bench/gpu_table.py --after A.jsonl [--before B.jsonl] [--alone C.jsonl] [--local D.jsonl]
                       [--compare K.jsonl ...] [--compile W.jsonl] [--driver E.jsonl]
                       [--tiles T.jsonl] [--dispatch-cost D.jsonl]
                       [--clocks CLOCKS.csv X.jsonl ...]
                       [--kernels-vs PROFILE.jsonl PROFILE_BEFORE.jsonl] [--io] [--dispatches]
"""
import argparse
import json
import statistics

MIB = 1048576.0


def load(paths, precision="fp16"):
    out = {}
    for p in paths or []:
        with open(p) as f:
            for line in f:
                r = json.loads(line)
                rep = r.get("report")
                if rep and r.get("precision", "fp16") == precision:
                    name = r["model"].split("/")[-1].replace(".tflite", "")
                    name = "MobileNet v2 224 (built-in)" if name.startswith("builtin") else name
                    out.setdefault(name, []).append(rep)
    return out


def med(reps, f):
    return statistics.median(f(r) for r in reps)


def driver_mib(reps):
    for r in reps:
        d = (r.get("driver_bytes") or {}).get("buffer")
        if d:
            return "%.1f" % (d["delta"] / MIB)
    return "-"


def row(name, reps, gpu, before, alone):
    r = reps[0]
    tex = r["storage_texture_bytes"]
    cells = [name, "%.3f" % (r["texture_bytes"]["naive"] / MIB), "%.3f" % (tex["objects"] / MIB),
             "%.3f" % (tex["buffer"] / MIB),
             "%.4f" % (tex["buffer"] / r["storage_max_live"]["buffer"]),
             "%.3f" % (r["weights_bytes"] / MIB), driver_mib(alone.get(name, []))]
    if gpu:
        old = before.get(name)
        cells.append("%.2f" % med(old, lambda x: x["latency_ms"]["planned"]) if old else "-")
        cells.append("%.2f" % med(reps, lambda x: x["latency_ms"]["naive"]))
        cells.append("%.2f" % med(reps, lambda x: x["latency_ms"]["planned"]))
        cells.append("%.2f" % med(reps, lambda x: x["latency_ms"]["planned"] / x["latency_ms"]["naive"]))
    else:
        cells += ["-"] * 4
    return "| " + " | ".join(cells) + " |"


def compare(path, after):
    """One table: the default plan's median latency with --after's setting
    and with the one `path` ran (its first report names kernels and fusion),
    and whether the outputs are the same bit for bit (outputs_fnv1a: fused
    against unfused must be; tiled against portable sums in another order)."""
    other = load([path])
    print("\n%s:\n" % path)
    print("| model | kernels, fused, folded | ms | kernels, fused, folded there | ms there |"
          " there / here | same outputs |")
    print("|---|---|---:|---|---:|---:|---|")
    for name in sorted(set(other) & set(after)):
        a, o = after[name], other[name]
        ma, mo = (med(x, lambda r: r["latency_ms"]["planned"]) for x in (a, o))
        setting = lambda r: "%s, %s, %s" % (r[0].get("kernels", "?"), r[0].get("fused", "?"),
                                            r[0].get("depthwise_folded", 0) +
                                            r[0].get("scales_folded", 0) +
                                            r[0].get("reshapes_folded", 0) +
                                            r[0].get("resizes_folded", 0) +
                                            r[0].get("heads_merged", 0))
        fa = {r.get("outputs_fnv1a") for r in a} - {None}
        fo = {r.get("outputs_fnv1a") for r in o} - {None}
        same = "-" if not fa or not fo else "yes" if fa == fo and len(fa) == 1 else "NO"
        print("| %s | %s | %.3f | %s | %.3f | %.3f | %s |" % (
            name, setting(a), ma, setting(o), mo, mo / ma if ma else 0.0, same))


def compile_table(path):
    """Programs compiled (and loaded from texmem's program cache) and
    seconds spent creating the five runtimes, in their first runs and
    compiling (on how many threads), and the default plan's latency, per
    model, precision and process."""
    print("\n%s (seconds):\n" % path)
    print("| model | precision | programs | loaded | threads | compiling | creating | first runs"
          " | ms default |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for p in ("fp16", "fp32"):
        for name, reps in sorted(load([path], p).items()):
            for r in reps:  # each process: the program cache's second loads
                if "compile_ms" not in r:
                    continue
                first = r.get("first_run_ms")  # builds before f55e5d1 lack it
                print("| %s | %s | %d | %s | %s | %.1f | %.1f | %s | %.3f |" % (
                    name, p, r["programs_compiled"], r.get("programs_loaded", "-"),
                    r.get("compile_threads", 1), r["compile_ms"] / 1e3, r["create_ms"] / 1e3,
                    "-" if first is None else "%.1f" % (first / 1e3),
                    r["latency_ms"]["planned"]))


def buffer_driver(reps):
    """The first report's driver figures for the buffer arena, or None."""
    for r in reps or []:
        d = (r.get("driver_bytes") or {}).get("buffer")
        if d:
            return d
    return None


def driver_table(bench_paths, after_paths, before_path):
    """The buffer arena's runtime alone, MiB: what the driver counted
    (delta) and that less its textures, graph I/O and weights (rest), this
    build against an older one (e.g. weights in one GL buffer or not)."""
    print("\n%s against %s (buffer arena alone, MiB):\n" % (" ".join(after_paths), before_path))
    print("| model | precision | weight buffers | delta | rest | delta before | rest before |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for p in ("fp16", "fp32"):
        a, b, full = load(after_paths, p), load([before_path], p), load(bench_paths, p)
        for name in sorted(set(a) | set(b)):
            wb = full[name][0].get("weight_buffers", "-") if name in full else "-"
            cells = [name, p, str(wb)]
            for d in (buffer_driver(a.get(name)), buffer_driver(b.get(name))):
                mib = ["%.1f" % (d[k] / MIB) for k in ("delta", "rest")] if d else ["-"] * 2
                cells += mib
            print("| " + " | ".join(cells) + " |")


def tiles_table(path, storage="buffer"):
    """The tiled 1x1 kernel's split per layer: `texmem bench --profile
    --split K` reports (gpu_session.sh's tiles.jsonl, conv1x1_split 0 = the
    per-layer choice), each 1x1 layer's median GPU us (every_dispatch) in
    each split, the fastest, and what the per-layer choice took; then the
    layers' sums: each split in every layer, the choice, and the fastest
    split of each layer (the most a better choice could gain)."""
    for p in ("fp16", "fp32"):
        for name, reps in sorted(load([path], p).items()):
            by = {}  # split -> {dispatch name -> ns}
            groups = {}  # dispatch name -> work groups in the per-layer choice
            for r in reps:
                prof = (r.get("profile") or {}).get(storage)
                if prof and "every_dispatch" in prof:
                    tiled = [d for d in prof["every_dispatch"] if "conv1x1_tiled" in d["name"]]
                    k = r.get("conv1x1_split", 0)
                    by[k] = {d["name"]: d["gpu_ns"] for d in tiled}
                    if k == 0:
                        groups = {d["name"]: d.get("work_groups") for d in tiled}
            if 0 not in by or len(by) < 2:
                continue
            splits = sorted(k for k in by if k)
            print("\n%s, %s, %s: tiled 1x1 layers, GPU us (median of the profiled runs):\n"
                  % (name, p, storage))
            print("| layer | " + " | ".join("split %d" % k for k in splits) +
                  " | fastest | per-layer choice | its work groups |")
            print("|---|" + "---:|" * (len(splits) + 3))
            sums = dict.fromkeys(splits + [0, "best"], 0.0)
            for layer, ns in by[0].items():
                t = {k: by[k].get(layer) for k in splits}
                known = {k: v for k, v in t.items() if v is not None}
                best = min(known, key=known.get) if known else None
                for k, v in known.items():
                    sums[k] += v
                sums[0] += ns
                sums["best"] += known[best] if best else ns
                print("| %s | %s | %s | %.1f | %s |" % (
                    layer.split(" CONV_2D")[0],
                    " | ".join("-" if t[k] is None else "%.1f" % (t[k] / 1e3) for k in splits),
                    best or "-", ns / 1e3, groups.get(layer) or "-"))
            print("| sum | " + " | ".join("%.1f" % (sums[k] / 1e3) for k in splits) +
                  " | %.1f | %.1f | |" % (sums["best"] / 1e3, sums[0] / 1e3))


def kernels_vs_table(after_path, before_path, storage="buffer"):
    """Two builds' `--profile` reports of the same models (gpu_session.sh's
    profile.jsonl and profile_before.jsonl): per model, each kernel's
    dispatches and GPU us a run in both, and the run's GPU time (medians
    over processes): what a kernel's change did to its own time."""
    def kernels(reps):
        runs, by = [], {}
        for r in reps:
            prof = (r.get("profile") or {}).get(storage)
            if not prof:
                continue
            runs.append(prof["run_gpu_ns"])
            for k in prof.get("by_kernel", []):
                by.setdefault(k["name"], []).append((k["dispatches"], k["gpu_ns"]))
        return runs, by
    for p in ("fp16", "fp32"):
        after, before = load([after_path], p), load([before_path], p)
        for name in sorted(set(after) & set(before)):
            (ra, ka), (rb, kb) = kernels(after[name]), kernels(before[name])
            if not ra or not rb:
                continue
            print("\n%s, %s, %s: GPU us a run, after / before (%s, %s)\n"
                  % (name, p, storage, after_path, before_path))
            print("| kernel | dispatches after | before | us after | before | after / before |")
            print("|---|---:|---:|---:|---:|---:|")
            for k in sorted(set(ka) | set(kb), key=lambda k: -max(
                    statistics.median(v[1] for v in ka.get(k, [(0, 0)])),
                    statistics.median(v[1] for v in kb.get(k, [(0, 0)])))):
                cells = []
                for side in (ka, kb):
                    v = side.get(k)
                    cells.append(("%d" % v[0][0], statistics.median(x[1] for x in v) / 1e3)
                                 if v else ("-", None))
                us = ["-" if c[1] is None else "%.1f" % c[1] for c in cells]
                ratio = "%.2f" % (cells[0][1] / cells[1][1]) if all(
                    c[1] for c in cells) else "-"
                print("| %s | %s | %s | %s | %s | %s |"
                      % (k, cells[0][0], cells[1][0], us[0], us[1], ratio))
            a_us, b_us = statistics.median(ra) / 1e3, statistics.median(rb) / 1e3
            print("| run | | | %.1f | %.1f | %.2f |" % (a_us, b_us, a_us / b_us))


def dispatch_cost_table(path):
    """`texmem bench --dispatch-cost --json` lines: us a dispatch per chain
    and process (GPU, then CPU submit)."""
    print("\n%s (us a dispatch, GPU / CPU submit, one column a process):\n" % path)
    runs = [json.loads(l)["dispatch_cost"] for l in open(path) if l.strip()]
    if not runs:
        return
    print("| chain | " + " | ".join("process %d" % (i + 1) for i in range(len(runs))) + " |")
    print("|---|" + "---:|" * len(runs))
    for i, c in enumerate(runs[0]["cases"]):
        cells = []
        for r in runs:
            d = r["cases"][i]
            g = d["gpu_ns_per_dispatch"]
            cells.append("%s / %.2f" % ("-" if g is None else "%.2f" % (g / 1e3),
                                        d["cpu_submit_ns_per_dispatch"] / 1e3))
        print("| %s | %s |" % (c["name"], " | ".join(cells)))


def clock_samples(path):
    """gpu_session.sh's clocks.csv: (epoch s, SM MHz, utilization %) rows;
    lines nvidia-smi did not answer are skipped."""
    out = []
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        try:
            out.append((float(f[0]), float(f[1]), float(f[3])))
        except (IndexError, ValueError):
            continue
    return out


def clocks_table(csv_path, paths):
    """Per process (a line with t0, t1): the SM clock over the whole process
    (median, least, most) and over its last second (the timed runs end a
    process), the median utilization, beside the compile time, the warm-up
    (builds from 2026-11-28 on) and the default plan's latency."""
    samples = clock_samples(csv_path)
    print("\n%s, with %s (SM MHz; a process's last second holds its timed runs):\n" % (
        " ".join(paths), csv_path))
    print("| file | model | precision | s | compiling s | warm-up ms | SM MHz median (least-most)"
          " | SM MHz last s | utilization % | ms default |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|---:|")
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            t0, t1, rep = r.get("t0"), r.get("t1"), r.get("report") or {}
            if t0 is None or t1 is None:
                continue
            run = [s for s in samples if t0 <= s[0] <= t1]
            last = [s[1] for s in run if s[0] >= t1 - 1.0]
            sm = [s[1] for s in run]
            lat = (rep.get("latency_ms") or {}).get("planned")
            print("| %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s |" % (
                path.split("/")[-1], r["model"], r["precision"], t1 - t0,
                "%.1f" % (rep["compile_ms"] / 1e3) if "compile_ms" in rep else "-",
                "%.0f" % rep["warmup_elapsed_ms"] if "warmup_elapsed_ms" in rep else "-",
                "%.0f (%.0f-%.0f)" % (statistics.median(sm), min(sm), max(sm)) if sm else "-",
                "%.0f" % statistics.median(last) if last else "-",
                "%.0f" % statistics.median(s[2] for s in run) if run else "-",
                "-" if lat is None else "%.3f" % lat))


def io_table(after):
    """set_input, run and get_output of the reported runtime, each the median
    over processes of the process's median (bench's io_ms), and what the two
    copies add to the run."""
    print("\ngraph I/O through the CPU (io_ms), ms:\n")
    print("| model | set_input | run | get_output | (set + get) / run |")
    print("|---|---:|---:|---:|---:|")
    for name in sorted(after, key=lambda n: (not n.startswith("MobileNet"), n)):
        reps = [r for r in after[name] if r.get("io_ms")]
        if not reps:
            continue
        s, r, g = (med(reps, lambda x, k=k: x["io_ms"][k]) for k in ("set_input", "run", "get_output"))
        print("| %s | %.3f | %.3f | %.3f | %.2f |" % (name, s, r, g, (s + g) / r if r else 0.0))


def dispatch_table(after, before):
    """The default plan's dispatches and median latency per model, with
    --before's beside: what a change in the dispatch count was worth."""
    print("\n| model | dispatches | before | ms | ms before | after / before |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in sorted(set(after) & set(before)):
        a, b = after[name], before[name]
        n = lambda r: (r[0].get("dispatches") or {}).get(r[0].get("storage", "buffer"), "-")
        ma, mb = (med(x, lambda r: r["latency_ms"]["planned"]) for x in (a, b))
        print("| %s | %s | %s | %.3f | %.3f | %.3f |" % (name, n(a), n(b), ma, mb,
                                                         ma / mb if mb else 0.0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--before", nargs="*")
    ap.add_argument("--alone", nargs="*")
    ap.add_argument("--local", nargs="*")
    ap.add_argument("--compare", nargs="*")
    ap.add_argument("--compile", nargs="*")
    ap.add_argument("--driver", nargs="*")
    ap.add_argument("--tiles", nargs="*")
    ap.add_argument("--dispatch-cost", nargs="*")
    ap.add_argument("--clocks", nargs="+", metavar=("CLOCKS.csv", "X.jsonl"))
    ap.add_argument("--kernels-vs", nargs=2, metavar=("PROFILE.jsonl", "PROFILE_BEFORE.jsonl"))
    ap.add_argument("--io", action="store_true")
    ap.add_argument("--dispatches", action="store_true",
                    help="with --before: each model's dispatches and latency in both builds")
    a = ap.parse_args()
    after, before, alone, local = load(a.after), load(a.before), load(a.alone), load(a.local)
    print("| model | one texture each | shared objects | buffer arena | / max_live | weights |"
          " driver, buffer alone | ms before | ms naive | ms default | default / naive |")
    print("|---|" + "---:|" * 10)
    for name in sorted(set(after) | set(local), key=lambda n: (not n.startswith("MobileNet"), n)):
        gpu = name in after
        print(row(name, after[name] if gpu else local[name], gpu, before, alone))
    for path in a.compare or []:
        compare(path, after)
    for path in a.compile or []:
        compile_table(path)
    for path in a.driver or []:
        driver_table(a.after, a.alone or [], path)
    for path in a.tiles or []:
        tiles_table(path)
    for path in a.dispatch_cost or []:
        dispatch_cost_table(path)
    if a.clocks:
        clocks_table(a.clocks[0], a.clocks[1:])
    if a.kernels_vs:
        kernels_vs_table(*a.kernels_vs)
    if a.io:
        io_table(after)
    if a.dispatches:
        dispatch_table(after, before)


if __name__ == "__main__":
    main()
