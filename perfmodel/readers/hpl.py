"""HPL (High-Performance Linpack, netlib 2.x and the vendors' builds on it) output.

    HPLinpack 2.3  --  High-Performance Linpack benchmark  --   December 2, 2018
    ...
    T/V                N    NB     P     Q               Time                 Gflops
    --------------------------------------------------------------------------------
    WR11R2C2       15000    64     8     8              21.32             1.0555e+02
    ...
    ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   3.31875682e-03 ...... PASSED

Every result line is one run: a dense solve of order ``N`` on a ``P × Q`` grid of processes,
its wall time, and its rate.  The runs of one file form one table of pattern ``application``
(no message size: ``size`` is NaN), one row per run, counted in processes (P·Q); its extra
columns keep N, NB, P, Q, the floating-point operations HPL counts for the solve
(2/3·N³ + 3/2·N², as HPL_pdtest does) and the rate printed.  The rate is checked against
operations / time; a run whose residual check FAILED is left out and said, and a run under a
second (HPL prints two decimals; ``0.00`` for the shortest) takes its time from its operations
and printed rate, said.  Parameter lines
with several values (NB, P and Q sweeps), vendors' progress lines, ``INFO:`` lines and colour
escapes are passed over.
"""

from __future__ import annotations

import math
import re

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import AGREE, Table, integer, lines_of, number

NAME = "hpl"
DESCRIPTION = "HPL (High-Performance Linpack) runs: time and Gflops against P × Q processes"

_BANNER = re.compile(r"HPLinpack\s+(?P<ver>[0-9][0-9.]{0,15})\b")
_HEADER = re.compile(r"^T/V\s+N\s+NB\s+P\s+Q\s+Time\s+Gflops")
_RESULT = re.compile(r"^(?P<tv>W[RC][0-9A-Z]{4,12})\s+(?P<rest>[0-9].*)$")
_CHECK = re.compile(r"^\|\|Ax-b\|\|.*=\s*(?P<value>\S+)\s+\.+\s+(?P<verdict>PASSED|FAILED)")
_ESCAPE = re.compile(r"\x1b\[[0-9;]{0,20}m")
_HPCC = re.compile(r"HPC Challenge Benchmark version")
_ACCELERATED = re.compile(r"(HPL-NVIDIA[^\n]{0,60}|NVIDIA accelerated HPL|rocHPL|HPL-AMD)")


ROUNDING = 0.0051
"""Seconds a time printed to two decimals may be off by (half of 0.01, and a little)."""


def flops(n: float) -> float:
    """Floating-point operations HPL counts for a solve of order ``n``: 2/3·n³ + 3/2·n².

    >>> flops(1000) / 1e6
    668.1666666666666
    """
    return 2.0 / 3.0 * n ** 3 + 1.5 * n ** 2


def sniff(text: str) -> bool:
    """The banner and the ``T/V`` legend HPL prints before its runs, anywhere in the file (a
    job's prologue or a vendor's progress lines may come first); not an HPC Challenge output,
    which :mod:`perfmodel.readers.hpcc` reads (its HPL runs through :func:`read`)."""
    return (_BANNER.search(text) is not None and re.search(r"^T/V\s", text, re.M) is not None
            and _HPCC.search(text) is None)   # HPCC's: perfmodel.readers.hpcc


def read(source: str, text: str) -> tuple[Measurements, ...]:
    banner = _BANNER.search(text)
    version = banner["ver"].rstrip(".") if banner else ""
    table = Table(source, NAME, "HPL", "application", "time",
                  "wall time of one solve, seconds as printed (HPL's Time)", version,
                  attrs={"counts": "processes (P × Q)"})
    if gpu := _ACCELERATED.search(text):
        table.attrs["accelerated"] = gpu[0].strip()
    pending: tuple[int, float, dict[str, float], float] | None = None
    header = False
    first: int | None = None
    failed: list[int] = []
    rounded: list[int] = []
    unchecked: list[int] = []
    for lineno, raw in lines_of(text):
        ln = _ESCAPE.sub("", raw).strip()
        if _HEADER.match(ln):
            header = True
            first = first or lineno
            continue
        if header and (m := _RESULT.match(ln)):
            tokens = m["rest"].split()
            if len(tokens) < 6:
                raise InputError(f"HPL result row has {len(tokens)} of its 6 values (a truncated "
                                 "file?)", file=source, line=lineno,
                                 fix="rerun HPL, or delete the broken row")
            n, nb, p, q = (integer(t) for t in tokens[:4])
            time, rate = number(tokens[4]), number(tokens[5])
            if None in (n, nb, p, q) or time is None or rate is None:
                table.skip(lineno)
                continue
            assert n is not None and nb is not None and p is not None and q is not None
            if pending is not None:   # the run before had no residual check after it
                pending[2]["verified"] = math.nan
                unchecked.append(pending[0])
                _add(table, pending)
            work = flops(n)
            extra = {"n": float(n), "nb": float(nb), "p": float(p), "q": float(q),
                     "flops": work, "flop_rate": rate * 1e9, "verified": 1.0}
            table.attrs.setdefault("variant", m["tv"])
            if 0 <= time < 1 and rate > 0:   # two decimals: the rate's five digits are finer
                derived = work / (rate * 1e9)
                if abs(derived - time) <= ROUNDING:
                    time = derived
                    rounded.append(lineno)
                elif time == 0:
                    raise InputError(f"HPL: the row's time is 0.00 s, but its N and Gflops give "
                                     f"{derived:.4g} s", file=source, line=lineno,
                                     fix="the row is damaged (one of its numbers was changed); "
                                         "correct it from the original output or delete it")
            if time > 0 and rate > 0 and not 1 / AGREE <= work / time / (rate * 1e9) <= AGREE:
                raise InputError(f"HPL: the row's N and time give {work / time / 1e9:.4g} "
                                 f"Gflop/s, but its Gflops says {rate:.4g}", file=source,
                                 line=lineno, fix="the row is damaged (one of its numbers was "
                                 "changed); correct it from the original output or delete it")
            pending = (lineno, time, extra, float(p * q))
        elif (c := _CHECK.match(ln)) and pending is not None:
            if c["verdict"] == "FAILED":
                table.drop(pending[0], "its residual check FAILED")
                failed.append(pending[0])
                pending = None
                continue
            _add(table, pending)
            pending = None
    if pending is not None:
        pending[2]["verified"] = math.nan   # no residual line: HPL was cut, or ran with it off
        unchecked.append(pending[0])
        _add(table, pending)
    if unchecked:
        table.notes.append(f"{_runs(len(unchecked))} at line{'s' if len(unchecked) > 1 else ''} "
                           f"{', '.join(map(str, unchecked[:5]))}"
                           f"{', …' if len(unchecked) > 5 else ''} "
                           f"{'have' if len(unchecked) > 1 else 'has'} no residual check after "
                           "it (cut, or the check was off): not verified")
    if rounded:
        table.notes.append(f"{len(rounded)} run{'s' if len(rounded) > 1 else ''} printed a "
                           f"time under 1 s, to two decimals (first at line {rounded[0]}): "
                           "each one's time is its operations over its printed Gflops")
    if failed and not len(table):
        raise InputError(f"every HPL run's residual check FAILED ({len(failed)} runs): its "
                         "results are not a correct solve", file=source, line=failed[0],
                         fix="fix the build or the input (HPL.dat) and rerun HPL")
    return (table.required("HPL output with no result rows (a truncated file?)",
                           "rerun HPL and keep its whole output", first),)


def _runs(n: int) -> str:
    return f"{n} run{'s' if n > 1 else ''}" if n > 1 else "the run"


def _add(table: Table, run: tuple[int, float, dict[str, float], float]) -> None:
    line, time, extra, processes = run
    table.add(line, math.nan, time, None, {"processes": processes}, **extra)
