"""One exception family.  The CLI translates it once into a single line and exit code 2.

Every error carries what went wrong, where (file and line when known) and how to fix it::

    error: data/x.csv:7: size is negative (-8) — sizes are message lengths in bytes, >= 0
"""

from __future__ import annotations

from pathlib import Path
from typing import Self


class PerfModelError(Exception):
    """Base of every error perfmodel raises on purpose."""

    def __init__(
        self,
        what: str,
        *,
        fix: str = "",
        file: str | Path | None = None,
        line: int | None = None,
    ) -> None:
        self.what = what
        self.fix = fix
        self.file = None if file is None else str(file)
        self.line = line
        super().__init__(self.one_line())

    def at(self, file: str | Path, line: int | None = None) -> Self:
        """The same error placed in ``file`` (at ``line``): for the caller that knows where
        the text that failed came from."""
        return type(self)(self.what, fix=self.fix, file=file, line=line)

    def one_line(self) -> str:
        """``<file>:<line>: <what> — <fix>``, leaving out the parts that are unknown."""
        where = ""
        if self.file is not None:
            where = self.file if self.line is None else f"{self.file}:{self.line}"
            where += ": "
        tail = f" — {_cut(self.fix)}" if self.fix else ""
        return f"{_cut(where)}{_cut(self.what)}{tail}"


LONGEST = 400
"""The most characters of one part of an error line (the place, what, the fix): a 1 MB key or
value quoted from a file is cut in its middle, never printed whole."""


def _cut(text: str, longest: int = LONGEST) -> str:
    """``text``, its middle cut out when longer than ``longest`` characters.

    >>> _cut("a" * 10 + "b" * 10, 12)
    'aaaaaaaa…(8 characters)…bbbb'
    """
    if len(text) <= longest:
        return text
    head, tail = (longest * 2) // 3, longest // 3
    return f"{text[:head]}…({len(text) - head - tail:,} characters)…{text[-tail:]}"


class InputError(PerfModelError):
    """A measurement, data or profile file (or a command-line value) cannot be used."""


class UnitError(InputError):
    """A quantity with a missing, unknown or ambiguous unit."""


class FitError(PerfModelError):
    """The data cannot determine the model that was asked for."""


class OutputError(PerfModelError):
    """An output cannot be written (exists without --force, unwritable place)."""


class SetupError(PerfModelError):
    """The machine lacks what a command needs (mpi4py, an ``mpiexec``), or the MPI job is not
    what it was started as."""
