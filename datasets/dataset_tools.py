"""Shared pieces of the dataset recipes in this folder: fetching a Debian package's files without installing it,
and writing a dataset in Create ML's layout atomically.

    <out>/Training Data/<label>/*.png
    <out>/Testing Data/<label>/*.png

A finished dataset holds a `.complete` marker naming its recipe; a recipe whose marker matches is not rebuilt.
The dataset is written under `<out>.partial` and renamed into place, so an interrupted build leaves nothing that
looks finished.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

CACHE = pathlib.Path(__file__).resolve().parent / ".cache"


def debian_package_root(package: str, cache: pathlib.Path = CACHE) -> pathlib.Path:
    """The root of `package`'s files: `/` when it is installed, else its .deb unpacked into the cache (no install,
    no root needed beyond what `apt-get download` asks)."""
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    if "install ok installed" in status.stdout:
        return pathlib.Path("/")
    unpacked = cache / package
    if not unpacked.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as work:
            print(f"datasets: downloading Debian's {package}", file=sys.stderr)
            # apt warns that root downloads unsandboxed; only a failure is worth showing.
            download = subprocess.run(["apt-get", "download", package], cwd=work, capture_output=True, text=True)
            if download.returncode != 0:
                sys.exit(f"datasets: apt-get download {package} failed: {download.stderr.strip()}")
            deb = next(pathlib.Path(work).glob(f"{package}_*.deb"))
            target = cache / f"{package}.partial"
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run(["dpkg", "-x", str(deb), str(target)], check=True)
            os.replace(target, unpacked)
    return unpacked


class DatasetWriter:
    """Collects images into `<out>.partial`, then `finish()` moves the whole dataset into place."""

    def __init__(self, out: pathlib.Path, recipe: str):
        self.out = out
        self.recipe = recipe
        self.staging = out.with_name(out.name + ".partial")
        self.counts = {}

    def is_complete(self) -> bool:
        marker = self.out / ".complete"
        return marker.exists() and marker.read_text() == self.recipe + "\n"

    def start(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)

    def add(self, image, split: str, label: str, name: str) -> None:
        """Saves a Pillow image as PNG; `split` is "Training Data" or "Testing Data"."""
        destination = self.staging / split / label / f"{name}.png"
        destination.parent.mkdir(parents=True, exist_ok=True)
        image.save(destination, optimize=False)
        self.counts[(label, split)] = self.counts.get((label, split), 0) + 1

    def finish(self) -> None:
        (self.staging / ".complete").write_text(self.recipe + "\n")
        shutil.rmtree(self.out, ignore_errors=True)
        os.replace(self.staging, self.out)
        for label in sorted({label for label, _ in self.counts}):
            print(f"datasets: {label:16s} training {self.counts.get((label, 'Training Data'), 0):4d}  "
                  f"testing {self.counts.get((label, 'Testing Data'), 0):4d}", file=sys.stderr)
