"""Runs an exported yinsh-zero ONNX model in onnxruntime, for tests/it/export.rs.

usage: run_onnx.py MODEL INPUTS N OUTPUTS
INPUTS holds N x 16 x 11 x 11 little-endian f32; OUTPUTS receives, per
position, the model's outputs flattened and concatenated in graph order
(policy logits, WDL logits, margin) as little-endian f32.
"""
import sys

import numpy as np
import onnxruntime as ort

model, inputs, n, outputs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
x = np.fromfile(inputs, dtype="<f4").reshape(n, 16, 11, 11)
session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
feeds = {session.get_inputs()[0].name: x}
results = session.run(None, feeds)
print("onnxruntime", ort.__version__, "outputs", [r.shape for r in results])
flat = np.concatenate([r.reshape(n, -1) for r in results], axis=1)
flat.astype("<f4").tofile(outputs)
