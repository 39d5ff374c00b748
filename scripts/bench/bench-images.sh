#!/usr/bin/env bash
# Prints the folder of benchmark images, making it on first use: the distinct photos and artworks of 1 to 15
# megapixels in Debian's plasma-workspace-wallpapers and ukui-wallpapers (downloaded and unpacked, not installed;
# PNG artworks saved as JPEG) plus the sample dataset re-encoded as JPEG.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python3 ] || scripts/setup.sh >&2
work=.build/bench
images="$work/images"
if [ ! -f "$images/.complete" ]; then
    rm -rf "$images" "$work/debs" && mkdir -p "$images" "$work/debs"
    # apt-get prints its progress on stdout; this script's stdout is the folder's name alone.
    (cd "$work/debs" && apt-get download plasma-workspace-wallpapers ukui-wallpapers >&2 2>/dev/null)
    for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/debs/unpacked"; done
    .venv/bin/python3 datasets/build_clipart.py >/dev/null
    .venv/bin/python3 - "$images" "$work/debs/unpacked" <<'PY'
import hashlib, pathlib, shutil, sys
from PIL import Image
out, unpacked = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# The wallpapers: each distinct photo once (the packages link one file under several resolution names), at least
# one megapixel (the thumbnails are left out); PNG artworks are saved as JPEG, quality 92.
seen = set()
for path in sorted(p for p in unpacked.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png") and p.is_file()):
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    if digest in seen:
        continue
    seen.add(digest)
    with Image.open(path) as image:
        if image.width * image.height < 1_000_000:
            continue
        if path.suffix.lower() == ".png":
            image.convert("RGB").save(out / f"wallpaper-{digest}.jpg", quality=92)
        else:
            shutil.copyfile(path, out / f"wallpaper-{digest}.jpg")
for index, path in enumerate(sorted(pathlib.Path("datasets/drawings").rglob("*.png"))):
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image)
    image.convert("RGB").save(out / f"drawing-{index:04d}.jpg", quality=90)
PY
    touch "$images/.complete"
fi
echo "$images"
