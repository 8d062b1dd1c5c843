"""A small W3C WebDriver client over HTTP (urllib), enough to drive Debian's headless chromium
through chromedriver: navigate, find elements by CSS selector, type, click, read text, wait for
a condition, take screenshots. No third-party package."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from compat_broker import _kill_with_parent  # noqa: E402

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
WAIT_S = 30


class WebDriverError(RuntimeError):
    pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """chromedriver on a free port with one headless chromium session."""

    def __init__(self, width: int = 1360, height: int = 1000):
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="strand-console-chromium-")
        log = open(Path(self.profile) / "chromedriver.log", "wb")
        # Killed with the test process, as the brokers are (compat_broker's launcher contract).
        self.driver = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=log, stderr=log,
                                       stdin=subprocess.DEVNULL, preexec_fn=_kill_with_parent)
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                self._call("GET", "/status")
                break
            except (OSError, WebDriverError):
                if time.monotonic() > deadline or self.driver.poll() is not None:
                    self.driver.kill()
                    raise WebDriverError("chromedriver did not start")
                time.sleep(0.1)
        options = {"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            f"--window-size={width},{height}", f"--user-data-dir={self.profile}/profile"]}
        binary = os.environ.get("CHROMIUM_BIN")
        if binary:
            options["binary"] = binary
        capabilities = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", capabilities)["sessionId"]

    def _call(self, method: str, path: str, body: dict | None = None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return json.loads(answer.read() or b"{}").get("value")
        except urllib.error.HTTPError as e:
            raise WebDriverError(f"{method} {path}: {e.code} {e.read()[:500]!r}") from None

    def _session(self, method: str, path: str, body: dict | None = None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def close(self) -> None:
        try:
            self._call("DELETE", f"/session/{self.session}")
        except (OSError, WebDriverError):
            pass
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
            self.driver.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def go(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    def title(self) -> str:
        return self._session("GET", "/title")

    def url(self) -> str:
        return self._session("GET", "/url")

    def find_all(self, css: str) -> list["Element"]:
        found = self._session("POST", "/elements", {"using": "css selector", "value": css})
        return [Element(self, e[ELEMENT]) for e in found]

    def find(self, css: str) -> "Element":
        found = self.find_all(css)
        if not found:
            raise WebDriverError(f"no element matches {css!r} on {self.url()}")
        return found[0]

    def text(self, css: str) -> str:
        return self.find(css).text()

    def script(self, source: str, *args):
        return self._session("POST", "/execute/sync", {"script": source, "args": list(args)})

    def wait_for(self, what: str, condition, timeout_s: float = WAIT_S):
        """Polls condition() until it returns something true; its value."""
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            try:
                last = condition()
                if last:
                    return last
            except WebDriverError as e:
                last = e
            time.sleep(0.1)
        raise AssertionError(f"never {what} within {timeout_s} s (last: {last!r}) on {self.url()}")

    def screenshot(self, path: Path) -> None:
        """The whole page, beyond the window (Chrome DevTools' captureBeyondViewport)."""
        metrics = self._session("POST", "/goog/cdp/execute", {"cmd": "Page.getLayoutMetrics", "params": {}})
        size = metrics["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}
        shot = self._session("POST", "/goog/cdp/execute", {"cmd": "Page.captureScreenshot",
                                                         "params": {"captureBeyondViewport": True, "clip": clip}})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))


class Element:
    def __init__(self, browser: Browser, element_id: str):
        self.browser = browser
        self.id = element_id

    def _call(self, method: str, path: str, body: dict | None = None):
        return self.browser._session(method, f"/element/{self.id}{path}", body)

    def text(self) -> str:
        return self._call("GET", "/text")

    def click(self) -> None:
        self._call("POST", "/click", {})

    def clear(self) -> None:
        self._call("POST", "/clear", {})

    def type(self, text: str) -> None:
        self._call("POST", "/value", {"text": text})

    def fill(self, text: str) -> None:
        """Sets an input's or textarea's value as the user would leave it."""
        self.browser.script("arguments[0].value = arguments[1];", {ELEMENT: self.id}, text)

    def select(self, value: str) -> None:
        """Chooses the option with this value in a select."""
        found = self.browser.script(
            "const s = arguments[0]; const o = [...s.options].find(o => o.value === arguments[1]);"
            "if (!o) return false; s.value = o.value; s.dispatchEvent(new Event('change')); return true;",
            {ELEMENT: self.id}, value)
        if not found:
            raise WebDriverError(f"no option {value!r}")

    def attribute(self, name: str):
        return self._call("GET", f"/attribute/{name}")
