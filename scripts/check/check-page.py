#!/usr/bin/env python3
"""Open an HTML page in headless Chromium and report what a person would meet: errors, requests, timing, pixels.

    .venv/bin/python3 scripts/check/check-page.py PAGE.html RESULT.json [--screenshot OUT.png] [--videos]
        [--evaluate JS]...

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: file descriptors 3 and 4,
messages separated by NUL bytes), so nothing but the standard library is needed to talk to it, and no port is
opened. RESULT.json gets:

    console_errors   console.error calls, uncaught exceptions and browser log entries of level "error"
                     (a blocked request or a content-security-policy violation lands here too)
    requests         every URL the page asked for (the page itself included)
    load_ms          navigation start to the end of the load event (performance timing)
    render_ms        navigation start to the first frame painted after the load event
    text             the body's textContent (collapsed <details> and SVG text included)
    data_paths       every data-path attribute (the gallery cards name their files there)
    video_states     with --videos: each <video>'s readyState after waiting up to 20 s for it to reach 2
    distinct_colors  with --screenshot: distinct RGB colours in the full-page screenshot (Pillow)
    page_height      the page's height in CSS pixels
    evaluations      with --evaluate: each expression's value, in order, after the checks above (a promise is
                     awaited), e.g. to seek the player and read what it shows

Exit status 0 when the page was checked (whatever it contains), 2 when Chromium could not be driven.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

VIEWPORT_WIDTH = 1280
MAXIMUM_SCREENSHOT_HEIGHT = 16000
TIMEOUT_SECONDS = 60


class Browser:
    """One headless Chromium, one tab, commands answered in order; events kept for later."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="workbench-chromium-")
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def arrange_descriptors():
            # Chromium reads commands from descriptor 3 and writes replies to 4. The pipes may already sit on 3
            # or 4, so both are copied out of the way before being placed.
            read_copy, write_copy = os.dup(commands_read), os.dup(replies_write)
            os.dup2(read_copy, 3)
            os.dup2(write_copy, 4)

        executable = shutil.which("chromium") or shutil.which("chromium-browser")
        if executable is None:
            raise RuntimeError("chromium not found on PATH; run scripts/setup.sh (it installs Debian's chromium)")
        self.process = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             "--no-default-browser-check", "--mute-audio", "--autoplay-policy=no-user-gesture-required",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=arrange_descriptors, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(commands_read)
        os.close(replies_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None
        self.deadline = time.monotonic() + TIMEOUT_SECONDS

    def _read_message(self):
        while b"\0" not in self.buffer:
            if time.monotonic() > self.deadline:
                raise RuntimeError("Chromium did not answer in time")
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method):
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read_message()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def evaluate(self, expression, awaits=False):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": awaits})
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def open(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": VIEWPORT_WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for descriptor in (self.commands, self.replies):
            try:
                os.close(descriptor)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


def console_errors(events):
    errors = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(argument.get("value", argument.get("description", ""))) for argument in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            errors.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            errors.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip())
    return errors


def check(page: pathlib.Path, screenshot, videos: bool, expressions) -> dict:
    browser = Browser()
    try:
        browser.open()
        browser.send("Page.navigate", {"url": page.resolve().as_uri()})
        browser.wait_for("Page.loadEventFired")
        render_ms = browser.evaluate(
            "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now()))))", awaits=True)
        load_ms = browser.evaluate("(() => { const n = performance.getEntriesByType('navigation')[0];"
                                   " return n ? n.loadEventEnd : performance.now(); })()")
        result = {"load_ms": load_ms, "render_ms": render_ms}
        if videos:
            states = []
            deadline = time.monotonic() + 20
            while True:
                states = browser.evaluate("Array.from(document.querySelectorAll('video')).map(v => v.readyState)")
                if all(state >= 2 for state in states) or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            result["video_states"] = states
        result["text"] = browser.evaluate("document.body ? document.body.textContent : ''")
        result["data_paths"] = browser.evaluate("Array.from(document.querySelectorAll('[data-path]')).map(e => e.getAttribute('data-path'))")
        height = browser.evaluate("Math.ceil(document.documentElement.scrollHeight)")
        result["page_height"] = height
        if screenshot:
            shot_height = max(1, min(int(height), MAXIMUM_SCREENSHOT_HEIGHT))
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": VIEWPORT_WIDTH, "height": shot_height, "deviceScaleFactor": 1, "mobile": False})
            # Lazy images below the first screen start loading once the taller viewport shows them.
            browser.evaluate("Promise.all(Array.from(document.images).map(i => i.complete ? null :"
                             " new Promise(done => { i.onload = i.onerror = done; setTimeout(done, 3000); })))", awaits=True)
            browser.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))", awaits=True)
            shot = browser.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
            import base64
            pathlib.Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
            from PIL import Image
            with Image.open(screenshot) as image:
                colors = image.convert("RGB").getcolors(maxcolors=1 << 24)
                result["distinct_colors"] = len(colors) if colors else 1 << 24
                result["screenshot_size"] = list(image.size)
        result["evaluations"] = [browser.evaluate(expression, awaits=True) for expression in expressions]
        # Let late events (errors from scripts run on load, media requests) arrive before the tally.
        browser.evaluate("new Promise(done => setTimeout(done, 300))", awaits=True)
        browser.evaluate("1")
        result["requests"] = [event["params"]["request"]["url"] for event in browser.events
                              if event.get("method") == "Network.requestWillBeSent"]
        result["console_errors"] = console_errors(browser.events)
        return result
    finally:
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("page", type=pathlib.Path)
    parser.add_argument("result", type=pathlib.Path)
    parser.add_argument("--screenshot")
    parser.add_argument("--videos", action="store_true")
    parser.add_argument("--evaluate", action="append", default=[])
    arguments = parser.parse_args()
    if not arguments.page.is_file():
        print(f"check-page: {arguments.page}: no such file", file=sys.stderr)
        return 2
    try:
        result = check(arguments.page, arguments.screenshot, arguments.videos, arguments.evaluate)
    except Exception as error:  # a broken browser is the caller's failure to report, with the reason
        print(f"check-page: {arguments.page}: {error}", file=sys.stderr)
        return 2
    arguments.result.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
