"""Golden files compared as a person reads them: the text and structure exactly, every number
within a relative tolerance.

A committed report or figure regenerated on another CPU, BLAS or thread count may differ in
the last printed digit of a coordinate (``-274.893387`` against ``-274.893386``); matplotlib's
SVG ids are hashes of the content, so they change with it. Both are noise. A changed value, a
changed label, a missing element or a missing figure are not, and must fail.

``compare(expected, actual)`` returns ``None`` when the two agree, or one line saying where
they first differ (line number, both fragments), for the assertion message.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

RTOL = 1e-6          # relative tolerance for every number (the "for example 1e-6")
ATOL = 1e-9          # absolute floor, for numbers printed as 0 or near it
# matplotlib prints SVG coordinates in points with 6 decimals: one unit of the last decimal
# (1e-6 pt, 3.5e-10 mm) is rounding, whatever the coordinate's size (0.397805 against 0.397806
# is 2.5e-6 relative); 1.5 units, so that a value printed either side of a rounding edge passes
SVG_ATOL = 1.5e-6

# a number standing alone: not the tail of a name (m79835137dc), a colour (#1f77b4) or a
# version (3.11.2 is text); sign, decimals and exponent included
_NUMBER = re.compile(r"(?<![\w#.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# SVG ids that matplotlib derives from a hash of the content (and the references to them)
_SVG_ID = re.compile(r'\bid="([^"]+)"')


@dataclass(frozen=True)
class Tokens:
    """A text split into its skeleton (numbers replaced by a mark) and its numbers."""

    skeleton: tuple[str, ...]     # one entry per line
    numbers: tuple[tuple[float, ...], ...]
    originals: tuple[tuple[str, ...], ...]


def _canonical_ids(text: str) -> str:
    """Rename every ``id="…"`` to ``id0``, ``id1`` … in order of first definition, with every
    reference to it (``#name``, ``url(#name)``), so a hash-derived id compares as its place."""
    ids = list(dict.fromkeys(_SVG_ID.findall(text)))
    if not ids:
        return text
    names = {old: f"id{i}" for i, old in enumerate(ids)}
    pattern = re.compile(r'(?<=id=")(' + "|".join(map(re.escape, ids)) + r')(?=")'
                         r"|(?<=#)(" + "|".join(map(re.escape, ids)) + r")\b")
    return pattern.sub(lambda m: names[m.group(1) or m.group(2)], text)


def tokens(text: str, *, svg: bool = False) -> Tokens:
    if svg:
        text = _canonical_ids(text)
    skeleton, numbers, originals = [], [], []
    for line in text.splitlines():
        found = _NUMBER.findall(line)
        skeleton.append(_NUMBER.sub("\x00", line))
        numbers.append(tuple(float(x) for x in found))
        originals.append(tuple(found))
    return Tokens(tuple(skeleton), tuple(numbers), tuple(originals))


def close(a: float, b: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rtol, abs_tol=atol)


def compare(expected: str, actual: str, *, svg: bool = False, rtol: float = RTOL,
            atol: float | None = None) -> str | None:
    """``None`` when ``actual`` is ``expected`` up to numbers within ``rtol`` (or ``atol``:
    default ``SVG_ATOL`` for an SVG, ``ATOL`` otherwise); else where they first differ."""
    atol = (SVG_ATOL if svg else ATOL) if atol is None else atol
    a, b = tokens(expected, svg=svg), tokens(actual, svg=svg)
    if len(a.skeleton) != len(b.skeleton):
        return f"{len(a.skeleton)} lines expected, {len(b.skeleton)} found"
    for i, (sa, sb) in enumerate(zip(a.skeleton, b.skeleton, strict=True), start=1):
        if sa != sb:
            return f"line {i}: text differs: {sa.replace(chr(0), '#')!r} != " \
                   f"{sb.replace(chr(0), '#')!r}"
        for x, y, ox, oy in zip(a.numbers[i - 1], b.numbers[i - 1], a.originals[i - 1],
                                b.originals[i - 1], strict=True):
            if not close(x, y, rtol, atol):
                return f"line {i}: {ox} != {oy} (tolerance {rtol:g} relative, {atol:g} absolute)"
    return None


def compare_png(expected: bytes, actual: bytes, tolerance: float = 1 / 255) -> str | None:
    """Two PNGs agree when they have the same size and no pixel channel differs by more than
    ``tolerance`` (of full scale): antialiasing of a coordinate in its last digit stays below."""
    import io

    import numpy as np
    from matplotlib import image

    a = image.imread(io.BytesIO(expected), format="png")
    b = image.imread(io.BytesIO(actual), format="png")
    if a.shape != b.shape:
        return f"image size {a.shape} != {b.shape}"
    worst = float(np.max(np.abs(a.astype(float) - b.astype(float))))
    return None if worst <= tolerance else f"a pixel differs by {worst:.3f} of full scale"


def compare_file(name: str, expected: bytes, actual: bytes) -> str | None:
    """Dispatch on the file's kind: SVG and text by tokens, PNG by pixels."""
    if name.endswith(".png"):
        return compare_png(expected, actual)
    return compare(expected.decode("utf-8"), actual.decode("utf-8"), svg=name.endswith(".svg"))
