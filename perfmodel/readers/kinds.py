"""What a file is, for the error a command gives when it is handed the wrong kind.

perfmodel reads measurement files (benchmark outputs, its CSV), timing CSVs and its own TOML
kinds (each names itself with a ``kind = "perfmodel …"`` line).  When a loader cannot read its
file, :func:`identify` names what the file is instead, and :func:`wrong_kind` turns that into
one error saying which command takes it::

    error: osu_latency.out: this is an OSU latency output, not a machine profile — calibrate
    it first: perfmodel calibrate osu_latency.out

The kinds are literal tables here (:data:`OWN`, :data:`WANTED`): the readers are the lowest
room, so the loaders above them pass the key of the kind they wanted.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from perfmodel.errors import InputError, PerfModelError

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

TOOLS: Mapping[str, str] = {
    "osu": "OSU", "imb": "IMB", "mpi4py-bench": "mpi4py.bench", "netperf": "netperf",
    "stream": "STREAM", "npb": "NPB", "netpipe": "NetPIPE", "csv": "perfmodel CSV"}

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


def identify(text: str, path: str | Path = "FILE", measurements: bool = True
             ) -> FileKind | None:
    """What ``text`` is, or None when it is none of the kinds perfmodel knows.

    A ``kind = "perfmodel …"`` line names perfmodel's own files; a timings CSV has a process
    count and a time column; measurement files are those a reader of
    :data:`~perfmodel.readers.REGISTRY` claims (a perfmodel CSV only when it reads), looked
    for only with ``measurements``."""
    head = _KIND.search(text[:20000])
    if head and head[1] in OWN:
        key, noun, fix = OWN[head[1]]
        return FileKind(key, noun, fix)
    if _timings_header(text):
        return FileKind("timings", "a timings CSV (process counts and run times)",
                        "fit a model to it: perfmodel predict MODEL --fit {path}, or perfmodel "
                        "scaling {path}")
    return _measurements(text, path) if measurements else None


def _timings_header(text: str) -> bool:
    header = next((ln for ln in text[:20000].splitlines()
                   if ln.strip() and not ln.lstrip().startswith("#")), "")
    if "," not in header:
        return False
    names = {h.strip().lower() for h in next(csv.reader(io.StringIO(header)), [])}
    return bool(names & set(TIMING_COUNTS)) and bool(names & {*TIMING_TIMES, *TIMING_RATES}) and \
        not any(n.startswith("size_") for n in names)   # a perfmodel CSV's message sizes


def _measurements(text: str, path: str | Path) -> FileKind | None:
    from perfmodel.readers import FALLBACKS, claims

    found = claims(text)
    if not found:
        return None
    reader = found[0]
    try:
        tables = reader.read(str(path), text)
    except PerfModelError:
        tables = ()
    if reader.NAME in FALLBACKS and not tables:
        return None   # a CSV or a table of numbers, but not measurements perfmodel reads
    tool = TOOLS.get(reader.NAME, reader.NAME)
    names = list(dict.fromkeys(t.benchmark for t in tables))
    patterns = {t.pattern for t in tables}
    if reader.NAME == "csv":
        noun = f"a perfmodel CSV of {', '.join(names)} measurements"
    elif reader.NAME == "npb":
        noun = f"an NPB {' and '.join(names)} result" if names else "an NPB result"
    elif len(names) == 1 and reader.NAME not in FALLBACKS:
        noun = f"{_article(tool)} {tool} {names[0]} output"
    elif names and reader.NAME not in FALLBACKS:
        noun = f"{_article(tool)} {tool} output ({', '.join(names)})"
    else:
        noun = f"{_article(tool)} {tool} output"
    if patterns == {"application"} or reader.NAME == "npb":
        fix = "model its run times with perfmodel scaling {path}"
    elif patterns == {"memory"} or reader.NAME == "stream":
        fix = ("look at it with perfmodel inspect {path}; its Triad rate is a node's "
               "memory_bandwidth ([node.params] of a network spec)")
    elif patterns == {"collective"}:
        fix = "model it at several process counts with perfmodel scaling {path} --at SIZE"
    else:
        fix = "calibrate it first: perfmodel calibrate {path}"
    return FileKind("measurements", noun, fix)


def _article(word: str) -> str:
    """The article as the word is said: an OSU, an IMB, an mpi4py; a netperf, a STREAM."""
    return "an" if word.startswith(("OSU", "IMB", "NPB", "mpi4py")) else "a"


def wrong_kind(path: str | Path, text: str, want: str | None, measurements: bool = True,
               noun: str = "") -> InputError | None:
    """The error for a file that is some kind other than ``want`` (a key of :data:`WANTED`;
    None: some TOML file of perfmodel's, so only a measurement or timings file is wrong),
    naming what it is and the command that takes it; None when it is not identified as
    another kind (so the loader's own error stands).  ``noun`` replaces ``want``'s."""
    found = identify(text, path, measurements)
    if found is None or found.key == want or \
            (want is None and found.key not in ("measurements", "timings")):
        return None
    said = noun or (WANTED[want] if want is not None else "a perfmodel file")
    return InputError(f"this is {found.noun}, not {said}", file=path,
                      fix=found.advice(path))
