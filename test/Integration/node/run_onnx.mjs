// Runs an ONNX model in onnxruntime-node on one raw float32 input, writes
// its first output as raw float32 and prints the median time of `repeat`
// runs in milliseconds.
//
//   node run_onnx.mjs model.onnx input.f32 output.f32 1x3x64x64 repeat
//        [--no-optimize]
//
// --no-optimize turns ORT's graph rewrites off, so that a QDQ model runs
// its QuantizeLinear/DequantizeLinear as written (float arithmetic) instead
// of fused integer kernels: the reference for bit-level comparisons.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import process from "node:process";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "package.json"));
const ort = require("onnxruntime-node");

const args = process.argv.slice(2);
const noOptimize = args.includes("--no-optimize");
const [modelPath, inputPath, outputPath, shapeText, repeatText] =
    args.filter((a) => a !== "--no-optimize");
const shape = shapeText.split("x").map(Number);
const b = readFileSync(inputPath);
const data = new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const session = await ort.InferenceSession.create(
    modelPath, noOptimize ? {graphOptimizationLevel: "disabled"} : {});
const feeds = {[session.inputNames[0]]: new ort.Tensor("float32", data, shape)};
let out;
const times = [];
for (let i = 0; i < Number(repeatText); ++i) {
  const start = process.hrtime.bigint();
  out = (await session.run(feeds))[session.outputNames[0]].data;
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
writeFileSync(outputPath, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
console.log(times[Math.floor(times.length / 2)]);
