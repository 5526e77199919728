"""A scaling series from the files users have: process count against run time.

Two kinds of input, mixed freely:

- a timing CSV (:mod:`perfmodel.apps.timings`): a count column (``nodes``, ``processes``,
  ``ranks`` or ``p``), a time column (``time_s``, ``time`` or ``seconds``), optional
  ``size`` (``problem_size``, ``n``: the problem size, which tells strong from weak scaling),
  ``rep`` (``repetition``, ``run``), ``ranks_per_node`` (``ppn``), ``part``, and any labels;
  with ``nodes`` beside a process count (``processes``, or ``ranks_per_node``) p is the
  process count;
- any file a reader knows (:mod:`perfmodel.readers`) whose tables carry a process count: NAS
  Parallel Benchmarks results (one whole run per row), or benchmark tables of a collective at
  several process counts, read at one message size (``at``).

Rows are filtered by ``where`` (labels; a reader's table gives ``benchmark`` and ``class``);
what is left must be one series: one value of every label, one part.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from perfmodel.apps.timings import TIME_FLOOR
from perfmodel.errors import InputError

FloatArray = NDArray[np.float64]

SIZE = ("size", "problem_size", "n")
PER_NODE = ("ranks_per_node", "ppn")
REPEAT = ("rep", "repetition", "run", "source", "note", "date", "commit", "file", "cores",
          "threads", "nodes", "mflops", "mops", "mflop_s", "speedup", "efficiency")
"""Label columns that may differ inside one series: they describe runs, not series (a node
count beside the process count, a rate measured with the time).  Every other label must take
one value; the processes a node may differ only as :func:`_one_series` says."""


@dataclass(frozen=True)
class Series:
    """One scaling series: ``processes`` and ``times`` (s) per run, the problem ``sizes`` when
    the input gives them, where each run came from (``origin``: ``file:line``), the name of
    the count (``nodes``, ``processes``), and notes on what was read."""

    processes: FloatArray
    times: FloatArray
    sizes: FloatArray | None
    origin: tuple[str, ...]
    count: str
    sources: tuple[str, ...]
    notes: tuple[str, ...] = ()
    nodes: FloatArray | None = None
    """The nodes each run used, when the input says (a CSV's ``nodes`` beside its process
    count, a perflog's ``num_nodes``); None otherwise."""

    def __len__(self) -> int:
        return len(self.times)

    def off_node(self, counts: Sequence[float] | FloatArray) -> tuple[NDArray[np.bool_], str]:
        """Which of the process ``counts`` would cross onto another node (:func:`crossing`),
        and the sentence that says so ("" when none does, or when the runs already crossed
        nodes or do not say theirs): the network then enters, and no run measured what it
        costs."""
        q = np.asarray(counts, dtype=np.float64)
        if self.count != "processes":
            return np.zeros(len(q), dtype=bool), ""
        off = crossing(self.processes, self.nodes, q)
        if not off.any():
            return off, ""
        return off, (f"every run is on one node: past {self.processes.max():g} processes, the "
                     "most any run placed there, they may cross onto other nodes: their "
                     "messages onto the network and their memory onto more nodes, which no run "
                     "measured, so the forms cannot know whether that slows or speeds them "
                     "(marked off-node, the range widened; time a run on two nodes and fit with "
                     "it)")


def crossing(processes: FloatArray, nodes: FloatArray | None, counts: FloatArray
             ) -> NDArray[np.bool_]:
    """Of process ``counts``, those above the most ``processes`` a run placed on its one node,
    when every run (``nodes`` each) was on one node; none when the runs do not say their
    nodes or already crossed them."""
    q = np.asarray(counts, dtype=np.float64)
    if nodes is None or np.any(nodes != 1):
        return np.zeros(len(q), dtype=bool)
    return np.asarray(q > processes.max(), dtype=bool)


@dataclass
class _Rows:
    p: list[float] = field(default_factory=list)
    t: list[float] = field(default_factory=list)
    size: list[float] = field(default_factory=list)
    origin: list[str] = field(default_factory=list)
    labels: list[dict[str, str]] = field(default_factory=list)
    count: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    nodes: list[float] = field(default_factory=list)


def load_series(paths: Sequence[str | Path], where: Mapping[str, str] | None = None,
                at: float | None = None, columns: Mapping[str, str] | None = None) -> Series:
    """The runs of ``paths`` that ``where`` selects, as one series; ``columns`` maps roles to
    a timing CSV's own column names (:func:`perfmodel.apps.timings.apply_columns`)."""
    if not paths:
        raise InputError("no timing files", fix="give a CSV of process count and time, or NPB "
                                                 "result files")
    seen: dict[Path, str] = {}
    for path in paths:
        try:
            real = Path(path).resolve()
        except (OSError, RuntimeError):   # a symlink loop: said when the file is read
            real = Path(path).absolute()
        if real in seen:
            raise InputError(f"given twice (also as {seen[real]})", file=path,
                             fix="give each file once: repeated runs go in as rows")
        seen[real] = str(path)
    rows = _Rows()
    notes: list[str] = []
    digests: dict[str, str] = {}
    tables = [_read(path, at, rows, notes, digests, columns) for path in paths]
    if at is not None and not any(tables):
        raise InputError("--at picks a message size in benchmark tables; the inputs are "
                         "timing CSVs", fix="drop --at")
    want = dict(where or {})
    known = set().union(*(r.keys() for r in rows.labels)) if rows.labels else set()
    for key in want:
        if key not in known:
            raise InputError(f"--where {key}: no input has a column or attribute {key!r}",
                             fix=f"labels: {', '.join(sorted(known)) or 'none'}")
    keep = [i for i, lab in enumerate(rows.labels)
            if all(lab.get(k) == v for k, v in want.items())]
    if not keep:
        unverified = sum("not verified" in n for n in notes)
        raise InputError("no runs left to fit" + (" after --where" if want else "") +
                         (f" ({unverified} unverified runs left out)" if unverified else ""),
                         fix="check the labels and values, and that the runs verified")
    files = tuple(dict.fromkeys(rows.source[i] for i in keep))
    one = files[0] if len(files) == 1 else None
    p = np.array([rows.p[i] for i in keep])
    nodes = np.array([rows.nodes[i] for i in keep])
    _one_series([rows.labels[i] for i in keep], one, p, nodes)
    counts = sorted({rows.count[i] for i in keep})
    if len(counts) > 1:
        raise InputError(f"the runs count in {' and '.join(counts)}", file=one,
                         fix="give one kind of count (nodes or processes) in every file")
    size = np.array([rows.size[i] for i in keep])
    sizes = size if np.all(np.isfinite(size)) else None
    if sizes is None and np.any(np.isfinite(size)):
        raise InputError("some runs give a problem size and some do not", file=one,
                         fix="give every run its size, or none")
    if sizes is not None:
        _one_size_per_count(p, sizes, counts[0], one)
    return Series(p, np.array([rows.t[i] for i in keep]), sizes,
                  tuple(rows.origin[i] for i in keep), counts[0], files, tuple(notes),
                  nodes if np.all(np.isfinite(nodes)) else None)


def _one_size_per_count(p: FloatArray, sizes: FloatArray, count: str, file: str | None) -> None:
    """Refuse runs at one count with several problem sizes (several series), found by one sort
    of the (count, size) pairs rather than a search per count."""
    pairs = np.unique(np.column_stack([p, sizes]), axis=0)    # sorted by count, then size
    if len(pairs) == len(np.unique(p)):
        return
    q = pairs[np.flatnonzero(pairs[1:, 0] == pairs[:-1, 0])[0], 0]   # the smallest such count
    at_q = pairs[pairs[:, 0] == q, 1]
    raise InputError(f"the runs at {q:g} {count} have {len(at_q)} problem sizes "
                     f"({', '.join(f'{v:g}' for v in at_q[:4])}): several series",
                     file=file, fix=f"choose one with --where size={at_q[0]:g}")


def _one_series(labels: list[dict[str, str]], file: str | None, p: FloatArray,
                nodes: FloatArray) -> None:
    """Refuse rows that hold several series (two machines, two parts, two benchmarks).  The
    processes a node may differ only where every run has the same nodes (a code scaled inside
    them) or is packed: on the fewest nodes that hold its processes at the most any run places
    on a node (2^k processes on nodes of 40 cores).  The same node counts run at one and at 32
    processes a node are two series."""
    keys = set().union(*(lab.keys() for lab in labels))
    free = set(REPEAT) | {"size"}
    if "nodes" in keys and np.all(np.isfinite(nodes)) and (
            np.all(nodes == nodes[0]) or _packed(p, nodes)):
        free |= set(PER_NODE)
    for key in sorted(keys - free):
        values = sorted({lab.get(key, "") for lab in labels})
        if len(values) > 1:
            shown = ", ".join(v or "(none)" for v in values[:6])
            raise InputError(f"the runs hold {len(values)} values of {key} ({shown}): several "
                             "series", file=file,
                             fix=f"choose one with --where {key}={values[0]}")


def _packed(p: FloatArray, nodes: FloatArray) -> bool:
    """Whether every run's ``nodes`` are the fewest that hold its ``p`` processes at the most
    processes a node among the runs (with a relative slack of 10⁻⁹ for the division)."""
    if np.any(nodes <= 0) or np.any(p <= 0):
        return False
    most = float(np.max(p / nodes))
    return bool(np.all(nodes == np.ceil(p / most * (1 - 1e-9))))


def _read(path: str | Path, at: float | None, rows: _Rows, notes: list[str],
          digests: dict[str, str], columns: Mapping[str, str] | None = None) -> bool:
    """Add the runs of ``path``; whether they came from benchmark tables.  ``digests`` maps
    the checksum of each file read so far to its path: a file holding the same bytes as one of
    them (a copy, a hard link) is refused, since every run would count twice, with standard
    errors that shrink for nothing."""
    from perfmodel.apps.timings import COUNT, RATE, TIME, apply_columns
    from perfmodel.io import read_text
    from perfmodel.readers.canonical import split_lines

    text, raw = read_text(path)
    digest = hashlib.sha256(raw).hexdigest()
    if digest in digests:
        raise InputError(f"holds the same runs as {digests[digest]}: every run would count "
                         "twice", file=path, fix="give each file once")
    digests[digest] = str(path)
    if columns:
        from perfmodel.readers import extrap

        text, said = (extrap.rename(text, dict(columns), str(path)) if extrap.sniff(text)
                      else apply_columns(text, columns, path))
        notes.extend(said)
    head_line, header = next(((n, ln) for n, ln in split_lines(text)
                              if ln.strip() and not ln.lstrip().startswith("#")), (None, ""))
    cells = next(csv.reader(io.StringIO(header if "," in header else
                                        re.sub(r"[;\t]", ",", header))), [])
    names = [h.strip().lower() for h in cells]
    message = ("one_way", "round_trip", "latency", "rtt", "bandwidth", "bw", "aggregate",
               "size_")
    if any(c in names for c in (*COUNT, *TIME, *RATE)) and \
            not any(n.startswith(message) for n in names):
        _read_timings(text, path, rows, "nodes" in names)   # it names a missing column
        return False
    if "," in header and not any(n.startswith(message) for n in names):
        from perfmodel.readers import canonical, sniff

        reader = sniff(text)
        if reader is None or reader is canonical:   # runs, their columns named otherwise
            raise InputError(f"no column is a process count or a time ({', '.join(cells)})",
                             file=path, line=head_line,
                             fix="name them (nodes, processes, time_s), or map yours: "
                                 "--columns processes=NProc,time=MaxTime")
    _read_tables(text, path, at, rows, notes)
    return True


def _read_timings(text: str, path: str | Path, rows: _Rows, by_nodes: bool) -> None:
    """The runs of a timing CSV.  With ``nodes`` and a process count (``processes``, or
    ``ranks_per_node``), the process count is p, and the nodes describe each run."""
    from perfmodel.apps.timings import parse_timings

    runs = parse_timings(text, path)
    if runs.measure != "time":
        raise InputError("gives a rate (Mflop/s), not times; an empirical form is fitted to "
                         "times", file=path, fix="give a time_s column")
    size_key = next((k for k in SIZE if k in runs.labels), None)
    finer = next((k for k in ("processes", "ranks", "p") if k in runs.labels), None)
    per_node = next((k for k in PER_NODE if k in runs.labels), None)
    has_parts = any(runs.parts)
    for i in range(len(runs)):
        line = runs.lines[i]
        lab = {k: v[i] for k, v in runs.labels.items() if k != size_key}
        p, count = float(runs.processes[i]), "processes"
        placed = by_nodes and (finer is not None or per_node is not None)
        rows.nodes.append(p if placed else math.nan)   # p counts nodes until made processes
        if by_nodes and finer is not None:
            lab["nodes"] = f"{p:g}"
            p = _number(lab.pop(finer), finer, path, line)
            lab["ranks_per_node"] = f"{p / float(lab['nodes']):g}"
        elif by_nodes and per_node is not None:
            lab["nodes"] = f"{p:g}"
            p *= _number(lab[per_node], per_node, path, line)
        elif by_nodes:
            count = "nodes"
        if has_parts:
            lab["part"] = runs.parts[i]
        size = math.nan
        if size_key is not None:
            cell = runs.labels[size_key][i]
            size = _number(cell, size_key, path, line)
            lab["size"] = cell
        t = float(runs.times[i])
        if t < TIME_FLOOR:   # parse_timings refuses it; kept for times made another way
            raise InputError(f"a time of {t:g} s", file=path, line=line,
                             fix="times are seconds of a whole run; check the unit")
        rows.p.append(p)
        rows.t.append(t)
        rows.size.append(size)
        rows.origin.append(f"{path}:{line}")
        rows.labels.append(lab)
        rows.count.append(count)
        rows.source.append(str(path))


def _number(cell: str, name: str, path: str | Path, line: int) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise InputError(f"{name} is {cell!r}, not a number", file=path, line=line,
                         fix=f"give {name} as a number") from None
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{name} is {cell}", file=path, line=line,
                         fix=f"{name} must be a positive number")
    return value


def _read_tables(text: str, path: str | Path, at: float | None, rows: _Rows,
                 notes: list[str]) -> None:
    from perfmodel.readers import parse

    tables = parse(str(path), text, whole=True)
    seen = 0
    for tab in tables:
        procs = tab.concurrency.get("processes")
        if procs is None:
            continue
        lab: dict[str, str] = {"benchmark": tab.benchmark}
        lab.update((k, str(tab.attrs[k])) for k in ("class", "figure", "step", "setting")
                   if k in tab.attrs)
        if "threads per process" in tab.attrs:   # NPB-MZ: a hybrid's runs of one layout
            lab["threads_per_process"] = tab.attrs["threads per process"]
        for k in ("system", "environment"):   # a perflog: one partition's environments
            if tab.attrs.get(k):
                lab[k] = tab.attrs[k]
        if "code" in tab.attrs:   # a perflog: one table a test, one test a node count
            lab["code"] = tab.attrs["code"]
            lab["benchmark"] = f"{tab.attrs['code']} {tab.attrs.get('figure', '')}".strip()
        kind = "threads" if tab.attrs.get("counts") == "threads" else "processes"
        if tab.pattern == "application":
            picked = np.arange(len(tab))
        else:
            if at is None:
                raise InputError(f"{tab.label} times messages of several sizes", file=path,
                                 fix="say which size to read with --at SIZE (e.g. --at 8KiB)")
            picked = np.flatnonzero(tab.size == at)
        seen += len(picked)
        if len(picked):
            notes.extend(n for n in tab.notes if n not in notes)   # what the reader left out
        for i in picked:
            if "verified" in tab.extra and tab.extra["verified"][i] == 0.0:
                notes.append(f"{path}:{tab.line[i]}: run not verified, left out")
                continue
            rows.p.append(float(procs[i]))
            rows.nodes.append(float(tab.extra["nodes"][i]) if "nodes" in tab.extra
                              else math.nan)
            rows.t.append(float(tab.time[i]))
            rows.size.append(math.nan)
            rows.origin.append(f"{path}:{tab.line[i]}")
            rows.labels.append(dict(lab))
            rows.count.append(kind)
            rows.source.append(str(path))
    if seen == 0:
        what = "no table with a process count" if at is None else \
            f"no table with a process count and a row at {at:g} B"
        raise InputError(what, file=path,
                         fix="give NPB results, benchmark tables run at several process "
                             "counts, or a CSV with processes and time_s columns")
