#!/usr/bin/env python3
"""Writes a synthetic object-detection dataset for scripts/bench/bench-detector-training.sh: COUNT JPEG pictures of
640 x 480 with one to three shapes (square, disc, triangle) of random colours and sizes (6-30 % of the width) on
noisy gradients, and Create ML's annotations.json (box centre, width and height in pixels). Seeded: the same
arguments give the same files; another SEED gives other pictures (a set to evaluate a model on). For timing, not
for accuracy claims.

Usage: .venv/bin/python3 scripts/bench/make-detector-bench.py FOLDER [COUNT] [SEED]   (default 300, seed 27)
"""
import json
import os
import random
import sys

from PIL import Image, ImageDraw


def picture(generator, width=640, height=480):
    top = [generator.randrange(60, 200) for _ in range(3)]
    bottom = [generator.randrange(60, 200) for _ in range(3)]
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    for y in range(height):
        mix = y / (height - 1)
        row = [int(a + (b - a) * mix) for a, b in zip(top, bottom)]
        for x in range(width):
            noise = generator.randrange(-20, 21)
            pixels[x, y] = tuple(max(0, min(255, value + noise)) for value in row)
    draw = ImageDraw.Draw(image)
    boxes = []
    for _ in range(generator.randrange(1, 4)):
        label = generator.choice(["square", "disc", "triangle"])
        side = int(width * generator.uniform(0.06, 0.30))
        left, upper = generator.randrange(0, width - side), generator.randrange(0, height - side)
        colour = tuple(generator.randrange(0, 256) for _ in range(3))
        corners = [left, upper, left + side, upper + side]
        if label == "square":
            draw.rectangle(corners, fill=colour)
        elif label == "disc":
            draw.ellipse(corners, fill=colour)
        else:
            draw.polygon([(left, upper + side), (left + side, upper + side), (left + side / 2, upper)], fill=colour)
        boxes.append({"label": label, "coordinates": {"x": left + (side + 1) / 2, "y": upper + (side + 1) / 2,
                                                      "width": side + 1, "height": side + 1}})
    return image, boxes


def main():
    if len(sys.argv) not in (2, 3, 4):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    folder = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) >= 3 else 300
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 27
    os.makedirs(folder, exist_ok=True)
    generator = random.Random(seed)
    entries = []
    for index in range(count):
        image, boxes = picture(generator)
        name = "picture-%04d.jpg" % index
        image.save(os.path.join(folder, name), quality=90)
        entries.append({"image": name, "annotations": boxes})
    with open(os.path.join(folder, "annotations.json"), "w") as handle:
        json.dump(entries, handle, indent=1)
    print(f"{folder}: {count} pictures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
