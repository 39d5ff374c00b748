#!/usr/bin/env python3
"""Write a testing folder of COUNT labelled images for timing the HTML report: variants of a Create ML dataset's
own pictures (mirrored, cropped, turned, tinted, greyed), spread evenly over its labels.

    .venv/bin/python3 scripts/bench/make-report-bench.py DATASET OUT [--count 1000] [--rotate-labels]

DATASET holds "Training Data/" and "Testing Data/" with one folder per label (datasets/drawings). OUT receives one
folder per label. Deterministic: the same inputs give the same files. --rotate-labels files each label's pictures
under the next label, so nearly every image is a mistake: the worst case for the page's gallery.
"""
import argparse
import pathlib

from PIL import Image, ImageEnhance, ImageOps


def variant(image: Image.Image, index: int) -> Image.Image:
    """The index-th change of a picture: enough variety that the model gets a fair share wrong."""
    if image.mode in ("RGBA", "LA", "P"):
        # Transparent clip art on white, as Workbench sees it (a plain RGB conversion would make it black).
        image = image.convert("RGBA")
        canvas = Image.new("RGB", image.size, (255, 255, 255))
        canvas.paste(image, mask=image.getchannel("A"))
        image = canvas
    image = image.convert("RGB")
    width, height = image.size
    fraction = 0.7 + 0.05 * (index % 6)
    left = (index * 29) % max(1, int(width * (1 - fraction)) + 1)
    top = (index * 17) % max(1, int(height * (1 - fraction)) + 1)
    image = image.crop((left, top, left + int(width * fraction), top + int(height * fraction)))
    if index % 2:
        image = ImageOps.mirror(image)
    if index % 3 == 1:
        image = image.rotate(12 * (1 if index % 4 else -1), expand=True, fillcolor=(255, 255, 255))
    if index % 5 == 2:
        image = ImageOps.grayscale(image).convert("RGB")
    return ImageEnhance.Color(image).enhance(0.5 + 0.2 * (index % 5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rotate-labels", action="store_true")
    arguments = parser.parse_args()
    labels = sorted(folder.name for folder in (arguments.dataset / "Training Data").iterdir() if folder.is_dir())
    for position, label in enumerate(labels):
        sources = sorted(path for split in ("Training Data", "Testing Data")
                         for path in (arguments.dataset / split / label).glob("*.png"))
        wanted = arguments.count // len(labels) + (1 if position < arguments.count % len(labels) else 0)
        folder = arguments.out / (labels[(position + 1) % len(labels)] if arguments.rotate_labels else label)
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(wanted):
            source = sources[index % len(sources)]
            picture = variant(Image.open(source), index // len(sources) + index)
            picture.save(folder / f"{index + 1:04d}-{source.stem}.jpg", quality=85)
    print(arguments.out)


if __name__ == "__main__":
    main()
