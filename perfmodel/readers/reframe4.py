"""ReFrame 4.x performance logs: a header line naming the fields, then one line per run, as
the default ``filelog`` handler writes ``perflogs/SYSTEM/PARTITION/TEST.log``::

    result|job_completion_time|descr|env_vars|environ|…|jobid|…|name|…|num_tasks|…|
    num_tasks_per_node|…|partition|wall_t_value|wall_t_unit|wall_t_ref|wall_t_lower_thres|
    wall_t_upper_thres|short_name|system|unique_name|use_multithreading
    pass|2024-02-21T22:51:16||{}|gnu|…|65||Gromacs %num_nodes=16|…|512|…|32|…|compute|
    160.998|s|0|None|None|Gromacs_3|alaska|Gromacs_3|null

(each record one line in the file).  Every performance variable of the test has its
``NAME_value`` and ``NAME_unit`` fields; a site's own ``format`` may keep fewer fields, or split
them by commas: the header says which.  What marks a header is ``NAME_value`` with
``NAME_unit`` beside it and a ``result`` or ``job_completion_time`` field; without a name field
the file's name is the test's.  Every line has as many fields as its header: ReFrame quotes
nothing, so a value holding the separator (a node list split by commas) is refused at its
line.  Runs of one code on several systems or environments are tables apart.
What is read is what the 3.x reader reads (:mod:`.reframe`): a time
(a whole run of an application, one table per code and figure: the test's runs at every node
count, its name without the parameters that set its size) and HPL's Gflops; every other
figure is left out and said.  The processes are ``num_tasks``; the nodes ``num_nodes`` where a
field gives it, else ``num_tasks`` / ``num_tasks_per_node``, else the nodes ``job_nodelist``
lists.  A run whose ``result`` is not ``pass`` is kept (its figure was measured: a test fails on
its reference too) and counted in a note.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._perflog import Figures, count, table
from perfmodel.readers._table import lines_of, number, spans

NAME = "reframe4"
DESCRIPTION = "ReFrame 4.x performance logs (a header line): run times, HPL's Gflops"

_NAMES = ("display_name", "name", "short_name", "unique_name", "check_name")
_COUNT_PARAMS = {"num_nodes", "nodes", "n_nodes", "num_tasks", "tasks", "num_procs", "procs",
                 "num_tasks_per_node"}
_FIX = "give the perflog as ReFrame wrote it, its header line first"
MOST_NODES = 10_000_000
"""More nodes than a node list may name: beyond it the list is not a machine's."""


def _split(line: str) -> tuple[str, list[str]] | None:
    """The separator and fields of a header line, or None when ``line`` is not one."""
    for sep in ("|", ","):
        fields = [f.strip() for f in line.split(sep)]
        values = {f.removesuffix("_value") for f in fields if f.endswith("_value")}
        if (len(fields) >= 3 and values and any(f"{v}_unit" in fields for v in values)
                and ("job_completion_time" in fields or "result" in fields)):
            return sep, fields
    return None


def sniff(text: str) -> bool:
    for _, ln in lines_of(text[:20000]):
        if ln.strip():
            return _split(ln.strip()) is not None
    return False


def read(source: str, text: str) -> tuple[Measurements, ...]:
    figures = Figures(source)
    missing: list[int] = []
    failed: list[int] = []
    header: tuple[str, list[str]] | None = None
    for lineno, raw in lines_of(text):
        ln = raw.strip()
        if not ln:
            continue
        if (again := _split(ln)) is not None:   # the first line, or a file appended to another
            header = again
            continue
        if header is None:
            raise InputError("a ReFrame 4 perflog without its header line", file=source,
                             line=lineno, fix=_FIX)
        sep, fields = header
        cells = [c.strip() for c in ln.split(sep)]
        if len(cells) != len(fields):
            raise InputError(f"{len(cells)} fields where the header names {len(fields)} (a "
                             "value holding the separator, or a cut line?)", file=source,
                             line=lineno, fix=_FIX + (": with commas, a node list or a test "
                                                       "parameter holding one splits its line; "
                                                       "split by |" if sep == "," else ""))
        row = dict(zip(fields, cells, strict=False))
        test = next((row[n] for n in _NAMES if row.get(n)), Path(source).stem)
        bad = row.get("result", "pass").lower() != "pass"
        procs = count(row.get("num_tasks"), "num_tasks", source, lineno)
        nodes = _nodes(row, procs, source, lineno)
        group = code(test)
        attrs = {"code": group, "system": ":".join(p for p in (
                     row.get("system", ""), row.get("partition", "")) if p),
                 "environment": row.get("environ", ""), "counts": "processes (num_tasks)"}
        version = row.get("version", "").removeprefix("reframe ").split(" ")[0]
        for var in [f.removesuffix("_value") for f in fields if f.endswith("_value")]:
            value, unit = number(row.get(f"{var}_value", "")), row.get(f"{var}_unit", "")
            if value is None:
                missing.append(lineno)
                continue
            if bad and failed[-1:] != [lineno]:
                failed.append(lineno)
            figures.add(lineno, test, (group, attrs["system"], attrs["environment"]), var,
                        value, unit, procs, nodes,
                        partial(table, source, NAME, group, var, unit, version=version,
                                attrs=attrs))
    return figures.built(_said(missing, failed))


def _said(missing: list[int], failed: list[int]) -> list[str]:
    said = []
    if missing:
        said.append(f"{len(missing)} figures ReFrame could not extract left out (lines "
                    f"{spans(sorted(set(missing)))})")
    if failed:
        many = len(failed) > 1
        said.append(f"{len(failed)} run{'s' if many else ''} whose result is not 'pass' kept, "
                    f"{'their figures' if many else 'its figure'} being measured "
                    f"(line{'s' if many else ''} {spans(failed)})")
    return said


def code(test: str) -> str:
    """What one code's runs at every node count share: the test's name without the
    parameters that set its size (``Gromacs %num_nodes=16`` is ``Gromacs``), without a
    variant's hash (``/a1b2c3d4``) or fixture scope (``@…``); other parameters kept.

    >>> code("Gromacs %num_nodes=16 %input=1400k /3f0a9b1c")
    'Gromacs %input=1400k'
    """
    words = [w for w in test.split() if not w.startswith(("/", "@"))]
    kept = [w for w in words[1:]
            if not (w.startswith("%") and w[1:].partition("=")[0] in _COUNT_PARAMS)]
    return " ".join(words[:1] + kept)


def _nodes(row: dict[str, str], procs: int | None, source: str, line: int) -> int | None:
    """The run's nodes: a ``num_nodes`` field, else tasks over tasks a node, else the nodes the
    job's node list names (a Python list, or names split by commas)."""
    if (given := count(row.get("num_nodes"), "num_nodes", source, line)) is not None:
        return given
    per = count(row.get("num_tasks_per_node"), "num_tasks_per_node", source, line)
    if procs is not None and per is not None and procs % per == 0:
        return procs // per
    return hosts(row.get("job_nodelist", ""))


def hosts(listed: str) -> int | None:
    """How many nodes a node list names: a Python list (``['nid001', 'nid002']``), names split
    by commas, or Slurm's ranges (``nid[001-004,010]``); None when it names none.

    >>> hosts("['nid001', 'nid002']"), hosts("nid[001-004,010],login1"), hosts("None")
    (2, 6, None)
    >>> hosts("rack[1-2]-n[01-04]"), hosts("nid[000000001-999999999]")
    (8, None)
    """
    text = listed.strip().strip("[]") if "'" in listed or '"' in listed else listed.strip()
    items = re.findall(r"[^,\[\]\s'\"]*\[[0-9,\-]+\][^,\s'\"]*|[^,\s'\"\[\]]+", text)
    total = 0
    for item in items:
        if item.lower() in ("none", "null"):
            continue
        names = 1   # rack[1-2]-n[01-04]: every bracket multiplies
        for ranges in re.findall(r"\[([0-9,\-]+)\]", item):
            inside = 0
            for part in ranges.split(","):
                lo, _, hi = part.partition("-")
                if len(lo) > 8 or len(hi) > 8:
                    return None
                n = int(hi) - int(lo) + 1 if hi and lo else 1
                if n < 1:
                    return None
                inside += n
            names *= inside
        total += names
        if total > MOST_NODES:
            return None
    return total or None
