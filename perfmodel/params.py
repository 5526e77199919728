"""The value types of every parameter perfmodel reports, and the parameters laws declare.

- :class:`Estimate`: a value in SI units with its standard error, its :data:`Status` (fitted,
  fixed, selected, bound, assumed) and its source; :class:`ParamSet` looks them up by name.
- :class:`Param`: a parameter of a law that profiles and specs carry: SI unit, how a typed
  value parses, physical range (one checker, one message shape), and a default with its
  reason.  The point-to-point laws (:mod:`perfmodel.network.models`), the fabric
  (:mod:`perfmodel.network.fabric`) and the node (:mod:`perfmodel.node`) describe their
  parameters with it.
- :func:`assignments`: the ``NAME=VALUE`` items of a repeatable option.

This is a base module: it imports nothing of perfmodel above :mod:`perfmodel.units`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from perfmodel.errors import InputError
from perfmodel.units import parse_quantity

ValueKind = Literal["size", "time", "rate", "flops", "number"]
_NOUNS = {"time": "a time", "rate": "a bandwidth", "size": "a size", "flops": "a flop rate"}
Status = Literal["fitted", "derived", "fixed", "selected", "bound", "assumed"]
"""How a parameter's value is known: fitted with a standard error, derived from a measurement
by a stated rule (its source says which), fixed by the user,
selected from a discrete search, held on a physical bound, or assumed."""

DECISIVE_SHARE = 0.05
"""How far a predicted time must move (either way) for an assumption to be named beside it
(:mod:`perfmodel.whatif.decisive`, and the unknowns of :mod:`perfmodel.apps.transfer`)."""


@dataclass(frozen=True)
class Estimate:
    """A parameter value in SI units with its standard error (NaN when not estimable)."""

    name: str
    value: float
    stderr: float
    unit: str
    status: Status = "fitted"
    source: str = ""

    @property
    def rel_stderr(self) -> float:
        return abs(self.stderr / self.value) if self.value else math.inf

    def to_dict(self) -> dict[str, Any]:
        """The estimate as plain data (SI units; NaN where not estimable)."""
        return {"name": self.name, "value": self.value, "stderr": self.stderr,
                "unit": self.unit, "status": self.status, "source": self.source}


class ParamSet:
    """Look-ups over a ``params`` tuple of :class:`Estimate`, shared by the fitted models."""

    params: tuple[Estimate, ...]

    @property
    def values(self) -> dict[str, float]:
        return {p.name: p.value for p in self.params}

    @property
    def fitted_names(self) -> tuple[str, ...]:
        """Parameters with uncertainty: fitted and not held on a bound."""
        return tuple(p.name for p in self.params if p.status == "fitted")

    def estimate(self, name: str) -> Estimate:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class Param:
    """A parameter of a law, the one description every law's parameters share (point to
    point, fabric, node): SI unit, how typed values parse, physical range, default.

    kind : how a value typed by a person is parsed (``time`` also for ``s/B``: "1ns" per byte)
    lower, upper : the physical range, in SI units
    default : the value taken when neither data nor a spec says (its status is then
        ``assumed``, with ``why`` as the source), or None when it must be given or fitted
    unlimited : whether ``inf`` (no limit) is a value; None: when ``upper`` is inf
    whole : for a whole number, what it counts ("processes"); empty otherwise
    example : a value as a user would type it, to show in a fix
    span : values an assumption of it could as well have been, nearest the usual one first
        (tried by :mod:`perfmodel.whatif.decisive`); ``span_why`` says why they bound it
    """

    name: str
    unit: str
    kind: ValueKind
    description: str
    lower: float = 0.0
    upper: float = math.inf
    default: float | None = None
    why: str = ""
    unlimited: bool | None = None
    whole: str = ""
    example: str = "0.7"
    span: tuple[float, ...] = ()
    span_why: str = ""

    def check(self, value: float) -> str | None:
        """Why ``value`` cannot be this parameter, or None when it can (one message shape for
        every law's parameters).

        >>> Param("beta", "B/s", "rate", "bandwidth", 1.0, unlimited=False).check(0.0)
        'beta is a bandwidth and must be at least 1 B/s'
        >>> Param("alpha", "s", "time", "latency").check(-1e-6)
        'alpha is a time and cannot be negative'
        """
        unlimited = self.upper == math.inf if self.unlimited is None else self.unlimited
        if math.isnan(value) or (math.isinf(value) and not (value > 0 and unlimited)):
            return f"{self.name} must be finite" if self.default != math.inf else \
                f"{self.name} must be a number (inf for none)"
        if not self.lower <= value <= self.upper:
            return self._out_of_range()
        if self.whole and not value.is_integer():
            return f"{self.name} is a whole number of {self.whole}"
        return None

    def _out_of_range(self) -> str:
        noun = _NOUNS.get(self.kind)
        hi = "" if self.upper == math.inf else f" and at most {self.upper:g}"
        if noun is None:   # a plain number: say what it is
            return f"{self.name} ({self.description}) must be at least {self.lower:g}{hi}"
        if self.lower == 0 and not hi:
            return f"{self.name} is {noun} and cannot be negative"
        unit = "byte" if self.unit == "B" and self.lower == 1 else self.unit
        return f"{self.name} is {noun} and must be at least {self.lower:g} {unit}{hi}"

    def parse(self, text: str) -> float:
        """A typed value ("1.25MB/s", "1KiB", "4.5Mflop/s", "0.7"), checked."""
        t = text.strip()
        if self.kind == "number" or t.lower() == "inf":
            try:
                value = float(t)
            except ValueError:
                raise InputError(f"{self.name} = {text!r} is not a number",
                                 fix=f"give a plain number, e.g. {self.example}") from None
        elif self.kind == "time" and self.unit == "s/B":
            value = parse_quantity(t.removesuffix("/B"), "time")
        else:
            value = parse_quantity(t, self.kind)
        why = self.check(value)
        if why:
            raise InputError(why, fix="give a physical value")
        return value


def parse_named(params: Mapping[str, Param], owner: str, name: str, text: str) -> float:
    """``params[name]``'s typed value, or one line when ``owner`` has no such parameter."""
    p = params.get(name)
    if p is None:
        raise InputError(f"{owner} has no parameter {name!r}",
                         fix=f"parameters: {', '.join(params)}")
    return p.parse(text)


def specified(params: Mapping[str, Param], names: Sequence[str],
              fixed: Mapping[str, float], sources: Mapping[str, str],
              assumed: Sequence[str], missing: Callable[[str], InputError],
              given: Status = "fixed") -> tuple[Estimate, ...]:
    """Estimates for ``names`` from a spec's values (``fixed``, or ``assumed`` where it says
    so; ``given`` is the status of the rest: ``derived`` for values worked out from
    measurements); the others take their defaults, marked ``assumed`` with the reason; a
    parameter with no default that the spec leaves out raises ``missing(name)``."""
    out = []
    for name in names:
        p = params[name]
        if name in fixed:
            status = "assumed" if name in assumed else given
            out.append(Estimate(name, fixed[name], math.nan, p.unit, cast(Status, status),
                                sources.get(name, "")))
        elif p.default is not None:
            out.append(Estimate(name, p.default, math.nan, p.unit, "assumed", p.why))
        else:
            raise missing(name)
    return tuple(out)


def assignments(items: Sequence[str] | None, option: str, example: str,
                form: str = "NAME=VALUE", thing: str = "parameter",
                empty: bool = False) -> dict[str, tuple[str, str]]:
    """A repeatable ``NAME=VALUE`` option's values (``--set``, ``--where``): each name once,
    mapped to its value text and the item as given (for messages); one line for an item
    without ``=``, an empty name (or value, unless ``empty``) or a name given twice.

    >>> assignments(["beta = 1.25MB/s", "o=1us"], "--set", "beta=1.25MB/s")
    {'beta': ('1.25MB/s', 'beta = 1.25MB/s'), 'o': ('1us', 'o=1us')}
    """
    out: dict[str, tuple[str, str]] = {}
    for item in items or []:
        name, sep, value = (x.strip() for x in item.partition("="))
        if not sep or not name or not (value or empty):
            raise InputError(f"{option} {item!r} is not {form}", fix=f"e.g. {option} {example}")
        if name in out:
            raise InputError(f"{option} gives {name} twice", fix=f"give each {thing} once")
        out[name] = (value, item)
    return out
