"""Check a corpus folder's CSV rows against their raw files: the walk every ``check_times.py``
under ``data/`` shares (each gives its mirrors and how a time sits in its raw file).

For each row: ``git show <commit>:<file>`` in a local mirror of the source repository must
contain the ``time_s`` string, which must also sit in its own context (the folder's
``in_context``); and ``<commit>`` must equal ``git log -1 <snapshot> -- <file>``, the snapshot
being the ``snapshot HEAD <sha>`` a CSV's header names.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path


def git(root: Path, repo: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(root / repo / "repo"), *args],
                          capture_output=True, text=True, check=True).stdout


def last(root: Path, repo: str, snap: str, path: str) -> str:
    """The last commit at or before ``snap`` that touched ``path``: the commit a row names."""
    return git(root, repo, "log", "-1", "--format=%H", snap, "--", path).strip()


def bound(argv: list[str], here: Path) -> tuple[Path, Callable[..., str], Callable[..., str],
                                                 Callable[..., None]]:
    """What an extract script works with: the mirrors' root (its first argument, else
    ``/work/.mirror``), and :func:`git`, :func:`last` and :func:`write_series` bound to it and
    to the script's folder ``here``."""
    root = Path(argv[1] if len(argv) > 1 else "/work/.mirror")
    return (root, partial(git, root), partial(last, root), partial(write_series, here))


def per_node(processes: int, nodes: int) -> str:
    """Ranks a node as a CSV writes it: a whole number where the nodes share them evenly."""
    return str(processes // nodes) if processes % nodes == 0 else repr(processes / nodes)


HEADER = "nodes,processes,time_s,ranks_per_node,threads,file,commit,note"
"""perfmodel's timings columns, as every extract script writes them."""


def write_series(here: Path, folder: str, name: str, head: Iterable[str],
                 rows: Iterable[Mapping[str, object]]) -> None:
    """One series CSV: ``# `` header lines, then a row a run (``nodes``, ``p``, ``t`` as
    printed, ``threads``, ``file``, ``commit``, ``note``, none holding a comma)."""
    d = here / folder
    d.mkdir(exist_ok=True)
    lines = ["# " + h for h in head]
    lines.append(HEADER)
    n = 0
    for r in rows:
        assert "," not in str(r["note"]) and "," not in str(r["file"])
        lines.append(",".join([str(r["nodes"]), str(r["p"]), str(r["t"]),
                               per_node(int(r["p"]), int(r["nodes"])), str(r["threads"]),
                               str(r["file"]), str(r["commit"]), str(r["note"])]))
        n += 1
    (d / name).write_text("\n".join(lines) + "\n")
    print(folder, name, n)


def linked_root(root: Path, mirrors: Iterable[str], prefix: str) -> str:
    """A temporary root whose ``<mirror>/repo`` points at each mirror's git directory, where
    :func:`git` expects it: a fetched mirror is one already, a work-tree clone holds it in
    ``repo/.git``."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    for m in mirrors:
        src = root / m / "repo"
        if (src / ".git").is_dir():
            src = src / ".git"
        (tmp / m).mkdir()
        os.symlink(src, tmp / m / "repo")
    return str(tmp)


def linked(mirrors: Iterable[str], prefix: str) -> Path:
    """The mirror root the command line names (``sys.argv[1]``, else ``/work/.mirror``) as a
    :func:`linked_root`, which :func:`check` then reads (put back in ``sys.argv[1]``)."""
    root = linked_root(Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror"), mirrors,
                       prefix)
    sys.argv[1:] = [root]
    return Path(root)


def show(mirror: Mapping[str, str], folder: str, rev: str, path: str) -> str:
    """A raw file of ``folder``'s source at ``rev``, from the root :func:`linked` made."""
    return git(Path(sys.argv[1]), mirror[folder], "show", f"{rev}:{path}")


def run(here: Path, mirror: Mapping[str, str],
        in_context: Callable[[str, str, Mapping[str, str]], bool]
        | Mapping[str, Callable[[str, Mapping[str, str]], bool]], prefix: str) -> int:
    """A folder's ``check_times.py`` main: the mirrors :func:`linked`, then :func:`check`."""
    linked(mirror.values(), prefix)
    return check(here, mirror, in_context)


def check(here: Path, mirror: Mapping[str, str],
          in_context: Callable[[str, str, Mapping[str, str]], bool]
          | Mapping[str, Callable[[str, Mapping[str, str]], bool]],
          raw: Callable[[str, Mapping[str, str]], str] | None = None) -> int:
    """Every ``here/*/*.csv`` row checked; prints each failure and the totals; 1 on any.
    ``in_context(folder, text, row)``, or a table of ``(text, row)`` checks by folder.
    ``raw(folder, row)``: the string the raw file holds for the row's time, where it is not
    ``time_s`` itself (a file in milliseconds, say)."""
    if isinstance(in_context, Mapping):
        by_folder = in_context

        def in_context(folder: str, text: str, row: Mapping[str, str]) -> bool:
            return by_folder[folder](text, row)
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
    rows = mism = ctx_bad = commit_bad = 0
    for csvf in sorted(here.glob("*/*.csv")):
        folder = csvf.parent.name
        repo = mirror[folder]
        found = re.search(r"snapshot HEAD ([0-9a-f]{40})", csvf.read_text())
        assert found, f"{csvf}: no 'snapshot HEAD <sha>' in its header"
        body = [ln for ln in csvf.read_text().splitlines() if not ln.startswith("#")]
        for r in csv.DictReader(body):
            rows += 1
            text = git(root, repo, "show", f"{r['commit']}:{r['file']}")
            if (r["time_s"] if raw is None else raw(folder, r)) not in text:
                mism += 1
                print("MISMATCH", csvf.name, r["nodes"], r["time_s"])
            elif not in_context(folder, text, r):
                ctx_bad += 1
                print("NO CONTEXT", csvf.name, r["nodes"], r["time_s"])
            last = git(root, repo, "log", "-1", "--format=%H", found.group(1), "--", r["file"])
            if last.strip() != r["commit"]:
                commit_bad += 1
                print("COMMIT", csvf.name, r["file"])
    print(f"rows {rows}; time_s not found {mism}; not in context {ctx_bad}; "
          f"commit not last {commit_bad}")
    return 1 if mism or ctx_bad or commit_bad else 0
