"""Measured run times of a science code: a CSV of process count, time and (optionally) part.

Columns, by the names users write: ``nodes``, ``processes``, ``ranks`` or ``p``; ``time_s``
(seconds), ``time`` or ``seconds`` — or, where only a rate survives, ``mflops`` (sustained
Mflop/s, as papers and NPB's "Mop/s total" give it; a model's flop count turns it into a
time); optional ``part`` (empty: the whole run).  Any other column
is a label (``machine``, ``table`` …) that :meth:`Timings.select` filters on.  Lines starting
with ``#`` are comments (provenance).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from perfmodel.errors import InputError
from perfmodel.kinds import TIMING_COUNTS, TIMING_RATES, TIMING_TIMES
from perfmodel.readers.canonical import split_lines

COUNT, TIME, RATE = TIMING_COUNTS, TIMING_TIMES, TIMING_RATES
TIME_FLOOR = 1e-12
"""Seconds: a run time shorter than 1 ps is a unit error, not a run.  ``predict --fit`` and
``scaling`` both refuse it (:mod:`perfmodel.empirical.series` reads it from here)."""


@dataclass(frozen=True)
class Timings:
    source: str
    processes: NDArray[np.float64]
    times: NDArray[np.float64]
    parts: tuple[str, ...]
    labels: Mapping[str, tuple[str, ...]]
    lines: tuple[int, ...]
    measure: str = "time"   # "time": ``times`` are seconds; "mflops": they are Mflop/s
    notes: tuple[str, ...] = ()
    """What reading them did that a user should know (``--columns``' mapping)."""

    def __len__(self) -> int:
        return len(self.times)

    def select(self, **want: str) -> Timings:
        """The rows whose labels equal ``want`` (``select(machine="t3d", table="1")``)."""
        for key in want:
            if key not in self.labels:
                raise InputError(f"--where {key}: no column {key!r}", file=self.source,
                                 fix=f"label columns: {', '.join(self.labels) or 'none'}")
        keep = [i for i in range(len(self))
                if all(self.labels[k][i] == v for k, v in want.items())]
        return Timings(self.source, self.processes[keep], self.times[keep],
                       tuple(self.parts[i] for i in keep),
                       {k: tuple(v[i] for i in keep) for k, v in self.labels.items()},
                       tuple(self.lines[i] for i in keep), self.measure, self.notes)


def read_timings(path: str | Path, columns: Mapping[str, str] | None = None) -> Timings:
    """The timing CSV at ``path``; ``columns`` maps roles to the file's own column names
    (:func:`apply_columns`)."""
    from perfmodel.io import read_text

    text = read_text(path)[0]
    said: tuple[str, ...] = ()
    if columns:
        text, said = apply_columns(text, columns, path)
    rows = parse_timings(text, path)
    return replace(rows, notes=said) if said else rows


def parse_timings(text: str, path: str | Path) -> Timings:
    """:func:`read_timings` of text already read (``path`` names it in errors); a file of
    another kind (a benchmark output, a profile) is named as what it is."""
    try:
        return _parse(text, path)
    except InputError:
        from perfmodel.files.kinds import wrong_kind

        other = wrong_kind(path, text, "timings")
        if other is not None:
            raise other from None
        raise


def _parse(text: str, path: str | Path) -> Timings:
    rows = [(n, ln) for n, ln in split_lines(text)
            if ln.strip() and not ln.lstrip().startswith("#")]
    if not rows:
        raise InputError("no timing rows", file=path, fix="give a header and one row per run")
    head_line, header = rows[0]
    if "," not in header and any(c in header for c in ";\t"):
        raise InputError(f"columns are separated by {'tabs' if chr(9) in header else ';'}, "
                         "not commas", file=path, line=head_line,
                         fix="timing CSVs use commas: nodes,time_s")
    names = [h.strip().lower() for h in next(csv.reader(io.StringIO(header)))]
    for i, name in enumerate(names):
        if name and name in names[:i]:
            raise InputError(f"column {name!r} appears twice (columns {names.index(name) + 1} "
                             f"and {i + 1})", file=path, line=head_line,
                             fix="keep one of them: which copy holds the runs is a guess")
    for same, what in ((TIME, "a run's time"), (COUNT[1:], "the process count"),
                       (RATE, "a rate")):
        given = [c for c in same if c in names]
        if len(given) > 1:
            raise InputError(f"columns {' and '.join(given)} both name {what}", file=path,
                             line=head_line, fix=f"keep one of them, or rename the other "
                                                 f"(like {given[1]}_other): which one is meant "
                                                 "is a guess")
    count = next((c for c in COUNT if c in names), None)
    time = next((c for c in (*TIME, *RATE) if c in names), None)
    if count is None or time is None:
        raise InputError("the header needs a process count and a time (or Mflop/s) column",
                         file=path, line=head_line,
                         fix=f"name them one of {', '.join(COUNT)} and one of "
                             f"{', '.join(TIME + RATE)}")
    others = [c for c in names if c not in (count, time, "part")]
    procs: list[float] = []
    secs: list[float] = []
    parts: list[str] = []
    labels: dict[str, list[str]] = {c: [] for c in others}
    lines: list[int] = []
    for n, ln in rows[1:]:
        cells = [c.strip() for c in next(csv.reader(io.StringIO(ln)))]
        if len(cells) != len(names):
            raise InputError(f"{len(cells)} cells where the header has {len(names)}", file=path,
                             line=n, fix="give every column a value (an empty part is allowed)")
        row = dict(zip(names, cells, strict=True))
        try:
            p, t = float(row[count]), float(row[time])
        except ValueError:
            raise InputError(f"{count} or {time} is not a number", file=path, line=n,
                             fix="write plain numbers") from None
        if not (math.isfinite(p) and p >= 1 and p == int(p) and p <= 100_000):
            raise InputError(f"{count} is {row[count]}", file=path, line=n,
                             fix="process counts are whole numbers from 1 to 100000")
        if not (math.isfinite(t) and 0 < t < 1e9):
            raise InputError(f"{time} is {row[time]}", file=path, line=n,
                             fix="times are positive seconds" if time in TIME else
                             "rates are positive Mflop/s")
        if time in TIME and t < TIME_FLOOR:
            raise InputError(f"a time of {t:g} s", file=path, line=n,
                             fix="times are seconds of a whole run (at least 1 ps); check "
                                 "the unit")
        procs.append(p)
        secs.append(t)
        parts.append(row.get("part", ""))
        for c in others:
            labels[c].append(row[c])
        lines.append(n)
    if not secs:
        raise InputError("a header but no timing rows", file=path, fix="add one row per run")
    return Timings(str(path), np.array(procs), np.array(secs), tuple(parts),
                   {k: tuple(v) for k, v in labels.items()}, tuple(lines),
                   "time" if time in TIME else "mflops")


ROLES: dict[str, tuple[str, ...]] = {
    "nodes": ("nodes",),
    "processes": ("processes", "ranks", "p"),
    "ranks_per_node": ("ranks_per_node", "ppn"),
    "time": (*TIME, *RATE),
    "size": ("size", "problem_size", "n"),
    "rep": ("rep", "repetition", "run"),
    "part": ("part",),
}
"""What ``--columns`` can name, and the columns of the same meaning a mapping displaces."""
_TARGET = {"time": "time_s"}


def parse_columns(text: str) -> dict[str, str]:
    """``--columns processes=NProc,time=MaxTime``: each role and the user's column for it."""
    out: dict[str, str] = {}
    for item in (x.strip() for x in text.split(",")):
        role, sep, column = (x.strip() for x in item.partition("="))
        role = role.lower().replace("-", "_")
        role = "time" if role == "time_s" else role
        if not sep or not column or role not in ROLES:
            raise InputError(f"--columns {item!r} is not ROLE=COLUMN with a known role",
                             fix=f"roles: {', '.join(ROLES)}; e.g. --columns "
                                 "processes=NProc,time=MaxTime")
        if role in out:
            raise InputError(f"--columns gives {role} twice", fix="give each role once")
        same = next((r for r, c in out.items() if c.lower() == column.lower()), None)
        if same is not None:
            raise InputError(f"--columns maps {column} to both {same} and {role}",
                             fix="give each role its own column")
        out[role] = column
    return out


def apply_columns(text: str, columns: Mapping[str, str],
                  path: str | Path) -> tuple[str, tuple[str, ...]]:
    """``text`` (a timing CSV) with the user's columns renamed to the roles ``columns``
    gives them, and what was done, said.  Columns of a role's meaning other than the one
    mapped are left out (two time columns would be a guess), and so are the other columns
    that hold only numbers and name no role (``MinTime`` beside a mapped ``MaxTime``: another
    figure of each run, not a label); text columns stay labels.
    Every line keeps its number."""
    lines = split_lines(text)
    body = [i for i, (_, ln) in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not body:
        return text, ()
    head_line, header = lines[body[0]]
    if "," not in header:
        other = next((name for sep, name in ((";", "';'"), ("\t", "tabs")) if sep in header),
                     None)
        raise InputError("--columns maps the columns of a CSV; this file's first line has no "
                         "commas" + (f": its columns are separated by {other}" if other else ""),
                         file=path, line=head_line,
                         fix="timing CSVs use commas" if other else
                         "drop --columns for benchmark outputs and perflogs")
    parsed = [next(csv.reader(io.StringIO(lines[k][1]))) for k in body]   # each line once
    names = [h.strip() for h in parsed[0]]
    lower = [n.lower() for n in names]
    rename: dict[int, str] = {}
    for role, column in columns.items():
        if column.lower() not in lower:
            raise InputError(f"--columns {role}={column}: no column {column!r}", file=path,
                             line=head_line, fix=f"columns: {', '.join(names)}")
        rename[lower.index(column.lower())] = _TARGET.get(role, role)
    displaced = {i for i, n in enumerate(lower) if i not in rename and
                 any(n in ROLES[r] for r in columns)}
    for k, cells in zip(body[1:], parsed[1:], strict=True):
        if len(cells) != len(names):
            raise InputError(f"{len(cells)} cells where the header has {len(names)}",
                             file=path, line=lines[k][0],
                             fix="give every column a value (an empty part is allowed)")
    rows = parsed[1:]
    known = {a for v in ROLES.values() for a in v}

    def numeric(i: int) -> bool:
        """Numbers in every cell that holds anything (an empty or NA cell is a missing
        number, not a label)."""
        cells = [r[i].strip() for r in rows]
        given = [c for c in cells if c and c.lower() not in ("na", "nan", "n/a", "-")]
        try:
            return bool(given) and all(math.isfinite(float(c)) for c in given)
        except ValueError:
            return False
    unused = {i for i, n in enumerate(lower)
              if i not in rename and i not in displaced and n not in known and numeric(i)}
    drop = displaced | unused
    keep = [i for i in range(len(names)) if i not in drop]
    out = dict(lines)
    for k, cells in zip(body, parsed, strict=True):
        if k == body[0]:
            cells = [rename.get(i, c) for i, c in enumerate(cells)]
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow([cells[i] for i in keep])
        out[lines[k][0]] = buf.getvalue()
    said = ["--columns: " + ", ".join(f"{names[i]} read as {t}" for i, t in rename.items())]
    if drop:
        said.append("columns not used: " + ", ".join(names[i] for i in sorted(drop)) +
                    (" (numbers beside the mapped ones, not labels)" if unused else ""))
    return "\n".join(out[n] for n, _ in lines), tuple(said)
