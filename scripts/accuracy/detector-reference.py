#!/usr/bin/env python3
"""The measurement of detector-reference.sh: YOLOv8n from scratch on a Create ML detection dataset for a CPU-time
budget, scored on its testing pictures with pycocotools.

1. Converts `<dataset>/Training Data` and `Testing Data` (Create ML's annotations.json: x and y the box centre in
   pixels) to YOLO's layout under `<work>/yolo` (pictures linked, one label file per picture: class, centre x,
   centre y, width, height, all as fractions of the picture). Labels are numbered in sorted order. Every training
   picture is trained on; ultralytics insists on a validation set, which gets every 10th training picture (it is
   used only for ultralytics' own end-of-run printout, never to pick a model or a threshold), and never a testing
   picture.
2. Trains `yolov8n.yaml` (random initial weights) with ultralytics' defaults (SGD/auto optimiser, mosaic and its
   other augmentations, warm-up) except: the image size given, CPU, `workers=0`, plots and per-epoch validation
   off. The budget is the process's CPU time from the start of training (`time.process_time()`, all threads),
   checked after each batch; after the first epoch the epoch count is re-estimated from the CPU time per epoch, the
   way ultralytics' own `time=` mode does with wall time, so the learning-rate schedule ends when the budget does.
3. Predicts on every testing picture (confidence >= 0.001, ultralytics' NMS at IoU 0.7, at most 300 boxes, the
   settings of its own mAP validation) and scores with pycocotools' COCOeval (bbox; area ranges and the per-picture
   cap set not to bite, as scripts/fixtures/make-detection-metric-goldens.py does, so the figures match Workbench's
   DetectionMetrics on the same boxes). mAP@0.5 is the mean over labels of AP at IoU 0.5, mAP@0.5:0.95 the mean over
   labels and IoU thresholds 0.50, 0.55, ..., 0.95 (COCOeval.summarize's first two numbers).

Usage (through detector-reference.sh, which sets the offline environment):
    detector-reference.py --dataset DIR --work DIR --cpu-seconds N [--image-size 512] [--threads 2] [--seed 0]
    detector-reference.py --dataset DIR --score PREDICTIONS.json     (scoring only: any detector's detect --json)
"""
import argparse
import json
import math
import os
import pathlib
import shutil
import socket
import sys
import time


REFUSED_CONNECTIONS = []


def refuse_network():
    """Any connection attempt or name lookup raises (and is counted, the count printed at the end): the reference
    must run on what is installed, and a hidden download (weights, fonts, update checks) must fail, not happen."""
    import traceback

    def refused(*arguments, **_):
        caller = next((f"{pathlib.Path(frame.filename).name}:{frame.lineno}" for frame in reversed(traceback.extract_stack())
                       if "ultralytics" in frame.filename or "torch" in frame.filename), "?")
        REFUSED_CONNECTIONS.append(f"{str(arguments[0])[:40]} from {caller}")
        raise OSError("detector-reference: network access is disabled in this run")
    socket.socket.connect = refused
    socket.socket.connect_ex = refused
    socket.create_connection = refused
    socket.getaddrinfo = refused


def read_annotations(folder: pathlib.Path):
    """(name, [(label, left, top, width, height)]) per entry of folder/annotations.json, corners in pixels."""
    entries = []
    for entry in json.loads((folder / "annotations.json").read_text()):
        boxes = []
        for annotation in entry["annotations"]:
            box = annotation["coordinates"]
            boxes.append((annotation["label"], box["x"] - box["width"] / 2, box["y"] - box["height"] / 2,
                          box["width"], box["height"]))
        entries.append((entry["image"], boxes))
    return entries


def picture_size(path: pathlib.Path):
    from PIL import Image, ImageOps
    with Image.open(path) as image:
        return ImageOps.exif_transpose(image).size  # as displayed, as Workbench reads it


def write_yolo_split(entries, source: pathlib.Path, target: pathlib.Path, split: str, label_index):
    """Links the pictures into target/images/split and writes target/labels/split/<stem>.txt."""
    (target / "images" / split).mkdir(parents=True, exist_ok=True)
    (target / "labels" / split).mkdir(parents=True, exist_ok=True)
    for name, boxes in entries:
        picture = source / name
        stem = pathlib.Path(name).stem
        link = target / "images" / split / (stem + pathlib.Path(name).suffix.lower())
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(picture.resolve())
        width, height = picture_size(picture)
        lines = [f"{label_index[label]} {(left + box_width / 2) / width:.6f} {(top + box_height / 2) / height:.6f} "
                 f"{box_width / width:.6f} {box_height / height:.6f}"
                 for label, left, top, box_width, box_height in boxes]
        (target / "labels" / split / (stem + ".txt")).write_text("".join(line + "\n" for line in lines))


def convert(dataset: pathlib.Path, work: pathlib.Path):
    """The YOLO copy of the dataset and its data.yaml; returns (data.yaml path, labels, testing entries)."""
    training = read_annotations(dataset / "Training Data")
    testing = read_annotations(dataset / "Testing Data")
    labels = sorted({box[0] for _, boxes in training + testing for box in boxes})
    label_index = {label: index for index, label in enumerate(labels)}
    target = work / "yolo"
    shutil.rmtree(target, ignore_errors=True)
    write_yolo_split(training, dataset / "Training Data", target, "train", label_index)
    write_yolo_split(training[::10], dataset / "Training Data", target, "val", label_index)
    data = target / "data.yaml"
    data.write_text(f"path: {target.resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
                    + "".join(f"  {index}: {label}\n" for index, label in enumerate(labels)))
    return data, labels, training, testing


def offline_font():
    """ultralytics looks for Arial.ttf in its user folder (under YOLO_CONFIG_DIR) and downloads it when missing:
    matplotlib's DejaVu Sans (installed with ultralytics) stands in, so nothing is fetched."""
    import matplotlib
    from ultralytics.utils import USER_CONFIG_DIR as config
    config.mkdir(parents=True, exist_ok=True)
    font = pathlib.Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (config / name).exists():
            shutil.copyfile(font, config / name)


def train(data: pathlib.Path, work: pathlib.Path, cpu_seconds: float, image_size: int, seed: int):
    """Trains yolov8n.yaml from scratch within the CPU budget; returns (weights path, epochs, CPU s, wall s)."""
    from ultralytics import YOLO
    model = YOLO("yolov8n.yaml")
    clock = {}

    def on_train_start(trainer):
        clock["cpu"] = time.process_time()
        clock["wall"] = time.time()

    def used():
        return time.process_time() - clock["cpu"]

    def on_train_batch_end(trainer):
        if used() > cpu_seconds:
            trainer.stop = True

    def on_fit_epoch_end(trainer):
        if clock.get("finished"):
            return  # ultralytics calls this again from its final validation, after training
        # ultralytics' time= mode, on CPU time: the schedule is stretched or shrunk to the epochs the budget allows.
        epochs_done = trainer.epoch - trainer.start_epoch + 1
        trainer.epochs = trainer.args.epochs = max(epochs_done, math.ceil(cpu_seconds / (used() / epochs_done)))
        trainer._setup_scheduler()
        trainer.scheduler.last_epoch = trainer.epoch
        trainer.stop |= trainer.epoch + 1 >= trainer.epochs or used() > cpu_seconds
        clock["finished"] = trainer.stop
        clock["epochs"] = epochs_done
        clock["training cpu"] = used()
        clock["training wall"] = time.time() - clock["wall"]
        print(f"detector-reference: epoch {epochs_done} of {trainer.epochs} (re-estimated), "
              f"{used():.0f} of {cpu_seconds:.0f} CPU s", file=sys.stderr)

    model.add_callback("on_train_start", on_train_start)
    model.add_callback("on_train_batch_end", on_train_batch_end)
    model.add_callback("on_fit_epoch_end", on_fit_epoch_end)
    model.train(data=str(data), epochs=1000, imgsz=image_size, batch=16, device="cpu", workers=0, seed=seed,
                deterministic=True, pretrained=False, amp=False, plots=False, val=False, cache=False,
                project=str((work / "runs").resolve()), name="train", exist_ok=True, verbose=False)
    weights_folder = work / "runs" / "train" / "weights"
    weights = weights_folder / "last.pt"
    return weights, clock.get("epochs", 0), clock.get("training cpu", 0.0), clock.get("training wall", 0.0)


def predict(weights: pathlib.Path, testing, folder: pathlib.Path, image_size: int, labels):
    """detect --json-shaped predictions on every testing picture."""
    from ultralytics import YOLO
    model = YOLO(str(weights))
    predictions = []
    for name, _ in testing:
        result = model.predict(str(folder / name), imgsz=image_size, conf=0.001, iou=0.7, max_det=300,
                               device="cpu", verbose=False)[0]
        annotations = []
        for (left, top, right, bottom), score, index in zip(result.boxes.xyxy.tolist(), result.boxes.conf.tolist(),
                                                            result.boxes.cls.tolist()):
            annotations.append({"label": labels[int(index)], "confidence": round(float(score), 6),
                                "coordinates": {"x": round((left + right) / 2, 3), "y": round((top + bottom) / 2, 3),
                                                "width": round(right - left, 3), "height": round(bottom - top, 3)}})
        predictions.append({"image": name, "annotations": annotations})
    return predictions


def score(testing, predictions, folder: pathlib.Path, labels):
    """pycocotools' AP per label at IoU 0.5 and over 0.5:0.95, and the means over labels."""
    import contextlib
    import io
    import numpy
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval
    images, truths, detections = [], [], []
    for index, (name, boxes) in enumerate(testing):
        width, height = picture_size(folder / name)
        images.append({"id": index + 1, "file_name": name, "width": width, "height": height})
        for label, left, top, box_width, box_height in boxes:
            truths.append({"id": len(truths) + 1, "image_id": index + 1, "category_id": labels.index(label) + 1,
                           "bbox": [left, top, box_width, box_height], "area": box_width * box_height, "iscrowd": 0})
    image_of = {name: index + 1 for index, (name, _) in enumerate(testing)}
    for entry in predictions:
        for annotation in entry["annotations"]:
            box = annotation["coordinates"]
            detections.append({"image_id": image_of[entry["image"]], "category_id": labels.index(annotation["label"]) + 1,
                               "bbox": [box["x"] - box["width"] / 2, box["y"] - box["height"] / 2, box["width"],
                                        box["height"]], "score": annotation["confidence"]})
    with contextlib.redirect_stdout(io.StringIO()):
        truth = COCO()
        truth.dataset = {"images": images, "annotations": truths,
                         "categories": [{"id": index + 1, "name": label} for index, label in enumerate(labels)]}
        truth.createIndex()
        found = truth.loadRes(detections) if detections else None
        if found is None:
            return {label: (0.0, 0.0) for label in labels}, (0.0, 0.0)
        evaluation = COCOeval(truth, found, "bbox")
        evaluation.params.areaRng = [[0, 1e10]]
        evaluation.params.areaRngLbl = ["all"]
        evaluation.params.maxDets = [10000]
        evaluation.evaluate()
        evaluation.accumulate()
    precision = evaluation.eval["precision"][:, :, :, 0, 0]  # [IoU threshold, recall threshold, label]

    def mean(values):
        values = values[values > -1]
        return float(numpy.mean(values)) if values.size else 0.0

    per_label = {label: (mean(precision[0, :, index]), mean(precision[:, :, index]))
                 for index, label in enumerate(labels)}
    return per_label, (mean(precision[0]), mean(precision))


def print_table(per_label, means, testing, labels, training=None):
    """The scores, one row per label and the means."""
    testing_boxes = {label: sum(1 for _, boxes in testing for box in boxes if box[0] == label) for label in labels}
    print(f"{'label':10s} {'boxes':>6s} {'AP@0.5':>8s} {'AP@0.5:0.95':>12s}" + ("   (training boxes)" if training else ""))
    for label in labels:
        trained = sum(1 for _, boxes in training for box in boxes if box[0] == label) if training else None
        print(f"{label:10s} {testing_boxes[label]:6d} {per_label[label][0]:8.4f} {per_label[label][1]:12.4f}"
              + (f"   ({trained})" if training else ""))
    print(f"{'mean':10s} {sum(testing_boxes.values()):6d} {means[0]:8.4f} {means[1]:12.4f}   "
          f"mAP@0.5 and mAP@0.5:0.95 over {len(labels)} labels")


def score_file(predictions_file: pathlib.Path, dataset: pathlib.Path):
    """Scores another detector's `detect --json` output (pictures) on the testing pictures, the same way: entries
    are matched to testing pictures by file name (their paths may be written from any folder); labels the testing
    set does not have are counted and left out."""
    testing_folder = dataset / "Testing Data"
    testing = read_annotations(testing_folder)
    labels = sorted({box[0] for _, boxes in testing for box in boxes})
    names = {pathlib.Path(name).name: name for name, _ in testing}
    predictions, unknown = {}, 0
    for entry in json.loads(predictions_file.read_text()):
        name = names.get(pathlib.Path(entry["image"]).name)
        if name is None:
            continue
        kept = [annotation for annotation in entry["annotations"] if annotation["label"] in labels]
        unknown += len(entry["annotations"]) - len(kept)
        predictions.setdefault(name, []).extend(kept)
    missing = [name for name, _ in testing if name not in predictions]
    per_label, means = score(testing, [{"image": name, "annotations": boxes} for name, boxes in predictions.items()],
                             testing_folder, labels)
    print(f"{predictions_file} on {len(testing)} pictures of {testing_folder}, pycocotools COCOeval (bbox, all areas, "
          f"no box cap); {len(missing)} testing picture(s) without an entry, {unknown} box(es) of other labels left out")
    print_table(per_label, means, testing, labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=pathlib.Path, required=True)
    parser.add_argument("--work", type=pathlib.Path)
    parser.add_argument("--cpu-seconds", type=float)
    parser.add_argument("--image-size", type=int, default=512)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--score", type=pathlib.Path, metavar="PREDICTIONS",
                        help="only score this detect --json file on the testing pictures (no training)")
    arguments = parser.parse_args()
    if arguments.score:
        score_file(arguments.score, arguments.dataset)
        return
    if arguments.work is None or arguments.cpu_seconds is None:
        parser.error("--work and --cpu-seconds are needed to train")
    if "YOLO_CONFIG_DIR" not in os.environ or os.environ.get("YOLO_OFFLINE") != "true":
        sys.exit("detector-reference.py: run it through scripts/accuracy/detector-reference.sh (offline settings)")
    refuse_network()
    import torch
    torch.set_num_threads(arguments.threads)
    import ultralytics
    from ultralytics import settings
    settings.update({"sync": False})
    offline_font()

    data, labels, training, testing = convert(arguments.dataset, arguments.work)
    weights, epochs, cpu, wall = train(data, arguments.work, arguments.cpu_seconds, arguments.image_size,
                                       arguments.seed)
    testing_folder = arguments.dataset / "Testing Data"
    predictions = predict(weights, testing, testing_folder, arguments.image_size, labels)
    (arguments.work / "predictions.json").write_text(json.dumps(predictions, indent=1) + "\n")
    per_label, means = score(testing, predictions, testing_folder, labels)

    print(f"YOLOv8n from scratch (yolov8n.yaml), ultralytics {ultralytics.__version__}, torch {torch.__version__}, "
          f"{arguments.threads} threads, image size {arguments.image_size}, seed {arguments.seed}")
    print(f"training: {len(training)} pictures of {arguments.dataset / 'Training Data'}, budget "
          f"{arguments.cpu_seconds:.0f} CPU s: used {cpu:.0f} CPU s ({wall:.0f} s wall), {epochs} epoch(s)")
    print(f"testing: {len(testing)} pictures of {testing_folder}, pycocotools COCOeval (bbox, all areas, no box cap)")
    print_table(per_label, means, testing, labels, training)
    print(f"predictions: {arguments.work / 'predictions.json'} (detect --json's shape); network connections "
          f"refused: {len(REFUSED_CONNECTIONS)} {'; '.join(REFUSED_CONNECTIONS[:3])}")


if __name__ == "__main__":
    main()
