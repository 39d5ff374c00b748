#!/usr/bin/env python3
"""Writes a tiny two-label dataset in Create ML's layout for end-to-end tests: crops, flips and tints of the
reference's cat (chelsea) and espresso (coffee) photos, made with Pillow. --labels renames the two labels (the
cat's first), for tests whose commands name other labels.

Usage: .venv/bin/python3 scripts/make_tiny_dataset.py FIXTURES_DIR OUT_DIR [--per-label N] [--labels CAT,ESPRESSO]
"""
import argparse
import pathlib

from PIL import Image, ImageEnhance, ImageOps


def variants(image, count):
    width, height = image.size
    for index in range(count):
        fraction = 0.7 + 0.05 * (index % 5)
        crop_width, crop_height = int(width * fraction), int(height * fraction)
        left = (index * 37) % max(1, width - crop_width)
        top = (index * 23) % max(1, height - crop_height)
        variant = image.crop((left, top, left + crop_width, top + crop_height))
        if index % 2:
            variant = ImageOps.mirror(variant)
        yield ImageEnhance.Color(variant).enhance(0.6 + 0.15 * (index % 4))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixtures", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--per-label", type=int, default=8)
    parser.add_argument("--labels", default="cat,espresso")
    arguments = parser.parse_args()
    names = arguments.labels.split(",")
    if len(names) != 2 or not all(names):
        parser.error("--labels takes two names separated by a comma")
    for label, source in zip(names, ("chelsea.png", "coffee.png")):
        image = Image.open(arguments.fixtures / source).convert("RGB")
        for index, variant in enumerate(variants(image, arguments.per_label)):
            split = "Testing Data" if index % 4 == 3 else "Training Data"
            folder = arguments.out / split / label
            folder.mkdir(parents=True, exist_ok=True)
            if index % 3 == 0:
                variant.save(folder / f"{index + 1}.jpg", quality=90)
            else:
                variant.save(folder / f"{index + 1}.png")


if __name__ == "__main__":
    main()
