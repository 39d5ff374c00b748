#!/usr/bin/env python3
"""Issue 46's honest measurement of `workbench doctor`: datasets with planted problems, doctor's findings scored
against the plants, and cleanlab's find_label_issues on the same out-of-sample probabilities.

Sets (built here from scikit-learn, a PyPI package set-up installs; nothing is downloaded):
  digits      scikit-learn's 1,797 handwritten digits, as datasets/build_grayscale.py --recipe digits builds them
              (64 x 64, every 5th picture of a label in testing)
  digits-300  the first 24 training and 6 testing pictures of each digit of that build (300 pictures)
Plants in a copy of each set (seeded, numpy's default_rng(46)):
  labels     5 % of the training pictures moved to a random other label's folder
  copies     25 testing pictures (20 in digits-300) copied into training under their own label, each changed by one
             of: resized to 80 %, re-encoded as JPEG quality 60, cropped by 4 % per side, brightened 30 %, mirrored
  outliers   6 crops of scikit-learn's two sample photographs (china.jpg, flower.jpg), put in random training folders
Scores:
  label issues   precision and recall of the flagged training pictures against the moved ones (a flagged planted
                 outlier counts as neither right nor wrong): doctor at its own cut; cleanlab's default
                 find_label_issues (prune_by_noise_rate) on the probabilities `doctor --json --out-of-sample` gives;
                 and doctor's ranking cut at as many pictures as cleanlab flags
  copies         planted copies found (a reported pair holding the copy and its source) and wrong pairs (a reported
                 pair with a planted copy that is not its source, over all pairs with a planted copy); the digit sets
                 hold near-identical pictures of their own, so pairs without a plant are not scored
  outliers       planted outliers among the first 2 x 6 of doctor's outlier list

cleanlab is installed into the venv by scripts/fixtures/make-doctor-goldens.py's pin when missing (reference only).

Usage: .venv/bin/python3 scripts/accuracy/doctor-planted.py [--workbench .build/release/workbench] [--work DIR]
Prints a Markdown table (docs/evidence/doctor.md holds the last run's).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLEANLAB = "2.9.0"


def ensure_cleanlab():
    import importlib.metadata
    try:
        if importlib.metadata.version("cleanlab") == CLEANLAB:
            return
    except importlib.metadata.PackageNotFoundError:
        pass
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"cleanlab=={CLEANLAB}"], check=True)


def build_sets(work):
    digits = work / "digits"
    if not (digits / "Training Data").exists():
        subprocess.run([sys.executable, str(ROOT / "datasets/build_grayscale.py"), "--recipe", "digits", "--out", str(digits)],
                       check=True, stdout=subprocess.DEVNULL)
    small = work / "digits-300"
    if not (small / "Training Data").exists():
        for split, keep in (("Training Data", 24), ("Testing Data", 6)):
            for label in sorted(os.listdir(digits / split)):
                files = sorted(os.listdir(digits / split / label))[:keep]
                (small / split / label).mkdir(parents=True, exist_ok=True)
                for name in files:
                    shutil.copy2(digits / split / label / name, small / split / label / name)
    return [("digits", digits, 25), ("digits-300", small, 20)]


def plant(source, target, copies, rng):
    from PIL import Image, ImageEnhance, ImageOps
    from sklearn.datasets import load_sample_images

    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    training, testing = target / "Training Data", target / "Testing Data"
    labels = sorted(os.listdir(training))
    pictures = [(label, name) for label in labels for name in sorted(os.listdir(training / label))]
    moved = []
    for index in rng.choice(len(pictures), size=int(round(0.05 * len(pictures))), replace=False):
        label, name = pictures[index]
        other = labels[(labels.index(label) + int(rng.integers(1, len(labels)))) % len(labels)]
        destination = training / other / f"m-{name}"
        os.rename(training / label / name, destination)
        moved.append(str(destination))
    tests = [(label, name) for label in labels for name in sorted(os.listdir(testing / label))]
    planted_copies = []
    transforms = ["resize", "jpeg", "crop", "brighten", "mirror"]
    for number, index in enumerate(rng.choice(len(tests), size=copies, replace=False)):
        label, name = tests[index]
        image = Image.open(testing / label / name).convert("RGB")
        kind = transforms[number % len(transforms)]
        suffix = ".png"
        if kind == "resize":
            image = image.resize((int(image.width * 0.8), int(image.height * 0.8)), Image.BICUBIC)
        elif kind == "jpeg":
            suffix = ".jpg"
        elif kind == "crop":
            dx, dy = max(1, int(image.width * 0.04)), max(1, int(image.height * 0.04))
            image = image.crop((dx, dy, image.width - dx, image.height - dy))
        elif kind == "brighten":
            image = ImageEnhance.Brightness(image).enhance(1.3)
        else:
            image = ImageOps.mirror(image)
        destination = training / label / f"c{number}-{pathlib.Path(name).stem}{suffix}"
        image.save(destination, quality=60) if suffix == ".jpg" else image.save(destination)
        planted_copies.append({"copy": str(destination), "source": str(testing / label / name), "transform": kind})
    outliers = []
    photos = load_sample_images().images
    for number in range(6):
        photo = photos[number % 2]
        height, width = photo.shape[:2]
        top, left = int(rng.integers(0, height - 200)), int(rng.integers(0, width - 200))
        crop = Image.fromarray(photo[top:top + 200, left:left + 200]).resize((64, 64), Image.BICUBIC)
        label = labels[int(rng.integers(0, len(labels)))]
        destination = training / label / f"o{number}.png"
        crop.save(destination)
        outliers.append(str(destination))
    return {"moved": moved, "copies": planted_copies, "outliers": outliers}


def score(findings, plants):
    import numpy as np
    from cleanlab.filter import find_label_issues

    moved, outliers = set(plants["moved"]), set(plants["outliers"])
    flagged = [issue["path"] for issue in findings["labelIssues"] if issue["split"] == "training" and issue["path"] not in outliers]

    def precision_recall(chosen):
        right = len(set(chosen) & moved)
        return (right / len(chosen) if chosen else float("nan"), right / len(moved))

    sample = findings["outOfSample"]
    probabilities = np.array(sample["probabilities"], dtype=np.float64)
    truths = np.array(sample["truths"])
    mask = find_label_issues(truths, probabilities)
    cleanlab_flagged = [path for path, split, on in zip(sample["paths"], sample["splits"], mask)
                        if on and split == "training" and path not in outliers]
    rows = {
        "doctor (own cut)": (len(flagged), *precision_recall(flagged)),
        "cleanlab default": (len(cleanlab_flagged), *precision_recall(cleanlab_flagged)),
        "doctor, top as many as cleanlab": (min(len(flagged), len(cleanlab_flagged)), *precision_recall(flagged[:len(cleanlab_flagged)])),
    }
    copies = {entry["copy"]: entry["source"] for entry in plants["copies"]}
    found, involved, wrong = set(), 0, 0
    for duplicate in findings["duplicates"]:
        paths = duplicate["paths"]
        planted_here = [path for path in paths if path in copies]
        if not planted_here:
            continue
        involved += 1
        hits = [path for path in planted_here if copies[path] in paths]
        if hits:
            found.update(hits)
        else:
            wrong += 1
    missed = [entry["transform"] for entry in plants["copies"] if entry["copy"] not in found]
    ranked = [outlier["path"] for outlier in findings["outliers"]][: 2 * len(outliers)]
    return rows, {"found": len(found), "planted": len(copies), "wrong": wrong, "pairs": involved, "missed": missed}, \
        {"found": len(set(ranked) & outliers), "planted": len(outliers), "listed": len(findings["outliers"])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workbench", default=str(ROOT / ".build/release/workbench"))
    parser.add_argument("--work", type=pathlib.Path, default=ROOT / ".build/doctor-planted")
    arguments = parser.parse_args()
    ensure_cleanlab()
    import numpy as np

    arguments.work.mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ, WORKBENCH_CACHE=str(arguments.work / "cache"))
    print("| set | pictures | label issues: method | flagged | precision | recall | copies found | wrong pairs | outliers in first 2 × 6 | doctor seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, source, copies in build_sets(arguments.work):
        rng = np.random.default_rng(46)
        target = arguments.work / f"{name}-planted"
        plants = plant(source, target, copies, rng)
        started = time.time()
        run = subprocess.run([arguments.workbench, "doctor", str(target), "--json", "--out-of-sample", "--no-html"],
                             capture_output=True, text=True, env=environment)
        seconds = time.time() - started
        if run.returncode != 0:
            sys.exit(f"doctor failed on {target}: {run.stderr.strip().splitlines()[-1:]}")
        findings = json.loads(run.stdout)
        (arguments.work / f"{name}-findings.json").write_text(run.stdout)
        (arguments.work / f"{name}-plants.json").write_text(json.dumps(plants, indent=1))
        rows, copy_score, outlier_score = score(findings, plants)
        pictures = sum(row["training"] + row["validation"] + row["testing"] for row in findings["labels"])
        first = True
        for method, (count, precision, recall) in rows.items():
            lead = (f"| {name} | {pictures} " if first else "| | ")
            tail = (f"| {copy_score['found']} / {copy_score['planted']} (missed: {', '.join(copy_score['missed']) or 'none'}) "
                    f"| {copy_score['wrong']} / {copy_score['pairs']} | {outlier_score['found']} / {outlier_score['planted']} "
                    f"({outlier_score['listed']} listed) | {seconds:.0f} |") if first else "| | | | |"
            print(f"{lead}| {method} | {count} | {precision:.2f} | {recall:.2f} {tail}")
            first = False


if __name__ == "__main__":
    main()
