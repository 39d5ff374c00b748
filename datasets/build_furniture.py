#!/usr/bin/env python3
"""Build an easy dataset of photo-like renderings in Create ML's layout from Debian's sweethome3d-furniture.

Sweet Home 3D's additional furniture libraries (`*.sh3f`, zip files: Scopia, BlendSwap CC-0 and CC-BY, KatorLegaz,
Reallusion; free licences, see the package's copyright file) hold, for every 3D model, a 128 × 128 icon rendered
from the model with shading and texture on a transparent background: an object seen as a photograph would show it.
Meant to be **easy** for ImageNet features (chairs, tables, sofas, beds, lamps, cars, people, doors and plants are
all close to ImageNet's classes), the counterpart of the hard icon sets of build_icons.py.

Labels come from each model's English name and catalog category (`PluginFurnitureCatalog.properties`), by the
rules in `label_of` below, fixed before any training: 10 labels (Bed, Cabinet, Chair, Door or window, Light,
Person, Plant, Sofa, Table, Vehicle); models that fit none (cups, radiators, bathtubs...) are left out. Icons are
taken in sorted (library, icon path) order; exact duplicates and near-duplicates (the check of build_icons.py:
32 × 32 thumbnails on white with fewer than 5 pixels differing by more than 64 of 255) are dropped, so no near-copy
sits on both sides of the split; every 5th remaining icon of a label goes to testing, the rest to training. Icons
keep their transparency (Workbench composites it onto white).

Usage: .venv/bin/python3 datasets/build_furniture.py [--out DIR]      (default: datasets/furniture)
"""
import argparse
import hashlib
import io
import pathlib
import re
import zipfile

from build_icons import NEAR_DUPLICATE, thumbnail
from dataset_tools import DatasetWriter, debian_package_root

RECIPE = "furniture sweethome3d-furniture v1"
TEST_EVERY = 5


def label_of(name: str, category: str):
    """The label of one catalog entry from its English name and category; None when it fits no label."""
    lowered = name.lower()
    by_category = {"Vehicles": "Vehicle", "Lights": "Light", "Doors and windows": "Door or window"}
    if category in by_category:
        return by_category[category]
    if category == "Characters":  # people; the animals among the characters are left out
        return "Person" if re.search(r"male|female|boy|girl|mannequin", lowered) else None
    if re.search(r"\b(sofa|couch)", lowered):
        return "Sofa"
    if re.search(r"(?<!wheel)chair|stool", lowered):
        return "Chair"
    if re.search(r"pool|football|tennis", lowered):  # game tables are not tables to sit at
        return None
    if re.search(r"\b(table|desk)$", lowered):
        return "Table"
    if re.search(r"\bbed\b", lowered):
        return "Bed"
    if re.search(r"cabinet|wardrobe|dresser|bookcase|shelves", lowered):
        return "Cabinet"
    if re.search(r"plant|tree|flower", lowered):
        return "Plant"
    return None


def catalog_entries(library: pathlib.Path):
    """(name, category, icon path inside the zip) of every model in one furniture library."""
    with zipfile.ZipFile(library) as archive:
        text = archive.read("PluginFurnitureCatalog.properties").decode("latin-1")
    entries = {}
    for line in text.splitlines():
        match = re.fullmatch(r"(name|category|icon)#(\d+)=(.*)", line.strip())
        if match:
            entries.setdefault(int(match.group(2)), {})[match.group(1)] = match.group(3).strip()
    for _, entry in sorted(entries.items()):
        if {"name", "category", "icon"} <= entry.keys():
            yield entry["name"], entry["category"], entry["icon"].lstrip("/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "furniture")
    arguments = parser.parse_args()
    writer = DatasetWriter(arguments.out, RECIPE)
    if not writer.is_complete():
        import numpy
        from PIL import Image
        root = debian_package_root("sweethome3d-furniture") / "usr/share/sweethome3d/furniture"
        candidates = []
        for library in sorted(root.glob("*.sh3f")):
            with zipfile.ZipFile(library) as archive:
                for name, category, icon in catalog_entries(library):
                    label = label_of(name, category)
                    if label is None or icon not in archive.namelist():
                        continue
                    image = Image.open(io.BytesIO(archive.read(icon))).convert("RGBA")
                    if image.getchannel("A").getbbox() is None:
                        continue
                    candidates.append((label, library.stem, icon, image))
        candidates.sort(key=lambda entry: (entry[0], entry[1], entry[2]))
        writer.start()
        seen, kept, index_of_label = set(), [], {}
        for label, library, icon, image in candidates:
            fingerprint = hashlib.sha256(image.tobytes() + repr(image.size).encode()).hexdigest()
            small = thumbnail(image)
            if fingerprint in seen or any(int((numpy.abs(small - other).max(axis=2) > 64).sum()) < NEAR_DUPLICATE
                                          for other in kept):
                continue
            seen.add(fingerprint)
            kept.append(small)
            index = index_of_label.get(label, 0)
            index_of_label[label] = index + 1
            split = "Testing Data" if index % TEST_EVERY == TEST_EVERY - 1 else "Training Data"
            writer.add(image, split, label, f"{index + 1:03d}-{library}-{pathlib.Path(icon).stem}"[:80])
        writer.finish()
    print(arguments.out)


if __name__ == "__main__":
    main()
