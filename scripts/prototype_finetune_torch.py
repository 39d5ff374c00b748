"""A PyTorch prototype of issue 12's fine-tuning recipe, to check that a dataset shows a gain before Workbench's
own `--fine-tune` measures it: EfficientNet-Lite0 with batch norm folded (scripts/bench_finetune_torch.py's network,
the same weights), a linear probe first (logistic regression on standardised frozen features, the L2 strength
chosen by stratified 5-fold cross-validation on the training images, the standardiser folded into the dense head),
then the top blocks, the final 1 × 1 convolution and the head trained together (the standardiser fixed in front
of the head): AdamW at 3e-4 for both, weight decay 0.01, batch 32, label smoothing 0.1, cosine schedule after a
linear warm-up over 10 % of the steps (the defaults of Workbench's FineTuningSettings), light augmentation (random resized crop, horizontal flip,
rotation up to 10°, exposure and contrast). The epoch kept is the best by accuracy on a stratified 20 % of the
training images held out from the fine-tuning (never the testing images); its testing accuracy is reported with
the linear probe's.

Runs in its own virtual environment (torch's CPU wheel, scikit-learn, Pillow), never the project's:
    .build/torch-venv/bin/python scripts/prototype_finetune_torch.py models/efficientnet-lite0.safetensors \
        datasets/emoticons [--first-block 8] [--epochs 10] [--seed 0]
Prints one line per epoch and a JSON summary on the last line.
"""
import argparse
import json
import math
import pathlib
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_finetune_torch import Network, read_safetensors  # noqa: E402

SIDE = 224


def flattened(path):
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P", "PA") or "transparency" in image.info:
        image = image.convert("RGBA")
        image = Image.alpha_composite(Image.new("RGBA", image.size, (255, 255, 255, 255)), image)
    return image.convert("RGB")


def to_tensor(image):
    return torch.from_numpy(((np.asarray(image, np.float32) - 127.0) / 128.0).transpose(2, 0, 1).copy())


def evaluation_input(image):
    """Workbench's preprocessing: centre crop of 224/256 of the shorter side, bicubic to 224."""
    width, height = image.size
    crop = int((SIDE / (SIDE + 32)) * min(width, height))
    top, left = ((height - crop) + 1) // 2, ((width - crop) + 1) // 2
    return to_tensor(image.crop((left, top, left + crop, top + crop)).resize((SIDE, SIDE), Image.BICUBIC))


def augmented_input(image, generator):
    """Random resized crop (35–100 % of the area, aspect 3/4–4/3), flip, rotation ±10°, exposure and contrast."""
    width, height = image.size
    for _ in range(10):
        area = generator.uniform(0.35, 1.0) * width * height
        aspect = math.exp(generator.uniform(math.log(3 / 4), math.log(4 / 3)))
        crop_width, crop_height = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
        if 0 < crop_width <= width and 0 < crop_height <= height:
            left, top = generator.randint(0, width - crop_width), generator.randint(0, height - crop_height)
            break
    else:
        crop_width = crop_height = min(width, height)
        left, top = (width - crop_width) // 2, (height - crop_height) // 2
    image = image.crop((left, top, left + crop_width, top + crop_height)).resize((SIDE, SIDE), Image.BICUBIC)
    if generator.random() < 0.5:
        image = image.transpose(Image.FLIP_LEFT_RIGHT)
    angle = generator.uniform(-10, 10)
    image = image.rotate(angle, resample=Image.BILINEAR, fillcolor=image.getpixel((0, 0)))
    array = np.asarray(image, np.float32)
    exposure, contrast = generator.uniform(0.8, 1.2), generator.uniform(0.8, 1.2)
    mean = array.mean()
    array = np.clip((array - mean) * contrast + mean * exposure, 0, 255)
    return torch.from_numpy(((array - 127.0) / 128.0).transpose(2, 0, 1).copy())


def listing(folder, labels=None):
    labels = labels or sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    items = [(path, index) for index, label in enumerate(labels) for path in sorted((folder / label).rglob("*.png"))]
    return labels, items


def features_of(network, inputs, first, batch=32):
    """Frozen pooled features (the head convolution's output averaged), and the inputs to block `first`."""
    outputs, middles = [], []
    with torch.no_grad():
        for start in range(0, len(inputs), batch):
            x = torch.stack(inputs[start:start + batch]).contiguous(memory_format=torch.channels_last)
            middle = network.bottom(x, first)
            y = middle
            for block in network.blocks[first:]:
                y = block(y)
            outputs.append(F.relu6(network.head(y)).mean(dim=(2, 3)))
            middles.append(middle)
    return torch.cat(outputs), torch.cat(middles)


def linear_probe(features, labels, classes, seed):
    """Multinomial logistic regression on standardised features (scale floored at the median standard deviation),
    L2 chosen by stratified 5-fold cross-validation; returns the standardiser (mean, scale) and the dense layer's
    weight and bias on standardised features."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    x = features.numpy().astype(np.float64)
    mean, scale = x.mean(0), x.std(0)
    scale = np.maximum(scale, np.median(scale))
    z = (x - mean) / scale
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    best = None
    for l2 in [10.0 ** exponent for exponent in range(-3, 4)]:
        model = LogisticRegression(C=1 / l2, max_iter=2000)
        score = cross_val_score(model, z, labels, cv=folds).mean()
        if best is None or score > best[0] + 1e-9:
            best = (score, l2)
    model = LogisticRegression(C=1 / best[1], max_iter=2000).fit(z, labels)
    tensor = lambda value: torch.tensor(value, dtype=torch.float32)  # noqa: E731
    return (tensor(mean), tensor(scale)), tensor(model.coef_), tensor(model.intercept_), best


class Standardiser(torch.nn.Module):
    def __init__(self, mean, scale):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("scale", scale)

    def forward(self, x):
        return (x - self.mean) / self.scale


def accuracy(logits, truths):
    return float((logits.argmax(1) == truths).float().mean())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("weights")
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("--first-block", type=int, default=8, help="first trainable MBConv block (8: last three stages)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=3e-4, help="peak, backbone and head alike")
    parser.add_argument("--warm-up", type=float, default=0.1, help="share of the steps warming up linearly")
    parser.add_argument("--weight-decay", type=float, default=0.01)
    parser.add_argument("--held-out", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(arguments.seed)
    generator = random.Random(arguments.seed)
    started = time.time()

    names, training = listing(arguments.dataset / "Training Data")
    _, testing = listing(arguments.dataset / "Testing Data", names)
    # Stratified held-out share of the training images for choosing the epoch.
    by_label = {}
    for item in training:
        by_label.setdefault(item[1], []).append(item)
    fitting, held_out = [], []
    for label, items in sorted(by_label.items()):
        items = items[:]
        generator.shuffle(items)
        count = max(1, round(arguments.held_out * len(items)))
        held_out += items[:count]
        fitting += items[count:]

    network = Network(read_safetensors(arguments.weights)).to(memory_format=torch.channels_last)
    network.eval()
    first = arguments.first_block
    images = {path: flattened(path) for path, _ in training + testing}

    def evaluation(items):
        features, middles = features_of(network, [evaluation_input(images[path]) for path, _ in items], first)
        return features, middles, torch.tensor([label for _, label in items])

    fitting_features, _, fitting_truths = evaluation(fitting)
    held_features, held_middles, held_truths = evaluation(held_out)
    test_features, test_middles, test_truths = evaluation(testing)
    (mean, scale), weight, bias, (probe_score, probe_l2) = linear_probe(fitting_features, fitting_truths.numpy(), len(names),
                                                         arguments.seed)
    dense = torch.nn.Linear(1280, len(names))
    with torch.no_grad():
        dense.weight.copy_(weight)
        dense.bias.copy_(bias)
    # The standardiser stays fixed in front of the dense layer (the head trains in standardised units).
    network.classifier = torch.nn.Sequential(Standardiser(mean, scale), dense)
    probe_held = accuracy(network.classifier(held_features), held_truths)
    probe_test = accuracy(network.classifier(test_features), test_truths)
    print(f"linear probe: l2 {probe_l2:g} (5-fold {probe_score:.3f}), held-out {probe_held:.3f}, "
          f"testing {probe_test:.3f}, {time.time() - started:.0f} s", flush=True)

    head = list(network.classifier.parameters())
    backbone = list(network.head.parameters()) + [p for block in network.blocks[first:] for p in block.parameters()]
    for parameter in network.parameters():
        parameter.requires_grad_(False)
    for parameter in head + backbone:
        parameter.requires_grad_(True)
    optimizer = torch.optim.AdamW([
        {"params": backbone, "lr": arguments.learning_rate},
        {"params": head, "lr": arguments.learning_rate},
    ], weight_decay=arguments.weight_decay)
    base_rates = [group["lr"] for group in optimizer.param_groups]
    steps_per_epoch = math.ceil(len(fitting) / arguments.batch)
    total_steps = steps_per_epoch * arguments.epochs
    warm_up = max(1, round(arguments.warm_up * total_steps))

    def top_logits(middles):
        outputs = []
        for start in range(0, len(middles), 64):
            outputs.append(network.top(middles[start:start + 64], first))
        return torch.cat(outputs)

    best = {"epoch": 0, "held_out": probe_held, "testing": probe_test}
    history = []
    step = 0
    for epoch in range(1, arguments.epochs + 1):
        order = fitting[:]
        generator.shuffle(order)
        epoch_loss, epoch_started = 0.0, time.time()
        for start in range(0, len(order), arguments.batch):
            batch = order[start:start + arguments.batch]
            x = torch.stack([augmented_input(images[path], generator) for path, _ in batch])
            x = x.contiguous(memory_format=torch.channels_last)
            y = torch.tensor([label for _, label in batch])
            with torch.no_grad():
                middle = network.bottom(x, first)
            factor = (step + 1) / warm_up if step < warm_up else \
                0.5 * (1 + math.cos(math.pi * (step - warm_up) / max(1, total_steps - warm_up)))
            for group, rate in zip(optimizer.param_groups, base_rates):
                group["lr"] = rate * factor
            loss = F.cross_entropy(network.top(middle, first), y, label_smoothing=0.1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            epoch_loss += float(loss.detach()) * len(batch)
            step += 1
        with torch.no_grad():
            held = accuracy(top_logits(held_middles), held_truths)
            test = accuracy(top_logits(test_middles), test_truths)
        history.append({"epoch": epoch, "loss": epoch_loss / len(order), "held_out": held, "testing": test,
                        "seconds": time.time() - epoch_started})
        print(f"epoch {epoch}: loss {epoch_loss / len(order):.4f}, held-out {held:.3f}, testing {test:.3f}, "
              f"{time.time() - epoch_started:.0f} s", flush=True)
        if held > best["held_out"]:
            best = {"epoch": epoch, "held_out": held, "testing": test}
    summary = {"dataset": str(arguments.dataset), "first_block": first, "seed": arguments.seed,
               "fitting": len(fitting), "held_out": len(held_out), "testing": len(testing),
               "probe": {"l2": probe_l2, "held_out": probe_held, "testing": probe_test},
               "best": best, "history": history, "seconds": time.time() - started}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
