#!/usr/bin/env python3
"""Whether `detect --tiles N` helps crowds without hurting close-ups (issue 44, defect 4): one table.

Pictures, all from Debian or PyPI packages (nothing here is committed but this script):
  * crowded frames of opencv-doc's vtest.avi, with the people boxed by hand in datasets/scenes-testing-boxes.json
    (6 frames and darknet's kite.jpg, REPORT) and datasets/scenes-validation-boxes.json (3 frames, VALIDATION),
    and 4 more VALIDATION frames with the people counted by eye (COUNTED_FRAMES);
  * close-ups: pictures where what is there is large. Those with a hand box file entry (basketball1, astronaut,
    camera, darknet's person, dog and kite) are scored against the hand boxes; every other close-up shows nobody
    or one or two large people, so the whole frame's boxes are the reference and any box a tile setting adds is an
    extra box. The scikit-image and most opencv-doc pictures are taken from Tests/DetectionTests/Fixtures (the
    same package pictures, shrunk to 512 px by scripts/fixtures/make-detector-goldens.py); the validation set adds
    opencv-doc pictures at full size, frames of its Megamind.avi (a cartoon face the detector calls a person) and
    darknet's animal photos and scream.jpg.
The constants of the tiling rule (Sources/Detection/TiledDetection.swift) were chosen on the VALIDATION rows
only (`--tune` prints the sweep); the REPORT rows are the evidence.

For each Workbench binary given (--before, --after) and --tiles 1, 2, 3: boxes >= 0.5 per picture; against hand
boxes, matched (intersection over union >= 0.5, highest score first, each hand box once) and spare; on the other
close-ups, extra boxes over --tiles 1 of the same binary.

Usage: .venv/bin/python3 scripts/accuracy/detect-tiles.py --after .build/release/workbench [--before OLD]
       .venv/bin/python3 scripts/accuracy/detect-tiles.py --tune --before OLD   (the validation sweep)
The work folder is .build/detect-tiles.
"""
import argparse
import itertools
import json
import math
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "datasets"))
from build_scenes import opencv_file, testing_file, video_frame  # noqa: E402
from dataset_tools import debian_package_root  # noqa: E402

FIXTURES = ROOT / "Tests" / "DetectionTests" / "Fixtures" / "detector-images"
WORK = ROOT / ".build" / "detect-tiles"
MATCH_IOU = 0.5

# Close-ups without hand boxes: (name, where from, set). Validation and report share no picture.
CLOSE_UPS = [
    ("basketball2", "fixture", "validation"), ("messi5", "fixture", "validation"),
    ("skimage-coffee", "fixture", "validation"), ("skimage-rocket", "fixture", "validation"),
    ("home", "fixture", "validation"), ("aero3", "fixture", "validation"), ("building", "fixture", "validation"),
    ("stuff", "fixture", "validation"), ("pca_test1", "fixture", "validation"), ("blox", "fixture", "validation"),
    ("HappyFish", "fixture", "validation"), ("starry_night", "fixture", "validation"),
    ("squirrel_cls", "fixture", "validation"), ("left01", "fixture", "validation"),
    ("apple.jpg", "opencv", "validation"), ("orange.jpg", "opencv", "validation"),
    ("butterfly.jpg", "opencv", "validation"), ("smarties.png", "opencv", "validation"),
    ("Blender_Suzanne1.jpg", "opencv", "validation"), ("scream.jpg", "darknet", "validation"),
    ("horses.jpg", "darknet", "validation"), ("eagle.jpg", "darknet", "validation"),
    ("giraffe.jpg", "darknet", "validation"), ("Megamind.avi@1", "video", "validation"),
    ("Megamind.avi@3", "video", "validation"), ("Megamind.avi@5", "video", "validation"),
    ("fruits", "fixture", "report"), ("baboon", "fixture", "report"), ("skimage-chelsea", "fixture", "report"),
    ("ela_original", "fixture", "report"), ("left05", "fixture", "report"), ("tree-004s", "fixture", "report"),
    ("board.jpg", "opencv", "report"), ("chicky_512.png", "opencv", "report"),
]
# Hand-boxed pictures of the testing file that are close-ups rather than crowds.
HAND_CLOSE_UPS = {"darknet-person.jpg", "darknet-dog.jpg", "opencv-basketball1.png", "opencv-licenseplate_motion.jpg",
                  "skimage-astronaut.png", "skimage-camera.png"}
# More crowded validation frames of vtest.avi with the people counted by eye (scripts/accuracy/detect-presence.py's
# TILE_FRAMES, its 35 s and 75 s left out: 35 s is boxed above, 75 s is a second from the report frame at 74 s).
COUNTED_FRAMES = {5: 6, 20: 7, 50: 4, 65: 6}
SKIMAGE_FIXTURES = {"skimage-astronaut.png": "skimage-astronaut.jpg", "skimage-camera.png": "skimage-camera.jpg"}


def run(arguments):
    return subprocess.run([str(a) for a in arguments], check=True, capture_output=True, text=True)


def pictures():
    """[(name, path, set, kind, hand person boxes or None)], the files written into WORK once."""
    from PIL import Image
    WORK.mkdir(parents=True, exist_ok=True)
    result = []
    for file_name, set_name in (("scenes-validation-boxes.json", "validation"), ("scenes-testing-boxes.json", "report")):
        for entry in json.loads((ROOT / "datasets" / file_name).read_text())["pictures"]:
            name, source = entry["name"], entry["source"]
            path = WORK / (pathlib.Path(name).stem + ".png")
            if not path.exists():
                if name in SKIMAGE_FIXTURES:
                    image = Image.open(FIXTURES / SKIMAGE_FIXTURES[name]).convert("RGB")
                elif "seconds" in source:
                    image = video_frame(testing_file(source), source["seconds"])
                else:
                    image = Image.open(testing_file(source)).convert("RGB")
                assert list(image.size) == entry["size"], (name, image.size, entry["size"])
                image.save(path)
            hand = [box["box"] for box in entry["boxes"] if box["label"] == "person"]
            kind = "close-up" if name in HAND_CLOSE_UPS else "crowd"
            result.append((pathlib.Path(name).stem, path, set_name, kind, hand))
    for second, count in COUNTED_FRAMES.items():
        path = WORK / f"vtest-counted-{second}s.png"
        if not path.exists():
            video_frame(opencv_file("vtest.avi"), second).save(path)
        result.append((path.stem, path, "validation", "crowd", count))
    for name, where, set_name in CLOSE_UPS:
        if where == "video":  # a frame of an opencv-doc video: FILE@SECONDS
            video, second = name.split("@")
            name = f"{pathlib.Path(video).stem}-{second}s"
        path = WORK / (pathlib.Path(name).stem + ".png")
        if not path.exists():
            if where == "video":
                video_frame(opencv_file(video), float(second)).save(path)
            else:
                source = {"fixture": lambda: FIXTURES / f"{name}.jpg", "opencv": lambda: opencv_file(name),
                          "darknet": lambda: debian_package_root("darknet") / "usr/share/darknet/data" / name}[where]()
                Image.open(source).convert("RGB").save(path)
        result.append((pathlib.Path(name).stem, path, set_name, "close-up", None))
    return result


def corners(annotation):
    c = annotation["coordinates"]
    return [c["x"] - c["width"] / 2, c["y"] - c["height"] / 2, c["x"] + c["width"] / 2, c["y"] + c["height"] / 2]


def iou(a, b):
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    shared = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - shared
    return shared / union if union > 0 else 0.0


def matched(found, hand):
    """Boxes (left, top, right, bottom, score) matched to hand boxes, highest score first, each hand box once."""
    free, count = list(hand), 0
    for box in sorted(found, key=lambda b: -b[4]):
        best = max(free, key=lambda h: iou(box, h), default=None)
        if best is not None and iou(box, best) >= MATCH_IOU:
            free.remove(best)
            count += 1
    return count


def detect(workbench, paths, tiles):
    """{path: [(left, top, right, bottom, score)]} of person boxes >= 0.5."""
    output = json.loads(run([workbench, "detect", *paths, "--json", "--tiles", tiles]).stdout)
    return {entry["image"]: [(*corners(a), a["confidence"]) for a in entry["annotations"] if a["label"] == "person"]
            for entry in output}


def table(binaries, rows):
    """The one table: per picture, boxes (matched) per binary and --tiles; totals per set and kind."""
    results = {}
    for label, workbench in binaries:
        for tiles in (1, 2, 3):
            results[label, tiles] = detect(workbench, [str(row[1]) for row in rows], tiles)
    header = "  ".join(f"{label} t{tiles}" for label, _ in binaries for tiles in (1, 2, 3))
    print("boxes >= 0.5 per picture; (m) matched to a hand box at IoU >= 0.5; +e on a close-up: boxes over --tiles 1")
    print(f"{'picture':<26} {'set':<10} {'kind':<8} {'hand':>4}  {header}")
    totals = {}
    for name, path, set_name, kind, hand in rows:
        cells = []
        for label, _ in binaries:
            whole = len(results[label, 1][str(path)])
            for tiles in (1, 2, 3):
                found = results[label, tiles][str(path)]
                key = (set_name, kind, label, tiles)
                total = totals.setdefault(key, [0, 0, 0, 0, 0])
                total[0] += len(found)
                extra = max(0, len(found) - whole) if kind == "close-up" else 0
                total[3] += extra
                cell = f"{len(found)}"
                if isinstance(hand, int):
                    total[4] += hand
                elif hand is not None:
                    hits = matched(found, hand)
                    total[1] += hits
                    total[2] += len(hand)
                    cell += f" ({hits})"
                if kind == "close-up" and tiles > 1:
                    cell += f" +{extra}"
                cells.append(cell)
        hand_text = "-" if hand is None else str(hand) if isinstance(hand, int) else str(len(hand))
        print(f"{name:<26} {set_name:<10} {kind:<8} {hand_text:>4}  " + "  ".join(f"{c:>9}" for c in cells))
    print("totals: boxes; matched of the hand boxes; on close-ups, boxes over the same binary's --tiles 1; on the"
          " counted frames, the people counted by eye")
    for set_name, kind in itertools.product(("validation", "report"), ("close-up", "crowd")):
        cells = []
        for label, _ in binaries:
            for tiles in (1, 2, 3):
                boxes, hits, hand, extra, people = totals.get((set_name, kind, label, tiles), [0, 0, 0, 0, 0])
                text = f"{label} t{tiles}: {boxes} boxes, {hits}/{hand} matched"
                text += f", +{extra}" if kind == "close-up" else f", {people} counted" if people else ""
                cells.append(text)
        print(f"  {set_name} {kind}: " + "; ".join(cells))


# --- the sweep on the validation rows: the rule re-stated from the docs, over the tiles' own detections ---

def spans(length, count, overlap=0.25):
    if count <= 1 or length <= 1:
        return [(0, length)]
    span = min(length, math.ceil(length / (count - (count - 1) * overlap)))
    step = (length - span) / (count - 1)
    return [(math.floor(i * step + 0.5), span) for i in range(count)]


def grid(width, height, count):
    return [(left, top, w, h) for top, h in spans(height, count) for left, w in spans(width, count)]


def intersection(a, b):
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def area(a):
    return max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1])


def simulate(whole, tiles, width, height, cover, share, contain):
    """The merge as TiledDetection states it, with the three constants given; whole = boxes, tiles = [(tile,
    boxes in the picture's pixels)]."""
    candidates = [(box, -1, False) for box in whole]
    for index, (tile, boxes) in enumerate(tiles):
        left, top, w, h = tile
        region = (left, top, left + w, top + h)
        if any(intersection(box, region) >= cover * w * h for box in whole):
            continue
        for box in boxes:
            if max((box[2] - box[0]) / width, (box[3] - box[1]) / height) >= share:
                continue
            cut = ((left > 0 and box[0] <= left + 2) or (top > 0 and box[1] <= top + 2)
                   or (left + w < width and box[2] >= left + w - 2) or (top + h < height and box[3] >= top + h - 2))
            candidates.append((box, index, cut))
    kept = [c for i, c in enumerate(candidates)
            if not (c[2] and area(c[0]) > 0 and any(j != i and o[1] != c[1] and intersection(o[0], c[0]) >= 0.5 * area(c[0])
                                                    for j, o in enumerate(candidates)))]
    survivors = []
    for i, c in enumerate(kept):
        inside = any(j != i and (o[1] == -1) != (c[1] == -1) and area(o[0]) > area(c[0])
                     and intersection(o[0], c[0]) >= contain * area(c[0]) and iou(o[0], c[0]) <= 0.5
                     for j, o in enumerate(kept))
        if not inside:
            survivors.append(c[0])
    final = []
    for box in sorted(survivors, key=lambda b: -b[4]):
        if all(iou(box, k) <= 0.5 for k in final):
            final.append(box)
    return final


def tune(workbench, rows):
    from PIL import Image
    rows = [row for row in rows if row[2] == "validation"]
    whole = detect(workbench, [str(r[1]) for r in rows], 1)
    crops = WORK / "tiles"
    shutil.rmtree(crops, ignore_errors=True)
    crops.mkdir()
    raw = {}
    for count in (2, 3):
        paths, owners = [], []
        for name, path, *_ in rows:
            image = Image.open(path)
            for index, tile in enumerate(grid(image.width, image.height, count)):
                crop = crops / f"{name}-{count}-{index}.png"
                image.crop((tile[0], tile[1], tile[0] + tile[2], tile[1] + tile[3])).save(crop)
                paths.append(str(crop))
                owners.append((str(path), tile))
        found = detect(workbench, paths, 1)
        for crop, (owner, tile) in zip(paths, owners):
            moved = [(b[0] + tile[0], b[1] + tile[1], b[2] + tile[0], b[3] + tile[1], b[4]) for b in found[crop]]
            raw.setdefault((owner, count), []).append((tile, moved))
    print("validation sweep: cover (skip a tile a whole-frame box covers this much of), share (largest tile box, of"
          " the frame), contain (merge a box this much inside a larger one of the other scale)")
    print("cover share contain | t2: close-up extra boxes, boxed crowds matched/hand +spare, counted crowds boxes/people"
          " | t3: the same")
    for cover, share, contain in itertools.product((0.5, 0.6, 0.7, 0.8, 2), (0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 2),
                                                   (0.6, 0.7, 0.8, 0.9, 2)):
        cells = []
        for count in (2, 3):
            extra = spare = hits = hand_total = counted = people = 0
            for name, path, set_name, kind, hand in rows:
                image = Image.open(path)
                base = whole[str(path)]
                merged = simulate(base, raw[str(path), count], image.width, image.height, cover, share, contain)
                if kind == "close-up":
                    extra += max(0, len(merged) - len(base))
                elif isinstance(hand, int):
                    counted += len(merged)
                    people += hand
                else:
                    hits += matched(merged, hand)
                    spare += len(merged) - matched(merged, hand)
                    hand_total += len(hand)
            cells.append(f"{extra:3d} {hits:3d}/{hand_total} +{spare:<2d} {counted:3d}/{people}")
        print(f"{cover:5} {share:5} {contain:7} | {cells[0]} | {cells[1]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="a Workbench binary from before the change")
    parser.add_argument("--after", help="the Workbench binary to measure")
    parser.add_argument("--tune", action="store_true", help="the validation sweep, on --before's detector")
    arguments = parser.parse_args()
    rows = pictures()
    if arguments.tune:
        tune(arguments.before, rows)
        return
    binaries = [(label, path) for label, path in (("before", arguments.before), ("after", arguments.after)) if path]
    table(binaries, rows)


if __name__ == "__main__":
    main()
