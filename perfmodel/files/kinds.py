"""What a file is, for the error a command gives when it is handed the wrong kind.

perfmodel reads measurement files (benchmark outputs, its CSV), timing CSVs and its own TOML
kinds (:mod:`perfmodel.kinds`).  When a loader cannot read its file, :func:`identify` names
what the file is instead, and :func:`wrong_kind` turns that into one error saying which
command takes it::

    error: osu_latency.out: this is an OSU latency output, not a machine profile — calibrate
    it first: perfmodel calibrate osu_latency.out

Measurement outputs are named by the readers' registry (:mod:`perfmodel.readers`), a room
below this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from perfmodel.errors import InputError, PerfModelError
from perfmodel.kinds import FileKind, own_kind, refusal

TOOLS: Mapping[str, str] = {
    "osu": "OSU", "imb": "IMB", "mpi4py-bench": "mpi4py.bench", "netperf": "netperf",
    "stream": "STREAM", "npb": "NPB", "netpipe": "NetPIPE", "perftest": "perftest",
    "hpl": "HPL", "hpcg": "HPCG", "csv": "perfmodel CSV"}


def identify(text: str, path: str | Path = "FILE", measurements: bool = True
             ) -> FileKind | None:
    """What ``text`` is, or None when it is none of the kinds perfmodel knows.

    A ``kind = "perfmodel …"`` line names perfmodel's own files; a timings CSV has a process
    count and a time column; measurement files are those a reader of
    :data:`~perfmodel.readers.REGISTRY` claims (a perfmodel CSV only when it reads), looked
    for only with ``measurements``."""
    own = own_kind(text)
    if own is not None or not measurements:
        return own
    return _measurements(text, path)


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
    if reader.NAME == "hpl":
        fix = ("look at it with perfmodel inspect {path}; its Gflops per process (P × Q) is a "
               "node's flop_rate ([node.params] of a network spec)")
    elif reader.NAME == "hpcg":
        fix = ("look at it with perfmodel inspect {path}; its rating is a memory-bound rate "
               "of the node")
    elif patterns == {"application"} or reader.NAME == "npb":
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
    """The error for a file that is some kind other than ``want`` (a key of
    :data:`~perfmodel.kinds.WANTED`;
    None: some TOML file of perfmodel's, so only a measurement or timings file is wrong),
    naming what it is and the command that takes it; None when it is not identified as
    another kind (so the loader's own error stands).  ``noun`` replaces ``want``'s."""
    return refusal(identify(text, path, measurements), path, want, noun)
