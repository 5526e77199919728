"""Parameters of the laws that profiles and specs carry: SI unit, how a typed value parses,
physical range, and a default with its reason.  The fabric (:mod:`perfmodel.network.fabric`)
and the node (:mod:`perfmodel.node`) describe their parameters with :class:`TypedParam`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from perfmodel.errors import InputError
from perfmodel.network.fit import Estimate, Status
from perfmodel.units import parse_quantity

ValueKind = Literal["size", "time", "rate", "flops", "number"]


@dataclass(frozen=True)
class TypedParam:
    """A parameter of a law: SI unit, how typed values parse, physical range, default.

    default : the value taken when neither data nor a spec says (its status is then
        ``assumed``, with ``why`` as the source), or None when it must be given or fitted
    unlimited : whether ``inf`` (no limit) is a value; None: when ``upper`` is inf
    whole : for a whole number, what it counts ("processes"); empty otherwise
    example : a value as a user would type it, to show in a fix
    """

    name: str
    unit: str
    kind: ValueKind
    description: str
    lower: float
    upper: float = math.inf
    default: float | None = None
    why: str = ""
    unlimited: bool | None = None
    whole: str = ""
    example: str = "0.7"

    def check(self, value: float) -> str | None:
        """Why ``value`` cannot be this parameter, or None when it can."""
        unlimited = self.upper == math.inf if self.unlimited is None else self.unlimited
        if math.isnan(value) or (math.isinf(value) and not (value > 0 and unlimited)):
            return f"{self.name} must be a finite number" if self.default != math.inf else \
                f"{self.name} must be a number (inf for none)"
        if not self.lower <= value <= self.upper:
            hi = "" if self.upper == math.inf else f" and at most {self.upper:g}"
            return f"{self.name} ({self.description}) must be at least {self.lower:g}{hi}"
        if self.whole and not value.is_integer():
            return f"{self.name} is a whole number of {self.whole}"
        return None

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


def parse_named(params: Mapping[str, TypedParam], owner: str, name: str, text: str) -> float:
    """``params[name]``'s typed value, or one line when ``owner`` has no such parameter."""
    p = params.get(name)
    if p is None:
        raise InputError(f"{owner} has no parameter {name!r}",
                         fix=f"parameters: {', '.join(params)}")
    return p.parse(text)


def specified(params: Mapping[str, TypedParam], names: Sequence[str],
              fixed: Mapping[str, float], sources: Mapping[str, str],
              assumed: Sequence[str], missing: Callable[[str], InputError]
              ) -> tuple[Estimate, ...]:
    """Estimates for ``names`` from a spec's values (``fixed``, or ``assumed`` where it says
    so); the rest take their defaults, marked ``assumed`` with the reason; a parameter with
    no default that the spec leaves out raises ``missing(name)``."""
    out = []
    for name in names:
        p = params[name]
        if name in fixed:
            status = "assumed" if name in assumed else "fixed"
            out.append(Estimate(name, fixed[name], math.nan, p.unit, cast(Status, status),
                                sources.get(name, "")))
        elif p.default is not None:
            out.append(Estimate(name, p.default, math.nan, p.unit, "assumed", p.why))
        else:
            raise missing(name)
    return tuple(out)
