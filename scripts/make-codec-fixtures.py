#!/usr/bin/env python3
"""Generates the ImageCodecs test fixtures and their expected results.

Writes small images with known pixel patterns into Tests/ImageCodecsTests/Fixtures/, the expected decoded pixels
(raw interleaved RGB, `<name>.rgb`, or Pillow output saved as PNG), and `manifest.json`, which the Swift tests
read case by case. Expected values come from numpy arithmetic on the known source values or from Pillow, never
from the Swift code under test.

PNG fixtures are written by the small PNG encoder below (zlib + struct), because Pillow cannot write 2- and 4-bit
gray, gray with tRNS or chosen palette depths; each one is read back with Pillow as a check of the encoder.
The YCCK JPEG is written by codec-fixtures/ycck_writer.c (compiled here against libjpeg), because Pillow only
writes CMYK JPEGs, never YCCK.

Usage: .venv/bin/python3 scripts/make-codec-fixtures.py   (needs numpy, Pillow, cc and libjpeg-dev)
"""
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
from PIL import Image, ImageOps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "ImageCodecsTests", "Fixtures")
HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def path(name):
    return os.path.join(OUT, name)


def save_raw(name, rgb):
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    assert rgb.ndim == 3 and rgb.shape[2] == 3
    with open(path(name), "wb") as f:
        f.write(rgb.tobytes())


def expect_pixels(file, rgb, tolerance, note, **options):
    expected = file.rsplit(".", 1)[0] + ".expected.rgb"
    save_raw(expected, rgb)
    cases.append({"file": file, "width": int(rgb.shape[1]), "height": int(rgb.shape[0]),
                  "expected": expected, "tolerance": tolerance, "note": note, "options": options})


def expect_error(file, reason_prefix, note):
    cases.append({"file": file, "error": reason_prefix, "note": note})


# ---------------------------------------------------------------- PNG encoder

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def pack_rows(samples, depth):
    """samples: [H, W, C] integers -> list of packed scanlines (without filter byte)."""
    rows = []
    for row in samples:
        flat = row.reshape(-1).astype(np.int64)
        if depth == 16:
            rows.append(flat.astype(">u2").tobytes())
        elif depth == 8:
            rows.append(flat.astype(np.uint8).tobytes())
        else:
            per_byte = 8 // depth
            padded = np.zeros(-(-len(flat) // per_byte) * per_byte, dtype=np.int64)
            padded[:len(flat)] = flat
            groups = padded.reshape(-1, per_byte)
            shifts = np.array([8 - depth * (i + 1) for i in range(per_byte)])
            rows.append((groups << shifts).sum(axis=1).astype(np.uint8).tobytes())
    return rows


def png_bytes(samples, depth, color_type, palette=None, trns=None, interlace=False):
    height, width = samples.shape[:2]
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type,
                                                            0, 0, 1 if interlace else 0))
    if palette is not None:
        out += chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    raw = b""
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        sub = samples[y0::dy, x0::dx]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        for row in pack_rows(sub, depth):
            raw += b"\x00" + row
    out += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return out


def to8(values, depth):
    values = np.asarray(values, dtype=np.int64)
    if depth == 16:
        return values >> 8
    return values * 255 // ((1 << depth) - 1)


def over_white(rgb, alpha):
    rgb = rgb.astype(np.int64)
    alpha = alpha.astype(np.int64)[..., None]
    return ((rgb * alpha + 255 * (255 - alpha) + 127) // 255).astype(np.uint8)


def check_with_pillow(data, rgba, name):
    """The encoder's output must read back in Pillow as the RGBA we expect (8-bit cases)."""
    image = Image.open(io.BytesIO(data))
    got = np.array(image.convert("RGBA")).astype(np.int64)
    if not np.array_equal(got, rgba):
        sys.exit(f"PNG encoder check failed for {name}: Pillow reads different pixels")


def png_case(name, samples, depth, color_type, expected_rgb, expected_alpha, note, palette=None, trns=None,
             interlace=False, pillow_check=True):
    data = png_bytes(samples, depth, color_type, palette, trns, interlace)
    if pillow_check:
        check_with_pillow(data, np.dstack([expected_rgb, expected_alpha]).astype(np.int64), name)
    with open(path(name), "wb") as f:
        f.write(data)
    expect_pixels(name, over_white(expected_rgb, expected_alpha), 0, note, minimumCropSide=None)
    return data


def make_pngs(rng):
    h, w = 23, 37
    for depth in (1, 2, 4, 8, 16):
        gray = rng.integers(0, 1 << depth, size=(h, w, 1))
        g8 = to8(gray[..., 0], depth)
        png_case(f"png_gray{depth}.png", gray, depth, 0, np.dstack([g8] * 3), np.full((h, w), 255),
                 f"{depth}-bit gray", pillow_check=depth < 16)
    # Gray with a tRNS key colour: matching pixels are transparent, so white.
    gray = rng.integers(0, 4, size=(h, w, 1))
    g8 = to8(gray[..., 0], 2)
    png_case("png_gray2_trns.png", gray, 2, 0, np.dstack([g8] * 3), np.where(gray[..., 0] == 1, 0, 255),
             "2-bit gray with tRNS key 1", trns=struct.pack(">H", 1),
             pillow_check=False)  # Pillow compares the key with the scaled 8-bit value, so it cannot check this
    for depth in (8, 16):
        ga = rng.integers(0, 1 << depth, size=(h, w, 2))
        g8 = to8(ga[..., 0], depth)
        png_case(f"png_gray_alpha{depth}.png", ga, depth, 4, np.dstack([g8] * 3), to8(ga[..., 1], depth),
                 f"{depth}-bit gray+alpha", pillow_check=depth < 16)
        rgb = rng.integers(0, 1 << depth, size=(h, w, 3))
        png_case(f"png_rgb{depth}.png", rgb, depth, 2, to8(rgb, depth), np.full((h, w), 255),
                 f"{depth}-bit RGB", pillow_check=depth < 16)
        rgba = rng.integers(0, 1 << depth, size=(h, w, 4))
        png_case(f"png_rgba{depth}.png", rgba, depth, 6, to8(rgba[..., :3], depth), to8(rgba[..., 3], depth),
                 f"{depth}-bit RGBA", pillow_check=depth < 16)
    for depth in (1, 2, 4, 8):
        entries = 1 << depth
        palette = rng.integers(0, 256, size=(entries, 3))
        alphas = rng.integers(0, 256, size=max(entries - 1, 1))  # shorter than the palette: last entry opaque
        alphas[0] = 0
        index = rng.integers(0, entries, size=(h, w, 1))
        alpha_of = np.concatenate([alphas, np.full(entries - len(alphas), 255)])
        png_case(f"png_palette{depth}_trns.png", index, depth, 3, palette[index[..., 0]], alpha_of[index[..., 0]],
                 f"{depth}-bit palette with tRNS", palette=palette, trns=bytes(alphas.astype(np.uint8)))
    rgb = rng.integers(0, 256, size=(h, w, 3))
    png_case("png_rgb8_interlaced.png", rgb, 8, 2, rgb, np.full((h, w), 255), "Adam7 interlaced RGB",
             interlace=True)
    rgba = rng.integers(0, 1 << 16, size=(h, w, 4))
    png_case("png_rgba16_interlaced.png", rgba, 16, 6, to8(rgba[..., :3], 16), to8(rgba[..., 3], 16),
             "Adam7 interlaced 16-bit RGBA", interlace=True, pillow_check=False)
    palette = rng.integers(0, 256, size=(4, 3))
    index = rng.integers(0, 4, size=(h, w, 1))
    png_case("png_palette2_interlaced.png", index, 2, 3, palette[index[..., 0]], np.full((h, w), 255),
             "Adam7 interlaced 2-bit palette", palette=palette, interlace=True)

    # Clip art: black strokes drawn on fully transparent black; the background must come out white.
    art = np.zeros((32, 32, 4), dtype=np.int64)
    art[8, :, 3] = 255
    art[:, 20, 3] = 255
    art[4:28, 4:6, 3] = 128
    png_case("png_clipart.png", art, 8, 6, art[..., :3], art[..., 3], "black lines on transparent")

    # Truncated: a noisy image cut inside IDAT.
    noisy = png_bytes(rng.integers(0, 256, size=(64, 64, 3)), 8, 2)
    with open(path("png_truncated.png"), "wb") as f:
        f.write(noisy[:len(noisy) * 6 // 10])
    expect_error("png_truncated.png", "truncated or corrupt PNG data", "cut at 60% of its bytes")

    # Header claims 100000×100000; valid CRCs and a tiny IDAT so only the pixel limit can refuse it.
    huge = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))
    with open(path("png_huge_header.png"), "wb") as f:
        f.write(huge)
    expect_error("png_huge_header.png",
                 "image is 100000×100000 (10000 megapixels), over the limit of 300 megapixels",
                 "IHDR claims 10^10 pixels")

    # A PNG named .jpg must decode as PNG (magic bytes decide).
    rgb = rng.integers(0, 256, size=(9, 11, 3))
    with open(path("png_named.jpg"), "wb") as f:
        f.write(png_bytes(rgb, 8, 2))
    expect_pixels("png_named.jpg", rgb, 0, "PNG bytes behind a .jpg name", minimumCropSide=None)


# ---------------------------------------------------------------- JPEG

def quadrants(size=48):
    image = np.zeros((size, size, 3), dtype=np.uint8)
    half = size // 2
    image[:half, :half] = (220, 40, 30)
    image[:half, half:] = (30, 200, 60)
    image[half:, :half] = (40, 60, 210)
    image[half:, half:] = (240, 230, 50)
    return image


def pillow_rgb(file):
    return np.array(Image.open(path(file)).convert("RGB"))


def cmyk_to_rgb(cmyk):
    """Ink amounts (Pillow's CMYK) to RGB by the naive subtractive mix the decoder documents."""
    cmyk = cmyk.astype(np.int64)
    k = 255 - cmyk[..., 3:4]
    return (((255 - cmyk[..., :3]) * k + 127) // 255).astype(np.uint8)


def make_jpegs(rng):
    # JPEG goldens are Pillow's own decode (libjpeg-turbo, same islow IDCT and fancy upsampling); tolerance 2
    # leaves room for a different libjpeg-turbo version's rounding.
    base = Image.fromarray(quadrants())
    base.save(path("jpeg_baseline.jpg"), quality=92)
    expect_pixels("jpeg_baseline.jpg", pillow_rgb("jpeg_baseline.jpg"), 2, "baseline 4:2:0", minimumCropSide=None)
    base.save(path("jpeg_progressive.jpg"), quality=92, progressive=True)
    expect_pixels("jpeg_progressive.jpg", pillow_rgb("jpeg_progressive.jpg"), 2, "progressive",
                  minimumCropSide=None)
    base.convert("L").save(path("jpeg_gray.jpg"), quality=92)
    expect_pixels("jpeg_gray.jpg", pillow_rgb("jpeg_gray.jpg"), 2, "grayscale", minimumCropSide=None)

    ink = np.zeros((48, 48, 4), dtype=np.uint8)
    ink[:24, :24] = (255, 0, 0, 0)      # cyan
    ink[:24, 24:] = (0, 200, 255, 0)    # red-orange
    ink[24:, :24] = (0, 0, 0, 128)      # mid grey
    ink[24:, 24:] = (60, 0, 200, 30)
    Image.fromarray(ink, "CMYK").save(path("jpeg_cmyk.jpg"), quality=95)
    decoded_ink = np.array(Image.open(path("jpeg_cmyk.jpg")))
    expect_pixels("jpeg_cmyk.jpg", cmyk_to_rgb(decoded_ink), 2, "Adobe CMYK (Pillow writes inverted)",
                  minimumCropSide=None)

    with tempfile.TemporaryDirectory() as scratch:
        writer = os.path.join(scratch, "ycck_writer")
        subprocess.run(["cc", "-O1", "-o", writer, os.path.join(HERE, "codec-fixtures", "ycck_writer.c"), "-ljpeg"],
                       check=True)
        raw = os.path.join(scratch, "ink.cmyk")
        with open(raw, "wb") as f:
            f.write((255 - ink).tobytes())  # Adobe convention: stored = 255 - ink
        subprocess.run([writer, "48", "48", raw, path("jpeg_ycck.jpg")], check=True)
    ycck = Image.open(path("jpeg_ycck.jpg"))
    assert ycck.mode == "CMYK"
    expect_pixels("jpeg_ycck.jpg", cmyk_to_rgb(np.array(ycck)), 2, "Adobe YCCK written by libjpeg",
                  minimumCropSide=None)

    # EXIF orientation: distinct corners on a 48×32 image so rotations and flips are all told apart.
    corners = np.full((32, 48, 3), 128, dtype=np.uint8)
    corners[:16, :16] = (255, 0, 0)
    corners[:16, 32:] = (0, 255, 0)
    corners[16:, :16] = (0, 0, 255)
    corners[16:, 32:] = (255, 255, 0)
    for orientation in (3, 6, 8):
        exif = Image.Exif()
        exif[0x0112] = orientation
        name = f"jpeg_exif{orientation}.jpg"
        Image.fromarray(corners).save(path(name), quality=95, exif=exif.tobytes())
        upright = np.array(ImageOps.exif_transpose(Image.open(path(name))).convert("RGB"))
        expect_pixels(name, upright, 2, f"EXIF orientation {orientation}", minimumCropSide=None)
    name = "jpeg_exif6.jpg"
    cases.append({"file": name, "width": 48, "height": 32, "expected": None, "tolerance": 2,
                  "note": "orientation ignored when asked", "options": {"minimumCropSide": None,
                                                                         "appliesEXIFOrientation": False}})

    # Truncated baseline: cut inside the entropy-coded data.
    noisy = Image.fromarray(rng.integers(0, 256, size=(64, 64, 3), dtype=np.uint8))
    buffer = io.BytesIO()
    noisy.save(buffer, format="JPEG", quality=90)
    data = buffer.getvalue()
    with open(path("jpeg_truncated.jpg"), "wb") as f:
        f.write(data[:len(data) * 6 // 10])
    expect_error("jpeg_truncated.jpg", "truncated or corrupt JPEG data", "cut at 60% of its bytes")

    # Large but tiny on disk: flat gray 4000×3000, Huffman-optimised. DCT scaling must pick 2/8 (1000×750).
    Image.new("L", (4000, 3000), 90).save(path("jpeg_large_4000x3000.jpg"), quality=50, optimize=True)
    cases.append({"file": "jpeg_large_4000x3000.jpg", "width": 1000, "height": 750, "expected": None,
                  "tolerance": 2, "note": "DCT scale 2/8 keeps crop side 656 >= 448", "options": {},
                  "uniform": [90, 90, 90]})


def make_misc():
    open(path("empty.jpg"), "wb").close()
    expect_error("empty.jpg", "empty file", "zero bytes")
    with open(path("text.jpg"), "w") as f:
        f.write("This is not a picture, just text with a .jpg name.\n")
    expect_error("text.jpg", "not a JPEG or PNG image", "text behind a .jpg name")


# ---------------------------------------------------------------- resize goldens

def pattern(width, height):
    """Integer-only test pattern, reproduced exactly by the Swift tests: gradients plus hard-edged blocks."""
    y, x = np.mgrid[0:height, 0:width]
    red = x * 255 // (width - 1)
    green = y * 255 // (height - 1)
    blue = np.where(((x // 37) + (y // 23)) % 2 == 0, 230, 20)
    return np.dstack([red, green, blue]).astype(np.uint8)


def make_resize_goldens():
    for width, height in ((1000, 700), (300, 200)):
        image = Image.fromarray(pattern(width, height))
        side = int(224 / 256 * min(width, height))
        top = ((height - side) + 1) // 2
        left = ((width - side) + 1) // 2
        resized = image.crop((left, top, left + side, top + side)).resize((224, 224), Image.BICUBIC)
        resized.save(path(f"resize_pattern_{width}x{height}.expected.png"), optimize=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20240531)
    make_pngs(rng)
    make_jpegs(rng)
    make_misc()
    make_resize_goldens()
    with open(path("manifest.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(path(n)) for n in os.listdir(OUT) if os.path.isfile(path(n)))
    print(f"wrote {len(cases)} cases, {total // 1024} KB in {OUT}")


if __name__ == "__main__":
    main()
