#!/usr/bin/env node
// litert_batch.mjs - runs one .tflite on many input sets in one process with
// TensorFlow Lite's own kernels (LiteRT.js: the TFLite / LiteRT runtime
// compiled to WebAssembly, on its CPU accelerator), for the tests that
// compare gdstudio's arithmetic with TensorFlow Lite's at every tensor.
//
//   node litert_batch.mjs MODEL.tflite DIR
//
// DIR holds sample_<i>_input_<k>.npy (i = 0, 1, ...; k in the model's input
// order, dtypes as the inputs'); each sample's outputs are written beside them
// as sample_<i>_output_<j>.npy, j in the model's output order. The model is
// loaded and compiled once.
//
// Which kernels run is decided by the model file, not by this script: the
// tests give it the copy that ../shared/tools/litert/run_tflite.mjs writes
// with --save-model (every intermediate tensor added to the outputs; with
// --xnnpack the XNNPACK delegate claims what it supports, without it the
// subgraphs are named "VALIDATION:..." and every node runs on TFLite's
// built-in kernels; see that script).
//
// Needs @litertjs/core (npm ci in the folder of this copy, or LITERT_DIR
// naming a folder whose node_modules has it).
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function die(msg) { console.error('litert_batch: ' + msg); process.exit(2); }

// descr -> [LiteRT ElementType, bytes per element]
const NPY = {'<f4': [1, 4], '<i4': [2, 4], '|u1': [3, 1], '<i8': [4, 8], '|b1': [6, 1], '<i2': [7, 2], '|i1': [9, 1]};
const ALIAS = {'<u1': '|u1', '<i1': '|i1', '|f4': '<f4'};
const BY_TYPE = {};
for (const [d, v] of Object.entries(NPY)) BY_TYPE[v[0]] = d;

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.readUInt32BE(0) !== 0x934e554d) die(`${file}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = b.toString('latin1', hstart, hstart + hlen);
  let descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  descr = ALIAS[descr] || descr;
  if (!NPY[descr]) die(`${file}: unsupported dtype ${descr}`);
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] || '').split(',').map((s) => s.trim())
    .filter(Boolean).map(Number);
  return {descr, shape, bytes: new Uint8Array(b.buffer, b.byteOffset + hstart + hlen, b.length - hstart - hlen).slice()};
}

function writeNpy(file, descr, shape, bytes) {
  const shp = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shp}, }`;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.writeUInt32BE(0x934e554d, 0); pre.write('PY', 4, 'latin1'); pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(h.length, 8);
  const tmp = file + '.tmp';
  fs.writeFileSync(tmp, Buffer.concat([pre, Buffer.from(h, 'latin1'), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]));
  fs.renameSync(tmp, file);
}

async function loadLiteRt() {
  const base = process.env.LITERT_DIR || HERE;
  let dir;
  try {
    dir = path.join(path.dirname(createRequire(path.join(base, 'x.js')).resolve('@litertjs/core/package.json')), 'wasm');
  } catch { die(`cannot find @litertjs/core from ${base} (npm ci there, or set LITERT_DIR)`); }
  // The non-relaxed-SIMD build: no implementation-defined relaxed-SIMD arithmetic.
  const js = path.join(dir, 'litert_wasm_compat_internal.js');
  const src = fs.readFileSync(js, 'utf8');
  const factory = new Function('require', '__filename', '__dirname', 'module', 'exports',
    src + '\n;return ModuleFactory;')(createRequire(js), js, dir, {}, {});
  const quiet = () => {};
  return factory({wasmBinary: fs.readFileSync(js.replace(/\.js$/, '.wasm')), locateFile: (f) => path.join(dir, f),
                  print: quiet, printErr: (s) => { if (/ERROR/.test(s)) console.error(s); }});
}

function vec(v) { const a = []; for (let i = 0; i < v.size(); i++) a.push(v.get(i)); v.delete(); return a; }

async function main() {
  const [model, dir] = process.argv.slice(2);
  if (!model || !dir) die('usage: litert_batch.mjs MODEL.tflite DIR');
  const M = await loadLiteRt();
  M.setupLogging();
  const env = M.LiteRtEnvironment.create(null);
  const bytes = fs.readFileSync(model);
  const ptr = M._malloc(bytes.length);
  M.HEAPU8.set(bytes, ptr);
  const m = M.loadModel(env, ptr, bytes.length);
  const cm = await M.compileModel(env, m, {accelerator: 'wasm', cpuOptions: {numThreads: 1}, gpuOptions: {}, webNNOptions: {}});
  const sig = m.getSignature(0);
  const numInputs = vec(sig.inputNames()).length;
  let runs = 0;
  for (let i = 0; fs.existsSync(path.join(dir, `sample_${i}_input_0.npy`)); i++, runs++) {
    const buffers = [];
    for (let k = 0; k < numInputs; k++) {
      const a = readNpy(path.join(dir, `sample_${i}_input_${k}.npy`));
      const dims = new M.VectorInt32(); for (const d of a.shape) dims.push_back(d);
      const layout = M.LiteRtLayout.create(dims); dims.delete();
      const type = M.LiteRtRankedTensorType.create({value: NPY[a.descr][0]}, layout); layout.delete();
      const n = type.bytes();
      if (n !== a.bytes.length) die(`sample ${i} input ${k}: ${a.bytes.length} bytes, the tensor has ${n}`);
      const tb = M.LiteRtTensorBuffer.createManaged(env, M.LiteRtTensorBufferType.HOST_MEMORY, type, n);
      type.delete();
      const p = tb.lock(M.LiteRtTensorBufferLockMode.WRITE); M.HEAPU8.set(a.bytes, p); tb.unlock();
      buffers.push(tb);
    }
    const outs = await cm.run(0, buffers);
    outs.forEach((tb, j) => {
      const type = tb.tensorType(); const et = type.elementType().value; const lay = type.layout();
      const shape = vec(lay.dimensions()); lay.delete(); type.delete();
      const descr = BY_TYPE[et];
      if (!descr) die(`output ${j}: element type ${et} is not supported`);
      const p = tb.lock(M.LiteRtTensorBufferLockMode.READ);
      const data = M.HEAPU8.slice(p, p + tb.packedSize()); tb.unlock(); tb.delete();
      writeNpy(path.join(dir, `sample_${i}_output_${j}.npy`), descr, shape, data);
    });
    for (const b of buffers) b.delete();
  }
  cm.delete(); m.delete(); M._free(ptr); env.delete();
  console.log(`${runs} sample(s) run`);
}

main().catch((e) => { console.error('litert_batch: ' + (e && e.stack || e)); process.exit(1); });
