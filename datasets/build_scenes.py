#!/usr/bin/env python3
"""Build an object-detection dataset in Create ML's layout: synthetic training scenes, real hand-labelled testing.

    <out>/Training Data/scene-0001.jpg ... + annotations.json     ("cut, paste and learn" scenes, seeded)
    <out>/Testing Data/<picture>.png|jpg ... + annotations.json   (real pictures, the boxes of a committed file)

Labels: `person` and `car` (passenger cars, vans and pickups; not buses, lorries or bikes). They are the two that
real pictures in Debian's and PyPI's packages show: people in opencv-doc's vtest.avi, darknet's and OpenCV's sample
photos and scikit-image's; cars parked in vtest.avi and in darknet's and OpenCV's photos (far fewer than people:
no package here ships street traffic).

**Training** follows Dwibedi et al. 2017, "Cut, Paste and Learn": objects with a transparent background are pasted
at random scales, positions and overlaps onto real photographs that show neither label, each with one of the
paper's blends (none: a hard alpha edge; Gaussian: a softened alpha edge; motion: the object and its alpha smeared
along a line), randomly flipped and tinted; unlabelled distractor objects are pasted the same way, so a detector
cannot learn "anything pasted is a person or a car". Objects: Sweet Home 3D's rendered people ("Characters") and
cars ("Vehicles" named as cars) from Debian's sweethome3d-furniture (128-px icons, see build_furniture.py), Tux
Paint's car and fireman photo stamps (tuxpaint-stamps-default); distractors: the other vehicles and furniture of
the same libraries and Tux Paint's animals, food and household stamps. Backgrounds: the photographs among Debian's
plasma-workspace-wallpapers, OpenCV's sample photos with nobody and no car in them, frames of opencv-doc's tree.avi,
darknet's animal photos and scikit-image's photos and textures. A box is the visible extent of its object's alpha
(alpha >= 0.5) after every later paste and the picture's edge: an object with less than 35 % of its pixels left
visible, or a visible extent under 8 px on a side, gets no box (it is still pasted, as clutter). Each image has its
own random generator seeded by (seed, index): image 7 is the same whatever the count.

**Testing** is built from `datasets/scenes-testing-boxes.json` (committed): each entry names a package's picture,
or a video and a timestamp (extracted with ffmpeg), and the boxes drawn by hand as pixel corners
[left, top, right, bottom]; the rule for what is labelled is in that file. This script converts them to Create
ML's centre-based coordinates.

Usage: .venv/bin/python3 datasets/build_scenes.py [--out DIR] [--count 300] [--seed 1] [--size 512]
       (default out: datasets/scenes; needs ffmpeg (set-up installs it); installs scikit-image 0.26.0 into
       .venv/ when missing and downloads the Debian packages named above, opencv-doc and darknet among them, into
       datasets/.cache without installing them)
"""
import argparse
import gzip
import io
import json
import math
import pathlib
import random
import re
import shutil
import subprocess
import sys
import zipfile

from build_furniture import catalog_entries, label_of
from dataset_tools import DatasetWriter, debian_package_root

RECIPE = "scenes cut-paste-learn v1"
HERE = pathlib.Path(__file__).resolve().parent
TESTING_BOXES = HERE / "scenes-testing-boxes.json"
OPENCV_DATA = "usr/share/doc/opencv-doc/examples/data"

MINIMUM_VISIBLE_FRACTION = 0.35  # less than this left visible (occluded or cut by the edge): no box
MINIMUM_BOX_SIDE = 8  # pixels; a smaller visible extent gets no box
ALPHA_THRESHOLD = 128  # an object's pixel counts as its own where alpha >= 0.5

# Sweet Home 3D "Vehicles" that are cars by the label's rule; everything else in that category is a distractor.
CAR_NAME = re.compile(r"ford|sedan|beetle|seat|peugeot|renault|suv|chevrolet|\bvan\b|smart car", re.IGNORECASE)
TUX_CARS = ["vehicles/auto/beetle.png", "vehicles/auto/sportscar2.png", "vehicles/auto/sedan.png",
            "vehicles/auto/truck.png"]  # truck.png is a pickup
TUX_PEOPLE = ["people/fireman240a.png", "people/fireman200b.png"]
TUX_DISTRACTOR_FOLDERS = ["animals", "food", "household", "plants", "sports", "hobbies"]

# Photographs among the KDE wallpapers (the others are drawings or abstract art), each with no person and no car.
WALLPAPER_PHOTOS = ["BytheWater", "ColdRipple", "ColorfulCups", "DarkestHour", "EveningGlow", "FallenLeaf", "Grey",
                    "Kite", "OneStandsOut", "Path", "Volna", "summer_1am"]
# OpenCV's sample photos without people or cars (building.jpg has a car behind its hedge, aero3.jpg tiny cars).
OPENCV_BACKGROUNDS = ["home.jpg", "aero1.jpg", "leuvenA.jpg", "leuvenB.jpg", "board.jpg", "stuff.jpg", "fruits.jpg",
                      "box_in_scene.png", "rubberwhale1.png"]
DARKNET_BACKGROUNDS = ["giraffe.jpg", "eagle.jpg", "horses.jpg"]
SKIMAGE_BACKGROUNDS = ["coffee", "chelsea", "rocket", "brick", "grass", "gravel"]
TREE_SECONDS = [3.0, 12.0, 24.0]
SCIKIT_IMAGE = "0.26.0"  # its bundled pictures are backgrounds and testing pictures; set-up does not install it


def ensure_scikit_image() -> None:
    """Installs the pinned scikit-image into this interpreter's environment (.venv/) when another or none is there."""
    import importlib.metadata
    try:
        installed = importlib.metadata.version("scikit-image")
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed != SCIKIT_IMAGE:
        print(f"datasets: installing scikit-image {SCIKIT_IMAGE} into {sys.prefix}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        f"scikit-image=={SCIKIT_IMAGE}"], check=True)


def opencv_file(name: str) -> pathlib.Path:
    """One of opencv-doc's sample files; some Debian versions ship the videos gzipped, unpacked here to the cache."""
    root = debian_package_root("opencv-doc") / OPENCV_DATA
    if (root / name).exists():
        return root / name
    unpacked = HERE / ".cache" / "opencv-doc-unpacked" / name
    if not unpacked.exists():
        unpacked.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(root / (name + ".gz")) as source, open(unpacked.with_suffix(".partial"), "wb") as target:
            shutil.copyfileobj(source, target)
        unpacked.with_suffix(".partial").replace(unpacked)
    return unpacked


def video_frame(video: pathlib.Path, seconds: float):
    """The frame shown at `seconds` (ffmpeg's accurate seek), as a Pillow RGB image."""
    from PIL import Image
    result = subprocess.run(["ffmpeg", "-v", "error", "-ss", f"{seconds:.3f}", "-i", str(video), "-frames:v", "1",
                             "-f", "image2pipe", "-c:v", "png", "-"], capture_output=True)
    if result.returncode != 0 or not result.stdout:
        sys.exit(f"datasets: ffmpeg could not read {video} at {seconds} s: {result.stderr.decode().strip()}")
    return Image.open(io.BytesIO(result.stdout)).convert("RGB")


def trimmed(image):
    """An RGBA image cut to its alpha's extent (icons carry empty margins)."""
    image = image.convert("RGBA")
    box = image.getchannel("A").point(lambda value: 255 if value >= ALPHA_THRESHOLD else 0).getbbox()
    return image.crop(box) if box else None


def cutouts():
    """(label or None, name, RGBA image) of every object to paste; None marks a distractor."""
    from PIL import Image
    objects = []
    furniture = debian_package_root("sweethome3d-furniture") / "usr/share/sweethome3d/furniture"
    for library in sorted(furniture.glob("*.sh3f")):
        with zipfile.ZipFile(library) as archive:
            names = set(archive.namelist())
            for index, (name, category, icon) in enumerate(catalog_entries(library)):
                if icon not in names:
                    continue
                furniture_label = label_of(name, category)
                if furniture_label == "Person":
                    label = "person"
                elif category == "Vehicles" and CAR_NAME.search(name):
                    label = "car"
                elif category == "Characters":
                    continue  # the animals among the characters: neither a label nor a safe distractor
                else:
                    label = None
                image = trimmed(Image.open(io.BytesIO(archive.read(icon))))
                if image is not None:
                    objects.append((label, f"{library.stem}/{index}-{name}", image))
    stamps = debian_package_root("tuxpaint-stamps-default") / "usr/share/tuxpaint/stamps"
    for label, paths in (("car", TUX_CARS), ("person", TUX_PEOPLE)):
        for path in paths:
            objects.append((label, f"tuxpaint/{path}", trimmed(Image.open(stamps / path))))
    for folder in TUX_DISTRACTOR_FOLDERS:
        for path in sorted((stamps / folder).rglob("*.png")):
            if "people" in path.parts or path.stat().st_size > 2_000_000:
                continue
            image = trimmed(Image.open(path))
            if image is not None and min(image.size) >= 24:
                objects.append((None, f"tuxpaint/{path.relative_to(stamps)}", image))
    return objects


def backgrounds():
    """(name, RGB image) of every background photograph, none showing a person or a car."""
    from PIL import Image
    import skimage.data
    Image.MAX_IMAGE_PIXELS = None  # the wallpapers are large but trusted package files
    pictures = []
    wallpapers = debian_package_root("plasma-workspace-wallpapers") / "usr/share/wallpapers"
    for name in WALLPAPER_PHOTOS:
        # The 1920-px rendering where there is one: enough for 512-px crops, quick to decode.
        candidates = sorted((wallpapers / name / "contents/images").glob("*.*"),
                            key=lambda path: (abs(Image.open(path).size[0] - 1920), path.name))
        image = Image.open(candidates[0]).convert("RGB")
        image.thumbnail((1920, 1920))
        pictures.append((f"wallpaper-{name}", image))
    for name in OPENCV_BACKGROUNDS:
        pictures.append((f"opencv-{name}", Image.open(opencv_file(name)).convert("RGB")))
    for seconds in TREE_SECONDS:
        pictures.append((f"opencv-tree-{seconds:g}s", video_frame(opencv_file("tree.avi"), seconds)))
    darknet = debian_package_root("darknet") / "usr/share/darknet/data"
    for name in DARKNET_BACKGROUNDS:
        pictures.append((f"darknet-{name}", Image.open(darknet / name).convert("RGB")))
    for name in SKIMAGE_BACKGROUNDS:
        pictures.append((f"skimage-{name}", Image.fromarray(getattr(skimage.data, name)()).convert("RGB")))
    return pictures


def tinted(image, generator):
    """Brightness, contrast and saturation each scaled by up to ±25 %, alpha untouched."""
    from PIL import ImageEnhance
    alpha = image.getchannel("A")
    rgb = image.convert("RGB")
    for enhancer in (ImageEnhance.Brightness, ImageEnhance.Contrast, ImageEnhance.Color):
        rgb = enhancer(rgb).enhance(generator.uniform(0.75, 1.25))
    rgb.putalpha(alpha)
    return rgb


def blended(image, generator):
    """One of the paper's blends, chosen at random: a hard edge, a Gaussian-softened alpha, or motion blur."""
    import numpy
    from PIL import ImageFilter
    mode = generator.choice(["none", "gaussian", "motion"])
    if mode == "none":
        alpha = image.getchannel("A").point(lambda value: 255 if value >= ALPHA_THRESHOLD else 0)
        image = image.copy()
        image.putalpha(alpha)
        return image
    if mode == "gaussian":
        image = image.copy()
        image.putalpha(image.getchannel("A").filter(ImageFilter.GaussianBlur(generator.uniform(0.7, 2.0))))
        return image
    # Motion: a line kernel applied to premultiplied colour and to alpha, so the smear fades with the object.
    length = generator.randint(3, 9)
    angle = generator.uniform(0, math.pi)
    kernel = numpy.zeros((length, length), numpy.float32)
    for step in range(length * 4):
        offset = step / (length * 4 - 1) - 0.5
        column = int(round((length - 1) / 2 + offset * (length - 1) * math.cos(angle)))
        row = int(round((length - 1) / 2 + offset * (length - 1) * math.sin(angle)))
        kernel[row, column] = 1
    kernel /= kernel.sum()
    pixels = numpy.asarray(image, numpy.float32) / 255
    padded = numpy.pad(pixels, ((length, length), (length, length), (0, 0)))
    premultiplied = numpy.concatenate([padded[..., :3] * padded[..., 3:], padded[..., 3:]], axis=2)
    smeared = numpy.zeros_like(premultiplied)
    half = length // 2
    for row, column in zip(*numpy.nonzero(kernel)):
        smeared += kernel[row, column] * numpy.roll(premultiplied, (row - half, column - half), axis=(0, 1))
    alpha = smeared[..., 3:]
    colour = numpy.where(alpha > 1e-6, smeared[..., :3] / numpy.maximum(alpha, 1e-6), 0)
    from PIL import Image
    return Image.fromarray((numpy.concatenate([colour, alpha], axis=2) * 255 + 0.5).clip(0, 255).astype(numpy.uint8),
                           "RGBA")


def background_crop(picture, width, height, generator):
    """A random crop of the photograph at the output's aspect (30-100 % of the largest such crop), resized."""
    from PIL import Image
    aspect = width / height
    largest_width = min(picture.width, picture.height * aspect)
    scale = math.sqrt(generator.uniform(0.3, 1.0))
    crop_width = max(16, largest_width * scale)
    crop_height = crop_width / aspect
    left = generator.uniform(0, picture.width - crop_width)
    top = generator.uniform(0, picture.height - crop_height)
    crop = picture.resize((width, height), Image.BICUBIC, box=(left, top, left + crop_width, top + crop_height))
    if generator.random() < 0.5:
        crop = crop.transpose(Image.FLIP_LEFT_RIGHT)
    return crop


def scene(index, seed, size, objects, pictures):
    """One synthetic picture and its boxes: (RGB image, [(label, left, top, right, bottom)])."""
    import numpy
    from PIL import Image, ImageFilter
    generator = random.Random(f"scenes-{seed}-{index}")
    width, height = (size, size * 3 // 4) if generator.random() < 0.8 else (size * 3 // 4, size)
    canvas = background_crop(generator.choice(pictures)[1], width, height, generator).convert("RGBA")
    labelled = [entry for entry in objects if entry[0] is not None]
    distractors = [entry for entry in objects if entry[0] is None]
    chosen = [generator.choice(labelled) for _ in range(generator.choice([1, 1, 2, 2, 3, 3, 4, 5, 6]))]
    chosen += [generator.choice(distractors) for _ in range(generator.choice([0, 1, 1, 2, 3]))]
    generator.shuffle(chosen)  # paste order decides who occludes whom
    masks = []  # per pasted object: (label, full-canvas boolean mask of its own pixels, its pixel count unclipped)
    for label, _, image in chosen:
        # Longest side log-uniform from 20 px to 70 % of the canvas's longer side: as small as vtest's far walkers.
        longest = math.exp(generator.uniform(math.log(20), math.log(0.7 * max(width, height))))
        factor = longest / max(image.size)
        resized = image.resize((max(1, round(image.width * factor)), max(1, round(image.height * factor))),
                               Image.LANCZOS)
        if generator.random() < 0.5:
            resized = resized.transpose(Image.FLIP_LEFT_RIGHT)
        resized = blended(tinted(resized, generator), generator)
        own_pixels = int((numpy.asarray(resized.getchannel("A")) >= ALPHA_THRESHOLD).sum())
        # Up to a quarter of the object may fall outside the picture on each side.
        left = generator.randint(-resized.width // 4, max(-resized.width // 4, width - resized.width * 3 // 4))
        top = generator.randint(-resized.height // 4, max(-resized.height // 4, height - resized.height * 3 // 4))
        layer = Image.new("RGBA", (width, height))
        layer.paste(resized, (left, top))
        canvas = Image.alpha_composite(canvas, layer)
        mask = numpy.asarray(layer.getchannel("A")) >= ALPHA_THRESHOLD
        for _, earlier, _ in masks:
            earlier &= ~mask  # what this paste covers is no longer visible below it
        masks.append((label, mask, own_pixels))
    boxes = []
    for label, mask, own_pixels in masks:
        if label is None or own_pixels == 0 or mask.sum() < MINIMUM_VISIBLE_FRACTION * own_pixels:
            continue
        rows = numpy.nonzero(mask.any(axis=1))[0]
        columns = numpy.nonzero(mask.any(axis=0))[0]
        left, top, right, bottom = int(columns[0]), int(rows[0]), int(columns[-1]) + 1, int(rows[-1]) + 1
        if min(right - left, bottom - top) >= MINIMUM_BOX_SIDE:
            boxes.append((label, left, top, right, bottom))
    picture = canvas.convert("RGB")
    if generator.random() < 0.2:  # a whole-picture softness, as a camera's focus or a video's scaling gives
        picture = picture.filter(ImageFilter.GaussianBlur(generator.uniform(0.5, 1.2)))
    if generator.random() < 0.3:
        pixels = numpy.asarray(picture, numpy.float32)
        noise = numpy.random.default_rng(generator.getrandbits(32)).normal(0, generator.uniform(2, 6), pixels.shape)
        picture = Image.fromarray((pixels + noise).clip(0, 255).astype(numpy.uint8))
    return picture, boxes


def centred(label, left, top, right, bottom):
    """A box in Create ML's form: x and y the centre, in pixels."""
    return {"label": label, "coordinates": {"x": (left + right) / 2, "y": (top + bottom) / 2,
                                            "width": right - left, "height": bottom - top}}


def testing_file(source) -> pathlib.Path:
    """The package file an entry of the hand-box file names (a picture or a video)."""
    if source["package"] == "opencv-doc":
        return opencv_file(pathlib.Path(source["path"]).name)
    return debian_package_root(source["package"]) / source["path"]


def testing_picture(source):
    """The real picture an entry of the hand-box file names, as a Pillow RGB image."""
    from PIL import Image
    if source["package"] == "scikit-image":
        import skimage.data
        return Image.fromarray(getattr(skimage.data, source["data"])()).convert("RGB")
    path = testing_file(source)
    if "seconds" in source:
        return video_frame(path, source["seconds"])
    return Image.open(path).convert("RGB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=HERE / "scenes")
    parser.add_argument("--count", type=int, default=300, help="synthetic training pictures (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=512, help="the longer side of a training picture (default 512)")
    arguments = parser.parse_args()
    hand = json.loads(TESTING_BOXES.read_text())
    recipe = f"{RECIPE} count {arguments.count} seed {arguments.seed} size {arguments.size} " \
             f"testing {len(hand['pictures'])}"
    writer = DatasetWriter(arguments.out, recipe)
    if writer.is_complete():
        print(arguments.out)
        return
    ensure_scikit_image()
    objects = cutouts()
    pictures = backgrounds()
    print(f"datasets: {sum(1 for entry in objects if entry[0])} labelled cut-outs, "
          f"{sum(1 for entry in objects if not entry[0])} distractors, {len(pictures)} backgrounds", file=sys.stderr)
    writer.start()
    training = writer.staging / "Training Data"
    training.mkdir(parents=True)
    entries = []
    for index in range(arguments.count):
        picture, boxes = scene(index, arguments.seed, arguments.size, objects, pictures)
        name = f"scene-{index + 1:04d}.jpg"
        picture.save(training / name, quality=90)
        entries.append({"image": name, "annotations": [centred(*box) for box in boxes]})
        for box in boxes:
            writer.counts[(box[0], "Training Data")] = writer.counts.get((box[0], "Training Data"), 0) + 1
    (training / "annotations.json").write_text(json.dumps(entries, indent=1) + "\n")
    testing = writer.staging / "Testing Data"
    testing.mkdir(parents=True)
    entries = []
    for entry in hand["pictures"]:
        picture = testing_picture(entry["source"])
        if list(picture.size) != entry["size"]:
            sys.exit(f"datasets: {entry['name']} is {picture.size[0]}x{picture.size[1]}, the hand boxes were drawn on "
                     f"{entry['size'][0]}x{entry['size'][1]}")
        if entry["name"].endswith(".png"):
            picture.save(testing / entry["name"])
        else:  # a package's JPEG, copied as it is (no second compression)
            shutil.copyfile(testing_file(entry["source"]), testing / entry["name"])
        boxes = [centred(box["label"], *box["box"]) for box in entry["boxes"]]
        entries.append({"image": entry["name"], "annotations": boxes})
        for box in entry["boxes"]:
            key = (box["label"], "Testing Data")
            writer.counts[key] = writer.counts.get(key, 0) + 1
    (testing / "annotations.json").write_text(json.dumps(entries, indent=1) + "\n")
    writer.finish()
    print(arguments.out)


if __name__ == "__main__":
    main()
