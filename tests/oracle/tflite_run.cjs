// Runs a .tflite model on real TensorFlow Lite (the WebAssembly build of
// @tensorflow/tfjs-tflite, fetched by tools/fetch_tflite.sh) in plain Node.
//
//   node tflite_run.cjs --wasm DIR --model FILE.tflite --out PREFIX
//        [--input FILE.f32]... [--seed N]
//
// Inputs: one raw little-endian float32 file per graph input (in the
// model's input order), or, without --input, values in [-2, 2) from a
// seeded generator. Writes output i to PREFIX.<i>.f32 (raw float32; other
// element types are converted) and prints one line per tensor:
//   input|output INDEX TYPE SHAPE NAME      (SHAPE: comma-separated dims)
// Exit status: 0 ok; 2 usage, file or input size error; 3 TFLite cannot
// load the model ("load-failed: REASON" on stdout, REASON holding TFLite's
// own log lines, e.g. an unresolved custom op); 4 inference failed.
'use strict';
const fs = require('fs');
const path = require('path');

function die(code, msg) {
  process.stdout.write(msg + '\n');
  process.exit(code);
}

const args = { inputs: [], seed: 1 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i], v = argv[i + 1];
  if (v === undefined) die(2, `usage: ${a} needs a value`);
  if (a === '--wasm') args.wasm = v;
  else if (a === '--model') args.model = v;
  else if (a === '--out') args.out = v;
  else if (a === '--input') args.inputs.push(v);
  else if (a === '--seed') args.seed = Number(v);
  else die(2, `usage: unknown option ${a}`);
  i++;
}
if (!args.wasm || !args.model || !args.out) die(2, 'usage: --wasm, --model and --out are required');
const major = Number(process.versions.node.split('.')[0]);
if (major < 20) die(2, `node ${process.versions.node}: Node >= 20 is required`);

// The Emscripten loader is built for browsers (it would fetch() the .wasm);
// handing it the bytes as wasmBinary makes it run in plain Node.
const log = [];
async function main() {
  let factory, wasmBinary, model;
  try {
    factory = require(path.resolve(args.wasm, 'tflite_web_api_cc.js'));
    wasmBinary = fs.readFileSync(path.resolve(args.wasm, 'tflite_web_api_cc.wasm'));
    model = fs.readFileSync(args.model);
  } catch (e) {
    die(2, `cannot read: ${e.message} (run tools/fetch_tflite.sh)`);
  }
  const m = await factory({ wasmBinary, print: (s) => log.push(s), printErr: (s) => log.push(s) });
  const ptr = m._malloc(model.length);
  m.HEAPU8.set(model, ptr);
  // numThreads -1: the single-threaded runtime, deterministic.
  const st = m.TFLiteWebModelRunner.CreateFromBufferAndOptions(
      ptr, model.length, { numThreads: -1, enableProfiling: false, maxProfilingBufferEntries: 1024 });
  if (!st.ok()) die(3, `load-failed: ${st.errorMessage()} | ${log.join(' | ')}`);
  const runner = st.value();
  const list = (vec) => { const r = []; for (let i = 0; i < vec.size(); i++) r.push(vec.get(i)); return r; };
  const ins = list(runner.GetInputs());
  const outs = list(runner.GetOutputs());
  if (args.inputs.length && args.inputs.length !== ins.length)
    die(2, `model has ${ins.length} inputs, ${args.inputs.length} given`);
  let s = (BigInt(args.seed) * 0x9E3779B97F4A7C15n + 1n) & 0xFFFFFFFFFFFFFFFFn;
  ins.forEach((t, i) => {
    const d = t.data();
    process.stdout.write(`input ${i} ${t.dataType} ${t.shape} ${t.name}\n`);
    if (args.inputs.length) {
      const b = fs.readFileSync(args.inputs[i]);
      if (b.length !== d.length * 4) die(2, `input ${i}: ${b.length} bytes, tensor needs ${d.length} float32`);
      const f = new Float32Array(b.buffer, b.byteOffset, d.length);
      for (let k = 0; k < d.length; k++) d[k] = f[k];
    } else {
      const M = 0xFFFFFFFFFFFFFFFFn;
      for (let k = 0; k < d.length; k++) { // splitmix64, as tt_rand / rt_inputs in tests/
        s = (s + 0x9E3779B97F4A7C15n) & M;
        let z = s;
        z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M;
        z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M;
        z ^= z >> 31n;
        d[k] = Number(z >> 11n) / 9007199254740992 * 4 - 2;
      }
    }
  });
  if (!runner.Infer()) die(4, `infer-failed: ${log.join(' | ')}`);
  outs.forEach((t, i) => {
    const f = Float32Array.from(t.data());
    fs.writeFileSync(`${args.out}.${i}.f32`, Buffer.from(f.buffer, f.byteOffset, f.byteLength));
    process.stdout.write(`output ${i} ${t.dataType} ${t.shape} ${t.name}\n`);
  });
}
main().catch((e) => die(4, `error: ${e && e.message ? e.message : e}`));
