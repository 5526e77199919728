"""The kinds of file perfmodel reads, as words and patterns: its own TOML kinds (each names
itself with a ``kind = "perfmodel …"`` line), the timings CSV (a process count and a run time
column), and binary files by their first bytes.

A base module, so that the readers of measurement formats, the loaders of perfmodel's own
files and the timings reader share one vocabulary; :mod:`perfmodel.files.kinds` names any
file, measurement outputs included, for the error a command gives when it is handed the wrong
kind.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from perfmodel.errors import InputError

OWN: Mapping[str, tuple[str, str, str]] = {
    "perfmodel machine profile": (
        "profile", "a perfmodel machine profile",
        "give it where a machine is wanted: perfmodel network {path}, or --machine {path}"),
    "perfmodel network spec": (
        "spec", "a perfmodel network spec",
        "calibrate with it: perfmodel calibrate MEASUREMENTS --spec {path}"),
    "perfmodel application model": (
        "model", "a perfmodel application model",
        "predict with it: perfmodel predict {path}"),
    "perfmodel application fit": (
        "fit", "a saved application fit",
        "predict from it: perfmodel predict MODEL --from {path}"),
    "perfmodel hardware catalogue": (
        "catalogue", "a perfmodel hardware catalogue",
        "price configurations with it: perfmodel whatif MODEL -m PROFILE --candidates {path}, "
        "or perfmodel plan … --candidates {path}"),
    "perfmodel report": (
        "report", "a perfmodel report specification",
        "build the report: perfmodel report {path} --out NAME.md"),
}
"""A ``kind = "…"`` line's value -> (key, what the file is, the command that takes it)."""

WANTED: Mapping[str, str] = {
    "profile": "a machine profile", "spec": "a network spec", "model": "an application model",
    "fit": "a saved fit", "catalogue": "a hardware catalogue",
    "report": "a report specification", "timings": "a timings CSV",
    "measurements": "a measurement file"}
"""What each loader wants, as its errors say it."""

TIMING_COUNTS = ("nodes", "processes", "ranks", "p")
TIMING_TIMES = ("time_s", "time", "seconds")
TIMING_RATES = ("mflops", "mops", "mflop_s")
"""The columns a timings CSV names: its process count, and its run time or flop rate
(:mod:`perfmodel.apps.timings` reads them by these names)."""

_KIND = re.compile(r"""^\s*kind\s*=\s*["']([^"'\n]*)["']""", re.MULTILINE)
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x80", "a Python pickle"), (b"\x1f\x8b", "a gzip archive"),
    (b"PK\x03\x04", "a zip archive"), (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"), (b"\x7fELF", "an executable (ELF)"),
    (b"SQLite format 3", "an SQLite database"), (b"\x93NUMPY", "a NumPy array file"),
    (b"\x89HDF", "an HDF5 file"))


@dataclass(frozen=True)
class FileKind:
    """What a file is: a ``key`` (a loader's key of :data:`WANTED`, a reader's name, or
    ``binary``), how to say it, and the command that takes it (``{path}`` for the file)."""

    key: str
    noun: str
    fix: str = ""

    def advice(self, path: str | Path) -> str:
        return self.fix.replace("{path}", str(path))


def binary_kind(raw: bytes) -> str:
    """What a binary file looks like by its first bytes (``a Python pickle``), or ``""``."""
    return next((noun for magic, noun in _MAGIC if raw.startswith(magic)), "")


def own_kind(text: str) -> FileKind | None:
    """Which of perfmodel's own kinds ``text`` is (a ``kind = "perfmodel …"`` line, or a
    timings CSV's header), or None."""
    head = _KIND.search(text[:20000])
    if head and head[1] in OWN:
        key, noun, fix = OWN[head[1]]
        return FileKind(key, noun, fix)
    if _timings_header(text):
        return FileKind("timings", "a timings CSV (process counts and run times)",
                        "fit a model to it: perfmodel predict MODEL --fit {path}, or perfmodel "
                        "scaling {path}")
    return None


def refusal(found: FileKind | None, path: str | Path, want: str | None, noun: str = ""
            ) -> InputError | None:
    """The error for a file that is ``found`` when the caller wants ``want`` (a key of
    :data:`WANTED`; None: some TOML file of perfmodel's, so only a measurement or timings file
    is wrong), naming what it is and the command that takes it; None when ``found`` is None or
    what is wanted.  ``noun`` replaces ``want``'s."""
    if found is None or found.key == want or \
            (want is None and found.key not in ("measurements", "timings")):
        return None
    said = noun or (WANTED[want] if want is not None else "a perfmodel file")
    return InputError(f"this is {found.noun}, not {said}", file=path, fix=found.advice(path))


def _timings_header(text: str) -> bool:
    header = next((ln for ln in text[:20000].splitlines()
                   if ln.strip() and not ln.lstrip().startswith("#")), "")
    if "," not in header:
        return False
    names = {h.strip().lower() for h in next(csv.reader(io.StringIO(header)), [])}
    return bool(names & set(TIMING_COUNTS)) and bool(names & {*TIMING_TIMES, *TIMING_RATES}) and \
        not any(n.startswith("size_") for n in names)   # a perfmodel CSV's message sizes


