"""ReFrame 3.x performance logs (``perflogs/SYSTEM/PARTITION/TEST.log``), as its default
``filelog`` handler writes them: one line per run and figure, fields split by ``|``::

    2020-09-08T17:53:41+01:00|reframe 3.0-dev6 (rev: 3f0c45d4)|Gromacs_1400k_16 on
    alaska:ib-gcc9-openmpi4-ucx using gromacs|jobid=5219|wall_t=160.998|s|ref=0 (l=None,
    u=None)|1400k-atoms,num_procs=512,num_nodes=16

(one line in the file): the date, ReFrame's version, the test with its system, partition and
programming environment, the job, ``NAME=VALUE``, the unit, the reference, and the test's
tags, among them ``num_procs`` and ``num_nodes`` where the test set them.

A site's ReFrame tree holds these beside the jobs' own outputs.  Two kinds of figure are
read, one table per test and figure (its runs the rows, repeated runs kept):

* a time (unit ``s``): a whole run of an application, pattern ``application``, the time as
  logged (which of a test's times is the run's wall time, ``wall_t`` or ``runtime_real``,
  its name says; ``core_t``-like CPU times are read as they are and named so);
* HPL's ``Gflops`` (a test whose name holds "hpl"): the benchmark HPL, pattern
  ``application``, its ``flop_rate`` the logged rate; its time, the seconds the whole run takes
  per 10⁹ operations (1 / Gflops), as no solve time is logged.

Every other figure (ns/day, MB/s, a latency in µs: a benchmark's summary, whose full output
is where calibrate reads it) is left out and said; a file of nothing else is refused.
"""

from __future__ import annotations

import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, built, lines_of, number, spans

NAME = "reframe"
DESCRIPTION = "ReFrame 3.x performance logs: application run times, HPL's Gflops"

_LINE = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2}T[^|]{0,40})\|(?P<version>reframe [^|]{1,120})\|"
                   r"(?P<test>[^|\s]{1,200}) on (?P<where>[^|\s]{1,200}) using "
                   r"(?P<env>[^|]{1,200})\|jobid=(?P<job>[^|]{0,60})\|"
                   r"(?P<name>[^|=]{1,120})=(?P<value>[^|]{0,60})\|(?P<unit>[^|]{0,40})\|"
                   r"(?P<ref>ref=[^|]{0,200})(?:\|(?P<tags>[^|]{0,2000}))?$")
_TIME_UNITS = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3, "min": 60.0, "h": 3600.0}
_FIX = "give the perflog as ReFrame wrote it (one line per run and figure, fields split by |)"


def sniff(text: str) -> bool:
    for _, ln in lines_of(text[:20000]):
        if ln.strip():
            return bool(_LINE.match(ln.strip()))
    return False


def read(source: str, text: str) -> tuple[Measurements, ...]:
    tables: dict[tuple[str, str], Table] = {}
    other: dict[str, list[int]] = {}
    failed: list[int] = []
    for lineno, raw in lines_of(text):
        ln = raw.strip()
        if not ln:
            continue
        m = _LINE.match(ln)
        if m is None:
            raise InputError("is not a ReFrame perflog line (date|reframe …|TEST on "
                             "SYSTEM:PARTITION using ENV|jobid=…|NAME=VALUE|unit|ref=…|tags)",
                             file=source, line=lineno, fix=_FIX)
        value = number(m["value"].strip())
        if value is None:
            failed.append(lineno)   # ReFrame logs None for a figure it could not extract
            continue
        tags = _tags(m["tags"] or "")
        procs = _count(tags.get("num_procs"), "num_procs", source, lineno)
        nodes = _count(tags.get("num_nodes"), "num_nodes", source, lineno)
        test, name, unit = m["test"], m["name"].strip(), m["unit"].strip()
        hpl = "hpl" in test.lower() and name.lower() == "gflops" and \
            unit.lower() in ("gflops", "gflop/s")
        scale = _TIME_UNITS.get(unit)
        if not hpl and scale is None:
            other.setdefault(f"{name} ({unit or 'no unit'})", []).append(lineno)
            continue
        if value <= 0:
            raise InputError(f"{test}: {name} = {value:g} {unit} is not a measurement",
                             file=source, line=lineno, fix="remove the line, or rerun the test")
        key = (test, name)
        if key not in tables:
            where = m["where"]
            tables[key] = Table(
                source, NAME, "HPL" if hpl else f"{test} {name}",
                "application", "time",
                "seconds the whole run takes per 10⁹ operations (1 / the Gflops ReFrame "
                "logged)" if hpl else f"{name} as ReFrame logged it ({unit})",
                m["version"].removeprefix("reframe ").split(" ")[0],
                attrs={"test": test, "code": _code(test, nodes), "system": where,
                       "environment": m["env"].strip(), "figure": name,
                       "counts": "processes (num_procs)"})
        counts = {"processes": float(procs)} if procs is not None else {}
        extra = {"nodes": float(nodes)} if nodes is not None else {}
        if hpl:
            tables[key].add(lineno, float("nan"), 1.0 / value, None, counts,
                            flop_rate=value * 1e9, **extra)
        else:
            assert scale is not None
            tables[key].add(lineno, float("nan"), value * scale, None, counts, **extra)
    said = []
    if other:
        said.append(f"{sum(map(len, other.values()))} figures that are neither a time nor HPL's "
                    f"Gflops left out ({', '.join(sorted(other))}): rates and summaries (an "
                    "OSU or IMB figure is read from the benchmark's own output)")
    if failed:
        said.append(f"{len(failed)} figures ReFrame could not extract (logged as None) left "
                    f"out (lines {spans(failed)})")
    out = built(tables.values(), said)
    if not out:
        kinds = ", ".join(sorted(other)) or "no figure"
        raise InputError(f"a ReFrame perflog of {kinds}: no run time and no HPL Gflops to read",
                         file=source, line=min((v[0] for v in other.values()), default=None),
                         fix="give the benchmark's own output (the job's rfm_*_job.out), or the "
                             "perflog of an application or of HPL")
    return out


def _tags(text: str) -> dict[str, str]:
    """The test's tags: ``key=value`` pairs (bare words, like ``single``, have no value)."""
    out = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _count(raw: str | None, name: str, source: str, line: int) -> int | None:
    if raw is None:
        return None
    value = number(raw)
    if value is None or value < 1 or value != int(value) or value > 1e8:
        raise InputError(f"{name} is {raw!r}, not a count", file=source, line=line,
                         fix=f"give {name} as a whole number, or remove the tag")
    return int(value)


def _code(test: str, nodes: int | None) -> str:
    """The test's name without the node count a parameterised ReFrame test appends
    (``Gromacs_1400k_16`` at 16 nodes is ``Gromacs_1400k``): what one code's runs at every
    node count share."""
    suffix = f"_{nodes}" if nodes is not None else None
    return test[:-len(suffix)] if suffix and test.endswith(suffix) and test != suffix else test
