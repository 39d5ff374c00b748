#!/usr/bin/env python3
"""Write the raw network inputs the ModelsTests read until ImageCodecs can decode PNGs itself.

Usage: python3 scripts/make-model-fixtures.py [FIXTURES_DIR]

For each `NAME_224.png` in Tests/ModelsTests/Fixtures (copied from the EfficientNet-Lite0 reference), decodes it
with Pillow to RGB uint8 and writes `NAME_224.rgb`: 224 * 224 * 3 bytes, rows top to bottom, pixels R, G, B
interleaved. Pillow is the independent decoder here, so the golden test does not depend on our own PNG code.
"""
import os
import sys

from PIL import Image

SIDE = 224


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    folder = argv[1] if len(argv) > 1 else os.path.join(here, "..", "Tests", "ModelsTests", "Fixtures")
    for name in ("chelsea", "coffee"):
        source = os.path.join(folder, f"{name}_224.png")
        image = Image.open(source).convert("RGB")
        if image.size != (SIDE, SIDE):
            print(f"{source}: expected {SIDE}x{SIDE}, found {image.size[0]}x{image.size[1]}", file=sys.stderr)
            return 1
        data = image.tobytes()
        assert len(data) == SIDE * SIDE * 3
        destination = os.path.join(folder, f"{name}_224.rgb")
        temporary = destination + ".tmp"
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, destination)
        print(f"wrote {destination}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
