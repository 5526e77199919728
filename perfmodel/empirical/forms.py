"""Candidate forms of T(p): sums of terms that each mean something, with coefficients ≥ 0.

Strong scaling (the problem is fixed, p processes share it):

- ``serial``  1         work no process can share (Amdahl);
- ``work``    1/p       the shared work, in every strong form;
- ``halo2``   p^(-1/2)  a 2-D subdomain's boundary exchange (surface of an (n/p)^(1/2) side);
- ``halo3``   p^(-2/3)  a 3-D subdomain's boundary exchange;
- ``log``     log2 p    a tree-shaped collective (reduce, broadcast, barrier);
- ``linear``  p − 1     cost per extra process: all-to-all, or contention on a shared medium.

Every strong form has ``work`` and at least one other term.  There is no form of pure 1/p: the
serial coefficient is fitted ≥ 0 and comes out 0 when the runs show no serial part, so
Amdahl's form covers perfect scaling without a form that assumes it.

The Universal Scalability Law, T = T₁/p·(1 + σ(p − 1) + κp(p − 1)), is the form
``work + contention + linear`` with ``contention`` = 1 − 1/p (σ·T₁) and ``linear`` (κ·T₁).

Weak scaling (each process keeps its share): ``serial`` (the per-process work, constant),
``log``, ``sqrt`` (p^(1/2): a global exchange that grows with a 2-D machine's diameter) and
``linear``.

Every term is ≥ 0 for p ≥ 1 and every coefficient is fitted ≥ 0, so no form predicts a
negative time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Family = Literal["strong", "weak"]


def serial(p: FloatArray) -> FloatArray:
    return np.ones_like(p)


def work(p: FloatArray) -> FloatArray:
    return 1.0 / p


def halo2(p: FloatArray) -> FloatArray:
    return np.asarray(p ** -0.5, dtype=np.float64)


def halo3(p: FloatArray) -> FloatArray:
    return np.asarray(p ** (-2.0 / 3.0), dtype=np.float64)


def log(p: FloatArray) -> FloatArray:
    return np.log2(p)


def linear(p: FloatArray) -> FloatArray:
    return p - 1.0


def contention(p: FloatArray) -> FloatArray:
    return 1.0 - 1.0 / p


def sqrt(p: FloatArray) -> FloatArray:
    return np.sqrt(p) - 1.0


TERMS: dict[str, tuple[Callable[[FloatArray], FloatArray], str]] = {
    "serial": (serial, "1"),
    "work": (work, "1/p"),
    "halo2": (halo2, "p^(-1/2)"),
    "halo3": (halo3, "p^(-2/3)"),
    "log": (log, "log2(p)"),
    "linear": (linear, "(p - 1)"),
    "contention": (contention, "(1 - 1/p)"),
    "sqrt": (sqrt, "(sqrt(p) - 1)"),
}
"""Term name -> (function of p, how the formula prints it)."""


@dataclass(frozen=True)
class Form:
    name: str
    family: Family
    terms: tuple[str, ...]

    def basis(self, p: FloatArray) -> FloatArray:
        """The design matrix, one column per term, shape (len(p), len(terms))."""
        return np.stack([TERMS[t][0](p) for t in self.terms], axis=-1)

    def formula(self, coefficients: FloatArray | None = None, unit: str = "s") -> str:
        """``a·1/p + b·log2(p)``, with the coefficients when given."""
        parts = []
        for i, t in enumerate(self.terms):
            c = "" if coefficients is None else f"{coefficients[i]:.4g} {unit}"
            shown = TERMS[t][1]
            if shown == "1":
                parts.append(c or t)
            else:
                parts.append(f"{c or t} * {shown}")
        return " + ".join(parts)


def candidates(family: Family, max_terms: int = 3) -> tuple[Form, ...]:
    """Every form of ``family`` with at most ``max_terms`` terms."""
    if family == "strong":
        extra: tuple[str, ...] = ("serial", "halo2", "halo3", "log", "linear")
        forms = [Form("+".join(("work", *c)), "strong", ("work", *c))
                 for k in range(1, max_terms) for c in combinations(extra, k)]
        if max_terms >= 3:
            forms.append(Form("usl", "strong", ("work", "contention", "linear")))
        return tuple(forms)
    extra = ("log", "sqrt", "linear")
    return tuple(Form("+".join(("serial", *c)), "weak", ("serial", *c))
                 for k in range(0, max_terms) for c in combinations(extra, k))
