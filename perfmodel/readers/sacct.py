"""Slurm accounting records, ``sacct --parsable2`` (or ``--parsable``): a whole run's elapsed
time against its nodes and tasks::

    JobID|JobName|NNodes|NTasks|Elapsed|State
    4101|cp2k-h2o|16|512|00:02:31|COMPLETED
    4101.batch|batch|1|1|00:02:31|COMPLETED
    4101.0|cp2k.psmp|16|512|00:02:27|COMPLETED

The header names the fields (``--format``; any order, any case): ``JobID`` (or
``JobIDRaw``), ``Elapsed`` (or ``ElapsedRaw``, seconds) and ``NNodes`` (or ``AllocNodes``) are
needed; ``NTasks`` gives the processes (a run without it is left out, said), ``JobName`` and
``State`` are read where given, and ``Cluster`` tells jobs of several clusters apart.

A run is a numbered job step (``4101.0``, what ``srun`` launched): its tasks are its processes.
A job with no numbered step is a run of the whole allocation, counted when the job's row gives
``NTasks``.  ``.batch``, ``.extern`` and ``.interactive`` steps are the scripts around the
runs, not runs.  Steps of ``mpirun``'s daemons (``orted``, ``prted``, Hydra's proxies) count
nodes, not ranks: left out, said.  The components of a heterogeneous job (``4101+0``,
``4101+1``, or a step ``4101.0+1``) are one run: their nodes and tasks added, the longest time.
A run whose state is not COMPLETED (cancelled, failed, timed out, requeued) is left out, said.

Runs are grouped by the job's name (label ``code``) and, for steps, the step's name (label
``step``, usually the executable): one table each, whose notes say what of that code was left
out.
"""

from __future__ import annotations

import math
import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, built, integer, lines_of, spans

NAME = "sacct"
DESCRIPTION = "Slurm sacct --parsable2 records (elapsed time against nodes and tasks)"

_NEED = ("jobid", "nnodes")
_ALIASES = {"jobidraw": "jobid", "allocnodes": "nnodes"}
"""sacct fields that say the same as a needed one (``JobIDRaw`` beside or instead of
``JobID``; ``AllocNodes`` for ``NNodes``): used where the needed one is absent."""
_ELAPSED = re.compile(r"^(?:(?P<d>[0-9]{1,4})-)?(?:(?P<h>[0-9]{1,2}):)?(?P<m>[0-9]{1,2}):"
                      r"(?P<s>[0-9]{1,2}(?:\.[0-9]{1,6})?)$")
_LAUNCHERS = ("orted", "prted", "hydra_bstrap_proxy", "hydra_pmi_proxy", "pmi_proxy")
"""Steps ``mpirun`` starts with ``srun`` for its daemons (Open MPI's orted, PRRTE's prted,
MPICH's Hydra proxies): one task a node, not the application's ranks."""
_FIX = "give the output of sacct --parsable2 with a header (no --noheader), e.g. " \
       "sacct -j JOBS --parsable2 --format JobID,JobName,NNodes,NTasks,Elapsed,State"


def _header(text: str) -> tuple[int, list[str], bool] | None:
    """The header's line, its field names (lower case, aliases resolved) and whether it ends
    in ``|`` (``--parsable``: every record does; ``--parsable2``: none does)."""
    for lineno, ln in lines_of(text[:20000]):
        if ln:
            fields = [f.strip().lower() for f in ln.removesuffix("|").split("|")]
            return lineno, [_ALIASES[f] if f in _ALIASES and _ALIASES[f] not in fields
                            else f for f in fields], ln.endswith("|")
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
    head_line, names, trailing = head
    col = {name: i for i, name in reversed(list(enumerate(names)))}
    time_key = "elapsedraw" if "elapsedraw" in col else "elapsed"
    missing = [f for f in (*_NEED, time_key) if f not in col]
    if missing:
        raise InputError(f"sacct records without {', '.join(missing)}", file=source,
                         line=head_line, fix=_FIX)
    runs = _runs(source, text, head_line, names, trailing, col)
    tables: dict[tuple[str, str], Table] = {}
    dropped: dict[str, list[tuple[int, str]]] = {}
    for name, step_name, lines, cells in runs:
        lineno = lines[0]
        why = _problem(cells, col)
        if why:
            dropped.setdefault(name, []).append((lineno, why))
            continue
        nodes = [integer(c[col["nnodes"]]) for c in cells]
        if any(n is None or n < 1 for n in nodes):
            bad = next(c[col["nnodes"]] for c, n in zip(cells, nodes, strict=True)
                       if n is None or n < 1)
            raise InputError(f"NNodes is {bad!r}, not a count", file=source, line=lineno,
                             fix=_FIX)
        seconds = [elapsed(c[col[time_key]]) for c in cells]
        if any(v is None for v in seconds):
            bad = next(c[col[time_key]] for c, v in zip(cells, seconds, strict=True)
                       if v is None)
            raise InputError(f"{time_key} is {bad!r}, not a duration ([D-]HH:MM:SS)",
                             file=source, line=lineno, fix=_FIX)
        tasks = sum(integer(c[col["ntasks"]]) or 0 for c in cells)
        key = (name, step_name)
        if key not in tables:
            attrs = {"code": name, "figure": "Elapsed", "counts": "processes (NTasks)"}
            if step_name:
                attrs["step"] = step_name
            tables[key] = Table(source, NAME, f"{name} {step_name}".strip(),
                                "application", "time",
                                "the run's elapsed wall-clock time, as Slurm accounted it",
                                attrs=attrs)
        if len(cells) > 1:
            tables[key].notes.append(f"the run at line {lineno} is one heterogeneous job of "
                                     f"{len(cells)} components: their nodes and tasks added")
        tables[key].add(lineno, math.nan, max(v for v in seconds if v is not None), None,
                        {"processes": float(tasks)},
                        nodes=float(sum(n for n in nodes if n is not None)))
    for (name, _), table in tables.items():
        table.notes.extend(_said(dropped.get(name, [])))
    out = built(tables.values())
    if not out:
        every = [d for v in dropped.values() for d in v]
        why = "; ".join(_said(every)) or "no job records"
        launched = any("launcher" in w for _, w in every)
        raise InputError(f"sacct records but no completed run with nodes and tasks ({why})",
                         file=source, line=head_line,
                         fix="sacct does not record the ranks mpirun starts: give a CSV of "
                             "nodes, processes and time_s" if launched else
                             "give NTasks in --format (and no -X: the steps hold the tasks)"
                             if "ntasks" not in col or any("NTasks" in w for _, w in every)
                             else _FIX)
    return out


def _runs(source: str, text: str, head_line: int, names: list[str], trailing: bool,
          col: dict[str, int]) -> list[tuple[str, str, list[int], list[list[str]]]]:
    """Each run: the job's name, the step's name, its lines and records (several for a
    heterogeneous job, ``JOB+k`` or a step ``S+k``).  A run is a numbered step; a job with
    none is its allocation row.  One record id seen again (``sacct -D``, a requeue) starts
    another run."""
    order: list[tuple[str, str]] = []
    groups: dict[tuple[str, str], list[list[tuple[int, list[str], str]]]] = {}
    names_of: dict[str, str] = {}
    cluster = col.get("cluster")
    for lineno, ln in lines_of(text):
        if lineno <= head_line or not ln or set(ln) <= {"-", "|", " "}:
            continue
        cells = [c.strip() for c in (ln[:-1] if trailing and ln.endswith("|") else ln)
                 .split("|")]
        if len(cells) != len(names):
            raise InputError(f"{len(cells)} fields where the header has {len(names)}",
                             file=source, line=lineno,
                             fix="give sacct's output unchanged (fields split by |, one "
                                 "record a line)")
        job, _, step = cells[col["jobid"]].partition(".")
        base, _, part = job.partition("+")
        step_base, _, step_part = step.partition("+")
        where = f"{cells[cluster]}:{base}" if cluster is not None else base
        if not step and "jobname" in col:
            names_of.setdefault(where, cells[col["jobname"]])
        key = (where, step_base)
        runs = groups.get(key)
        if runs is None:
            order.append(key)
            runs = groups[key] = [[]]
        seen = {r[2] for r in runs[-1]}
        if f"{part}+{step_part}" in seen:
            runs.append([])   # the same record again: another run of that id
        runs[-1].append((lineno, cells, f"{part}+{step_part}"))
    numbered = {w for w, s in order if integer(s) is not None}
    out = []
    for where, step in order:
        if (step and integer(step) is None) or (not step and where in numbered):
            continue   # .batch, .extern, or an allocation whose steps are the runs
        for run in groups[(where, step)]:
            records = [record for _, record, _ in run]
            step_name = records[0][col["jobname"]] if step and "jobname" in col else ""
            name = names_of.get(where) or step_name or "job"   # no allocation row: the step's
            out.append((name, step_name, [n for n, _, _ in run], records))
    return out


def _problem(cells: list[list[str]], col: dict[str, int]) -> str:
    """Why a run's records cannot be read as a run of the application ("" if they can)."""
    for c in cells:
        state = c[col["state"]].split()[0].upper() if "state" in col and c[col["state"]] \
            else "COMPLETED"
        if state != "COMPLETED":
            return f"state {state}"
    if "jobname" in col and any(c[col["jobname"]].lower() in _LAUNCHERS for c in cells):
        return "a launcher's daemons (mpirun's orted or proxies), not the application's ranks"
    if "ntasks" not in col or any(integer(c[col["ntasks"]]) is None for c in cells):
        return "no task count (NTasks)"
    return ""


def _said(dropped: list[tuple[int, str]]) -> list[str]:
    out = []
    for why in sorted({w for _, w in dropped}):
        lines = [n for n, w in dropped if w == why]
        out.append(f"{len(lines)} run{'s' if len(lines) > 1 else ''} left out: {why} "
                   f"(line{'s' if len(lines) > 1 else ''} {spans(lines)})")
    return out
