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
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.apps.collectives import ALGORITHMS, COMMUNICATION, call
from perfmodel.apps.expr import (
    FUNCTIONS,
    MAX_DEPTH,
    Node,
    bad_constant,
    calls_in,
    names_in,
    parse,
    substitute,
    tree_shape,
)
from perfmodel.apps.machine import Machine
from perfmodel.errors import InputError
from perfmodel.readers import check_header, key_line, unknown_key

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
:data:`~perfmodel.apps.collectives.COMMUNICATION`; ``kernel(flops, bytes[, accesses])``, one
process's time for a kernel on the node (:meth:`Machine.kernel`, the roofline; ``accesses``
random accesses of a cache line each); ``host(bytes)``, the
host time to send or receive one message outside the wire (0 on one process)."""
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")


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
            return {key: sympy.lambdify(args, expr, modules=[namespace, "numpy"])
                    for key, expr in self.symbolic.items()}
        except Exception as exc:  # a checked tree should always compile; say so if not
            raise InputError(f"model {self.name}: a formula cannot be compiled ({exc})",
                             file=self.path or None, fix="simplify the formula") from None
        finally:
            sys.setrecursionlimit(limit)

    def sizes(self, p: ArrayLike, n: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """``p`` and ``n`` broadcast together (``n`` defaults to the model's size)."""
        if n is None:
            n = self.size.value if self.size is not None else 1.0
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
        vals = [values[name] for name in self.param_names]
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


def loads(text: str, path: str = "<model>") -> AppModel:
    """A model from TOML text; every problem is one :class:`InputError` naming the place."""
    from perfmodel.readers import parse_toml

    return _model(parse_toml(text, path), text, path)


def load(name_or_path: str | Path) -> AppModel:
    """A built-in model by name (``physical-optics``) or a model file by path."""
    path = Path(name_or_path)
    if not path.suffix and not path.is_file() and _NAME.match(str(name_or_path)):
        builtin = BUILTIN / f"{name_or_path}.toml"
        if not builtin.is_file():
            raise unknown_model(str(name_or_path))
        path = builtin
    from perfmodel.readers import read_toml

    doc, text = read_toml(path, "an application model", "model")
    return _model(doc, text, str(path))


def builtin_names() -> list[str]:
    return sorted(p.stem for p in BUILTIN.glob("*.toml"))


def unknown_model(name: str) -> InputError:
    """The error for a name that is no built-in model: the closest names, as an unknown
    command gets them (``ppn`` -> did you mean 'ppm'?)."""
    import difflib

    names = builtin_names()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6) or \
        [n for n in names if name and (n.startswith(name) or name in n)][:3]
    if close:
        said = " or ".join(filter(None, (", ".join(map(repr, close[:-1])), repr(close[-1]))))
        return InputError(f"no built-in application model {name!r}",
                          fix=f"did you mean {said}? (perfmodel models lists them)")
    return InputError(f"no built-in application model {name!r}",
                      fix=f"built-in models: {', '.join(names)} (perfmodel models describes "
                          "them); or give a model file")


def _model(doc: Mapping[str, Any], text: str, path: str) -> AppModel:
    def fail(what: str, fix: str, key: str | None = None) -> InputError:
        return InputError(what, file=path, line=key_line(text, key) if key else None, fix=fix)

    check_header(doc, path, KIND, "application model", text)
    unknown_key(doc, {"kind", "schema_version", "name", "description", "source", "notes",
                      "params", "parts", "algorithms", "size", "flops", "define", "valid"},
                path, text)
    name = doc.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise fail(f"name is {name!r}", "give a name of letters, digits, - and _", "name")
    texts = {k: doc.get(k, "") for k in ("description", "source")}
    odd = [k for k, v in texts.items() if not isinstance(v, str)]
    if odd:
        raise fail(f"{odd[0]} must be text", 'write it in quotes', odd[0])
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise fail("notes must be a list of text", 'notes = ["..."]', "notes")
    _count_formulas(doc, fail)
    params = _params(doc.get("params", {}), fail)
    names = {p.name for p in params}
    defined = _defines(doc.get("define", {}), names, text, path, fail)
    budget = [MAX_NODES]   # operations left for the whole model once written out
    used: set[str] = set()
    spent: set[str] = set()   # definitions some formula uses
    raw_parts = doc.get("parts")
    if not isinstance(raw_parts, dict) or not raw_parts:
        raise fail("the model has no [parts.NAME] tables", "give at least one part with terms",
                   "parts")
    parts = []
    for pname, entry in raw_parts.items():
        key = f"parts.{pname}"
        if not isinstance(entry, dict):
            raise fail(f"{key} is not a table", "write [parts.NAME] with terms", key)
        extra = sorted(set(entry) - {"description", *TERMS})
        if extra:
            raise fail(f"{key} has an unknown key {extra[0]!r}",
                       f"terms are {', '.join(TERMS)}", f"{key}.{extra[0]}")
        terms = {t: entry[t] for t in TERMS if t in entry}
        if not terms:
            raise fail(f"{key} has no terms", f"give one or more of {', '.join(TERMS)}", key)
        nodes = {}
        for term, formula in terms.items():
            try:
                raw = parse(formula, names | set(VARIABLES) | set(defined), functions=CALLS,
                            where=f"{key}.{term}")
            except InputError as exc:
                raise exc.at(path, key_line(text, f"{key}.{term}")) from None
            spent |= names_in(raw) & set(defined)
            nodes[term] = _expand(raw, defined, f"{key}.{term}", fail, f"{key}.{term}", budget)
            used |= names_in(nodes[term])
        desc = entry.get("description", "")
        if not isinstance(desc, str):
            raise fail(f"{key}.description must be text", "write it in quotes",
                       f"{key}.description")
        parts.append(Part(str(pname), desc, nodes, terms))
    flops = None
    if "flops" in doc:
        try:
            # arithmetic only: the communication functions are not offered here
            raw = parse(doc["flops"], names | set(VARIABLES) | set(defined), where="flops")
        except InputError as exc:
            raise exc.at(path, key_line(text, "flops")) from None
        spent |= names_in(raw) & set(defined)
        flops = _expand(raw, defined, "flops", fail, "flops", budget)
        if calls_in(flops) & set(CALLS):
            raise fail("flops uses a definition that calls the machine",
                       "count flops with arithmetic only", "flops")
        used |= names_in(flops)
    size = _size(doc.get("size"), fail)
    if "n" in used and size is None:
        raise fail("formulas use the problem size n, but there is no [size] table",
                   'add [size] with value, unit and description', None)
    idle = sorted(names - used)
    if idle:
        raise fail(f"parameter {idle[0]!r} is used by no term", "use it or remove it",
                   f"params.{idle[0]}")
    for dname in reversed(list(defined)):   # a definition used by a used one is used
        if dname in spent:
            spent |= defined[dname][2]
    unspent = [d for d in defined if d not in spent]
    if unspent:
        raise fail(f"definition {unspent[0]!r} is used by no formula", "use it or remove it",
                   f"define.{unspent[0]}")
    algorithms = doc.get("algorithms", {})
    if not isinstance(algorithms, dict):
        raise fail("algorithms is not a table", 'write [algorithms] with allreduce = "ring"',
                   "algorithms")
    for op, algo in algorithms.items():
        if op not in ALGORITHMS or not isinstance(algo, str) or algo not in ALGORITHMS[op]:
            known = ", ".join(f"{k}: {'/'.join(v)}" for k, v in ALGORITHMS.items())
            raise fail(f"algorithms.{op} = {algo!r} is not known", known, f"algorithms.{op}")
    valid = _valid(doc.get("valid"), size, fail, path, text)
    return AppModel(name, texts["description"], params, tuple(parts), path, texts["source"],
                    tuple(notes), dict(algorithms), size, flops,
                    str(doc["flops"]) if flops is not None else "",
                    tuple((k, v[1]) for k, v in defined.items()), valid)


MAX_NODES = 20_000
"""The most operations a model's formulas may have together once its definitions are written
out: the model's one budget, spent by every formula (with or without ``[define]``) before any
SymPy work."""
MAX_WRITTEN_DEPTH = 2 * MAX_DEPTH
"""The deepest a formula may nest once its definitions are written out (SymPy and Python's
compiler recurse on each level; about 190 is where they stop)."""
MAX_FORMULAS = 500
"""The most formulas (terms, definitions and flops together) a model may hold: each one is
compiled once, about 1 ms each."""


def _count_formulas(doc: Mapping[str, Any], fail: Callable[..., InputError]) -> None:
    """Refuse a model of more than :data:`MAX_FORMULAS` formulas before any is parsed."""
    parts, define = doc.get("parts"), doc.get("define")
    count = (len(define) if isinstance(define, dict) else 0) + ("flops" in doc) + \
        (sum(len(e) for e in parts.values() if isinstance(e, dict))
         if isinstance(parts, dict) else 0)
    if count > MAX_FORMULAS:
        at = None   # the part where the count passes the cap, else the first one
        if isinstance(parts, dict) and parts:
            seen = count - sum(len(e) for e in parts.values() if isinstance(e, dict))
            at = f"parts.{next(iter(parts))}"
            for pname, entry in parts.items():
                seen += len(entry) if isinstance(entry, dict) else 0
                if seen > MAX_FORMULAS:
                    at = f"parts.{pname}"
                    break
        raise fail(f"the model has {count} formulas, more than the {MAX_FORMULAS} a model may "
                   "hold", "merge parts or terms; split a large model into several files", at)


def _defines(raw: object, params: set[str], text: str, path: str,
             fail: Callable[..., InputError]) -> dict[str, tuple[Node, str, set[str]]]:
    """The ``[define]`` table: names for formulas the terms share (``npcols = "2 ^
    ceil(log2(p) / 2)"``), each in terms of p, n, the parameters, the machine's functions and
    the names above it.  Each is written out in place where it is used (a macro: nothing is
    run), so a definition costs nothing at evaluation.  Each entry: the written-out tree, the
    text, and the definitions it names."""
    if not isinstance(raw, dict):
        raise fail("define is not a table", 'write [define] with name = "formula"', "define")
    out: dict[str, tuple[Node, str, set[str]]] = {}
    known = params | set(VARIABLES)
    for name, formula in raw.items():
        if not _IDENT.match(name) or name in known or name in FUNCTIONS or name in CALLS:
            raise fail(f"define.{name} cannot be a name here", "use letters, digits and _, "
                       "not p, n, a parameter's, another definition's or a function's name",
                       f"define.{name}")
        try:
            node = parse(formula, known, functions=CALLS, where=f"define.{name}")
        except InputError as exc:
            raise exc.at(path, key_line(text, f"define.{name}")) from None
        out[name] = (_expand(node, out, f"define.{name}", fail, f"define.{name}"), str(formula),
                     names_in(node) & set(out))
        known = known | {name}
    return out


def _expand(node: Node, defined: Mapping[str, tuple[Node, str, set[str]]], where: str,
            fail: Callable[..., InputError], key: str | None,
            budget: list[int] | None = None) -> Node:
    """``node`` with its definitions written out, refused when that grows past
    :data:`MAX_NODES` operations (counted over the whole model through ``budget``) or
    :data:`MAX_WRITTEN_DEPTH` levels, or builds a constant that is not a finite number of
    sensible size (``3 ^ a`` with ``a = "10 ^ 15"``)."""
    full = substitute(node, {k: v[0] for k, v in defined.items()}) if defined else node
    size, depth = tree_shape(full)
    if budget is not None:
        budget[0] -= size
    if size > MAX_NODES or (budget is not None and budget[0] < 0):
        said = " once its definitions are written out" if defined else ""
        raise fail(f"{where}: the model has more than {MAX_NODES} operations{said} (the "
                   "budget of one model's formulas together)",
                   "simplify the definitions" if defined else "simplify the formulas, or "
                   "split the model into several files", key)
    if not defined:
        return node
    if depth > MAX_WRITTEN_DEPTH:
        raise fail(f"{where} nests deeper than {MAX_WRITTEN_DEPTH} once its definitions are "
                   "written out", "chain fewer definitions", key)
    bad = bad_constant(full)
    if bad is not None:
        raise fail(f"{where} has a constant that is {bad} once its definitions are written "
                   "out", "use smaller constants", key)
    return full


VALID_KEYS = ("processes", "powers_of_two", "reason")


def _valid(raw: object, size: Size | None, fail: Callable[..., InputError], path: str,
           text: str) -> Validity | None:
    """The ``[valid]`` table: ``processes = [lowest, highest]`` (numbers, ``inf``, or formulas
    of n), ``powers_of_two = true``, and the ``reason``, which is required."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise fail("valid is not a table", 'write [valid] with processes = [1, 128] and '
                   'reason = "why"', "valid")
    extra = sorted(set(raw) - set(VALID_KEYS))
    if extra:
        raise fail(f"valid has an unknown key {extra[0]!r}",
                   f"known keys: {', '.join(VALID_KEYS)}", f"valid.{extra[0]}")
    reason = raw.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise fail("valid needs a reason, as text", 'say why the model holds only there: '
                   'reason = "the code\'s 1-D layout needs p <= 128"', "valid.reason"
                   if "reason" in raw else "valid")
    twos = raw.get("powers_of_two", False)
    if not isinstance(twos, bool):
        raise fail(f"valid.powers_of_two is {twos!r}", "write true or false",
                   "valid.powers_of_two")
    span = raw.get("processes", [1, math.inf])
    if not isinstance(span, list) or len(span) != 2:
        raise fail(f"valid.processes is {span!r}", "give [lowest, highest]: numbers, inf, or "
                   'formulas of the problem size n ("n")', "valid.processes")
    bounds: list[float | Node] = []
    for end, v in zip(("lowest", "highest"), span, strict=True):
        where = f"valid.processes ({end})"
        if isinstance(v, str):
            try:
                node = parse(v, {"n"}, where=where)
            except InputError as exc:
                raise exc.at(path, key_line(text, "valid.processes")) from None
            if size is None and "n" in names_in(node):
                raise fail(f"{where} uses the problem size n, but there is no [size] table",
                           "add [size], or give a number", "valid.processes")
            bounds.append(node)
        elif isinstance(v, bool) or not isinstance(v, int | float) or math.isnan(v) or v < 1 \
                or (end == "lowest" and math.isinf(v)):
            raise fail(f"{where} is {v!r}", "process counts are numbers of at least 1 (inf: "
                       "no highest)", "valid.processes")
        else:
            bounds.append(float(v))
    lo, hi = bounds
    if isinstance(lo, float) and isinstance(hi, float) and lo > hi:
        raise fail(f"valid.processes is {span!r}: the lowest is above the highest",
                   "give [lowest, highest]", "valid.processes")
    if "processes" not in raw and not twos:
        raise fail("valid states no range", "give processes = [lowest, highest] or "
                   "powers_of_two = true", "valid")
    written = tuple("inf" if isinstance(v, float) and math.isinf(v) else
                    f"{v:g}" if isinstance(v, int | float) else str(v) for v in span)
    return Validity(lo, hi, twos, reason.strip(), (written[0], written[1]),
                    size.value if size is not None else math.nan, size.unit if size else "")


def _size(raw: object, fail: Callable[..., InputError]) -> Size | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - {"value", "unit", "description"}:
        raise fail("size must be a table of value, unit and description",
                   '[size] value = 16, unit = "tiles", description = "..."', "size")
    value, unit, desc = raw.get("value"), raw.get("unit", ""), raw.get("description", "")
    if isinstance(value, bool) or not isinstance(value, int | float) or not \
            (math.isfinite(value) and value > 0):
        raise fail(f"size.value is {value!r}", "give a positive number", "size.value")
    if not isinstance(unit, str) or not isinstance(desc, str) or not desc:
        odd = "size.unit" if not isinstance(unit, str) else "size.description"
        raise fail("size needs a description (and a unit), both text",
                   'description = "tiles of 30 x 30 zones"', odd)
    return Size(float(value), unit, desc)


def _params(raw: object, fail: Callable[..., InputError]) -> tuple[AppParam, ...]:
    if not isinstance(raw, dict):
        raise fail("params is not a table", "write [params.NAME] tables", "params")
    out = []
    for name, entry in raw.items():
        key = f"params.{name}"
        if not _IDENT.match(name) or name in VARIABLES:
            raise fail(f"parameter name {name!r} is not allowed",
                       "use letters, digits and _ (not p)", key)
        if name in FUNCTIONS or name in CALLS:
            raise fail(f"parameter name {name!r} is a function's name", "choose another", key)
        if not isinstance(entry, dict):
            raise fail(f"{key} is not a table", "give unit and description", key)
        extra = sorted(set(entry) - {"unit", "description", "value", "source", "lower"})
        if extra:
            raise fail(f"{key} has an unknown key {extra[0]!r}",
                       "known keys: unit, description, value, source, lower",
                       f"{key}.{extra[0]}")
        unit, desc = entry.get("unit", ""), entry.get("description", "")
        if not isinstance(unit, str) or not isinstance(desc, str) or not desc:
            odd = "unit" if not isinstance(unit, str) else "description"
            raise fail(f"{key} needs a description (and a unit), both text",
                       'description = "what it is", unit = "s"', f"{key}.{odd}")
        value = entry.get("value")
        lower = entry.get("lower", 0.0)
        for what, v in (("value", value), ("lower", lower)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                                  or not math.isfinite(v)):
                raise fail(f"{key}.{what} is {v!r}", "give a finite number", f"{key}.{what}")
        if value is not None and value < lower:
            raise fail(f"{key}.value is below its lower bound {lower}", "check the value",
                       f"{key}.value")
        source = entry.get("source", "")
        if not isinstance(source, str):
            raise fail(f"{key}.source must be text", "write it in quotes", f"{key}.source")
        out.append(AppParam(name, unit, desc, None if value is None else float(value), source,
                            float(lower)))
    return tuple(out)


def free_params(model: AppModel, fixed: Sequence[str] = ()) -> list[str]:
    """Parameters a fit must find: neither valued in the model nor fixed by the caller."""
    return [p.name for p in model.params if p.value is None and p.name not in fixed]
