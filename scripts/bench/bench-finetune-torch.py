"""PyTorch's side of scripts/bench/bench-finetune.sh: forward + backward per image through the trainable top of
EfficientNet-Lite0, the way the issue's prototype ran it (batch norm folded into each convolution's weights and
bias, ReLU6, TensorFlow SAME padding, channels-last, a fresh dense head with softmax cross-entropy and label
smoothing 0.1).

Usage: .venv/bin/python3 scripts/bench/bench-finetune-torch.py WEIGHTS.safetensors ROW THREADS BATCH RUNS

ROW is `last-block` (block 15, the head convolution and the dense head train), `last-three-stages` (blocks 8-15
and the rest) or `whole` (the stem and everything after it). The frozen layers below run once, without
gradients, to make the trainable part's input; each run then times one forward + backward over BATCH images
(gradients set to None first, as an optimizer step would leave them). Prints each run's milliseconds per image,
then the median on the last line: `median ms/image: X`.
"""
import json
import statistics
import struct
import sys
import time

import torch
import torch.nn.functional as F

STAGES = [  # repeats, kernel, stride, expansion, output channels (the reference README's stage table)
    (1, 3, 1, 1, 16), (2, 3, 2, 6, 24), (2, 5, 2, 6, 40), (3, 3, 2, 6, 80),
    (3, 5, 1, 6, 112), (4, 5, 2, 6, 192), (1, 3, 1, 6, 320),
]
FIRST_TRAINABLE_BLOCK = {"last-block": 15, "last-three-stages": 8, "whole": None}
EPSILON = 1e-3
CLASSES = 5


def read_safetensors(path):
    """name -> float32 tensor, read by hand (8-byte header length, JSON header, raw little-endian data)."""
    with open(path, "rb") as file:
        data = file.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = memoryview(data)[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", name
        start, end = entry["data_offsets"]
        tensors[name] = torch.frombuffer(bytearray(body[start:end]), dtype=torch.float32).reshape(entry["shape"])
    return tensors


def same_padding(size, kernel, stride):
    """TensorFlow SAME: (before, after) along one axis."""
    output = -(-size // stride)
    total = max((output - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


class FoldedConvolution(torch.nn.Module):
    """Convolution with its batch norm folded in (weights scaled per output channel, a bias added)."""

    def __init__(self, weights, tensors, batch_norm, stride=1, groups=1):
        super().__init__()
        scale = tensors[batch_norm + ".weight"] / torch.sqrt(tensors[batch_norm + ".running_var"] + EPSILON)
        shift = tensors[batch_norm + ".bias"] - tensors[batch_norm + ".running_mean"] * scale
        self.weight = torch.nn.Parameter((weights * scale.reshape(-1, 1, 1, 1)).contiguous())
        self.bias = torch.nn.Parameter(shift.clone())
        self.stride, self.groups, self.kernel = stride, groups, weights.shape[-1]

    def forward(self, x):
        if self.kernel > 1:
            top, bottom = same_padding(x.shape[2], self.kernel, self.stride)
            left, right = same_padding(x.shape[3], self.kernel, self.stride)
            x = F.pad(x, (left, right, top, bottom))
        return F.conv2d(x, self.weight, self.bias, stride=self.stride, groups=self.groups)


class Block(torch.nn.Module):
    def __init__(self, tensors, index, stride, residual):
        super().__init__()
        prefix = f"_blocks.{index}."
        self.expand = None
        if prefix + "_expand_conv.weight" in tensors:
            self.expand = FoldedConvolution(tensors[prefix + "_expand_conv.weight"], tensors, prefix + "_bn0")
        depthwise = tensors[prefix + "_depthwise_conv.weight"]
        self.depthwise = FoldedConvolution(depthwise, tensors, prefix + "_bn1", stride=stride, groups=depthwise.shape[0])
        self.project = FoldedConvolution(tensors[prefix + "_project_conv.weight"], tensors, prefix + "_bn2")
        self.residual = residual

    def forward(self, x):
        y = F.relu6(self.expand(x)) if self.expand is not None else x
        y = self.project(F.relu6(self.depthwise(y)))
        return y + x if self.residual else y


class Network(torch.nn.Module):
    def __init__(self, tensors):
        super().__init__()
        self.stem = FoldedConvolution(tensors["_conv_stem.weight"], tensors, "_bn0", stride=2)
        blocks, channels = [], 32
        for repeats, _, stride, _, outputs in STAGES:
            for repeat in range(repeats):
                block_stride = stride if repeat == 0 else 1
                blocks.append(Block(tensors, len(blocks), block_stride, block_stride == 1 and channels == outputs))
                channels = outputs
        self.blocks = torch.nn.ModuleList(blocks)
        self.head = FoldedConvolution(tensors["_conv_head.weight"], tensors, "_bn1")
        generator = torch.Generator().manual_seed(0)
        self.classifier = torch.nn.Linear(1280, CLASSES)
        with torch.no_grad():
            self.classifier.weight.copy_(torch.randn(CLASSES, 1280, generator=generator) * 0.01)
            self.classifier.bias.zero_()

    def bottom(self, x, first):
        """The frozen layers below block `first` (None: nothing is frozen)."""
        if first is None:
            return x
        x = F.relu6(self.stem(x))
        for block in self.blocks[:first]:
            x = block(x)
        return x

    def top(self, x, first):
        """The trainable layers from block `first` (None: from the stem) to the logits."""
        if first is None:
            x = F.relu6(self.stem(x))
            first = 0
        for block in self.blocks[first:]:
            x = block(x)
        features = F.relu6(self.head(x)).mean(dim=(2, 3))
        return self.classifier(features)


def main():
    weights_path, row = sys.argv[1], sys.argv[2]
    threads, batch, runs = map(int, sys.argv[3:6])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    network = Network(read_safetensors(weights_path)).to(memory_format=torch.channels_last)
    first = FIRST_TRAINABLE_BLOCK[row]
    images = torch.randn(batch, 3, 224, 224).contiguous(memory_format=torch.channels_last)
    labels = torch.arange(batch) % CLASSES
    with torch.no_grad():
        inputs = network.bottom(images, first).contiguous(memory_format=torch.channels_last)
    trainable = list(network.classifier.parameters()) + list(network.head.parameters())
    if first is None:
        trainable += list(network.stem.parameters())
    for block in network.blocks[(first or 0):]:
        trainable += list(block.parameters())
    for parameter in network.parameters():
        parameter.requires_grad_(False)
    for parameter in trainable:
        parameter.requires_grad_(True)

    def step():
        for parameter in trainable:
            parameter.grad = None
        loss = F.cross_entropy(network.top(inputs, first), labels, label_smoothing=0.1)
        loss.backward()

    for _ in range(2):
        step()  # warm-up: allocator and kernel selection
    times = []
    for run in range(1, runs + 1):
        start = time.perf_counter()
        step()
        times.append(1000 * (time.perf_counter() - start) / batch)
        print(f"run {run}: {times[-1]:.2f} ms/image", flush=True)
    print(f"median ms/image: {statistics.median(times):.2f} row={row} threads={threads} batch={batch}")


if __name__ == "__main__":
    main()
