"""Model files: the TOML of an application model (:mod:`perfmodel.apps.model`) read into an
:class:`~perfmodel.apps.model.AppModel`, and the built-in models by name.

A model file is data: its formulas are parsed by :mod:`perfmodel.apps.expr` (never ``eval``),
within one budget of operations and formulas checked before any SymPy work, and every error
names the key's line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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
from perfmodel.apps.model import (
    BUILTIN,
    CALLS,
    KIND,
    TERMS,
    VARIABLES,
    AppModel,
    AppParam,
    Part,
    Size,
    Validity,
)
from perfmodel.errors import InputError
from perfmodel.files.toml import check_header, key_line, unknown_key
from perfmodel.machine.collectives import ALGORITHMS

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")


def loads(text: str, path: str = "<model>") -> AppModel:
    """A model from TOML text; every problem is one :class:`InputError` naming the place."""
    from perfmodel.files.toml import parse_toml

    return _model(parse_toml(text, path), text, path)


def load(name_or_path: str | Path) -> AppModel:
    """A built-in model by name (``physical-optics``) or a model file by path."""
    path = Path(name_or_path)
    if not path.suffix and not path.is_file() and _NAME.match(str(name_or_path)):
        builtin = BUILTIN / f"{name_or_path}.toml"
        if not builtin.is_file():
            raise unknown_model(str(name_or_path))
        path = builtin
    from perfmodel.files.toml import read_toml

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
