"""Heavy libraries, imported where they are first needed and no more of them than is used.

A command pays for what it imports before it does any work: ``perfmodel calibrate`` on one
OSU file spent most of its time importing.  lmfit fits every law and model, and importing it
imports three things perfmodel never uses on that path: matplotlib (for ``ModelResult.plot``),
``scipy.stats`` (for emcee's priors, ``conf_interval``'s F test and ``Model``'s t-quantiles)
and ``scipy.interpolate`` (for the spline model), together about half of lmfit's import.
:func:`lmfit` imports lmfit without them: matplotlib as if it were not installed (lmfit then
leaves out its plotting), and the two SciPy modules behind stand-ins that import the real
module the first time lmfit touches one of its names.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

DEFERRED = ("scipy.stats", "scipy.interpolate")
"""The modules lmfit imports at its import and uses only in features perfmodel does not call."""


class _Later:
    """A name lmfit takes from a deferred module (``norm``, ``f``, ``t``, ``splev``): the
    real one, imported at its first use."""

    def __init__(self, module: str, name: str) -> None:
        self._module, self._name = module, name

    def _real(self) -> Any:
        return getattr(importlib.import_module(self._module), self._name)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._real(), attr)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._real()(*args, **kwargs)


class _ModuleLater(ModuleType):
    """Stands for a deferred module while lmfit is imported: every name is a :class:`_Later`."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Later(self.__name__, name)


def lmfit() -> ModuleType:
    """The ``lmfit`` module, imported once, without matplotlib or the :data:`DEFERRED`
    modules that are not imported yet (all stay importable, as themselves, for whatever needs
    them).

    >>> lmfit().Parameters.__name__
    'Parameters'
    """
    if "lmfit" in sys.modules:
        return sys.modules["lmfit"]
    stand_ins: dict[str, ModuleType | None] = {}
    if "matplotlib" not in sys.modules:
        stand_ins["matplotlib"] = None   # its import raises ImportError
    stand_ins.update({name: _ModuleLater(name) for name in DEFERRED if name not in sys.modules})
    sys.modules.update(stand_ins)  # type: ignore[arg-type]
    try:
        import lmfit as module
    finally:
        for name, stand_in in stand_ins.items():
            if sys.modules.get(name, ModuleType("none")) is stand_in:
                del sys.modules[name]
    return module
