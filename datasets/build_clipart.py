#!/usr/bin/env python3
"""Build a small image-classification dataset in Create ML's layout from Debian's openclipart-png.

    datasets/<name>/Training Data/<label>/*.png
    datasets/<name>/Testing Data/<label>/*.png

The clip art is public domain. Files are taken in sorted path order, duplicates dropped, at most --per-label per label; every 5th
file goes to testing, the rest to training, so the split is deterministic. Images are downscaled so the longer
side is at most 512 px (transparency kept: Workbench composites it onto white). Re-running with the same
arguments rebuilds nothing that is already complete.

Usage: .venv/bin/python3 datasets/build_clipart.py [--recipe drawings|objects|large] [--per-label N] [--out DIR]
"""
import argparse
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

# Recipes: label -> folders (relative to openclipart's png root) whose images form that label.
RECIPES = {
    "drawings": {
        "Bird": ["animals/birds"],
        "Bug": ["animals/bugs"],
        "Dessert": ["food/desserts"],
        "Fruit": ["food/fruit"],
        "Mammal": ["animals/mammals"],
        "Vehicle": ["transportation/vehicles"],
    },
    # A second, independent real dataset for checking accuracy against a reference pipeline.
    "objects": {
        "Beverage": ["food/beverages"],
        "Boat": ["transportation/boating"],
        "Flower": ["plants/flowers"],
        "Road sign": ["transportation/roadsigns"],
        "Meat and eggs": ["food/meats_and_eggs"],
        "Bread": ["food/breads_and_carbs"],
    },
    # A thousand images (with --per-label 100) for timing training at the size the issues measure.
    "large": {
        "Animal": ["animals"],
        "Computer": ["computer"],
        "Food": ["food"],
        "Office": ["office"],
        "People": ["people"],
        "Recreation": ["recreation"],
        "Shape": ["shapes"],
        "Sign": ["signs_and_symbols"],
        "Tool": ["tools"],
        "Transportation": ["transportation"],
    },
}
MAX_SIDE = 512
TEST_EVERY = 5


def clipart_root(cache: pathlib.Path) -> pathlib.Path:
    """Openclipart's PNG folder: the installed package's, or the .deb unpacked into the cache (no install needed)."""
    installed = pathlib.Path("/usr/share/openclipart/png")
    if installed.is_dir():
        return installed
    unpacked = cache / "openclipart-png" / "usr/share/openclipart/png"
    if not unpacked.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as work:
            print("datasets: downloading Debian's openclipart-png (130 MB)", file=sys.stderr)
            # apt warns that root downloads unsandboxed; only a failure is worth showing.
            download = subprocess.run(["apt-get", "download", "openclipart-png"], cwd=work, capture_output=True, text=True)
            if download.returncode != 0:
                sys.exit(f"datasets: apt-get download openclipart-png failed: {download.stderr.strip()}")
            deb = next(pathlib.Path(work).glob("openclipart-png_*.deb"))
            target = cache / "openclipart-png.partial"
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run(["dpkg", "-x", str(deb), str(target)], check=True)
            os.replace(target, cache / "openclipart-png")
    return unpacked


def downscaled(source: pathlib.Path):
    from PIL import Image
    Image.MAX_IMAGE_PIXELS = None  # openclipart holds a few 168-megapixel drawings; we shrink them right away
    image = Image.open(source)
    image = image.convert("RGBA") if ("A" in image.getbands() or "transparency" in image.info) else image.convert("RGB")
    scale = MAX_SIDE / max(image.size)
    if scale < 1:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.LANCZOS)
    return image


def build(recipe: str, per_label: int, out: pathlib.Path, cache: pathlib.Path) -> None:
    marker = out / ".complete"
    if marker.exists() and marker.read_text() == f"{recipe} {per_label} v2\n":
        return
    root = clipart_root(cache)
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    counts = {}
    seen = set()  # openclipart holds the same drawing under several names: keep one, or testing leaks into training
    for label, folders in RECIPES[recipe].items():
        index = 0
        for source in sorted(p for folder in folders for p in (root / folder).rglob("*.png")):
            if index == per_label:
                break
            image = downscaled(source)
            fingerprint = hashlib.sha256(image.tobytes() + repr(image.size).encode()).hexdigest()
            if fingerprint in seen:
                continue
            seen.add(fingerprint)
            split = "Testing Data" if index % TEST_EVERY == TEST_EVERY - 1 else "Training Data"
            destination = staging / split / label / f"{index + 1:03d}-{source.stem}.png"
            destination.parent.mkdir(parents=True, exist_ok=True)
            image.save(destination, optimize=False)
            counts[(label, split)] = counts.get((label, split), 0) + 1
            index += 1
        if index < 25:
            sys.exit(f"datasets: label {label} has only {index} distinct images in {folders}")
    (staging / ".complete").write_text(f"{recipe} {per_label} v2\n")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(staging, out)
    for label in RECIPES[recipe]:
        print(f"datasets: {label:14s} training {counts[(label, 'Training Data')]:3d}  testing {counts[(label, 'Testing Data')]:3d}",
              file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="drawings")
    parser.add_argument("--per-label", type=int, default=60)
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--cache", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / ".cache")
    arguments = parser.parse_args()
    out = arguments.out or pathlib.Path(__file__).resolve().parent / arguments.recipe
    build(arguments.recipe, arguments.per_label, out, arguments.cache)
    print(out)


if __name__ == "__main__":
    main()
