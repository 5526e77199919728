"""The golden-file comparison (tests/golden.py) on committed figures: a last-digit change
passes, a changed number, label or element fails. Without this, a tolerant comparison could
pass anything."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import golden
from tests.conftest import ROOT

FIGURE = (ROOT / "reports/hyglac"
          / "tables-1-and-2-the-physical-optics-code-predicted-against-me-time.svg")
REPORT = ROOT / "reports/hyglac.md"
COORD = re.compile(r"(?<= )-?\d+\.\d{6}(?=[ \"\n])")


def _nudge_coordinates(svg: str, ulp: int) -> str:
    """Every 6-decimal coordinate moved by ``ulp`` in its last printed digit."""
    def move(m: re.Match[str]) -> str:
        return f"{float(m[0]) + ulp * 1e-6:.6f}"
    return COORD.sub(move, svg)


def _rehash_ids(svg: str) -> str:
    """Every hash-derived marker id replaced by another, as a changed coordinate would make."""
    ids = set(re.findall(r'id="(m[0-9a-f]{10})"', svg))
    for i, old in enumerate(sorted(ids)):
        svg = svg.replace(old, f"m{i:010x}")
    return svg


@pytest.fixture(scope="module")
def svg() -> str:
    return FIGURE.read_text(encoding="utf-8")


def test_the_committed_figure_equals_itself(svg: str) -> None:
    assert golden.compare(svg, svg, svg=True) is None


def test_a_last_digit_change_with_new_ids_passes(svg: str) -> None:
    """The case of issue 27: -274.893387 against -274.893386, and the marker ids salted from
    the content changed with them."""
    moved = _rehash_ids(_nudge_coordinates(svg, 1))
    assert moved != svg and len(COORD.findall(svg)) > 100
    assert golden.compare(svg, moved, svg=True) is None


def test_a_changed_number_fails(svg: str) -> None:
    """One coordinate of the predicted curve moved by 0.01 % (far above the last digit, far
    below what an eye sees): the comparison names it."""
    first = COORD.search(svg[svg.index("<path id="):])
    assert first is not None
    at = svg.index("<path id=") + first.start()
    value = float(first[0])
    changed = svg[:at] + f"{value * 1.0001:.6f}" + svg[at + len(first[0]):]
    differs = golden.compare(svg, changed, svg=True)
    assert differs is not None and first[0] in differs


def test_a_changed_label_fails(svg: str) -> None:
    """Text is compared exactly: a legend or axis label that changes fails."""
    labels = re.findall(r"<!-- (.+?) -->", svg)
    assert labels, "the figure carries its text as comments"
    changed = svg.replace(f"<!-- {labels[0]} -->", f"<!-- {labels[0]}x -->", 1)
    assert golden.compare(svg, changed, svg=True) is not None


def test_a_missing_element_fails(svg: str) -> None:
    lines = svg.splitlines()
    use = next(i for i, line in enumerate(lines) if "<use " in line)
    shorter = "\n".join(lines[:use] + lines[use + 1:])
    assert golden.compare(svg, shorter, svg=True) is not None


def test_a_referenced_id_that_points_elsewhere_fails(svg: str) -> None:
    """Ids compare by place: a marker used where another was used before is a change."""
    ids = re.findall(r'<path id="(m[0-9a-f]{10})"', svg)
    assert len(set(ids)) >= 2
    a, b = ids[0], next(i for i in ids if i != ids[0])
    ref = f'xlink:href="#{a}"'
    swapped = svg.replace(ref, f'xlink:href="#{b}"', 1)
    assert swapped != svg
    assert golden.compare(svg, swapped, svg=True) is not None


def test_report_markdown_numbers_within_tolerance() -> None:
    md = REPORT.read_text(encoding="utf-8")
    assert golden.compare(md, md) is None
    changed = md.replace("| 5.1 s |", "| 5.2 s |", 1)
    assert changed != md and golden.compare(md, changed) is not None
    # an identifier, a colour or a version is text, never a number within tolerance
    assert golden.tokens("fill: #1f77b4; id m79835137dc v3.11.2").numbers == ((),)


def test_png_compared_by_pixels(tmp_path: Path) -> None:
    import io

    import numpy as np
    from matplotlib import image

    rng = np.random.default_rng(27)
    a = rng.random((20, 30, 3))
    def png(arr: np.ndarray) -> bytes:
        buf = io.BytesIO()
        image.imsave(buf, arr, format="png")
        return buf.getvalue()
    assert golden.compare_file("f.png", png(a), png(a)) is None
    b = a.copy()
    b[5, 5] = 1.0 - b[5, 5]
    assert golden.compare_file("f.png", png(a), png(b)) is not None
