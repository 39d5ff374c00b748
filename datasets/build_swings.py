#!/usr/bin/env python3
"""Build a dataset of swing-like videos whose phases are known, for `workbench phases` (no golf footage is
available offline, so the swings are drawn).

    datasets/swings/Training Data/<label>/<player>-<video>-<frame>.jpg   frames of the training players' swings
    datasets/swings/Testing Videos/<player>-<video>.mp4 (+ .json)         the held-out players' videos
    datasets/swings/Validation Videos/<player>-v<video>.mp4 (+ .json)     the last training players' extra videos

Each video is a stick figure drawn from a few strokes (legs, torso, head, arms, club, ball) that stands beside the
ball (`before`), steps in to the ball (`address`), swings the club back and up and down again (`backswing`), hits
the ball, which flies off (`impact`, from contact until the arms are level on the far side), follows through to a
held pose (`finish`) and relaxes with the club on its shoulder (`after`). Beside each video, its truth in the
shape `workbench phases` writes (`{"video", "order", "phases": [{"label", "start", "end"}]}`, seconds): phase
boundaries fall on frame boundaries, so the truth of a phase start is a frame.

Players are style families: each has its own proportions (legs, torso, head, arms), stroke width, club length,
posture and tempo (how long the backswing, the downswing, the through-swing take). Per video, on top of the
player's style: random durations of every stretch, figure size, position (camera offset), colours of figure, club
and ball, a background (gradient, a ground band, a few shapes), per-frame camera shake and pixel noise, and the
ball's launch. Players P1–P5 train; P6–P8 are held out (their videos are `Testing Videos`); a model trained on
`Training Data` has never seen a held-out player's style.

Validation, so that the held-out players choose nothing: the last --validation-players training players (P4–P5)
also get whole videos of other swings (`Validation Videos`, drawn from their own random streams, so they change
neither the training frames nor the held-out videos). A model trained on the frames of the other training players
(P1–P3: the file names start with the player) has never seen a validation player's style, as a model trained on
all of `Training Data` has never seen a held-out player's: recipes are compared on the validation videos, and the
held-out videos are scored once, with the chosen recipe.

Training frames are labelled with their phase (`before`, `address`, `backswing`, `impact`, `finish`, `after`):
every frame within 2 frames of a phase start, every other frame of the short impact phase, and every fifth frame
elsewhere, from many swings per training player (appearance varies per swing, so many swings with few frames each
teach more than few swings with many). Only those frames of a training swing are drawn; no video is written for
it. Held-out swings are whole videos, 320 x 240 at 25 fps, H.264 (ffmpeg, CRF 18); frames are drawn at twice the
size and reduced by averaging 2 x 2 pixels (anti-aliasing). Swings are drawn by two processes at once.

Everything is derived from --seed (default 25): the same seed gives the same dataset.

Usage: .venv/bin/python3 datasets/build_swings.py [--out DIR] [--seed N] [--swings-per-training-player N]
           [--videos-per-held-out-player N] [--players N] [--held-out N] [--validation-players N]
           [--videos-per-validation-player N]   (default: datasets/swings, 25, 16, 6, 8, 3, 2, 8)
"""
import argparse
import json
import math
import multiprocessing
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
from PIL import Image, ImageDraw

ORDER = ["address", "backswing", "impact", "finish"]
WIDTH, HEIGHT, FPS, SCALE = 320, 240, 25, 2
RECIPE_VERSION = "swings v3"
# Appended to a validation swing's random-stream key: a stream no training swing or held-out video draws from.
VALIDATION_STREAM = 1


def player_style(rng: np.random.Generator, number: int) -> dict:
    """A player's fixed style: proportions as fractions of the figure's height, stroke width, tempo in seconds."""
    return {
        "name": f"P{number}",
        "leg": rng.uniform(0.42, 0.52), "torso": rng.uniform(0.28, 0.36), "head": rng.uniform(0.055, 0.085),
        "arm": rng.uniform(0.30, 0.40), "club": rng.uniform(0.38, 0.55), "stance": rng.uniform(0.14, 0.26),
        "stroke": rng.uniform(0.022, 0.05), "tilt": rng.uniform(0.15, 0.35), "knee": rng.uniform(0.05, 0.14),
        "top": rng.uniform(115, 150), "top_hinge": rng.uniform(70, 105),
        "backswing": rng.uniform(0.7, 1.2), "downswing": rng.uniform(0.24, 0.4), "through": rng.uniform(0.18, 0.3),
        "finish_angle": rng.uniform(140, 165), "address_hold": (rng.uniform(0.8, 1.2), rng.uniform(1.4, 2.2)),
        "waggle": rng.uniform(0, 4),
    }


def random_color(rng, avoid=None, minimum_distance=140):
    """An RGB colour at least `minimum_distance` (in luminance-weighted distance) from `avoid`."""
    while True:
        color = tuple(int(v) for v in rng.integers(0, 256, 3))
        if avoid is None or contrast(color, avoid) >= minimum_distance:
            return color


def contrast(a, b):
    luminance = lambda c: 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
    return abs(luminance(a) - luminance(b)) + 0.25 * sum(abs(x - y) for x, y in zip(a, b)) / 3


def background(rng) -> Image.Image:
    """A gradient sky, a ground band and a few soft shapes, drawn at the working scale."""
    w, h = WIDTH * SCALE, HEIGHT * SCALE
    top, bottom = np.array(random_color(rng), float), np.array(random_color(rng), float)
    t = np.linspace(0, 1, h)[:, None, None]
    pixels = (top * (1 - t) + bottom * t) * np.ones((1, w, 1))
    image = Image.fromarray(np.uint8(pixels.clip(0, 255)))
    draw = ImageDraw.Draw(image)
    for _ in range(int(rng.integers(0, 5))):
        x, y = rng.uniform(0, w), rng.uniform(0, h * 0.7)
        r = rng.uniform(10, 60) * SCALE
        draw.ellipse([x - r, y - r * rng.uniform(0.5, 1.5), x + r, y + r], fill=random_color(rng))
    ground = int(h * rng.uniform(0.78, 0.92))
    draw.rectangle([0, ground, w, h], fill=random_color(rng))
    return image, ground


class Swing:
    """One video's script: the frame where each stretch starts and the pose at every frame."""

    def __init__(self, style: dict, rng: np.random.Generator):
        self.style = style
        jitter = lambda value: value * rng.uniform(0.85, 1.15)
        frames = lambda seconds: max(1, int(round(seconds * FPS)))
        self.before_hold = frames(rng.uniform(0.5, 1.4))
        self.step_in = frames(rng.uniform(0.4, 0.7))
        self.address = frames(rng.uniform(*style["address_hold"]))
        self.back = frames(jitter(style["backswing"]))
        self.pause = frames(rng.uniform(0.0, 0.12)) if rng.uniform() < 0.7 else 0
        self.down = frames(jitter(style["downswing"]))
        self.through = max(4, frames(jitter(style["through"])))
        self.follow = frames(rng.uniform(0.25, 0.45))
        self.finish_hold = frames(rng.uniform(0.5, 1.1))
        self.relax = frames(rng.uniform(0.35, 0.6))
        self.after_hold = frames(rng.uniform(0.3, 0.9))
        self.top = jitter(style["top"])
        self.finish_angle = jitter(style["finish_angle"])
        self.step_offset = rng.choice([-1, 1]) * rng.uniform(0.35, 0.55)
        self.ball_angle = math.radians(rng.uniform(8, 40))
        self.ball_speed = rng.uniform(1.2, 3.0)  # figure heights per second
        starts, frame = {}, 0
        frame += self.before_hold + self.step_in
        starts["address"] = frame
        frame += self.address
        starts["backswing"] = frame
        frame += self.back + self.pause + self.down
        starts["impact"] = frame
        frame += self.through
        starts["finish"] = frame
        frame += self.follow + self.finish_hold
        starts["after"] = frame
        frame += self.relax + self.after_hold
        self.starts, self.count = starts, frame

    def label(self, frame: int) -> str:
        if frame < self.starts["address"]:
            return "before"
        for name in reversed(ORDER + ["after"]):
            if frame >= self.starts[name]:
                return name
        return "before"

    def pose(self, frame: int) -> dict:
        """Arm angle (degrees from straight down, + towards the backswing side), club hinge (degrees, same sense),
        posture (0 upright, 1 at address), sideways offset (figure heights), hip shift, ball flight time."""
        s = self.style
        address = {"arm": 0.0, "hinge": 0.0, "posture": 1.0, "offset": 0.0, "shift": 0.0}
        standing = {"arm": 12.0, "hinge": 8.0, "posture": 0.0, "offset": self.step_offset, "shift": 0.0}
        resting = {"arm": -15.0, "hinge": -10.0, "posture": 0.0, "offset": 0.0, "shift": 0.0}
        finish = {"arm": -self.finish_angle, "hinge": -100.0, "posture": 0.35, "offset": 0.0, "shift": -0.05}
        mix = lambda a, b, u: {k: a[k] + (b[k] - a[k]) * u for k in a}
        f = frame
        if f < self.before_hold:
            pose = dict(standing)
            pose["arm"] += 2 * math.sin(f / 5)
        elif f < self.starts["address"]:
            u = (f - self.before_hold + 1) / (self.step_in + 1)
            pose = mix(standing, address, u * u)  # arrives at full speed: the address pose is reached at its start
        elif f < self.starts["backswing"]:
            pose = dict(address)
            pose["hinge"] += s["waggle"] * math.sin((f - self.starts["address"]) / 4)
        elif f < self.starts["impact"]:
            u = f - self.starts["backswing"]
            if u < self.back:
                v = (u + 1) / self.back
                pose = dict(address, arm=self.top * (1 - (1 - v) ** 1.7), hinge=s["top_hinge"] * v ** 1.3,
                            shift=0.03 * v, posture=1 - 0.1 * v)
            elif u < self.back + self.pause:
                pose = dict(address, arm=self.top, hinge=s["top_hinge"], shift=0.03, posture=0.9)
            else:
                v = (u - self.back - self.pause) / self.down
                pose = dict(address, arm=self.top * (1 - v * v), hinge=s["top_hinge"] * (1 - v ** 3),
                            shift=0.03 - 0.05 * v, posture=0.9 + 0.1 * v)
        elif f < self.starts["finish"]:
            v = (f - self.starts["impact"]) / self.through
            pose = dict(address, arm=-90 * v, hinge=-30 * v, shift=-0.02 - 0.02 * v, posture=1 - 0.3 * v)
        elif f < self.starts["after"]:
            u = f - self.starts["finish"]
            v = min(1.0, u / self.follow)
            start = {"arm": -90.0, "hinge": -30.0, "posture": 0.7, "offset": 0.0, "shift": -0.04}
            pose = mix(start, finish, 1 - (1 - v) ** 2)
        else:
            v = min(1.0, (f - self.starts["after"] + 1) / self.relax)
            pose = mix(finish, resting, v * v * (3 - 2 * v))
        pose["flight"] = (f - self.starts["impact"] + 1) / FPS if f >= self.starts["impact"] else None
        return pose


class Look:
    """One video's appearance: size, place, colours, background, noise."""

    def __init__(self, rng):
        self.height = rng.uniform(0.6, 0.85) * HEIGHT * SCALE
        self.background, self.ground = background(rng)
        mean_color = tuple(int(v) for v in np.asarray(self.background).reshape(-1, 3).mean(0))
        self.figure = random_color(rng, avoid=mean_color)
        self.club = random_color(rng, avoid=mean_color, minimum_distance=110)
        self.ball = random_color(rng, avoid=mean_color, minimum_distance=120)
        self.x = WIDTH * SCALE * 0.5 + rng.uniform(-0.08, 0.08) * HEIGHT * SCALE
        self.feet = self.ground + rng.uniform(0.02, 0.08) * HEIGHT * SCALE
        self.noise = rng.uniform(0, 7)
        self.shake = rng.uniform(0, 1.5)


def skeleton(style: dict, pose: dict, look: Look) -> dict:
    """The figure's joints in pixels at the working scale (y down)."""
    h = look.height
    x0 = look.x + (pose["offset"] + pose["shift"]) * h
    posture = pose["posture"]
    knee_bend = style["knee"] * posture
    hip = (x0, look.feet - style["leg"] * h * (1 - 0.5 * knee_bend))
    torso = style["torso"] * h * (1 - style["tilt"] * posture * 0.6)
    shoulder = (hip[0] - 0.02 * h * pose["shift"] / 0.05, hip[1] - torso)
    head = (shoulder[0], shoulder[1] - style["head"] * h * 1.3)
    arm = math.radians(pose["arm"])
    hands = (shoulder[0] + style["arm"] * h * math.sin(arm), shoulder[1] + style["arm"] * h * math.cos(arm))
    club = math.radians(pose["arm"] + pose["hinge"])
    head_of_club = (hands[0] + style["club"] * h * math.sin(club), hands[1] + style["club"] * h * math.cos(club))
    half = style["stance"] * h * (0.6 + 0.4 * posture) / 2
    feet = [(look.x - half, look.feet), (look.x + half, look.feet)]
    knees = [((hip[0] + f[0]) / 2 + (0.5 - i) * knee_bend * h * 0.6, (hip[1] + f[1]) / 2) for i, f in enumerate(feet)]
    return {"hip": hip, "shoulder": shoulder, "head": head, "hands": hands, "club_head": head_of_club, "feet": feet,
            "knees": knees, "arm_ends": [(shoulder[0] - 0.04 * h, shoulder[1]), (shoulder[0] + 0.04 * h, shoulder[1])]}


def ball_rest(style: dict, look: Look) -> tuple:
    """Where the ball sits: under the club head at address."""
    joints = skeleton(style, {"arm": 0.0, "hinge": 0.0, "posture": 1.0, "offset": 0.0, "shift": 0.0}, look)
    return (joints["club_head"][0], min(joints["club_head"][1], look.feet))


def draw_frame(swing: Swing, look: Look, frame: int, rng) -> Image.Image:
    style, pose = swing.style, swing.pose(frame)
    image = look.background.copy()
    draw = ImageDraw.Draw(image)
    joints = skeleton(style, pose, look)
    width = max(2, int(style["stroke"] * look.height))

    def line(a, b, color, w=width):
        draw.line([a, b], fill=color, width=w)
        for x, y in (a, b):
            draw.ellipse([x - w / 2, y - w / 2, x + w / 2, y + w / 2], fill=color)

    rest = ball_rest(style, look)
    radius = max(3.0, 0.022 * look.height)
    if pose["flight"] is None:
        ball = rest
    else:
        t = pose["flight"]
        distance = swing.ball_speed * look.height * t
        direction = -1  # towards the target, away from the backswing side
        ball = (rest[0] + direction * distance * math.cos(swing.ball_angle), rest[1] - distance * math.sin(swing.ball_angle))
        tail = (ball[0] - direction * radius * 3, ball[1] + radius * 3 * math.tan(swing.ball_angle))
        draw.line([tail, ball], fill=look.ball, width=max(1, int(radius * 0.8)))
    draw.ellipse([ball[0] - radius, ball[1] - radius, ball[0] + radius, ball[1] + radius], fill=look.ball)
    for foot, knee in zip(joints["feet"], joints["knees"]):
        line(joints["hip"], knee, look.figure)
        line(knee, foot, look.figure)
    line(joints["hip"], joints["shoulder"], look.figure)
    for end in joints["arm_ends"]:
        line(end, joints["hands"], look.figure, max(2, int(width * 0.8)))
    line(joints["hands"], joints["club_head"], look.club, max(2, int(width * 0.45)))
    cx, cy = joints["club_head"]
    draw.ellipse([cx - width * 0.9, cy - width * 0.6, cx + width * 0.9, cy + width * 0.6], fill=look.club)
    hx, hy = joints["head"]
    r = style["head"] * look.height
    draw.ellipse([hx - r, hy - r, hx + r, hy + r], outline=look.figure, width=width)
    # Camera shake, reduction (anti-aliasing), then sensor noise.
    # A whole-pixel shift of the working image is a half-pixel one after the reduction; edges repeat the border.
    dx, dy = (int(round(v)) for v in rng.normal(0, look.shake * SCALE, 2))
    if dx or dy:
        shifted = Image.new("RGB", image.size, look.background.getpixel((0, 0)))
        shifted.paste(image, (dx, dy))
        image = shifted
    image = image.reduce(SCALE)
    if look.noise > 0:
        pixels = np.asarray(image, np.float32) + rng.normal(0, look.noise, (HEIGHT, WIDTH, 3))
        image = Image.fromarray(np.uint8(pixels.clip(0, 255).round()))
    return image


def truth(swing: Swing, video_name: str) -> dict:
    ends = {"address": "backswing", "backswing": "impact", "impact": "finish", "finish": "after"}
    return {"video": video_name, "order": ORDER,
            "phases": [{"label": name, "start": swing.starts[name] / FPS, "end": swing.starts[ends[name]] / FPS}
                       for name in ORDER]}


def kept_for_training(swing: Swing, frame: int) -> bool:
    near = any(abs(frame - start) <= 2 for start in swing.starts.values())
    return near or (swing.label(frame) == "impact" and frame % 2 == 0) or frame % 5 == 0


def write_video(swing: Swing, look: Look, path: pathlib.Path, rng, on_frame) -> None:
    encoder = subprocess.Popen(
        ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{WIDTH}x{HEIGHT}", "-r", str(FPS),
         "-i", "-", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", "-r", str(FPS),
         "-movflags", "+faststart", str(path)], stdin=subprocess.PIPE)
    try:
        for frame in range(swing.count):
            image = draw_frame(swing, look, frame, rng)
            encoder.stdin.write(image.tobytes())
            on_frame(frame, image)
    finally:
        encoder.stdin.close()
    if encoder.wait() != 0:
        sys.exit(f"datasets: ffmpeg failed writing {path}")


def make_swing(task) -> dict:
    """One swing: a held-out player's whole video and its truth, a validation player's whole video and its truth,
    or a training player's kept frames. Returns the training frames written per label."""
    seed, index, number, style, role, staging = task
    if role == "validation":
        rng = np.random.default_rng([seed, index, number, VALIDATION_STREAM])
        name = f"{style['name']}-v{number:02d}"
    else:
        rng = np.random.default_rng([seed, index, number])
        name = f"{style['name']}-{number:02d}"
    swing, look = Swing(style, rng), Look(rng)
    counts = {}
    if role != "training":
        folder = staging / ("Testing Videos" if role == "held out" else "Validation Videos")
        write_video(swing, look, folder / f"{name}.mp4", rng, lambda frame, image: None)
        (folder / f"{name}.json").write_text(json.dumps(truth(swing, f"{name}.mp4"), indent=2) + "\n")
        return counts
    for frame in range(swing.count):
        if kept_for_training(swing, frame):
            image = draw_frame(swing, look, frame, rng)
            label = swing.label(frame)
            image.save(staging / "Training Data" / label / f"{name}-{frame:04d}.jpg", quality=92)
            counts[label] = counts.get(label, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent / "swings")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--swings-per-training-player", type=int, default=16)
    parser.add_argument("--videos-per-held-out-player", type=int, default=6)
    parser.add_argument("--players", type=int, default=8)
    parser.add_argument("--held-out", type=int, default=3)
    parser.add_argument("--validation-players", type=int, default=2)
    parser.add_argument("--videos-per-validation-player", type=int, default=8)
    arguments = parser.parse_args()
    if not 1 <= arguments.held_out < arguments.players:
        sys.exit("datasets: --held-out must leave at least one training player")
    if not 0 <= arguments.validation_players < arguments.players - arguments.held_out:
        sys.exit("datasets: --validation-players must leave at least one training player outside validation")
    recipe = (f"{RECIPE_VERSION} seed {arguments.seed} players {arguments.players} held out {arguments.held_out} "
              f"swings {arguments.swings_per_training_player} videos {arguments.videos_per_held_out_player} "
              f"validation players {arguments.validation_players} videos {arguments.videos_per_validation_player}")
    out = arguments.out
    marker = out / ".complete"
    if marker.exists() and marker.read_text() == recipe + "\n":
        print(f"datasets: {out} is complete", file=sys.stderr)
        return
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "Testing Videos").mkdir(parents=True)
    (staging / "Validation Videos").mkdir()
    for label in ["before"] + ORDER + ["after"]:
        (staging / "Training Data" / label).mkdir(parents=True)
    styles = [player_style(np.random.default_rng([arguments.seed, 1000 + number]), number)
              for number in range(1, arguments.players + 1)]
    first_held_out = arguments.players - arguments.held_out
    first_validation = first_held_out - arguments.validation_players
    tasks = []
    for index, style in enumerate(styles):
        held_out = index >= first_held_out
        count = arguments.videos_per_held_out_player if held_out else arguments.swings_per_training_player
        role = "held out" if held_out else "training"
        tasks += [(arguments.seed, index, number, style, role, staging) for number in range(1, count + 1)]
        if first_validation <= index < first_held_out:
            tasks += [(arguments.seed, index, number, style, "validation", staging)
                      for number in range(1, arguments.videos_per_validation_player + 1)]
    counts = {}
    with multiprocessing.Pool(2) as pool:
        for done, result in enumerate(pool.imap(make_swing, tasks), 1):
            for label, count in result.items():
                counts[label] = counts.get(label, 0) + count
            if done % 10 == 0 or done == len(tasks):
                print(f"datasets: {done}/{len(tasks)} swings drawn", file=sys.stderr)
    (staging / ".complete").write_text(recipe + "\n")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(staging, out)
    for label in sorted(counts):
        print(f"datasets: {label:10s} training frames {counts[label]:5d}", file=sys.stderr)


if __name__ == "__main__":
    main()
