#!/usr/bin/env python3
"""Build a small dataset of photographs in Create ML's layout from Debian's tuxpaint-stamps-default.

Tux Paint's stamps are photographs cut out onto a transparent background (animals, food, plants, household
objects), public domain or freely licensed (see the package's copyright file). Drawn stamps (the `cartoon`
folders) and SVG files are left out, so every image is a photo. Files are taken in sorted path order, exact
duplicates dropped; every 5th image of a label goes to testing, the rest to training. Images keep their
transparency (Workbench composites it onto white) and are at most 512 px on the longer side.

Usage: .venv/bin/python3 datasets/build_photos.py [--out DIR]      (default: datasets/photos)
"""
import argparse
import hashlib
import pathlib

from dataset_tools import DatasetWriter, debian_package_root

# label -> folders (relative to the stamps root) whose photos form that label
LABELS = {
    "Mammal": ["animals/mammals", "animals/marsupials"],
    "Bird": ["animals/birds"],
    "Fish and insect": ["animals/fish", "animals/shellfish", "animals/insects", "animals/amphibians", "animals/lizards"],
    "Fruit and vegetable": ["food/fruit", "food/vegetables", "food/nuts"],
    "Plant": ["plants"],
    "Household object": ["household"],
}
RECIPE = "photos tuxpaint-stamps-default v1"
MAX_SIDE = 512
TEST_EVERY = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "photos")
    arguments = parser.parse_args()
    writer = DatasetWriter(arguments.out, RECIPE)
    if not writer.is_complete():
        from PIL import Image
        stamps = debian_package_root("tuxpaint-stamps-default") / "usr/share/tuxpaint/stamps"
        writer.start()
        seen = set()
        for label, folders in LABELS.items():
            sources = sorted(path for folder in folders if (stamps / folder).is_dir()
                             for path in (stamps / folder).rglob("*.png") if "cartoon" not in path.parts)
            index = 0
            for source in sources:
                image = Image.open(source).convert("RGBA")
                fingerprint = hashlib.sha256(image.tobytes() + repr(image.size).encode()).hexdigest()
                if fingerprint in seen:
                    continue
                seen.add(fingerprint)
                image.thumbnail((MAX_SIDE, MAX_SIDE), Image.LANCZOS)
                split = "Testing Data" if index % TEST_EVERY == TEST_EVERY - 1 else "Training Data"
                writer.add(image, split, label, f"{index + 1:03d}-{source.stem}")
                index += 1
        writer.finish()
    print(arguments.out)


if __name__ == "__main__":
    main()
