// Extracts the .tflite files of a MediaPipe solution's packed assets.
//   node tools/extract_packed_assets.js LOADER.js ASSETS.data OUT_DIR
// LOADER.js (emscripten's file packager output) lists each packed file as
// {"filename": ..., "start": ..., "end": ...} in a loadPackage({...}) call;
// the .tflite ranges of ASSETS.data are written to OUT_DIR under their base
// names (write then rename), and each written name is printed on stdout.
// Plain Node, no package needed.
'use strict';
const fs = require('fs');
const path = require('path');

function die(msg) {
  process.stderr.write(`extract_packed_assets.js: ${msg}\n`);
  process.exit(1);
}

if (process.argv.length !== 5) die('usage: LOADER.js ASSETS.data OUT_DIR');
const [loader, data, outDir] = process.argv.slice(2);
const js = fs.readFileSync(loader, 'utf8');
const m = js.match(/loadPackage\((\{"files":.*?\})\);/s);
if (!m) die(`${loader}: no loadPackage({"files": ...}) call`);
let meta;
try {
  meta = JSON.parse(m[1]);
} catch (e) {
  die(`${loader}: file list is not JSON: ${e.message}`);
}
const blob = fs.readFileSync(data);
if (meta.remote_package_size !== undefined && meta.remote_package_size !== blob.length)
  die(`${data}: ${blob.length} bytes, the loader expects ${meta.remote_package_size}`);
for (const f of meta.files) {
  if (!/\.tflite$/.test(f.filename)) continue;
  const { start, end } = f;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start ||
      end > blob.length)
    die(`${loader}: ${f.filename}: byte range ${start}..${end} outside ${data}`);
  const bytes = blob.subarray(start, end);
  if (bytes.length < 8 || bytes.toString('latin1', 4, 8) !== 'TFL3')
    die(`${data}: ${f.filename} is not a TFLite model`);
  const name = path.basename(f.filename);
  const dst = path.join(outDir, name);
  fs.writeFileSync(dst + '.part', bytes);
  fs.renameSync(dst + '.part', dst);
  process.stdout.write(name + '\n');
}
