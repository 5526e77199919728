"""A report from its specification: every section built, the figures drawn, the inputs
listed with their checksums; then written all at once (nothing is written when anything
fails)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
    from perfmodel.errors import PerfModelError

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


def write(built: Built, out: Path, *, force: bool = False) -> list[Path]:
    """Write the figures, then the markdown; every name is checked before anything is
    written."""
    from perfmodel.io import check_writable, write_atomic

    targets = [(out.parent / rel, data) for rel, data in built.figures.items()]
    for path, _ in [*targets, (out, b"")]:
        check_writable(path, force=force)
    written = [write_atomic(path, data, force=force) for path, data in targets]
    written.append(write_atomic(out, built.markdown, force=force))
    if force:     # figures of an earlier version of this report that it no longer draws
        folder = out.parent / out.stem
        keep = {p.resolve() for p in written}
        for old in sorted(folder.glob("*")):
            if old.suffix in (".svg", ".png") and old.resolve() not in keep:
                old.unlink()
    return written


def from_profiles(paths: list[Path]) -> ReportSpec:
    """The report of machine profiles alone: each one's fit, diagnostics and predictions, and
    their throughput side by side when there are several."""
    from perfmodel.profile import load

    names = [load(p).name for p in paths]
    sections = [SectionSpec("profile", "", "", {"profile": p}) for p in paths]
    if len(paths) > 1:
        sections.append(SectionSpec("throughput", "Side by side", "", {"profiles": tuple(paths)}))
    return ReportSpec(paths[0], "Machine profiles: " + ", ".join(names), "", "svg",
                      tuple(sections), generated=True)
