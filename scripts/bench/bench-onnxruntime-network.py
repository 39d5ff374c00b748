"""Images per second of onnxruntime on an EfficientNet-Lite0 feature graph, for scripts/bench/bench-network.sh.

Usage: .venv/bin/python3 scripts/bench/bench-onnxruntime-network.py MODEL.onnx INPUT_224.png THREADS BATCH RUNS IMAGES

The input is one 224x224 RGB image, normalised like Workbench's ((x - 127) / 128) and repeated to fill a
batch (NCHW, as the graph expects). Each run pushes about IMAGES images through session.run with
intra_op_num_threads = THREADS; prints each run's images/s, then the median on the last line.
"""
import statistics
import sys
import time

import numpy as np
import onnxruntime
from PIL import Image


def main() -> None:
    model, input_path, threads, batch, runs, images = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
    pixels = np.asarray(Image.open(input_path).convert("RGB"), np.float32)
    assert pixels.shape == (224, 224, 3), f"{input_path}: expected a 224x224 image"
    chw = ((pixels - 127.0) / 128.0).transpose(2, 0, 1)
    feed = {"input": np.ascontiguousarray(np.broadcast_to(chw, (batch, 3, 224, 224)))}

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    for _ in range(3):
        session.run(None, feed)  # warm-up

    calls = max(1, -(-images // batch))
    rates = []
    for run in range(1, runs + 1):
        start = time.perf_counter()
        for _ in range(calls):
            session.run(None, feed)
        rate = calls * batch / (time.perf_counter() - start)
        rates.append(rate)
        print(f"run {run}: {rate:.1f} images/s")
    print(f"median images/s: {statistics.median(rates):.1f} threads={threads} batch={batch}")


if __name__ == "__main__":
    main()
