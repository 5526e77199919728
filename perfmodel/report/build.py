"""A report from its specification: every section built, the figures drawn, the inputs
listed with their checksums; then written all at once (nothing is written when anything
fails)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from perfmodel.errors import OutputError, PerfModelError
from perfmodel.report import apps, links, network
from perfmodel.report.context import Context
from perfmodel.report.doc import Report, Section, render, table
from perfmodel.report.spec import ReportSpec, SectionSpec

BUILDERS: dict[str, Callable[[SectionSpec, Context], Section]] = {
    "profile": network.profile_section,
    "shared": network.shared_section,
    "throughput": links.throughput_section,
    "fanin": links.fanin_section,
    "exchange": links.exchange_section,
    "scaling": apps.scaling_section,
    "whatif": apps.whatif_section,
}


@dataclass(frozen=True)
class Built:
    """The markdown, and each figure's bytes by its path relative to the markdown."""

    markdown: str
    figures: dict[str, bytes]


def build(spec: ReportSpec, out: Path, progress: Callable[[str], None] | None = None) -> Built:
    """Build the report ``spec`` describes, to be written at ``out`` (its figures in the folder
    ``out``'s stem names, beside it)."""
    from perfmodel import __version__

    ctx = Context(out.parent)
    sections = []
    for sec in spec.sections:
        if progress is not None:
            progress(sec.title or sec.kind)
        try:
            sections.append(BUILDERS[sec.kind](sec, ctx))
        except PerfModelError as exc:
            if exc.file is not None:
                raise
            raise type(exc)(f"{sec.kind} section: {exc.what}", fix=exc.fix, file=spec.path,
                            line=sec.line) from None
    rows = []
    for shown, (what, path) in ctx.read.items():
        rows.append([f"`{shown}`", what, f"`{ctx.digest(path)[:16]}`"])
    src = ctx.show(spec.path)
    tail = ("Every number above is read from these files or computed from them by the models "
            f"named beside it. Written by perfmodel {__version__} from "
            + ("these profiles." if spec.generated else f"the report specification `{src}`."))
    sections.append(Section("Inputs", (table(["file", "what", "sha256 (first 16)"], rows),
                                       tail)))
    report = Report(spec.title, spec.text, tuple(sections))
    md, figures = render(report, out.stem, spec.figures, progress)
    return Built(md, figures)


MANIFEST = ".perfmodel-report.toml"
"""The file in a report's figure folder that lists the figures perfmodel wrote there, and the
sha256 of the markdown they belong to: ``--force`` removes only these, never a file it did
not write."""
MANIFEST_KIND = "perfmodel report figures"
_FIGURE = re.compile(r"[^/\\\x00.][^/\\\x00]*\.(?:svg|png)")


def figure_folder(out: Path) -> Path:
    """The folder of ``out``'s figures (``reports/NAME.md`` -> ``reports/NAME``); a name that
    would make it the markdown's own folder or another (``..md``, ``.md``) is refused."""
    stem = out.stem
    if not stem or stem.startswith(".") or out.name.startswith("."):
        raise OutputError(f"--out {out.name!r} is not a usable report name", file=out,
                          fix="name it NAME.md, NAME not starting with '.': its figures go "
                              "in the folder NAME beside it")
    return out.parent / stem


def check_out(out: Path, *, force: bool = False, inputs: Iterable[Path] = ()) -> Path:
    """Refuse, before any work, a report that :func:`write` would refuse: its markdown and its
    figure folder, each a place perfmodel may write (not one of ``inputs``)."""
    from perfmodel.io import check_writable

    folder = figure_folder(out)
    check_writable(out, force=force, inputs=inputs)
    if folder.exists() and not folder.is_dir():
        raise OutputError("is a file, where the report's figures go", file=folder,
                          fix="move it, or name the report otherwise")
    return out


def _recorded(folder: Path, out: Path) -> dict[str, str]:
    """The figures the manifest in ``folder`` says perfmodel wrote there for ``out``, each with
    the sha256 it had (none when there is no manifest, or one perfmodel cannot read: then
    nothing is removed)."""
    import tomllib

    from perfmodel.io import read_file

    try:
        doc = tomllib.loads(read_file(folder / MANIFEST, "a report manifest", 1024 * 1024)
                            .decode("utf-8"))
    except (PerfModelError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return {}
    figures = doc.get("figures")
    if doc.get("kind") != MANIFEST_KIND or doc.get("report") != out.name or \
            not isinstance(figures, dict):
        return {}
    return {n: h for n, h in figures.items()
            if _FIGURE.fullmatch(n) and isinstance(h, str) and _SHA256.fullmatch(h)}


_SHA256 = re.compile(r"[0-9a-f]{64}")


def _as_written(path: Path, sha256: str) -> bool:
    """Whether ``path`` is a regular file (not a link) that still holds what perfmodel wrote:
    a figure the user edited, or a file of theirs under a name a manifest was edited to
    list, is not perfmodel's to remove."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _LARGEST_FIGURE:
            return False
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


_LARGEST_FIGURE = 64 * 1024 * 1024
"""No figure perfmodel writes is near this; a larger file is not compared (nor removed)."""


def _manifest(out: Path, markdown: str, figures: dict[str, str]) -> str:
    from perfmodel import SCHEMA_VERSION
    from perfmodel.files.write import dumps

    return dumps({"kind": MANIFEST_KIND, "schema_version": SCHEMA_VERSION, "report": out.name,
                  "markdown_sha256": hashlib.sha256(markdown.encode("utf-8")).hexdigest(),
                  "figures": dict(sorted(figures.items()))})


def _leftovers(place: Path, names: Iterable[str]) -> None:
    """Remove the temporary files an earlier, killed write of these names left in ``place``
    (``.NAME.XXXXXXXX.tmp``, as :func:`perfmodel.io.stage` makes them)."""
    for name in names:
        pattern = re.compile(rf"\.{re.escape(name[:96])}\.[A-Za-z0-9_]{{8}}\.tmp")
        try:
            found = [p for p in place.iterdir() if pattern.fullmatch(p.name)]
        except OSError:
            return
        for p in found:
            p.unlink(missing_ok=True)


def write(built: Built, out: Path, *, force: bool = False,
          inputs: Iterable[Path] = ()) -> list[Path]:
    """Write the figures and the markdown as one set.

    Every name is checked, then every file is written in full to a temporary file beside its
    place; only then is the set switched, by renames: the manifest first (listing the old
    figures and the new), the old figures removed, the markdown put in place, the new figures
    put in place, the manifest rewritten with the new figures alone.  Killed at any point, the
    markdown on disk is never beside figures of another generation (at worst, some of its
    figures are missing until the command is run again), and every file perfmodel made is
    recorded, so that the next ``--force`` removes it; files perfmodel did not write are never
    removed.
    """
    from perfmodel.io import check_writable, commit, stage, write_atomic

    folder = figure_folder(out)
    inputs = list(inputs)
    targets = [(out.parent / rel, data) for rel, data in built.figures.items()]
    for path, _ in [*targets, (out, b"")]:
        check_writable(path, force=force, inputs=inputs)
    old = _recorded(folder, out) if force else {}
    new = {path.name: hashlib.sha256(data).hexdigest() for path, data in targets}
    _leftovers(folder, {*old, *new, MANIFEST})
    _leftovers(out.parent, {out.name})
    manifest = folder / MANIFEST
    made = not folder.exists()
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in targets:
            staged.append((stage(path, data), path))
        md_tmp = stage(out, built.markdown)
        staged.append((md_tmp, out))
        if old or new:
            commit(stage(manifest, _manifest(out, built.markdown, {**old, **new})), manifest,
                   force=True)
        for name, sha256 in old.items():
            if _as_written(folder / name, sha256):
                (folder / name).unlink()
        written = [commit(md_tmp, out, force=force)]
        written[:0] = [commit(tmp, path, force=force) for tmp, path in staged[:-1]]
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        if made and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()   # the folder this write made, left empty by a failure
    if new:
        write_atomic(manifest, _manifest(out, built.markdown, new), force=True)
    else:
        manifest.unlink(missing_ok=True)
    return written


def from_profiles(paths: list[Path]) -> ReportSpec:
    """The report of machine profiles alone: each one's fit, diagnostics and predictions, and
    their throughput side by side when there are several."""
    from perfmodel.machine.profile import load

    names = [load(p).name for p in paths]
    sections = [SectionSpec("profile", "", "", {"profile": p}) for p in paths]
    if len(paths) > 1:
        sections.append(SectionSpec("throughput", "Side by side", "", {"profiles": tuple(paths)}))
    return ReportSpec(paths[0], "Machine profiles: " + ", ".join(names), "", "svg",
                      tuple(sections), generated=True)
