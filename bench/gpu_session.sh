#!/usr/bin/env bash
# One device call's measurements, from a bundle of ../shared/gpu/bundle.sh
# (.gpu/, .gl/) carried to an NVIDIA machine. Run from the folder holding
# them: bash bench/gpu_session.sh [PROCESSES] [OLD_TEXMEM]
#   warm     one untimed `texmem bench MODEL --runs 1` per model and precision
#            (and OLD_TEXMEM's), as many processes at once as the machine
#            has cores: NVIDIA's compiler takes 0.4-1.1 s a program on one
#            core (a model's bench 25-75 s on an H200, 2026-11-28, where one
#            at a time warmed a single model in a fifth of the call), and a
#            process that compiled its programs may run 3-4x slower than one
#            that finds them in the driver's disk cache; warm.jsonl has each
#            model's compile time (bench/gpu_table.py --compile warm.jsonl;
#            compiles beside each other take longer than alone)
#   cost     `texmem bench --dispatch-cost` in two processes: the least a
#            dispatch costs, dependent and independent (dispatch_cost.jsonl;
#            bench/gpu_table.py --dispatch-cost dispatch_cost.jsonl)
#   threads  MobileNet v2 fp16 compiled on one thread (--compile-threads 1),
#            the driver's cache off (threads.jsonl; its compile_ms against
#            the cache phase's first process, which compiles on one thread
#            a core: whether the driver compiles on several contexts at once)
#   cache    MobileNet v2 fp16 in two processes with texmem's program cache
#            (--program-cache) and the driver's off: the second loads what the
#            first compiled (cache.jsonl; bench/gpu_table.py --compile
#            cache.jsonl: creation, programs loaded, latency)
#   bench    `texmem bench MODEL --runs 21 --json`, PROCESSES (default 3) per
#            model in fp16 and one in fp32, models interleaved; with
#            OLD_TEXMEM (an older build's texmem, carried), its process runs
#            beside each of ours (before.jsonl); every report has io_ms, the
#            graph's I/O through the CPU beside the run (bench/gpu_table.py
#            --after after.jsonl --io)
#   alone    `--alone S` per storage, one process each (the driver's memory);
#            with OLD_TEXMEM its `--alone buffer` beside ours (alone_before.jsonl:
#            bench/gpu_table.py --alone alone.jsonl --driver alone_before.jsonl)
#   profile  `--profile` on MobileNet v2, the selfie model and
#            face_landmark_with_attention (and with the older build:
#            profile_before.jsonl; bench/gpu_table.py --kernels-vs
#            profile.jsonl profile_before.jsonl: each kernel's GPU time in both)
#   tiles    `--profile` with the tiled 1x1 kernel's split forced (--split
#            1..16) and chosen per layer, MobileNet v2 fp16 first, then two
#            MediaPipe models (tiles.jsonl; bench/gpu_table.py --tiles
#            tiles.jsonl: each layer's time per split, the choice's, the
#            fastest's)
#   kernels  `--kernels portable` on three models, then `--unfused` on eight
#            (beside the default bench: the tiled 1x1 kernel's gain, fusion's
#            and the folds' (depthwise, scales, reshapes, resizes, heads), and whether fused
#            outputs equal unfused ones on this driver, by outputs_fnv1a;
#            kernels.jsonl, unfused.jsonl)
#   tests    last, the GL test programs that need no Node, 8 at a time, in
#            what is left (a cold driver compiles each test's programs)
# PHASES (default: all of them, in this order) names the phases to run: a
# device call is 15 minutes, too short for all, so a session picks what it
# needs, e.g. PHASES="warm bench alone"; later phases then start sooner.
# Phases start by 20, 27, 36, 45, 55, 60, 68, 72 and 76% of the deadline; the tests take the
# rest (DEADLINE_S, default 480 s: a device session has 15 minutes all told,
# the machine's start included), so what ran comes back. Writes JSON lines
# to $OUT (or /tmp/out) for bench/gpu_table.py (--compare kernels.jsonl
# unfused.jsonl for the kernels phase's tables, --compile warm.jsonl), and
# at the end packs them with the logs and clocks.csv into $OUT/session.tar.gz (a device
# call returns at most 8 files): `tar xzf session.tar.gz` there first.
cd "$(dirname "$0")/.."
procs=${1:-3}; old=${2:-}; end=${DEADLINE_S:-480}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
bash .gpu/run.sh info > /dev/null 2>&1   # unpacks the loaders, writes info.txt
v=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$v" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$v
export LD_LIBRARY_PATH=$PWD/.gpu/lib TEXMEM_MODEL_CACHE=$PWD/.gpu/models TEXMEM_REQUIRE_GL=1
export TEXMEM_TEST_MODELS=$(cd .gpu/models && ls *.tflite 2>/dev/null | paste -sd, -)
# The driver's shader cache, kept for the whole call (the warm phase fills it).
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/glcache
export __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1; mkdir -p /tmp/glcache
B=$PWD/.gpu/bin; O=${OUT:-/tmp/out}; mkdir -p "$O"; LOG=$O/run.log; : > "$LOG"
models="builtin $(ls .gpu/models/*.tflite)"
line() { # file model precision rc report start end (epoch s)
  printf '{"model":"%s","precision":"%s","rc":%s,"t0":%s,"t1":%s,"report":%s}\n' "$2" "$3" "$4" \
    "$6" "$7" "$( [ -s "$5" ] && tr -d '\n' < "$5" || echo null)" >> "$1"; }
bench() { # out binary model precision args...
  local out=$1 bin=$2 m=$3 p=$4 j t0 rc; shift 4
  local name=builtin arg=$m; [ "$m" = builtin ] && arg= || name=$(basename "$m" .tflite)
  j=$(mktemp); t0=$(date +%s.%N)
  timeout "${BENCH_TIMEOUT:-120}" "$bin" bench $arg --precision "$p" --json "$@" > "$j" 2>>"$LOG"
  rc=$?; line "$out" "$name" "$p" $rc "$j" "$t0" "$(date +%s.%N)"; rm -f "$j"; }
# The GPU's clocks beside every process, 5 a second, for the whole call
# (clocks.csv: epoch s, SM MHz, memory MHz, GPU utilization %, P-state,
# W; bench/gpu_table.py --clocks clocks.csv X.jsonl joins them with each
# process's t0..t1): a GPU left idle while a process compiled may run its
# first timed runs at a fraction of its clock.
if command -v nvidia-smi > /dev/null; then
  (while :; do
    printf '%s, %s\n' "$(date +%s.%N)" "$(nvidia-smi --query-gpu=clocks.sm,clocks.mem,utilization.gpu,pstate,power.draw \
      --format=csv,noheader,nounits 2>/dev/null | head -1)"
    sleep 0.2
  done) > "$O/clocks.csv" 2>/dev/null &
  SAMPLER=$!
fi
phase() { echo "== $1 at $(el) s" | tee -a "$LOG"; }
PHASES=${PHASES:-warm cost threads cache bench alone profile tiles kernels tests}
want() { case " $PHASES " in *" $1 "*) phase "$1";; *) return 1;; esac; }

if want warm; then
  # One job a line (number, out, binary, model, precision), $(nproc) at a time,
  # each into a file of its own (a report is longer than one atomic append),
  # given what is left of the phase's fifth of the deadline.
  export -f bench line; export LOG; mkdir -p /tmp/warm
  for p in fp16 fp32; do for m in $models; do
    echo "warm.jsonl $B/texmem $m $p"
    [ -n "$old" ] && echo "warm_before.jsonl $old $m $p"
  done; done | nl -w1 -s' ' | xargs -P "$(nproc)" -L 1 bash -c '
    left=$(('"$((T0 + end * 2 / 10))"' - $(date +%s))); [ $left -ge 10 ] || exit 0
    BENCH_TIMEOUT=$left bench /tmp/warm/$0.$1 $2 $3 $4 --runs 1'
  for f in warm warm_before; do cat /tmp/warm/*."$f".jsonl >> "$O/$f.jsonl" 2>/dev/null; done
fi
if want cost; then
  for k in 1 2; do
    timeout 60 "$B/texmem" bench --dispatch-cost --json 2>>"$LOG" | tr -d '\n' >> "$O/dispatch_cost.jsonl"
    echo >> "$O/dispatch_cost.jsonl"
  done
fi
if want threads; then
  [ "$(el)" -lt $((end * 27 / 100)) ] && __GL_SHADER_DISK_CACHE=0 \
    bench "$O/threads.jsonl" "$B/texmem" builtin fp16 --runs 1 --compile-threads 1
fi
if want cache; then
  mkdir -p /tmp/tmcache
  for k in 1 2; do
    [ "$(el)" -lt $((end * 36 / 100)) ] && __GL_SHADER_DISK_CACHE=0 \
      bench "$O/cache.jsonl" "$B/texmem" builtin fp16 --runs 21 --program-cache /tmp/tmcache
  done
fi
if want bench; then
  for k in $(seq "$procs"); do for p in fp16 fp32; do
    [ "$p" = fp32 ] && [ "$k" -gt 1 ] && continue
    for m in $models; do
      [ "$(el)" -lt $((end * 45 / 100)) ] || continue
      bench "$O/after.jsonl" "$B/texmem" "$m" $p --runs 21
      [ -n "$old" ] && bench "$O/before.jsonl" "$old" "$m" $p --runs 21
    done; done; done
fi
if want alone; then
  for p in fp16 fp32; do for m in $models; do for s in naive objects arena buffer; do
    [ "$(el)" -lt $((end * 55 / 100)) ] || continue
    bench "$O/alone.jsonl" "$B/texmem" "$m" $p --alone $s
    [ "$s" = buffer ] && [ -n "$old" ] && bench "$O/alone_before.jsonl" "$old" "$m" $p --alone buffer
  done; done; done
fi
if want profile; then
  for m in builtin .gpu/models/selfie_segmentation.tflite \
           .gpu/models/face_landmark_with_attention.tflite; do
    [ "$(el)" -lt $((end * 60 / 100)) ] && [ "$m" = builtin -o -f "$m" ] &&
      bench "$O/profile.jsonl" "$B/texmem" "$m" fp16 --runs 5 --profile
    # The older build's profile beside it: what a fold's kernel replaced.
    [ "$(el)" -lt $((end * 60 / 100)) ] && [ -n "$old" ] && [ "$m" = builtin -o -f "$m" ] &&
      bench "$O/profile_before.jsonl" "$old" "$m" fp16 --runs 5 --profile
  done
fi
if want tiles; then
  for m in builtin .gpu/models/pose_detection.tflite .gpu/models/palm_detection_full.tflite; do
    for k in 0 1 2 4 8 16; do
      [ "$(el)" -lt $((end * 68 / 100)) ] && [ "$m" = builtin -o -f "$m" ] &&
        bench "$O/tiles.jsonl" "$B/texmem" "$m" fp16 --runs 5 --profile \
          $( [ $k -gt 0 ] && echo --split $k )
    done
  done
fi
if want kernels; then
  for m in builtin .gpu/models/pose_detection.tflite .gpu/models/selfie_segmentation.tflite; do
    [ "$(el)" -lt $((end * 72 / 100)) ] && [ "$m" = builtin -o -f "$m" ] &&
      bench "$O/kernels.jsonl" "$B/texmem" "$m" fp16 --runs 21 --kernels portable
  done
  for m in builtin .gpu/models/palm_detection_lite.tflite \
           .gpu/models/selfie_segmentation_landscape.tflite \
           .gpu/models/face_detection_full_range.tflite \
           .gpu/models/pose_landmark_lite.tflite .gpu/models/hand_landmark_lite.tflite \
           .gpu/models/hand_recrop.tflite .gpu/models/face_landmark_with_attention.tflite; do
    [ "$(el)" -lt $((end * 76 / 100)) ] && [ "$m" = builtin -o -f "$m" ] &&
      bench "$O/unfused.jsonl" "$B/texmem" "$m" fp16 --runs 21 --unfused
  done
fi
if want tests; then
  # Last: each program, 8 at a time, gets what is left of the deadline (at
  # most 150 s); one not started by then is listed as not run.
  export END_AT=$((T0 + end))
  ls "$B"/test_* | grep -vE 'test_rt_oracle|test_rt_tflite_ops8|test_cli_tflm_tflite|test_cli_extract_assets' \
    | xargs -P 8 -I{} sh -c 'left=$((END_AT - $(date +%s))); [ $left -gt 150 ] && left=150
        if [ $left -lt 10 ]; then echo "$(basename {}) not run"; exit 0; fi
        timeout $left {} --jobs 2 > /tmp/$(basename {}).log 2>&1; echo "$(basename {}) rc=$?"' \
    | sort | tee -a "$LOG" > "$O/tests.txt"
  grep -hE "^\[FAIL\]" /tmp/test_*.log >> "$O/tests.txt"; grep -v "rc=0$" "$O/tests.txt"
fi
phase done
[ -n "${SAMPLER:-}" ] && kill "$SAMPLER" 2>/dev/null
wc -l "$O"/*.jsonl
# A device call returns at most 8 files: everything in one.
(cd "$O" && tar czf session.tar.gz --remove-files $(ls | grep -v '^session.tar.gz$'))
