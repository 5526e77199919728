"""Application models: a science code's run time as named terms over p processes.

A model file (TOML, plain data) gives the code's parameters and, for each part of a run, up
to four terms in the expression language of :mod:`perfmodel.apps.expr`::

    kind = "perfmodel application model"
    schema_version = 1
    name = "physical-optics"
    description = "..."

    [params.work_II]
    unit = "s"
    description = "main-reflector currents on one processor"

    [parts.II]
    description = "sub-reflector currents (redundant) and main-reflector currents (parallel)"
    serial = "redundant_II"
    compute = "work_II / p"

The terms are ``serial`` (done once, whatever p), ``compute`` (useful work shared by the
processes), ``communication`` and ``synchronisation``; a part's time is their sum, and a run's
the sum of its parts.  ``p`` is the number of processes.  Each formula becomes a SymPy
expression and is compiled once to a NumPy function of ``p`` and the parameters, so a whole
grid of process counts is one call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.apps.expr import (
    Node,
    calls_in,
    names_in,
)
from perfmodel.errors import InputError
from perfmodel.machine import Machine
from perfmodel.machine.collectives import COMMUNICATION, call

FloatArray = NDArray[np.float64]
KIND = "perfmodel application model"
_MACHINE = "_machine"    # the machine argument of compiled formulas: no parameter can be named so
_PREFIX = "_pm_"         # compiled communication functions, clear of NumPy's and Python's names
TERMS = ("serial", "compute", "communication", "synchronisation")
NEGLIGIBLE = 1e-15
"""Seconds: a term more negative than this is an invalid prediction, not rounding."""
VARIABLES = ("p", "n")
BUILTIN = Path(__file__).resolve().parent / "models"
CALLS: dict[str, tuple[int, int]] = {**COMMUNICATION, "kernel": (2, 3), "host": (1, 1)}
"""What formulas may call on the machine, with their arities: the communication of
:data:`~perfmodel.machine.collectives.COMMUNICATION`; ``kernel(flops, bytes[, accesses])``, one
process's time for a kernel on the node (:meth:`Machine.kernel`, the roofline; ``accesses``
random accesses of a cache line each); ``host(bytes)``, the
host time to send or receive one message outside the wire (0 on one process)."""


@dataclass(frozen=True)
class AppParam:
    """A constant of a model: fitted to timings unless ``value`` is given."""

    name: str
    unit: str
    description: str
    value: float | None = None
    source: str = ""
    lower: float = 0.0


@dataclass(frozen=True)
class Size:
    """The problem size ``n`` a model's formulas may use: its default, unit and meaning."""

    value: float
    unit: str
    description: str


@dataclass(frozen=True)
class Validity:
    """Where a model holds, from the code it describes: process counts p from ``lowest`` to
    ``highest`` (numbers, or formulas of the problem size n such as ``"n"``: one tile or more
    per process), and only powers of two when ``powers_of_two``; ``reason`` says why (NPB FT
    class A's 1-D layout holds to 128 processes, the 128 planes of its grid).

    >>> Validity(1.0, 128.0, True, "1-D layout").outside([2, 3, 128, 256]).tolist()
    [False, True, False, True]
    """

    lowest: float | Node = 1.0
    highest: float | Node = math.inf
    powers_of_two: bool = False
    reason: str = ""
    text: tuple[str, str] = ("1", "inf")
    """The bounds as the file writes them."""
    size: float = math.nan
    """The model's default problem size, for rows whose size is not known (NaN)."""
    size_unit: str = ""

    def bounds(self, n: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """The lowest and highest p at problem sizes ``n`` (default: the model's)."""
        nn = np.atleast_1d(np.asarray(self.size if n is None else n, dtype=np.float64))
        nn = np.where(np.isnan(nn), self.size, nn)
        return self._bound(self.lowest, nn), self._bound(self.highest, nn)

    def _bound(self, bound: float | Node, n: FloatArray) -> FloatArray:
        if isinstance(bound, float):
            return np.full(n.shape, bound)
        import sympy

        from perfmodel.apps.expr import to_sympy

        sym = sympy.Symbol("n", positive=True)
        fn = sympy.lambdify([sym], to_sympy(bound, {"n": sym}, {}), modules="numpy")
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(fn(n), dtype=np.float64), n.shape).copy()

    def outside(self, p: ArrayLike, n: ArrayLike | None = None) -> NDArray[np.bool_]:
        """Which process counts ``p`` (at sizes ``n``) lie outside where the model holds."""
        pp = np.atleast_1d(np.asarray(p, dtype=np.float64))
        nn = None if n is None else np.broadcast_to(np.asarray(n, dtype=np.float64), pp.shape)
        lo, hi = self.bounds(nn if nn is not None else np.full(pp.shape, self.size))
        out = (pp < lo * (1 - 1e-12)) | (pp > hi * (1 + 1e-12))
        if self.powers_of_two:
            with np.errstate(all="ignore"):
                exp = np.log2(pp)
            out |= ~np.isclose(exp, np.round(exp), rtol=0.0, atol=1e-9)
        return np.asarray(out)

    def describe(self, n: float | None = None) -> str:
        """``p from 2 to 128, powers of two``; ``p up to n`` (with ``n``, a problem size:
        ``p up to n = 16``); ``p a power of two``."""
        lo, hi = self.text
        if n is not None:   # a formula's value at n
            at = self.bounds(np.array([n]))
            lo, hi = (f"{t} = {v[0]:g}" if not isinstance(b, float) else t
                      for t, v, b in zip(self.text, at, (self.lowest, self.highest),
                                         strict=True))
        span = ""
        if self.text[1] != "inf":
            span = f"p from {lo} to {hi}" if lo != "1" else f"p up to {hi}"
        elif lo != "1":
            span = f"p from {lo}"
        if span and n is None and not all(isinstance(b, float)
                                          for b in (self.lowest, self.highest)):
            span += f", n the problem size{' in ' + self.size_unit if self.size_unit else ''}"
        if self.powers_of_two:
            return f"{span}, powers of two" if span else "p a power of two"
        return span or "any p"


@dataclass(frozen=True)
class Part:
    name: str
    description: str
    terms: Mapping[str, Node]
    text: Mapping[str, str]


@dataclass(frozen=True)
class AppModel:
    name: str
    description: str
    params: tuple[AppParam, ...]
    parts: tuple[Part, ...]
    path: str = ""
    source: str = ""
    notes: tuple[str, ...] = ()
    algorithms: Mapping[str, str] = field(default_factory=dict)
    size: Size | None = None
    flops: Node | None = None
    flops_text: str = ""
    defines: tuple[tuple[str, str], ...] = ()
    valid: Validity | None = None
    """Where the model holds (``[valid]``); None: the file states no range."""

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @cached_property
    def machine_calls(self) -> frozenset[str]:
        """The machine's functions (:data:`CALLS`) the formulas call."""
        return frozenset().union(*(calls_in(node) & set(CALLS) for part in self.parts
                                   for node in part.terms.values()))

    @cached_property
    def work_terms(self) -> frozenset[tuple[str, str]]:
        """The (part, term) keys of compute and serial terms that do not cost their work on
        the node (no ``kernel(...)``): work in fitted or given seconds, which another node type
        speeds up by its speed alone."""
        return frozenset((part.name, t) for part in self.parts for t, node in part.terms.items()
                         if t in ("compute", "serial") and "kernel" not in calls_in(node))

    @cached_property
    def uses_size(self) -> bool:
        """Whether a term's time depends on the problem size ``n``."""
        return any("n" in names_in(node) for part in self.parts for node in part.terms.values())

    @property
    def uses_machine(self) -> bool:
        """Whether a formula costs communication or computation on a machine."""
        return bool(self.machine_calls)

    @property
    def uses_node(self) -> bool:
        """Whether a formula costs computation on the machine's node (``kernel(...)``)."""
        return "kernel" in self.machine_calls

    @cached_property
    def symbolic(self) -> dict[tuple[str, str], Any]:
        """(part, term) -> SymPy expression; machine calls are functions of (M, …, p)."""
        import sympy

        from perfmodel.apps.expr import to_sympy

        symbols = {n: sympy.Symbol(n, positive=True) for n in (*VARIABLES, *self.param_names)}
        machine, p = sympy.Symbol(_MACHINE), symbols["p"]
        functions = {name: (lambda *a, name=name: sympy.Function(_PREFIX + name)(machine, *a, p))
                     for name in CALLS}
        out = {(part.name, term): to_sympy(node, symbols, functions)
               for part in self.parts for term, node in part.terms.items()}
        if self.flops is not None:
            out[("", "flops")] = to_sympy(self.flops, symbols, functions)
        return out

    @cached_property
    def compiled(self) -> dict[tuple[str, str], Callable[..., Any]]:
        """(part, term) -> NumPy function of (machine, p, *params), compiled once."""
        import sympy

        names = (_MACHINE, *VARIABLES, *self.param_names)
        args = [sympy.Symbol(n, positive=n != _MACHINE) for n in names]
        algorithms = dict(self.algorithms)
        namespace = {_PREFIX + name: (lambda m, *a, name=name: _call(name, m, a[:-1], a[-1],
                                                                    algorithms))
                     for name in CALLS}
        import sys

        limit = sys.getrecursionlimit()   # SymPy's printer takes ~7 frames per level of a
        sys.setrecursionlimit(max(limit, 4000))   # tree; MAX_WRITTEN_DEPTH keeps it bounded
        try:
            return {key: sympy.lambdify(args, _float_powers(expr), modules=[namespace, "numpy"])
                    for key, expr in self.symbolic.items()}
        except Exception as exc:  # a checked tree should always compile; say so if not
            raise InputError(f"model {self.name}: a formula cannot be compiled ({exc})",
                             file=self.path or None, fix="simplify the formula") from None
        finally:
            sys.setrecursionlimit(limit)

    def problem_size(self, given: float | None = None, missing: float = 1.0) -> float:
        """The problem size a prediction takes: ``given``, else the model's own, else
        ``missing`` (a model without a problem size: 1 to evaluate, NaN to report)."""
        if given is not None:
            return given
        return self.size.value if self.size is not None else missing

    def sizes(self, p: ArrayLike, n: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """``p`` and ``n`` broadcast together (``n`` defaults to the model's size)."""
        if n is None:
            n = self.problem_size()
        pp, nn = np.broadcast_arrays(np.asarray(p, dtype=np.float64),
                                     np.asarray(n, dtype=np.float64))
        return pp, nn

    def evaluate(self, p: ArrayLike, values: Mapping[str, float],
                 machine: Machine | None = None, n: ArrayLike | None = None
                 ) -> dict[tuple[str, str], FloatArray]:
        """Every (part, term) over the process counts ``p`` (and problem sizes ``n``), in
        seconds; with a ``flops`` formula, also ``("", "flops")``, the run's flop count.

        Each has the shape of ``p`` and ``n`` broadcast together, or, where the machine's
        overrides are arrays of other shapes that broadcast with them (a sweep's box: node
        counts along one dimension, channels along another), the shape all broadcast to; a
        term that does not reach the machine keeps the shape of ``p``."""
        if machine is None and self.uses_machine:
            raise InputError(f"model {self.name} costs its communication on a machine",
                             fix="give --machine PROFILE")
        pp, nn = self.sizes(p, n)
        vals = [np.float64(values[name]) for name in self.param_names]   # 0^-1: inf, not an error
        out = {}
        with np.errstate(all="ignore"):
            for key, fn in self.compiled.items():
                try:
                    got = np.asarray(fn(machine, pp, nn, *vals))
                except (ArithmeticError, ValueError, TypeError) as exc:
                    raise InputError(f"model {self.name}: {key[0]}.{key[1]} cannot be evaluated "
                                     f"({exc})", file=self.path or None,
                                     fix="check the formula and the constants") from None
                real = np.real(got) if np.iscomplexobj(got) else got
                if np.iscomplexobj(got):   # a root or power of a negative value: not a time
                    real = np.where(np.imag(got) == 0, real, np.nan)
                real = np.asarray(real, dtype=np.float64)
                # a negative time (or flop count) is no prediction: NaN, never a number shown;
                # rounding's -1e-15 s is 0
                real = np.where(real < -NEGLIGIBLE, np.nan, np.maximum(real, 0.0))
                shape = np.broadcast_shapes(pp.shape, real.shape)
                # np.where made a new array: copied only where it must grow to the shape
                out[key] = real if real.shape == shape else np.broadcast_to(real, shape).copy()
        k = machine.work_speed if machine is not None else None
        if k is not None:   # another node: the work timed in seconds moves by its speed
            for key in self.work_terms & out.keys():
                out[key] = out[key] / k
        return out

    def flop_count(self, p: ArrayLike, n: ArrayLike | None = None,
                   given: Mapping[str, float] | None = None) -> FloatArray:
        """The run's flop count at ``p`` (and ``n``), from constants the model values or
        ``given`` holds: what turns a measured Mflop/s into a time before any fit."""
        if self.flops is None:
            raise InputError(f"model {self.name} counts no flops, so Mflop/s cannot become "
                             "times", file=self.path or None,
                             fix="give times (time_s), or add a flops formula to the model")
        values = {q.name: q.value for q in self.params if q.value is not None}
        values.update(given or {})
        unknown = sorted(names_in(self.flops) - set(values) - set(VARIABLES))
        if unknown:
            raise InputError(f"model {self.name}'s flop count needs {unknown[0]}, which is "
                             "fitted, so Mflop/s cannot become times", file=self.path or None,
                             fix=f"give it with --set {unknown[0]}=VALUE, or give times")
        full = {q.name: values.get(q.name, 1.0) for q in self.params}
        pp, nn = self.sizes(p, n)
        fn = self.compiled[("", "flops")]
        with np.errstate(all="ignore"):
            out = np.broadcast_to(np.asarray(fn(None, pp, nn, *full.values()),
                                             dtype=np.float64), pp.shape).copy()
        return out

    def part_times(self, p: ArrayLike, values: Mapping[str, float],
                   machine: Machine | None = None, n: ArrayLike | None = None
                   ) -> dict[str, FloatArray]:
        """Each part's time (the sum of its terms) over ``p`` (and ``n``)."""
        terms = self.evaluate(p, values, machine, n)
        pp, _ = self.sizes(p, n)
        return {part.name: sum((terms[(part.name, t)] for t in part.terms), np.zeros(pp.shape))
                for part in self.parts}


def _float_powers(expr: Any) -> Any:
    """``expr`` with every power of a whole number taken in floating point (``300^64`` is
    3.4e158, not a 159-digit Python integer that NumPy cannot hold); only for compiling, so
    formulas in reports stay as written."""
    import sympy

    return expr.replace(lambda e: e.is_Pow and e.base.is_Integer,
                        lambda e: sympy.Pow(sympy.Float(e.base), e.exp, evaluate=False))


def _call(name: str, machine: Machine, args: tuple[ArrayLike, ...], p: ArrayLike,
          algorithms: dict[str, str]) -> FloatArray:
    """Cost one of :data:`CALLS` on ``machine``; a :meth:`Machine.remembering` machine reads
    a call it has costed before with the same arguments instead of costing it again."""
    kept = machine.kept
    if kept is None:
        return _cost(name, machine, args, p, algorithms)
    key = (*args, p)
    out = kept.find(machine, name, key)
    if out is None:
        out = _cost(name, machine, args, p, algorithms)
        kept.keep(machine, name, key, out)
    return out


def _cost(name: str, machine: Machine, args: tuple[ArrayLike, ...], p: ArrayLike,
          algorithms: dict[str, str]) -> FloatArray:
    if name == "kernel":
        return machine.kernel(args[0], args[1], p, *args[2:])
    if name == "host":
        live = np.asarray(p) > 1
        return np.asarray(np.where(live, machine.host(args[0], live), 0.0), dtype=np.float64)
    return call(name, machine, args, p, algorithms)


def free_params(model: AppModel, fixed: Sequence[str] = ()) -> list[str]:
    """Parameters a fit must find: neither valued in the model nor fixed by the caller."""
    return [p.name for p in model.params if p.value is None and p.name not in fixed]
