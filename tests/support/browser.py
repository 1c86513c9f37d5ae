"""A headless Chromium driven over the Chrome DevTools Protocol, for the HTML report's tests.

The distribution's ``chromium`` is started with a new profile folder and every background service
off (the machine's network refuses its connections otherwise), on a DevTools port it picks itself
(written to ``DevToolsActivePort`` in the profile). One page target is driven over its websocket
(``websocket-client``): navigate, resize, run an expression, press keys, take a screenshot. Every
console message, uncaught exception and browser log entry (a Content-Security-Policy refusal is
one) is kept, so a test can say "no console errors".

Where Chromium is missing, :func:`chromium_or_skip` skips the test, except in CI (``CI=true``),
where it fails: CI installs Chromium (``.ci/run``), and a browser test that skipped there would hide
a broken page.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import websocket

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--remote-debugging-port=0")
"""How Chromium is started (with ``--user-data-dir`` set to a new folder each time)."""

_STARTUP = 60.0
"""Seconds to wait for Chromium's DevTools port, or for a page condition: generous on a loaded
machine, and never asserted as a time (a wait that runs out fails with what was awaited)."""

KEYS = {"Tab": (9, "Tab", ""), "Enter": (13, "Enter", "\r"), " ": (32, "Space", " ")}


def chromium_or_skip() -> str:
    """The Chromium to drive; skip when there is none, but fail in CI, which must have installed it."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        why = "chromium is not installed (apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why}: CI installs it in .ci/run, so the browser tests must run there", pytrace=False)
        pytest.skip(why)
    return exe


class Page:
    """One page of a running Chromium, over its DevTools websocket."""

    def __init__(self, url: str) -> None:
        self._ws = websocket.create_connection(url, timeout=_STARTUP, suppress_origin=True)
        self._ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def close(self) -> None:
        """Close the websocket."""
        self._ws.close()

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result; events that arrive meanwhile are kept."""
        i = next(self._ids)
        self._ws.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            msg = json.loads(self._ws.recv())
            if msg.get("id") == i:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result", {}))
            if "method" in msg:
                self.events.append(msg)

    def _drain(self, until: str) -> None:
        deadline = time.monotonic() + _STARTUP
        while not any(e["method"] == until for e in self.events):
            if time.monotonic() > deadline:
                raise AssertionError(f"Chromium sent no {until}")
            msg = json.loads(self._ws.recv())
            if "method" in msg:
                self.events.append(msg)

    def open(self, url: str, width: int, height: int, *, mobile: bool = False) -> None:
        """Load ``url`` at a viewport of ``width`` x ``height`` CSS pixels and wait for its load event."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=mobile)
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", url=url)
        self._drain("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page (JSON-serialisable); a thrown error fails the test."""
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in got:
            raise AssertionError(f"{expression!r} threw: {got['exceptionDetails']}")
        return got["result"].get("value")

    def wait_for(self, expression: str) -> Any:
        """Evaluate ``expression`` until it is truthy (a filter's input waits for its debounce)."""
        deadline = time.monotonic() + _STARTUP
        while True:
            value = self.js(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"never true in the page: {expression}")
            time.sleep(0.05)

    def press(self, key: str, *, shift: bool = False) -> None:
        """Press and release one key (``Tab``, ``Enter`` or ``" "``) as a keyboard would."""
        code, name, text = KEYS[key]
        common = {"key": key if key != " " else " ", "code": name, "windowsVirtualKeyCode": code,
                  "nativeVirtualKeyCode": code, "modifiers": 8 if shift else 0}
        self.call("Input.dispatchKeyEvent", type="keyDown", text=text, unmodifiedText=text, **common)
        self.call("Input.dispatchKeyEvent", type="keyUp", **common)

    def screenshot(self, file: Path) -> bytes:
        """A PNG of the viewport, written to ``file``."""
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        file.write_bytes(data)
        return data

    def errors(self) -> list[str]:
        """Every console error, uncaught exception and error logged by the browser so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log ({p['entry'].get('source')}): {p['entry'].get('text')}")
        return out


@contextmanager
def chromium(exe: str, profile: Path) -> Iterator[Page]:
    """A headless Chromium with a new profile in ``profile`` and one blank page; stopped after."""
    profile.mkdir(parents=True)
    proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = None
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + _STARTUP
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"Chromium gave no DevTools port (exit {proc.poll()})")
            time.sleep(0.05)
        port = int(port_file.read_text().split("\n")[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=_STARTUP) as r:
            targets = json.load(r)
        target = next(t for t in targets if t.get("type") == "page")
        page = Page(target["webSocketDebuggerUrl"])
        yield page
    finally:
        if page is not None:
            page.close()
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
