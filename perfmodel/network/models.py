"""The registry of point-to-point models: one :class:`Law` subclass per law, with its
parameters and units, formulas, first guess, trials, held values and derived quantities.

Each class wraps a plain function of :mod:`perfmodel.network.laws` (the single truth); adding a
law is its function there and its class here: fitting (:mod:`perfmodel.network.fit`),
calibration, profiles and specs ask the law, never test its name.  (Some text still names laws:
the labels of derived quantities, ``calibrate --model``'s help, which a test keeps equal to
:data:`MODELS`, and a few fixes that suggest one.)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from perfmodel.errors import FitError, InputError
from perfmodel.network import laws
from perfmodel.network.linear import bandwidth_from_gap, nnls_rel, packet_design
from perfmodel.network.segments import MIN_SIZES_PER_SEGMENT, between, searcher
from perfmodel.params import Estimate, Param, Status
from perfmodel.units import MIN_RATE

if TYPE_CHECKING:
    from perfmodel.network.fit import NetworkModel

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Trial:
    """One start of a law's fit: first values, the values held (given, or chosen by a
    search), each held value's status, the searched choices it charges in AIC and BIC, and
    notes for the result."""

    init: dict[str, float]
    held: dict[str, float] = field(default_factory=dict)
    statuses: dict[str, Status] = field(default_factory=dict)
    choices: int = 0
    notes: tuple[str, ...] = ()


class Law:
    """A point-to-point law as a model: its parameters, formula, how a fit starts and what it
    derives.  Each law is one subclass (lmfit's ``Model`` subclasses are the pattern): what
    depends on the law is declared here, beside it, and fitting (:mod:`perfmodel.network.fit`),
    calibration, profiles and specs ask the law instead of testing its name.

    ``law`` is the plain function of :mod:`perfmodel.network.laws`, the single truth; its
    signature after ``nbytes`` is :attr:`params`.  ``specifiable``: a network spec may give
    the law's values (a law whose shape comes from the data, as piecewise, cannot).
    ``auto``: ``calibrate --model auto`` compares it.  ``best_by``: of several trials, the fit
    kept (least ``rss``, or ``bic`` where the trials differ in their number of parameters).
    ``skip_failed``: a trial that cannot be fitted is left out while another can.  ``by_size``:
    the fit sees the rows sorted by size (segments are runs of sizes).
    """

    name: str = ""
    description: str = ""
    formula: str = ""
    latex: str = ""
    params: tuple[Param, ...] = ()
    specifiable = True
    auto = True
    best_by = "rss"
    by_size = False
    skip_failed = False

    law: Callable[..., FloatArray]

    def param_list(self, values: Mapping[str, float] | None = None) -> tuple[Param, ...]:
        """The parameters (a law with a variable number, for the values given)."""
        return self.params

    def evaluate(self, nbytes: ArrayLike, values: Mapping[str, float]) -> FloatArray:
        """One-way time in seconds at ``nbytes`` with parameter ``values``."""
        return self.law(nbytes, **{p.name: values[p.name] for p in self.params})

    def needs(self, fixed: Mapping[str, float]) -> int:
        """Distinct sizes a fit needs: one per free parameter."""
        held = set(fixed) | set(self.held_by_default())
        return max(1, len([p for p in self.params if p.name not in held]))

    def held_by_default(self) -> dict[str, tuple[float, str]]:
        """Parameters held unless given: name -> (value, source)."""
        return {}

    def prepare(self, fixed: dict[str, float], sources: dict[str, str]) -> tuple[str, ...]:
        """Check ``fixed`` and hold what the law holds by default (``fixed`` and ``sources``
        are the fit's own copies); returns notes for every fit of the law."""
        names = [p.name for p in self.params]
        for name in fixed:
            if name not in names:
                raise InputError(f"model {self.name} has no parameter {name!r}",
                                 fix=f"its parameters are {', '.join(names)}")
        for name, (value, source) in self.held_by_default().items():
            if name not in fixed:
                fixed[name] = value
                sources.setdefault(name, source)
        return ()

    def guess(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float]
              ) -> dict[str, float]:
        """First values of every parameter from a linear fit."""
        raise NotImplementedError

    def trials(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float],
               segments: int | None = None) -> list[Trial]:
        """The starts of a fit (one, unless the law searches a discrete choice)."""
        init = self.guess(m, y, fixed)
        return [Trial({p.name: init[p.name] for p in self.params})]

    def none_fitted(self, m: FloatArray) -> FitError:
        """The error when no trial could be fitted (with :attr:`skip_failed`)."""
        return FitError(f"no {self.name} fit", fix="measure more sizes")

    def derived(self, model: NetworkModel) -> tuple[Estimate, ...]:
        """Quantities people quote besides the parameters, with standard errors."""
        return ()

    def check(self, values: Mapping[str, float]) -> tuple[str, str] | None:
        """What is wrong with a set of values beyond each one's range (what, fix), or None."""
        return None


def _line(m: FloatArray, y: FloatArray) -> tuple[float, float]:
    """Intercept and slope (non-negative) of time against size, on relative residuals."""
    x, _ = nnls_rel(np.column_stack([np.ones_like(m), m]), y)
    return float(x[0]), float(x[1])


def combine(model: NetworkModel, grad: Mapping[str, float]) -> float:
    """Standard error of a function of the fitted parameters from its gradient (delta
    method); NaN where no fitted parameter moves it or the variance is not positive."""
    names = model.fitted_names
    g = np.array([grad.get(n, 0.0) for n in names])
    if not names or not np.any(g):
        return math.nan
    var = float(g @ model.covariance @ g)
    return math.sqrt(var) if var >= 0 else math.nan


_ALPHA = Param("alpha", "s", "time", "start-up latency", unlimited=False)
_BETA = Param("beta", "B/s", "rate", "asymptotic bandwidth r∞", MIN_RATE, unlimited=False)
_BREAK = Param("breakpoint", "B", "size", "size where a segment starts", 1.0, unlimited=False)


class Hockney(Law):
    name = "hockney"
    description = "latency + size / bandwidth"
    formula = "T = alpha + m/beta"
    latex = r"T(m) = \alpha + \frac{m}{\beta}"
    params = (_ALPHA, _BETA)
    law = staticmethod(laws.hockney)

    def guess(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float]
              ) -> dict[str, float]:
        alpha, gap = _line(m, y)
        return {"alpha": alpha, "beta": bandwidth_from_gap(gap, m, y)}

    def derived(self, model: NetworkModel) -> tuple[Estimate, ...]:
        """r∞ = β and n½ = αβ, the size that reaches half of it."""
        a, b = model.values["alpha"], model.values["beta"]
        return (Estimate("r_inf", b, model.estimate("beta").stderr, "B/s", "fitted"),
                Estimate("n_half", a * b, combine(model, {"alpha": b, "beta": a}), "B",
                         "fitted"))


class LogGP(Law):
    name = "loggp"
    description = "LogGP; a ping-pong identifies only L + 2o (o is held at 0 unless given)"
    formula = "T = L + 2o + (m-1)G"
    latex = r"T(m) = L + 2o + (m-1)\,G"
    params = (Param("L", "s", "time", "network latency", unlimited=False),
              Param("o", "s", "time", "per-message overhead at each end", unlimited=False),
              Param("G", "s/B", "time", "gap per byte (1/bandwidth)", unlimited=False))
    law = staticmethod(laws.loggp)
    auto = False   # on ping-pong data it is Hockney's curve (L + 2o − G = α, G = 1/β)

    def held_by_default(self) -> dict[str, tuple[float, str]]:
        return {"o": (0.0, "held at 0: a ping-pong identifies only L + 2o")}

    def prepare(self, fixed: dict[str, float], sources: dict[str, str]) -> tuple[str, ...]:
        super().prepare(fixed, sources)
        return ("a ping-pong identifies only L + 2o; L and o apart need an overhead or "
                "message-rate measurement (give o with --set o=...)",)

    def guess(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float]
              ) -> dict[str, float]:
        alpha, gap = _line(m, y)
        o = fixed.get("o", 0.0)
        return {"L": max(alpha + gap - 2 * o, 0.0), "o": o, "G": gap}

    def derived(self, model: NetworkModel) -> tuple[Estimate, ...]:
        """L + 2o (what a ping-pong measures) and 1/G, the bandwidth."""
        L, o, G = model.values["L"], model.values["o"], model.values["G"]
        out = [Estimate("L+2o", L + 2 * o, combine(model, {"L": 1.0, "o": 2.0}), "s")]
        if G > 0:
            out.append(Estimate("1/G", 1 / G, combine(model, {"G": -1 / G**2}), "B/s"))
        return tuple(out)


PACKET_MTUS: tuple[float, ...] = (256, 512, 576, 1024, 1460, 1472, 1500, 2048, 4096, 8192, 9000,
                                  16384, 32768, 65536)
"""Payload sizes tried by the packet model: Ethernet, TCP segment, jumbo and page sizes."""


class Packet(Law):
    name = "packet"
    description = "latency + per-packet cost + size / bandwidth"
    formula = "T = alpha + ceil(m/mtu)*t_pkt + m/beta"
    latex = (r"T(m) = \alpha + \left\lceil \frac{m}{\mathrm{MTU}} \right\rceil t_{pkt}"
             r" + \frac{m}{\beta}")
    params = (_ALPHA, Param("t_pkt", "s", "time", "cost per packet", unlimited=False), _BETA,
              Param("mtu", "B", "size", "payload per packet", 1.0, unlimited=False))
    law = staticmethod(laws.packet)

    def guess(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float]
              ) -> dict[str, float]:
        mtu = fixed["mtu"]
        x, _ = nnls_rel(packet_design(m, mtu), y)
        return {"alpha": x[0], "t_pkt": x[1], "beta": bandwidth_from_gap(x[2], m, y), "mtu": mtu}

    def trials(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float],
               segments: int | None = None) -> list[Trial]:
        """One trial per packet size: the one given, else the three of :data:`PACKET_MTUS`
        below the largest message whose linear fits are best, each charged as a choice."""
        mtus = [fixed["mtu"]] if "mtu" in fixed else [u for u in PACKET_MTUS if u < m.max()]
        if not mtus:
            raise FitError("no message in the data is larger than one packet",
                           fix="measure sizes above the MTU, or use --model hockney")
        if len(mtus) > 3:  # rank by the linear first guess; refine the three best
            mtus = sorted(mtus, key=lambda u: nnls_rel(packet_design(m, u), y)[1])[:3]
        given = "mtu" in fixed
        return [Trial(self.guess(m, y, {**fixed, "mtu": mtu}), {"mtu": mtu},
                      {"mtu": "fixed" if given else "selected"}, 0 if given else 1)
                for mtu in mtus]


class Piecewise(Law):
    name = "piecewise"
    description = "Hockney segments between protocol switches, breakpoints from the data"
    formula = "T = alpha_i + m/beta_i for breakpoint_(i-1) <= m < breakpoint_i"
    latex = r"T(m) = \alpha_i + \frac{m}{\beta_i}, \quad b_{i-1} \le m < b_i"
    params = (_ALPHA, _BETA, _BREAK)
    law = staticmethod(laws.piecewise)
    specifiable = False
    best_by = "bic"
    skip_failed = True
    by_size = True

    def param_list(self, values: Mapping[str, float] | None = None) -> tuple[Param, ...]:
        return piecewise_params(segments_of(values or {}) or 1)

    def evaluate(self, nbytes: ArrayLike, values: Mapping[str, float]) -> FloatArray:
        k = segments_of(values)
        return laws.piecewise(nbytes, [values[f"breakpoint_{i}"] for i in range(1, k)],
                              [values[f"alpha_{i}"] for i in range(1, k + 1)],
                              [values[f"beta_{i}"] for i in range(1, k + 1)])

    def needs(self, fixed: Mapping[str, float]) -> int:
        return 2 * MIN_SIZES_PER_SEGMENT

    def prepare(self, fixed: dict[str, float], sources: dict[str, str]) -> tuple[str, ...]:
        if fixed:
            raise InputError("the piecewise model takes no fixed parameters",
                             fix="drop --fix, or choose hockney, loggp or packet")
        return ()

    def trials(self, m: FloatArray, y: FloatArray, fixed: Mapping[str, float],
               segments: int | None = None) -> list[Trial]:
        """One trial per number of segments (2 to :data:`MAX_SEGMENTS`, or ``segments``):
        breakpoints where :mod:`~perfmodel.network.segments` splits the sizes best (each a
        choice), each segment's α and β from its own line.  ``m`` sorted by size."""
        sizes = np.unique(m)
        most = min(MAX_SEGMENTS, len(sizes) // MIN_SIZES_PER_SEGMENT)
        if most < 2:
            raise FitError(f"{len(sizes)} distinct sizes cannot hold two segments of "
                           f"{MIN_SIZES_PER_SEGMENT}", fix="measure more sizes, or use hockney")
        split, notes = searcher(m, y, sizes)
        if segments is not None and not 2 <= segments <= most:
            raise FitError(f"{segments} segments need at least "
                           f"{segments * MIN_SIZES_PER_SEGMENT} distinct sizes; the data have "
                           f"{len(sizes)}", fix="ask for fewer segments or measure more sizes")
        out = []
        for k in range(2, most + 1) if segments is None else [segments]:
            starts = split(k)
            breaks = [between(float(sizes[s - 1]), float(sizes[s])) for s in starts]
            init: dict[str, float] = {}
            seg = np.searchsorted(np.array(breaks), m, side="right")
            for i in range(k):
                mm, yy = m[seg == i], y[seg == i]
                alpha, gap = _line(mm, yy)
                init[f"alpha_{i + 1}"] = alpha
                init[f"beta_{i + 1}"] = bandwidth_from_gap(gap, mm, yy)
            bp = {f"breakpoint_{i + 1}": b for i, b in enumerate(breaks)}
            out.append(Trial({**init, **bp}, bp, dict.fromkeys(bp, "selected"), k - 1,
                             tuple(notes)))
        return out

    def none_fitted(self, m: FloatArray) -> FitError:
        return FitError(f"{len(np.unique(m))} distinct sizes leave no degrees of freedom for "
                        "two segments", fix="measure more sizes, or use hockney")

    def check(self, values: Mapping[str, float]) -> tuple[str, str] | None:
        bps = [v for k, v in values.items() if k.startswith("breakpoint_")]
        if any(b >= c for b, c in itertools.pairwise(bps)):
            return "breakpoints do not increase", "give breakpoint_1 < breakpoint_2 < …"
        return None


MAX_SEGMENTS = 5
"""The most segments a piecewise fit tries."""

MODELS: dict[str, Law] = {law.name: law for law in (Hockney(), LogGP(), Packet(), Piecewise())}
"""The point-to-point laws by name, in the order ``perfmodel models`` lists them."""

_BY_NAME: dict[str, Param] = {p.name: p for law in MODELS.values() for p in law.params}

AUTO = "auto"


def param(name: str) -> Param:
    """The parameter ``name`` of any law (``alpha_2``: a piecewise segment's ``alpha``)."""
    found = _BY_NAME.get(name) or _BY_NAME.get(name.split("_")[0])
    if found is None:
        raise InputError(f"no network model has a parameter {name!r}",
                         fix=f"parameters: {', '.join(sorted(_BY_NAME))}")
    return found if found.name == name else replace(found, name=name)


def lower_bound(name: str) -> float:
    """The smallest physical value of parameter ``name`` (SI units): bandwidths 1 B/s, packet
    sizes and breakpoints 1 byte, latencies, overheads, per-packet costs and gaps 0.  An
    unknown name is an :class:`InputError`."""
    return param(name).lower


def check_value(name: str, value: float) -> str | None:
    """Why ``value`` cannot be parameter ``name`` (SI units), or None when it can; an unknown
    name is an :class:`InputError`."""
    return param(name).check(value)


def parse_value(name: str, text: str) -> float:
    """A value typed for parameter ``name`` (``"2us"``, ``"1.25MB/s"``), in SI units and checked.

    Raises :class:`InputError` with no file: the caller names the place.
    """
    return param(name).parse(text)


def spec(name: str) -> Law:
    """The law called ``name``; one line naming the choices otherwise."""
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown network model {name!r}",
                         fix=f"choose one of {', '.join(MODELS)} or auto") from None


def specifiable() -> list[str]:
    """The laws a network spec may give the values of."""
    return [name for name, law in MODELS.items() if law.specifiable]


def piecewise_params(segments: int) -> tuple[Param, ...]:
    """``alpha_1, beta_1, …, alpha_k, beta_k, breakpoint_1, …, breakpoint_(k-1)``."""
    out: list[Param] = []
    for i in range(1, segments + 1):
        out += [replace(_ALPHA, name=f"alpha_{i}", description=f"latency of segment {i}"),
                replace(_BETA, name=f"beta_{i}", description=f"bandwidth of segment {i}")]
    out += [replace(_BREAK, name=f"breakpoint_{i}", description=f"first size of segment {i + 1}")
            for i in range(1, segments)]
    return tuple(out)


def segments_of(values: Mapping[str, float]) -> int:
    return sum(1 for k in values if k.startswith("alpha_"))


def param_list(name: str, values: Mapping[str, float] | None = None) -> tuple[Param, ...]:
    """Parameters of model ``name`` (for piecewise, as many segments as ``values`` has)."""
    return spec(name).param_list(values)


def evaluate(name: str, nbytes: ArrayLike, values: Mapping[str, float]) -> FloatArray:
    """One-way time in seconds of model ``name`` with parameter ``values`` at ``nbytes``."""
    return spec(name).evaluate(nbytes, values)
