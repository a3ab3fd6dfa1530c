"""The HTML pictures as a person sees them: rendered by headless Chromium.

For a node-test model with a Loop, one with an If, an example's model and a ResNet-50 graph
(175 nodes, about 350 boxes), the page is opened in Debian's ``chromium`` through playwright's
Python API, and the test checks, from the browser's own geometry (getBoundingClientRect and
elementFromPoint), that every box is drawn, has a size, lies in the picture and is the topmost
thing at its own header (nothing covers it), and that no two boxes overlap; that searching an
operator or a name highlights exactly the matching boxes; that clicking a box shows its
attributes and input/output types in the side panel; and that the page's script raised
nothing. Screenshots are kept in ``tests/artifacts/draw/`` (git-ignored; the environment
variable ONNXCRAFT_TEST_ARTIFACTS names another folder).

Without a browser the test fails, saying how to get one: it never skips.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import onnxcraft as oc
from tests.browser import ARTIFACTS as SHARED_ARTIFACTS
from tests.browser import chromium, chromium_path
from tests.draw.models import resnet50
from tests.node_cases import node_tests_root

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = SHARED_ARTIFACTS / "draw"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _example_model(tmp_path: Path) -> Path:
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_kmeans", REPO / "examples" / "kmeans.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "kmeans.onnx"
    module.main(str(path))
    return path


# (picture, a search for an operator and how many boxes it finds, the box clicked, what its
# panel must show)
CASES = {
    "loop": ("test_loop11", "loop", 1, "Loop", ["body", "graph 'loop_body'", "float[5,1]"]),
    "if": ("test_if", "if", 1, "If", ["then_branch", "else_branch", "bool[]"]),
    "example": ("kmeans", "argmin", 1, "ArgMin", ["axis", "1"]),
    "resnet50": ("resnet50", "gemm", 1, "Gemm", ["float[N,2048]", "float[2048,1000]"]),
}


def _html(name: str, tmp_path: Path) -> Path:
    source = CASES[name][0]
    if source == "kmeans":
        model: Any = _example_model(tmp_path)
    elif source == "resnet50":
        model = resnet50()
    else:
        model = node_tests_root() / source / "model.onnx"
    path = tmp_path / f"{name}.html"
    oc.draw(model, path)
    return path


_GEOMETRY = """() => {
  const svg = document.querySelector(".oc-view svg");
  const all = svg.querySelector(".oc-scene").getBBox();  // the whole picture in view
  svg.setAttribute("viewBox", [all.x - 40, all.y - 40, all.width + 80, all.height + 80].join(" "));
  const view = svg.getBoundingClientRect();
  return Array.from(svg.querySelectorAll("g.node")).map(g => {
    const r = g.querySelector("rect").getBoundingClientRect();
    // the middle of the box, or of its header when a body is drawn inside it
    const compound = g.classList.contains("compound");
    const x = r.left + r.width / 2, y = compound ? r.top + Math.min(4, r.height / 2)
                                                 : r.top + r.height / 2;
    const top = document.elementFromPoint(x, y);
    const style = getComputedStyle(g);
    return {id: g.getAttribute("data-id"), name: g.getAttribute("data-name"),
            left: r.left, top: r.top, right: r.right, bottom: r.bottom,
            shown: style.visibility === "visible" && style.display !== "none",
            topmost: top !== null && g.contains(top),
            hit: top === null ? null : top.outerHTML.slice(0, 120),
            inView: r.left >= view.left - 0.5 && r.right <= view.right + 0.5 &&
                    r.top >= view.top - 0.5 && r.bottom <= view.bottom + 0.5,
            compound: compound};
  });
}"""


def _overlaps(boxes: list[dict[str, Any]], containers: set[str]) -> list[tuple[str, str]]:
    """Overlapping pairs, the boxes of If/Loop/Scan nodes and function calls aside (their
    bodies' boxes lie inside them; the layout tests check the bodies stay inside)."""
    found = []
    ordered = sorted(boxes, key=lambda b: b["left"])
    for index, a in enumerate(ordered):
        for b in ordered[index + 1 :]:
            if b["left"] >= a["right"] - 0.01:
                break
            if b["top"] < a["bottom"] - 0.01 and a["top"] < b["bottom"] - 0.01:
                if a["id"] in containers or b["id"] in containers:
                    continue
                found.append((a["name"], b["name"]))
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_page_in_chromium(name: str, browser: Any, tmp_path: Path) -> None:
    _source, query, expected_matches, clicked_op, panel_shows = CASES[name]
    path = _html(name, tmp_path)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(path.as_uri())
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

        # search: exactly the boxes whose operator or name contains the text are highlighted
        page.fill(".oc-search", query)
        matched = page.eval_on_selector_all(
            "g.node.match", "nodes => nodes.map(n => [n.dataset.op, n.dataset.name])"
        )
        everything = page.eval_on_selector_all(
            "g.node", "nodes => nodes.map(n => [n.dataset.op, n.dataset.name])"
        )
        expected = [n for n in everything if query in n[0].lower() or query in n[1].lower()]
        assert matched == expected and len(matched) == expected_matches, matched
        assert page.inner_text(".oc-count") == f"{expected_matches} match"
        page.screenshot(path=str(ARTIFACTS / f"{name}-search.png"))

        # click on the match: the side panel shows its attributes and types
        page.click(
            f"g.node.match[data-op='{clicked_op}']", position={"x": 12, "y": 8}, timeout=10000
        )
        assert page.is_visible(".oc-panel")
        panel = page.inner_text(".oc-panel")
        assert clicked_op in panel.splitlines()[:3]  # the title, after the close button
        for text in panel_shows:
            assert text in panel, (text, panel)
        assert page.locator("g.node.selected").count() == 1
        page.screenshot(path=str(ARTIFACTS / f"{name}-details.png"))

        # every box drawn, in the picture, not covered, none overlapping
        page.fill(".oc-search", "")
        page.set_viewport_size({"width": 1600, "height": 2400})
        boxes = page.evaluate(_GEOMETRY)
        page.screenshot(path=str(ARTIFACTS / f"{name}-whole.png"))
        assert boxes, "no boxes drawn"
        for box in boxes:
            assert box["right"] > box["left"] and box["bottom"] > box["top"], box
            assert box["shown"] and box["inView"], box
            assert box["topmost"], f"box {box['name']!r} is covered by something else: {box}"
        assert _overlaps(boxes, {b["id"] for b in boxes if b["compound"]}) == []
        assert errors == []
    finally:
        page.close()


def test_without_a_browser_the_test_fails_saying_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(Path, "exists", lambda self: False)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install -y chromium"):
        chromium_path()


def test_pan_and_zoom(browser: Any, tmp_path: Path) -> None:
    path = _html("resnet50", tmp_path)
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    try:
        page.goto(path.as_uri())

        def view_box() -> list[float]:
            text = page.get_attribute(".oc-view svg", "viewBox") or ""
            return [float(v) for v in text.split()]

        start = view_box()
        page.mouse.move(500, 400)
        page.mouse.wheel(0, -400)  # zoom in around the pointer: a smaller part of the picture
        zoomed = view_box()
        assert zoomed[2] < start[2] and zoomed[3] < start[3]
        page.mouse.move(500, 400)
        page.mouse.down()
        page.mouse.move(400, 300, steps=5)  # drag up and left: the picture follows
        page.mouse.up()
        panned = view_box()
        assert panned[0] > zoomed[0] and panned[1] > zoomed[1]
        assert panned[2:] == zoomed[2:]
        page.click(".oc-fit")
        page.click(".oc-zoom-out")
        assert view_box()[2] > panned[2]
        page.screenshot(path=str(ARTIFACTS / "resnet50-zoomed-out.png"))
    finally:
        page.close()
