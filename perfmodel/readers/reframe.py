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
from functools import partial

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._perflog import Figures, count, table
from perfmodel.readers._table import lines_of, number, spans

NAME = "reframe"
DESCRIPTION = "ReFrame 3.x performance logs: application run times, HPL's Gflops"

_HEAD = (r"^(?P<date>\d{4}-\d{2}-\d{2}T[^|]{0,40})\|(?P<version>reframe [^|]{1,120})\|"
         r"(?P<test>[^|\s]{1,200}) on (?P<where>[^|\s]{1,200}) using "
         r"(?P<env>[^|]{1,200})\|jobid=(?P<job>[^|]{0,60})\|"
         r"(?P<name>[^|=]{1,120})=(?P<value>[^|]{0,60})\|")
_LINES = (re.compile(_HEAD + r"(?P<unit>[^|]{0,40})\|(?P<ref>ref=[^|]{0,200})"
                     r"(?:\|(?P<tags>[^|]{0,2000}))?$"),
          re.compile(_HEAD + r"(?P<ref>ref=[^|]{0,200})\|(?P<unit>[^|]{0,40})"
                     r"(?:\|(?P<tags>[^|]{0,2000}))?$"))
"""The unit before the reference (alaska's sites) or after it (ReFrame 3's own settings:
``perf=6.171|ref=0 (l=null, u=null)|ns/day``)."""


def _line(text: str) -> re.Match[str] | None:
    return _LINES[0].match(text) or _LINES[1].match(text)
_FIX = "give the perflog as ReFrame wrote it (one line per run and figure, fields split by |)"


def sniff(text: str) -> bool:
    for _, ln in lines_of(text[:20000]):
        if ln.strip():
            return _line(ln.strip()) is not None
    return False


def read(source: str, text: str) -> tuple[Measurements, ...]:
    figures = Figures(source)
    failed: list[int] = []
    for lineno, raw in lines_of(text):
        ln = raw.strip()
        if not ln:
            continue
        m = _line(ln)
        if m is None:
            raise InputError("is not a ReFrame perflog line (date|reframe …|TEST on "
                             "SYSTEM:PARTITION using ENV|jobid=…|NAME=VALUE|unit|ref=…|tags)",
                             file=source, line=lineno, fix=_FIX)
        value = number(m["value"].strip())
        if value is None:
            failed.append(lineno)   # ReFrame logs None for a figure it could not extract
            continue
        tags = _tags(m["tags"] or "")
        procs = count(tags.get("num_procs"), "num_procs", source, lineno)
        nodes = count(tags.get("num_nodes"), "num_nodes", source, lineno)
        test, name, unit = m["test"], m["name"].strip(), m["unit"].strip()
        attrs = {"test": test, "code": _code(test, nodes), "system": m["where"],
                 "environment": m["env"].strip(), "counts": "processes (num_procs)"}
        version = m["version"].removeprefix("reframe ").split(" ")[0]
        figures.add(lineno, test, (test, attrs["system"], attrs["environment"]), name, value,
                    unit, procs, nodes,
                    partial(table, source, NAME, test, name, unit, version=version, attrs=attrs))
    said = [f"{len(failed)} figures ReFrame could not extract (logged as None) left out "
            f"(lines {spans(failed)})"] if failed else []
    return figures.built(said)


def _tags(text: str) -> dict[str, str]:
    """The test's tags: ``key=value`` pairs (bare words, like ``single``, have no value)."""
    out = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _code(test: str, nodes: int | None) -> str:
    """The test's name without the node count a parameterised ReFrame test appends
    (``Gromacs_1400k_16`` at 16 nodes is ``Gromacs_1400k``): what one code's runs at every
    node count share."""
    suffix = f"_{nodes}" if nodes is not None else None
    return test[:-len(suffix)] if suffix and test.endswith(suffix) and test != suffix else test
