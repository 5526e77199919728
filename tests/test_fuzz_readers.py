"""Property-based fuzzing of every reader: whatever the bytes, only PerfModelError escapes.

Random text, random bytes, and real fixtures truncated, shuffled, with lines dropped,
duplicated or corrupted: each either reads (and then every table is well formed) or fails
with one of perfmodel's own errors.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfmodel.errors import PerfModelError
from perfmodel.readers import REGISTRY, parse, read

FIX = Path(__file__).parent / "fixtures" / "benchmarks"
TEXTS = {p.name: p.read_text() for p in sorted(FIX.rglob("*")) if p.is_file()
         and p.suffix != ".md"}
NAMES = sorted(TEXTS)
FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _check(text: str) -> None:
    try:
        tables = parse("fuzz.txt", text)
    except PerfModelError as exc:
        line = exc.one_line()
        assert "\n" not in line and line.startswith("fuzz.txt")
        return
    assert tables
    for t in tables:
        assert len(t) > 0
        assert np.all(np.isfinite(t.time)) and np.all(t.time > 0)
        finite = t.size[np.isfinite(t.size)]
        assert np.all(finite >= 0)
        assert t.pattern == "application" or finite.size == len(t)


def _every_reader(text: str) -> None:
    """Each reader on its own, whether or not its sniffer would claim the text."""
    for reader in REGISTRY.values():
        try:
            reader.sniff(text)
            reader.read("fuzz.txt", text)
        except PerfModelError:
            pass


@FUZZ
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_random_text(text: str) -> None:
    _check(text)
    _every_reader(text)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    _check(text)


@FUZZ
@given(st.sampled_from(NAMES), st.data())
def test_truncated_fixtures(name: str, data: st.DataObject) -> None:
    text = TEXTS[name]
    cut = data.draw(st.integers(0, len(text)))
    _check(text[:cut])
    _every_reader(text[:cut])


@FUZZ
@given(st.sampled_from(NAMES), st.randoms(use_true_random=False))
def test_shuffled_fixtures(name: str, rng: object) -> None:
    lines = TEXTS[name].splitlines()
    rng.shuffle(lines)  # type: ignore[attr-defined]
    text = "\n".join(lines)
    _check(text)
    _every_reader(text)


_EDITS = st.sampled_from(["drop", "duplicate", "garble", "blank", "swap_tokens", "number",
                          "odd_number", "long_line"])
ODD_NUMBERS = ["1e400", "9" * 400, "9" * 5000, "-0", "0", "1e-400", "nan", "inf", "-1",
               "١٢", "²", "1.2.3", "0x10", "1_000", "+5", ".5e3"]


@FUZZ
@given(st.sampled_from(NAMES), st.lists(st.tuples(_EDITS, st.integers(0, 10_000),
                                                  st.text(max_size=12)), max_size=6))
def test_edited_fixtures(name: str, edits: list[tuple[str, int, str]]) -> None:
    lines = TEXTS[name].splitlines()
    for kind, at, junk in edits:
        if not lines:
            break
        i = at % len(lines)
        if kind == "drop":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "garble":
            lines[i] = lines[i][: len(lines[i]) // 2] + junk
        elif kind == "blank":
            lines[i] = ""
        elif kind == "swap_tokens":
            lines[i] = " ".join(reversed(lines[i].split()))
        elif kind == "long_line":
            lines.insert(i, lines[i][:20] + (junk or "x_") * 4000)
        else:
            tokens = lines[i].split()
            if tokens:
                odd = ODD_NUMBERS[at % len(ODD_NUMBERS)]
                tokens[at % len(tokens)] = odd if kind == "odd_number" else (junk or "-1")
                lines[i] = "  ".join(tokens)
    text = "\n".join(lines)
    _check(text)
    _every_reader(text)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.sampled_from(NAMES), st.integers(0, 100_000))
def test_files_on_disk(name: str, cut: int) -> None:
    """The same through read(): a file's bytes, cut anywhere, even inside a UTF-8 character."""
    raw = TEXTS[name].encode()
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cut.txt"
        path.write_bytes(raw[: cut % (len(raw) + 1)])
        with contextlib.suppress(PerfModelError):
            read(path)
