"""The documentation site: built by MkDocs from the guide and the operator reference, and
looked at in a real browser (the Conv page's tables, descriptions and examples, a plot on a
unary operator's page, search finding Conv, no broken link)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from onnxcraft import specs
from onnxcraft.docgen.site import SiteError, build_site, guide_pages
from tests.browser import browser_page, screenshot, served


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("site")
    index = build_site(out)
    assert index == out / "index.html" and index.is_file()
    yield out


def test_every_guide_page_and_operator_page_is_built(site: Path) -> None:
    for page in guide_pages():
        assert (site / page.with_suffix(".html").name).is_file(), page.name
    assert (site / "operators" / "ai.onnx" / "Conv.html").is_file()
    assert (site / "operators" / "ai.onnx.ml" / "TreeEnsemble.html").is_file()
    for page in Path("docs").glob("*/*.md"):  # sections such as the converter gallery
        if page.parent.name != "operators":
            assert (site / page.parent.name / page.with_suffix(".html").name).is_file(), page


def test_no_internal_link_is_broken(site: Path) -> None:
    broken = []
    for page in site.rglob("*.html"):
        # links, and the pictures (plots) and scripts a page loads
        for href in re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8")):
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path:
                continue  # another site, or an anchor of the same page
            path = unquote(parts.path)
            # the 404 page links from the site's root, as it is served for any missing path
            base = site if path.startswith("/") else page.parent
            target = (base / path.lstrip("/")).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {href}")
    assert not broken, f"{len(broken)} broken links:\n" + "\n".join(broken[:20])


def test_the_conv_page_renders_its_tables_in_a_browser(site: Path) -> None:
    conv = specs.get("Conv")
    with served(site) as root, browser_page() as page:
        page.goto(f"{root}/operators/ai.onnx/Conv.html")
        assert page.locator("h1").first.inner_text().startswith("Conv")
        tables = page.locator("article table")
        assert tables.count() >= 4  # versions, then inputs/outputs/attributes per version
        for i in range(tables.count()):
            box = tables.nth(i).bounding_box()
            assert box is not None and box["width"] > 0 and box["height"] > 0
        text = page.locator("article").inner_text()
        assert "kernel_shape" in text
        assert page.locator("article th", has_text="description").count() >= 3
        # every description of the newest version is on the page (the spec tests demand them)
        for item in (*conv.inputs, *conv.outputs, *conv.attributes):
            shown = " ".join(item.description.replace("`", "").split())  # code spans render
            assert shown in " ".join(text.split()), item.name
        # the examples in force, each with its code block: inputs, the call, the outputs
        for example in conv.examples:
            title = page.locator("article p strong", has_text=example["title"].strip()).first
            assert title.is_visible()
            block = title.locator("xpath=../following-sibling::*[1]")
            assert "op.Conv(" in block.inner_text()
        screenshot(page, "site-conv")
        if conv.examples:
            page.locator("article p strong").first.scroll_into_view_if_needed()
            screenshot(page, "site-conv-example")


def test_a_unary_page_shows_its_plot(site: Path) -> None:
    with served(site) as root, browser_page() as page:
        page.goto(f"{root}/operators/ai.onnx/Tanh.html")
        plot = page.locator('article img[src$="plots/Tanh.svg"]')
        assert plot.count() == 1
        plot.scroll_into_view_if_needed()
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=plot.element_handle()
        )
        box = plot.bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100
        screenshot(page, "site-tanh-plot")


def test_search_finds_conv(site: Path) -> None:
    with served(site) as root, browser_page() as page:
        page.goto(f"{root}/index.html")
        page.locator("label.md-search__icon, .md-search__input").first.click()
        page.locator("input.md-search__input").fill("Conv")
        results = page.locator(".md-search-result__link")
        # the search index (1,200 pages) loads in a web worker: slow on a busy machine
        results.first.wait_for(timeout=90_000)
        hrefs = [results.nth(i).get_attribute("href") or "" for i in range(results.count())]
        paths = [urlsplit(h).path for h in hrefs]
        assert "/operators/ai.onnx/Conv.html" in paths, paths[:10]
        screenshot(page, "site-search-conv")


def test_a_missing_guide_folder_is_a_site_error(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="is not a folder of pages"):
        build_site(tmp_path / "site", guide_dir=tmp_path / "nowhere")
