#!/usr/bin/env python3
"""The Python pipeline Workbench is compared with: Pillow decoding (JPEG DCT scaling through draft()), the
reference preprocessing (centre crop of int(224/256 * min side), antialiased bicubic to 224, (x - 127) / 128) and
onnxruntime on a 1280-d feature graph, in batches of 16.

Usage: .venv/bin/python3 scripts/bench/bench-python-pipeline.py MODEL.onnx FILE_LIST --threads N [--runs R]
           [--raw-pixels]
Prints one line per run and, last, `median_images_per_second <value>`.
"""
import argparse
import math
import statistics
import time

import numpy as np
import onnxruntime
from PIL import Image

SIDE = 224
MINIMUM_CROP = 2 * SIDE


def network_input(path, raw_pixels=False):
    image = Image.open(path)
    if image.format == "JPEG":
        # Let libjpeg shrink by DCT scaling while the crop stays at least 448 px, as Workbench does.
        short = min(image.size)
        needed = math.ceil(MINIMUM_CROP * 256 / 224)
        if short > needed:
            image.draft("RGB", (math.ceil(image.width * needed / short), math.ceil(image.height * needed / short)))
    image = image.convert("RGB")
    width, height = image.size
    crop = int((SIDE / (SIDE + 32)) * min(width, height))
    top, left = ((height - crop) + 1) // 2, ((width - crop) + 1) // 2
    image = image.crop((left, top, left + crop, top + crop)).resize((SIDE, SIDE), Image.BICUBIC)
    pixels = np.asarray(image, np.float32)
    if not raw_pixels:
        pixels = (pixels - 127.0) / 128.0
    return pixels.transpose(2, 0, 1)


def run_once(session, input_name, paths, batch, raw_pixels=False):
    start = time.perf_counter()
    for first in range(0, len(paths), batch):
        inputs = np.stack([network_input(p, raw_pixels) for p in paths[first:first + batch]])
        session.run(None, {input_name: inputs})
    return len(paths) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("file_list")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--raw-pixels", action="store_true",
                        help="feed pixels 0-255 (Workbench's exported models normalise inside the graph)")
    arguments = parser.parse_args()
    paths = [line.strip() for line in open(arguments.file_list) if line.strip()]
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = arguments.threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(arguments.model, options, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    run_once(session, input_name, paths[:16], arguments.batch, arguments.raw_pixels)  # warm-up
    rates = []
    for run in range(arguments.runs):
        rates.append(run_once(session, input_name, paths, arguments.batch, arguments.raw_pixels))
        print(f"run {run + 1}: {rates[-1]:.1f} images/s", flush=True)
    print(f"median_images_per_second {statistics.median(rates):.2f}")


if __name__ == "__main__":
    main()
