"""What both ReFrame perflog readers (3.x, :mod:`.reframe`; 4.x, :mod:`.reframe4`) do with a
figure once a line is split: a time becomes a run of an application, HPL's Gflops a flop rate,
anything else is left out and counted; the tables, then the notes and the refusal of a perflog
with nothing to read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from perfmodel.errors import InputError
from perfmodel.measurements import Measurements
from perfmodel.readers._table import Table, built, number


def count(raw: str | None, name: str, source: str, line: int) -> int | None:
    """A count a perflog gives (``num_procs``, ``num_tasks`` …): None where it gives none
    (missing, ``null``, ``None``), an error where it is not a whole number from 1."""
    if raw is None or raw.strip().lower() in ("", "null", "none"):
        return None
    value = number(raw)
    if value is None or value < 1 or value != int(value) or value > 1e8:
        raise InputError(f"{name} is {raw!r}, not a count", file=source, line=line,
                         fix=f"give {name} as a whole number, or leave it out")
    return int(value)


TIME_UNITS = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3, "min": 60.0, "h": 3600.0}


def table(source: str, reader: str, title: str, figure: str, unit: str, hpl: bool,
          version: str, attrs: dict[str, str]) -> Table:
    """The table of one code's (or test's) figure: ``title`` names it, HPL's is ``HPL``."""
    return Table(source, reader, "HPL" if hpl else f"{title} {figure}", "application", "time",
                 "seconds the whole run takes per 10⁹ operations (1 / the Gflops ReFrame "
                 "logged)" if hpl else f"{figure} as ReFrame logged it ({unit})", version,
                 attrs={**attrs, "figure": figure})


@dataclass
class Figures:
    """The figures of one perflog, as its lines are read."""

    source: str
    tables: dict[tuple[str, ...], Table] = field(default_factory=dict)
    other: dict[str, list[int]] = field(default_factory=dict)
    counted: dict[tuple[str, ...], tuple[bool, bool]] = field(default_factory=dict)

    def add(self, line: int, test: str, group: tuple[str, ...], name: str, value: float,
            unit: str, procs: int | None, nodes: int | None,
            make: Callable[[bool], Table]) -> None:
        """One figure of one run: ``group`` the table it joins (with ``name``: the code, its
        system and its environment), ``make`` the table when it is the first (given whether
        it is HPL's).  A run that says its processes (or nodes) where the table's first did
        not, or the other way round, is refused: the table's counts would have holes."""
        hpl = "hpl" in test.lower() and name.lower() == "gflops" and \
            unit.lower() in ("gflops", "gflop/s")
        scale = TIME_UNITS.get(unit)
        if not hpl and scale is None:
            self.other.setdefault(f"{name} ({unit or 'no unit'})", []).append(line)
            return
        if value <= 0:
            raise InputError(f"{test}: {name} = {value:g} {unit} is not a measurement",
                             file=self.source, line=line, fix="remove the line, or rerun the "
                                                              "test")
        key = (*group, name)
        if key not in self.tables:
            self.tables[key] = make(hpl)
        says = (procs is not None, nodes is not None)
        first = self.counted.setdefault(key, says)
        if first != says:
            i = 0 if first[0] != says[0] else 1
            raise InputError(f"{test}: this run {'says' if says[i] else 'does not say'} its "
                             f"{('processes', 'nodes')[i]}, where the code's first run "
                             f"{'did not' if says[i] else 'did'}", file=self.source, line=line,
                             fix="give every run its counts (num_tasks or num_procs, "
                                 "num_nodes), or keep the runs without them apart")
        counts = {"processes": float(procs)} if procs is not None else {}
        extra = {"nodes": float(nodes)} if nodes is not None else {}
        if hpl:
            self.tables[key].add(line, float("nan"), 1.0 / value, None, counts,
                                 flop_rate=value * 1e9, **extra)
        else:
            assert scale is not None
            self.tables[key].add(line, float("nan"), value * scale, None, counts, **extra)

    def built(self, said: list[str]) -> tuple[Measurements, ...]:
        """The tables, with ``said`` and what was left out in their notes; a perflog of
        nothing to read is refused."""
        if self.other:
            said = [f"{sum(map(len, self.other.values()))} figures that are neither a time nor "
                    f"HPL's Gflops left out ({', '.join(sorted(self.other))}): rates and "
                    "summaries (an OSU or IMB figure is read from the benchmark's own output)",
                    *said]
        out = built(self.tables.values(), said)
        if not out:
            kinds = ", ".join(sorted(self.other)) or "no figure"
            raise InputError(f"a ReFrame perflog of {kinds}: no run time and no HPL Gflops to "
                             "read", file=self.source,
                             line=min((v[0] for v in self.other.values()), default=None),
                             fix="give the benchmark's own output (the job's rfm_*_job.out), "
                                 "or the perflog of an application or of HPL")
        return out
