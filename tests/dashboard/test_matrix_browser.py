"""The matrix page in a real headless Chromium at 1280 px: every column reachable, the headers held in place.

Uses the system Chromium and the real ``synapse dashboard`` exactly as ``test_browser.py`` does. The picture of
the page lands in ``$SYNAPSE_SCREENSHOTS`` as ``dashboard-matrix.png`` when that is set (docs/dashboard.md shows it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import browser as browser_tests

pytestmark = pytest.mark.skipif(browser_tests.CHROMIUM is None, reason="no system Chromium found")

WIDTH, HEIGHT = 1280, 860
SLACK = 1.0
"""Pixels of rounding allowed when comparing boxes."""

_HIT = "([x, y]) => { const th = document.elementFromPoint(x, y)?.closest('th'); return th ? th.title : null; }"


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return dict(box)


def test_every_matrix_column_scrolls_into_view_at_1280_px_under_headers_that_stay_in_place(
    dashboard_url: str, tmp_path: Path, shots: list[Path]
) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=browser_tests.CHROMIUM, args=browser_tests.CHROMIUM_FLAGS, headless=True
        )
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(dashboard_url)
            page.goto(dashboard_url.split("?")[0] + "matrix")
            page.wait_for_selector("table.matrix")
            picture = tmp_path / "dashboard-matrix.png"
            page.screenshot(path=str(picture))
            shots.append(picture)

            wrap = page.locator(".matrix-wrap")
            frame = _box(wrap)
            assert frame["x"] >= 0 and frame["x"] + frame["width"] <= WIDTH + SLACK, "the box fits the window"
            assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, "the page itself never scrolls"
            row_header = page.locator("table.matrix tbody th.row").first
            headers = page.locator("table.matrix thead th.col")
            assert headers.count() == 28
            for index in range(headers.count()):
                header = headers.nth(index)
                header.evaluate("el => el.scrollIntoView({block: 'nearest', inline: 'nearest'})")
                box, left = _box(header), _box(row_header)
                assert box["x"] >= left["x"] + left["width"] - SLACK, f"column {index} is under the row headers"
                assert box["x"] + box["width"] <= frame["x"] + frame["width"] + SLACK, f"column {index} is cut off"
                middle = [box["x"] + box["width"] / 2, box["y"] + box["height"] - 20]
                assert page.evaluate(_HIT, middle) == header.get_attribute("title"), f"column {index} is covered"

            wrap.scroll_into_view_if_needed()
            frame = _box(wrap)
            scrolled = wrap.evaluate("el => { el.scrollTo(1e6, 1e6); return [el.scrollLeft, el.scrollTop]; }")
            assert scrolled[0] > 0, "at 1280 px the matrix is wider than its box, so it scrolls sideways"
            assert scrolled[1] > 0, "the box scrolls down under its column headers, not the page away from them"
            assert frame["y"] >= 0 and frame["y"] + frame["height"] <= HEIGHT + SLACK, "its scrollbars are on screen"
            last = headers.nth(headers.count() - 1)
            assert abs(_box(last)["y"] - frame["y"]) <= SLACK + 1, "the column headers stay at the top"
            bottom_row = page.locator("table.matrix tbody th.row").last
            assert abs(_box(bottom_row)["x"] - frame["x"]) <= SLACK + 1, "the row headers stay at the left"
            assert page.evaluate(_HIT, [_box(bottom_row)["x"] + 20, _box(bottom_row)["y"] + 5]) == (
                bottom_row.get_attribute("title")
            )
        finally:
            browser.close()
