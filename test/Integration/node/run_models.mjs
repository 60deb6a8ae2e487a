// Runs ONNX models in onnxruntime-node on the same input and compares them.
//
//   node run_models.mjs reference.onnx candidate.onnx --shape 1x3x64x64
//       [--rtol R] [--atol A] [--seed S]
//
// Every model input gets the same deterministic pseudo-random data, uniform
// in [-1, 1), of the shape --shape gives. Each output
// of the candidate must match the reference output of the same index within
// |a - b| <= atol + rtol * |b|. Prints the largest errors and exits 1 on a
// mismatch, 2 when a model cannot be loaded or run.
//
//   node run_models.mjs model.onnx --shape 1x3x64x64 --run-only
//
// only checks that onnxruntime loads and runs the model and that its outputs
// are finite.

import { createRequire } from "node:module";
import process from "node:process";

const require = createRequire(import.meta.url);
let ort;
try {
  ort = require("onnxruntime-node");
} catch (e) {
  console.error(
    "run_models: onnxruntime-node is not installed; run scripts/setup.sh " +
      "(npm install in test/Integration/node): " + e.message);
  process.exit(2);
}

const args = process.argv.slice(2);
const models = args.filter((a, i) => !a.startsWith("--") &&
                                     !(i > 0 && args[i - 1].startsWith("--") &&
                                       ["--rtol", "--atol", "--seed", "--shape"].includes(args[i - 1])));
function option(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}
const rtol = option("--rtol", 1e-4);
const atol = option("--atol", 1e-4);
const seed = option("--seed", 1234);
const runOnly = args.includes("--run-only");
const shapeIndex = args.indexOf("--shape");
const shape = shapeIndex >= 0
    ? args[shapeIndex + 1].split("x").map(Number) : null;

// xorshift32: the same stream on every platform.
function makeRandom(s) {
  let x = s >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 4294967296 * 2 - 1;
  };
}

async function load(path) {
  try {
    return await ort.InferenceSession.create(path, {
      graphOptimizationLevel: "disabled",
    });
  } catch (e) {
    console.error(`run_models: cannot load ${path}: ${e.message}`);
    process.exit(2);
  }
}

function makeFeeds(session) {
  const random = makeRandom(seed);
  const feeds = {};
  for (const name of session.inputNames) {
    const dims = shape;
    if (!dims || dims.some((d) => !(d > 0))) {
      console.error(`run_models: give the shape of input ${name} with --shape`);
      process.exit(2);
    }
    const size = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    for (let i = 0; i < size; ++i) data[i] = random();
    feeds[name] = new ort.Tensor("float32", data, dims);
  }
  return feeds;
}

async function run(session, feeds, path) {
  try {
    return await session.run(feeds);
  } catch (e) {
    console.error(`run_models: cannot run ${path}: ${e.message}`);
    process.exit(2);
  }
}

if (models.length !== (runOnly ? 1 : 2)) {
  console.error("usage: node run_models.mjs reference.onnx candidate.onnx " +
                "--shape DIMS [--rtol R] [--atol A] [--seed S] | " +
                "model.onnx --shape DIMS --run-only");
  process.exit(2);
}

const reference = await load(models[0]);
const feeds = makeFeeds(reference);
const expected = await run(reference, feeds, models[0]);

if (runOnly) {
  for (const name of reference.outputNames) {
    const data = expected[name].data;
    for (let i = 0; i < data.length; ++i)
      if (!Number.isFinite(Number(data[i]))) {
        console.error(`run_models: output ${name}[${i}] is ${data[i]}`);
        process.exit(1);
      }
    console.log(`ran ${models[0]}: output ${name} ` +
                `[${expected[name].dims.join("x")}] finite`);
  }
  process.exit(0);
}

const candidate = await load(models[1]);
if (candidate.outputNames.length !== reference.outputNames.length) {
  console.error(`run_models: ${reference.outputNames.length} outputs ` +
                `against ${candidate.outputNames.length}`);
  process.exit(1);
}
// The candidate's inputs must be the reference's, by name.
for (const name of candidate.inputNames)
  if (!(name in feeds)) {
    console.error(`run_models: candidate input ${name} is not in the reference`);
    process.exit(1);
  }
const actual = await run(candidate, feeds, models[1]);

let ok = true;
reference.outputNames.forEach((refName, index) => {
  const candName = candidate.outputNames[index];
  const a = actual[candName], b = expected[refName];
  if (a.dims.join("x") !== b.dims.join("x")) {
    console.error(`output ${index}: shape [${a.dims}] against [${b.dims}]`);
    ok = false;
    return;
  }
  let worst = 0, worstIndex = -1, maxAbs = 0;
  for (let i = 0; i < b.data.length; ++i) {
    const x = Number(a.data[i]), y = Number(b.data[i]);
    const excess = Math.abs(x - y) - (atol + rtol * Math.abs(y));
    maxAbs = Math.max(maxAbs, Math.abs(x - y));
    if (!(excess <= worst) || Number.isNaN(x)) {
      worst = Number.isNaN(x) ? Infinity : excess;
      worstIndex = i;
    }
  }
  console.log(`output ${index} (${refName} / ${candName}) ` +
              `[${b.dims.join("x")}]: max |diff| = ${maxAbs.toExponential(3)}`);
  if (worstIndex >= 0) {
    console.error(`output ${index}: element ${worstIndex} is ` +
                  `${a.data[worstIndex]}, expected ${b.data[worstIndex]} ` +
                  `(rtol ${rtol}, atol ${atol})`);
    ok = false;
  }
});
process.exit(ok ? 0 : 1);
