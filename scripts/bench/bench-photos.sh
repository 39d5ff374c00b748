#!/usr/bin/env bash
# Prints the folder of the end-to-end photo benchmark, making it on first use: at least 500 JPEG photos of 1 to 12
# megapixels. Debian's wallpaper packages hold about 55 distinct photos and artworks of that size, so each is used
# ten times: crops of different sizes and places (1 to 12 megapixels), re-encoded at JPEG quality 90, so every file
# is a real photo that has to be decoded on its own.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python3 ] || scripts/setup.sh >&2
images=$(scripts/bench/bench-images.sh)
photos=.build/bench/photos
if [ ! -f "$photos/.complete" ]; then
    rm -rf "$photos" && mkdir -p "$photos"
    .venv/bin/python3 - "$images" "$photos" <<'PY'
import pathlib, random, sys
from PIL import Image
Image.MAX_IMAGE_PIXELS = None
source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
generator = random.Random(2026)
for path in sorted(source.glob("wallpaper-*.jpg")):
    with Image.open(path) as image:
        image = image.convert("RGB")
        for variant in range(10):
            megapixels = generator.uniform(1.0, min(12.0, image.width * image.height / 1e6))
            aspect = image.width / image.height
            height = min(image.height, int((megapixels * 1e6 / aspect) ** 0.5))
            width = min(image.width, int(height * aspect))
            left = generator.randint(0, image.width - width)
            top = generator.randint(0, image.height - height)
            crop = image.crop((left, top, left + width, top + height))
            if variant % 2:
                crop = crop.transpose(Image.FLIP_LEFT_RIGHT)
            crop.save(out / f"{path.stem}-{variant}.jpg", quality=90)
PY
    touch "$photos/.complete"
fi
echo "$photos"
