"""A real headless browser for the tests that check what a person sees (pages, pictures).

Debian's ``chromium`` driven by playwright's Python API, started as the machine allows it
(no sandbox as root, no network chatter). A machine without the browser fails the test with
how to get one: a skipped test would pass without anyone having looked.
"""

from __future__ import annotations

import functools
import http.server
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
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"  # screenshots, git-ignored


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "these tests look at pages in a real browser and none was found: install Debian's "
            "chromium (`apt-get install chromium`; .ci/run does) and playwright "
            '(`pip install -e ".[dev]"`)'
        )
    return found


@contextmanager
def browser_page(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A page of a fresh headless Chromium."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail('playwright is missing: pip install -e ".[dev]"')
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            yield page
        finally:
            browser.close()


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
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
