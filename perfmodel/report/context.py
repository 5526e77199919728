"""What every section builder shares: where the report goes (so that paths in it are relative
to the markdown and its links work), and the files it read, each once."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfmodel.errors import InputError


@dataclass
class Context:
    """``out_dir`` is the markdown's folder; ``read`` lists every input file the report used,
    in the order first used (shown under "Inputs")."""

    out_dir: Path
    read: dict[str, tuple[str, Path]] = field(default_factory=dict)
    _profiles: dict[Path, Any] = field(default_factory=dict)

    def show(self, path: str | Path) -> str:
        """``path`` as the report names it: relative to the markdown's folder, with /."""
        rel = os.path.relpath(Path(path).resolve(), self.out_dir.resolve())
        return Path(rel).as_posix()

    def used(self, path: str | Path, what: str) -> str:
        shown = self.show(path)
        self.read.setdefault(shown, (what, Path(path)))
        return shown

    def model(self, model: Any) -> None:
        """Record an application model's file: a built-in one by its place in the package."""
        from perfmodel.apps.model import BUILTIN

        path = Path(model.path)
        if path.parent.resolve() == BUILTIN.resolve():
            self.read.setdefault(f"perfmodel/apps/models/{path.name}",
                                 (f"built-in application model '{model.name}'", path))
        else:
            self.used(path, f"application model '{model.name}'")

    def profile(self, path: Path) -> Any:
        from perfmodel.profile import load

        key = path.resolve()
        if key not in self._profiles:
            self._profiles[key] = load(path)
            self.used(path, f"machine profile '{self._profiles[key].name}'")
        return self._profiles[key]


def input_path(profile_path: Path, recorded: str, sha256: str = "") -> Path | None:
    """Where a profile's recorded input is now: relative to the profile folder's parent
    (``calibration/`` beside ``data/``), to the profile's folder, or to the folder perfmodel
    runs in, in that order; the first whose contents match the recorded checksum, else the
    first that exists."""
    import hashlib

    p = Path(recorded)
    found = [c for c in (profile_path.resolve().parent.parent / p,
                         profile_path.resolve().parent / p, p) if c.is_file()]
    for cand in found:
        if sha256 and hashlib.sha256(cand.read_bytes()).hexdigest() == sha256:
            return cand
    return found[0] if found else None


def need_fabric(prof: Any, path: Path, what: str) -> Any:
    if prof.fabric is None:
        raise InputError(f"profile {prof.name!r} has no contention model, so it cannot {what}",
                         file=path, fix="use a profile with a [fabric] table")
    return prof.fabric
