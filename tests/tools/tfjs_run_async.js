#!/usr/bin/env node
// Runs a frozen GraphDef with TensorFlow.js's executeAsync, which (unlike
// execute) runs control-flow loops (Enter/Merge/Switch/NextIteration/Exit)
// and TensorList ops: the reference for frozen TF2 LSTM/GRU models.
// TensorFlow.js and protobufjs come from the reference runner's folder
// (its node_modules, after `npm ci --ignore-scripts` there), as does its
// wire-compatible GraphDef schema and .npy reader/writer.
//
//   node tfjs_run_async.js --reference DIR --graph model.pb --input NAME=x.npy
//        --output NAME[,NAME] --out_dir OUT
// Writes OUT/<output with / and : as _>.npy and prints one JSON line.
'use strict';
const fs = require('fs');
const path = require('path');

function args(argv) {
  const a = { input: [], output: [] };
  for (let i = 2; i < argv.length; i++) {
    let [k, v] = argv[i].split(/=(.*)/s);
    if (v === undefined) v = argv[++i];
    k = k.replace(/^--/, '');
    if (k === 'input') a.input.push(v);
    else if (k === 'output') a.output.push(...v.split(','));
    else a[k] = v;
  }
  if (!a.reference || !a.graph || !a.output.length || !a.out_dir)
    throw new Error('usage: --reference DIR --graph G --input N=F.npy --output N[,N] --out_dir D');
  return a;
}

const a = args(process.argv);
const need = m => require(require.resolve(m, { paths: [a.reference] }));
const tf = need('@tensorflow/tfjs');
const protobuf = need('protobufjs');
const { readNpy, writeNpy } = require(path.join(a.reference, 'npy.js'));

const TYPES = { DT_FLOAT: 'float32', DT_INT32: 'int32', DT_INT64: 'int32', DT_BOOL: 'bool' };

// Const values move to the weights, as GraphModel expects.
function artifacts(file) {
  const root = protobuf.loadSync(path.join(a.reference, 'tf_graph.proto'));
  const GraphDef = root.lookupType('tensorflow.GraphDef');
  const g = GraphDef.toObject(GraphDef.decode(fs.readFileSync(file)),
                              { enums: String, longs: String, bytes: String, arrays: true, objects: true });
  const specs = [], chunks = [];
  for (const node of g.node) {
    if (node.op !== 'Const') continue;
    const t = node.attr.value.tensor;
    const dtype = TYPES[t.dtype];
    if (!dtype) throw new Error(`${node.name}: Const of ${t.dtype} is not supported`);
    const shape = ((t.tensorShape && t.tensorShape.dim) || []).map(d => Number(d.size));
    const n = shape.reduce((p, d) => p * d, 1);
    let values;
    if (t.tensorContent && t.tensorContent.length) {
      const b = Buffer.from(t.tensorContent, 'base64');
      const ab = new Uint8Array(b).buffer;
      values = t.dtype === 'DT_FLOAT' ? new Float32Array(ab)
             : t.dtype === 'DT_INT64' ? Int32Array.from(new BigInt64Array(ab), Number)
             : t.dtype === 'DT_BOOL' ? new Uint8Array(ab) : new Int32Array(ab);
    } else {
      const src = [t.floatVal, t.intVal, t.int64Val, t.boolVal].find(x => x && x.length) || [];
      values = dtype === 'float32' ? new Float32Array(n) : dtype === 'bool' ? new Uint8Array(n) : new Int32Array(n);
      if (src.length === 1) values.fill(Number(src[0]));
      else values.set(src.map(Number));
    }
    specs.push({ name: node.name, shape, dtype });
    chunks.push(Buffer.from(values.buffer, values.byteOffset, values.byteLength));
    node.attr.value.tensor = { dtype: t.dtype, tensorShape: t.tensorShape };
  }
  delete g.library;
  g.versions = g.versions || {};
  const data = Buffer.concat(chunks);
  return { modelTopology: g, weightSpecs: specs,
           weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength), format: 'graph-model' };
}

async function main() {
  await tf.setBackend('cpu');
  const model = await tf.loadGraphModel(tf.io.fromMemory(artifacts(a.graph)));
  const feeds = {};
  for (const spec of a.input) {
    const [name, file] = spec.split(/=(.*)/s);
    const x = readNpy(file);
    feeds[name] = tf.tensor(x.dtype === 'float64' ? Float32Array.from(x.data) : x.data, x.shape,
                            x.dtype.startsWith('float') ? 'float32' : 'int32');
  }
  let outs = await model.executeAsync(feeds, a.output);
  if (!Array.isArray(outs)) outs = [outs];
  fs.mkdirSync(a.out_dir, { recursive: true });
  const report = { backend: tf.getBackend(), outputs: [] };
  for (let i = 0; i < outs.length; i++) {
    const values = await outs[i].data();
    report.outputs.push({ name: a.output[i], shape: outs[i].shape });
    writeNpy(path.join(a.out_dir, a.output[i].replace(/[/:]/g, '_') + '.npy'), Float32Array.from(values), outs[i].shape);
  }
  console.log(JSON.stringify(report));
}

main().catch(e => { console.error(`tfjs_run_async: ${e.message}`); process.exit(1); });
