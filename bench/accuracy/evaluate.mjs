// Runs an ONNX classifier in onnxruntime-node on raw float32 images and
// prints its top-1 accuracy, so that FP32 and INT8 (QDQ) models are judged
// by the same independent runtime.
//
//   node evaluate.mjs model.onnx images.f32 labels.i32 N C H W
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import process from "node:process";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(
    path.join(here, "../../test/Integration/node/package.json"));
const ort = require("onnxruntime-node");

const [modelPath, imagesPath, labelsPath, ...dims] = process.argv.slice(2);
const [n, c, h, w] = dims.map(Number);
// A Buffer may be a view into a larger pool: copy out exactly its bytes.
function bytesOf(file) {
  const b = readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}
const images = new Float32Array(bytesOf(imagesPath));
const labels = new Int32Array(bytesOf(labelsPath));
if (images.length !== n * c * h * w || labels.length !== n) {
  console.error("evaluate: sizes do not match N C H W");
  process.exit(2);
}

const session = await ort.InferenceSession.create(modelPath);
const inputName = session.inputNames[0];
const batch = 1; // the exported models take one image
let correct = 0;
for (let i = 0; i < n; i += batch) {
  const data = images.subarray(i * c * h * w, (i + batch) * c * h * w);
  const feeds = {[inputName]: new ort.Tensor("float32", data, [batch, c, h, w])};
  const out = (await session.run(feeds))[session.outputNames[0]].data;
  let best = 0;
  for (let k = 1; k < out.length; ++k)
    if (out[k] > out[best]) best = k;
  if (best === labels[i]) ++correct;
}
console.log(JSON.stringify({accuracy: correct / n, correct, total: n}));
