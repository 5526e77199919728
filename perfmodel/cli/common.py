"""What several commands share: list defaults parsed as their options parse them, --set's
values, JSON output, and the application model on a machine that whatif and plan sweep."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfmodel.cli import options
from perfmodel.errors import InputError, PerfModelError

if TYPE_CHECKING:   # for annotations only: these import numpy, kept off the start-up path
    from perfmodel.apps.fit import AppFit
    from perfmodel.apps.model import AppModel
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import Profile
    from perfmodel.whatif.sweep import Grid, Sweep


def err(message: str) -> None:
    """One line on standard error."""
    sys.stderr.write(message + "\n")


FEW_SIZES = options.parsed(options.sizes, "1B,8KiB,1MiB")


ALL_SIZES = options.parsed(options.sizes, "1B..4MiB")


NODES = options.parsed(options.counts(), "1,2,4,8,16")


NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def parse_fix(items: list[str] | None) -> dict[str, float]:
    """``["beta=1.25MB/s", "o=1us"]`` -> SI values, parsed by each parameter's kind."""
    from perfmodel.network import models as registry
    from perfmodel.params import assignments

    names = {p.name for spec in registry.MODELS.values() for p in spec.params}
    out: dict[str, float] = {}
    for name, (value, item) in assignments(items, "--set", "beta=1.25MB/s").items():
        if name not in names:
            raise InputError(f"--set {name!r}: no network model has that parameter",
                             fix=f"parameters: {', '.join(sorted(names))}")
        try:
            out[name] = registry.parse_value(name, value)
        except PerfModelError as exc:
            raise InputError(f"--set {item!r}: {exc.what}", fix=exc.fix) from None
    return out


def emit_json(doc: Any) -> None:
    from perfmodel.plain import jsonable

    sys.stdout.write(json.dumps(jsonable(doc), indent=2, ensure_ascii=False) + "\n")


def model_on(app_model: str, machine: Path) -> tuple[AppModel, Profile, Machine]:
    """whatif's and plan's application model, the machine profile it runs on (with a node
    when the model costs its computation there) and that profile as a Machine."""
    from perfmodel.apps.model_file import load as load_model
    from perfmodel.machine import Machine, require_node
    from perfmodel.machine.profile import load

    model = load_model(app_model)
    prof = load(machine)
    if model.uses_node:
        require_node(prof, machine)
    return model, prof, Machine(prof)


def timed_sweep(fit: AppFit, prof: Profile, grid: Grid, size: float | None, weak: bool,
                 level: float, bar: bool) -> tuple[Sweep, float]:
    """The sweep of whatif and plan, with a progress bar when ``bar``, and its seconds."""
    import time

    from perfmodel.whatif.sweep import sweep

    start = time.perf_counter()
    progress = progress_bar(grid.size) if bar else None
    try:
        result = sweep(fit, prof, grid, size=size, weak=weak, level=level, progress=progress)
    finally:
        if progress is not None:
            progress(-1, -1)
    return result, time.perf_counter() - start


def progress_bar(total: int) -> Callable[[int, int], None]:
    """A Rich progress bar on stderr that appears only once a sweep has run for a second."""
    import time

    state: dict[str, Any] = {"start": time.perf_counter(), "bar": None, "task": None}

    def update(done: int, whole: int) -> None:
        bar = state["bar"]
        if done < 0:
            if bar is not None:
                bar.stop()
            return
        if bar is None and time.perf_counter() - state["start"] > 1.0 and done < whole:
            from rich.console import Console
            from rich.progress import Progress

            bar = Progress(console=Console(stderr=True), transient=True)
            state["task"] = bar.add_task("sweeping", total=whole)
            bar.start()
            state["bar"] = bar
        if bar is not None:
            bar.update(state["task"], completed=done)

    return update


def machine_entries(named: Sequence[tuple[str, str]], machine: Path
                    ) -> tuple[tuple[str, Profile | None], ...]:
    """A machine axis's entries from labelled profile paths: each loaded, and None for the
    one that is ``machine`` itself (the profile the constants were fitted on)."""
    from perfmodel.machine.profile import load

    out: list[tuple[str, Profile | None]] = []
    for label, where in named:
        path = Path(where)
        same = path.exists() and machine.exists() and path.resolve() == machine.resolve()
        out.append((label, None if same else load(path)))
    return tuple(out)


def moved_timings(timings: Path | None, where: list[str] | None, columns: str | None,
                  machine: Path, grid: Grid, level: float) -> tuple[Sweep, float, str]:
    """whatif and plan without APP: the code's timings on --machine moved to every machine
    of ``grid`` (:func:`perfmodel.whatif.timed.across_timings`), the seconds it took, and the
    code's name (its timings' file)."""
    import time

    if timings is None:
        raise InputError("no APP: without a model the code's timings are moved to other "
                         "machines", fix="give APP, or --fit TIMINGS")
    from perfmodel.apps.run import parse_where
    from perfmodel.apps.transfer import read_runs
    from perfmodel.machine.profile import load
    from perfmodel.whatif.timed import across_timings

    runs = read_runs(timings, parse_where(where or []), options.columns(columns))
    start = time.perf_counter()
    result = across_timings(runs, load(machine), grid, level)
    return result, time.perf_counter() - start, timings.name
