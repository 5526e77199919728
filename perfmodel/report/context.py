"""What every section builder shares: where the report goes (so that paths in it are relative
to the markdown and its links work), and the files it read, each read and hashed once."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

T = TypeVar("T")


@dataclass
class Context:
    """``out_dir`` is the markdown's folder; ``read`` lists every input file the report used,
    in the order first used (shown under "Inputs"), with what it is and where it lies."""

    out_dir: Path
    read: dict[str, tuple[str, Path]] = field(default_factory=dict)
    _profiles: dict[Path, Any] = field(default_factory=dict)
    _digests: dict[Path, str] = field(default_factory=dict)
    _gathered: dict[tuple[tuple[Path, ...], tuple[tuple[str, int], ...]], Any] = field(
        default_factory=dict)
    _models: dict[str, Any] = field(default_factory=dict)
    _shared: dict[Hashable, Any] = field(default_factory=dict)

    def show(self, path: str | Path) -> str:
        """``path`` as the report names it: relative to the markdown's folder, with /."""
        rel = os.path.relpath(Path(path).resolve(), self.out_dir.resolve())
        return Path(rel).as_posix()

    def used(self, path: str | Path, what: str) -> str:
        shown = self.show(path)
        self.read.setdefault(shown, (what, Path(path)))
        return shown

    def digest(self, path: Path) -> str:
        """The file's sha256 (hex), read once per report."""
        key = path.resolve()
        if key not in self._digests:
            from perfmodel.io import read_file

            self._digests[key] = hashlib.sha256(read_file(path, "an input")).hexdigest()
        return self._digests[key]

    def model(self, model: Any) -> None:
        """Record an application model's file: a built-in one by its place in the package."""
        from perfmodel.apps.model import BUILTIN

        path = Path(model.path)
        if path.parent.resolve() == BUILTIN.resolve():
            self.read.setdefault(f"perfmodel/apps/models/{path.name}",
                                 (f"built-in application model '{model.name}'", path))
        else:
            self.used(path, f"application model '{model.name}'")

    def app_model(self, name_or_path: str) -> Any:
        """An application model (built-in name or file), loaded once per report: its formulas
        are compiled once, whichever sections run it."""
        if name_or_path not in self._models:
            from perfmodel.apps.model_file import load

            self._models[name_or_path] = load(name_or_path)
        return self._models[name_or_path]

    def once(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, made once per report for each ``key`` (plain values that say every
        input it depends on) and shared by the sections that ask for it: one fit of a model to
        the same timings on the same machine, however many sections show it.

        >>> ctx, made = Context(Path(".")), []
        >>> first = ctx.once(("fit", 1), lambda: made.append(1) or "a fit")
        >>> ctx.once(("fit", 1), lambda: made.append(2) or "another"), made
        ('a fit', [1])
        """
        if key not in self._shared:
            self._shared[key] = make()
        return cast(T, self._shared[key])

    def profile(self, path: Path) -> Any:
        from perfmodel.machine.profile import load

        key = path.resolve()
        if key not in self._profiles:
            self._profiles[key] = load(path)
            self.used(path, f"machine profile '{self._profiles[key].name}'")
        return self._profiles[key]

    def input_path(self, profile_path: Path, recorded: str, sha256: str = "") -> Path | None:
        """Where a profile's recorded input is now: relative to the profile folder's parent
        (``calibration/`` beside ``data/``), to the profile's folder, or to the folder
        perfmodel runs in, in that order; the first whose contents match the recorded
        checksum, else the first that exists."""
        p = Path(recorded)
        found = [c for c in (profile_path.resolve().parent.parent / p,
                             profile_path.resolve().parent / p, p) if c.is_file()]
        for cand in found:
            if sha256 and self.digest(cand) == sha256:
                return cand
        return found[0] if found else None

    def inputs(self, prof: Any, path: Path) -> list[Path]:
        """The profile's recorded inputs that exist now, each recorded as read."""
        files = list(dict.fromkeys(   # a file of several tables is recorded once a table
            f for rec in prof.inputs
            if (f := self.input_path(path, rec.path, rec.sha256)) is not None))
        for f in files:
            self.used(f, "measurements")
        return files

    def gather(self, files: list[Path], layout: Mapping[str, int] | None = None) -> Any:
        """:func:`perfmodel.inputs.gather` of ``files`` with the rank ``layout`` their profile
        kept, read once per report."""
        from perfmodel.inputs import gather
        from perfmodel.layout import Layout

        kept = dict(layout or {})
        key = (tuple(f.resolve() for f in files), tuple(sorted(kept.items())))
        if key not in self._gathered:
            self._gathered[key] = gather(files, layout=Layout.of(kept))
        return self._gathered[key]


