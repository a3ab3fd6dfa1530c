"""A real headless browser for the tests that check what a person sees (pages, pictures).

Debian's ``chromium`` driven by playwright's Python API, started as the machine allows it
(no sandbox as root, no network chatter). A machine without the browser fails the test with
how to get one: a skipped test would pass without anyone having looked.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Screenshots and other things a person may want to look at after a run (git-ignored);
# ONNXCRAFT_TEST_ARTIFACTS names another folder.
ARTIFACTS = Path(
    os.environ.get("ONNXCRAFT_TEST_ARTIFACTS", Path(__file__).resolve().parent / "artifacts")
)
HOW_TO_GET_ONE = (
    "these tests look at pages in headless Chromium driven by playwright: install Debian's "
    "browser (`apt-get install -y chromium`, which .ci/run does) and the playwright package "
    "(`pip install -e '.[dev]'`); playwright's own browser download (`playwright install`) "
    "is not used"
)


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and Path("/usr/bin/chromium").exists():
        found = "/usr/bin/chromium"
    if found is None:
        pytest.fail(f"no chromium executable found: {HOW_TO_GET_ONE}", pytrace=False)
    return found


@contextmanager
def chromium() -> Iterator[Any]:
    """A fresh headless Chromium (playwright's Browser)."""
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"the playwright package is not installed: {HOW_TO_GET_ONE}", pytrace=False)
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def browser_page(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A page of a fresh headless Chromium."""
    with chromium() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP on localhost (pages whose scripts fetch files need it)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def screenshot(page: Any, name: str) -> Path:
    """Keep a screenshot of ``page`` as a test artifact (tests/artifacts/NAME.png)."""
    path = ARTIFACTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=False)
    return path
