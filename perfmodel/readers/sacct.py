"""Slurm accounting records, ``sacct --parsable2`` (or ``--parsable``): a whole run's elapsed
time against its nodes and tasks::

    JobID|JobName|NNodes|NTasks|Elapsed|State
    4101|cp2k-h2o|16|512|00:02:31|COMPLETED
    4101.batch|batch|1|1|00:02:31|COMPLETED
    4101.0|cp2k.psmp|16|512|00:02:27|COMPLETED

The header names the fields (``--format``; any order, any case): ``JobID`` (or
``JobIDRaw``), ``Elapsed`` (or ``ElapsedRaw``, seconds) and ``NNodes`` (or ``AllocNodes``) are
needed, ``NTasks``, ``JobName`` and ``State`` are
read where given.  A run is a numbered job step (``4101.0``, what ``srun`` launched): its
tasks are its processes.  A job with no numbered step (``mpirun`` inside the batch script)
is a run of the whole allocation, counted when the job's row gives ``NTasks``.  ``.batch``,
``.extern`` and ``.interactive`` steps are the scripts around the runs, not runs.  A run
whose state is not COMPLETED (cancelled, failed, timed out) is left out and said.

Runs are grouped by the job's name (label ``code``) and, for steps, the step's name (label
``step``, usually the executable): one table each.
"""

from __future__ import annotations

import math
import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, integer, lines_of

NAME = "sacct"
DESCRIPTION = "Slurm sacct --parsable2 records (elapsed time against nodes and tasks)"

_NEED = ("jobid", "nnodes")
_ALIASES = {"jobidraw": "jobid", "allocnodes": "nnodes"}
"""sacct fields that say the same as a needed one (``JobIDRaw`` beside or instead of
``JobID``; ``AllocNodes`` for ``NNodes``): used where the needed one is absent."""
_ELAPSED = re.compile(r"^(?:(?P<d>[0-9]{1,4})-)?(?:(?P<h>[0-9]{1,2}):)?(?P<m>[0-9]{1,2}):"
                      r"(?P<s>[0-9]{1,2}(?:\.[0-9]{1,6})?)$")
_WRAPPERS = ("batch", "extern", "interactive")
_FIX = "give the output of sacct --parsable2 with a header (no --noheader), e.g. " \
       "sacct -j JOBS --parsable2 --format JobID,JobName,NNodes,NTasks,Elapsed,State"


def _header(text: str) -> tuple[int, list[str]] | None:
    for lineno, ln in lines_of(text[:20000]):
        if ln:
            fields = [f.strip().lower() for f in ln.removesuffix("|").split("|")]
            return lineno, [_ALIASES[f] if f in _ALIASES and _ALIASES[f] not in fields
                            else f for f in fields]
    return None


def sniff(text: str) -> bool:
    head = _header(text)
    return head is not None and all(f in head[1] for f in _NEED) and \
        ("elapsed" in head[1] or "elapsedraw" in head[1])


def elapsed(text: str) -> float | None:
    """Seconds of a Slurm duration: ``[D-]HH:MM:SS``, ``MM:SS.mmm`` (a step under an hour
    with milliseconds), or whole seconds (``ElapsedRaw``)."""
    if (n := integer(text)) is not None:
        return float(n)
    m = _ELAPSED.match(text)
    if m is None:
        return None
    return (int(m["d"] or 0) * 86400 + int(m["h"] or 0) * 3600 + int(m["m"]) * 60
            + float(m["s"]))


def read(source: str, text: str) -> tuple[Measurements, ...]:
    head = _header(text)
    if head is None:
        raise InputError("is empty", file=source, fix=_FIX)
    head_line, names = head
    col = {name: i for i, name in reversed(list(enumerate(names)))}
    time_key = "elapsedraw" if "elapsedraw" in col else "elapsed"
    missing = [f for f in (*_NEED, time_key) if f not in col]
    if missing:
        raise InputError(f"sacct records without {', '.join(missing)}", file=source,
                         line=head_line, fix=_FIX)
    jobs: dict[str, dict[str, tuple[int, list[str]]]] = {}
    for lineno, ln in lines_of(text):
        if lineno <= head_line or not ln or set(ln) <= {"-", "|", " "}:
            continue
        cells = [c.strip() for c in ln.removesuffix("|").split("|")]
        if len(cells) != len(names):
            raise InputError(f"{len(cells)} fields where the header has {len(names)}",
                             file=source, line=lineno,
                             fix="give sacct's output unchanged (fields split by |, one "
                                 "record a line)")
        job, _, step = cells[col["jobid"]].partition(".")
        jobs.setdefault(job, {})[step] = (lineno, cells)
    tables: dict[tuple[str, str], Table] = {}
    dropped: list[tuple[int, str]] = []
    for steps in jobs.values():
        job_name = steps[""][1][col["jobname"]] if "" in steps and "jobname" in col else ""
        numbered = {s: r for s, r in steps.items() if integer(s) is not None}
        if numbered:
            runs = [(f"{s}", r) for s, r in numbered.items()]
        elif "" in steps:
            runs = [("", steps[""])]
        else:
            runs = []
        for step, (lineno, cells) in runs:
            state = cells[col["state"]].split()[0].upper() if "state" in col and \
                cells[col["state"]] else "COMPLETED"
            if state != "COMPLETED":
                dropped.append((lineno, f"state {state}"))
                continue
            nodes = integer(cells[col["nnodes"]])
            tasks = integer(cells[col["ntasks"]]) if "ntasks" in col else None
            seconds = elapsed(cells[col[time_key]])
            if nodes is None or nodes < 1:
                raise InputError(f"NNodes is {cells[col['nnodes']]!r}, not a count",
                                 file=source, line=lineno, fix=_FIX)
            if seconds is None:
                raise InputError(f"{time_key} is {cells[col[time_key]]!r}, not a duration "
                                 "([D-]HH:MM:SS)", file=source, line=lineno, fix=_FIX)
            if tasks is None:
                dropped.append((lineno, "no task count (NTasks)"))
                continue
            step_name = cells[col["jobname"]] if step and "jobname" in col else ""
            name = job_name or step_name or "job"   # no allocation row: the step's name
            key = (name, step_name)
            if key not in tables:
                attrs = {"code": name, "figure": "Elapsed", "counts": "processes (NTasks)"}
                if step_name:
                    attrs["step"] = step_name
                tables[key] = Table(source, NAME, f"{name} {step_name}".strip(),
                                    "application", "time",
                                    "the run's elapsed wall-clock time, as Slurm accounted "
                                    "it", attrs=attrs)
            tables[key].add(lineno, math.nan, seconds, None, {"processes": float(tasks)},
                            nodes=float(nodes))
    said = []
    for why in sorted({w for _, w in dropped}):
        lines = [n for n, w in dropped if w == why]
        said.append(f"{len(lines)} run{'s' if len(lines) > 1 else ''} left out: {why} "
                    f"(line{'s' if len(lines) > 1 else ''} "
                    f"{', '.join(map(str, lines[:3]))}{', …' if len(lines) > 3 else ''})")
    out = []
    for table in tables.values():
        table.notes.extend(said)
        if (built := table.build()) is not None:
            out.append(built)
    if not out:
        why = "; ".join(said) or "no job records"
        raise InputError(f"sacct records but no completed run with nodes and tasks ({why})",
                         file=source, line=head_line, fix=_FIX)
    return tuple(out)

