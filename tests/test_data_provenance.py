"""Every byte-for-byte copy under ``data/`` carries its provenance beside it: a sidecar
``<file>.provenance.md`` whose source is pinned to a commit, whose licence is stated, and whose
recorded git blob hash is the copy's own (``git hash-object``, computed here), so a copy that
drifted from its source fails here.  The ping-pong sets and the HPC Challenge outputs hold raw
copies only; each must have its sidecar."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

DATA = ROOT / "data"
SIDECARS = sorted(DATA.rglob("*.provenance.md"))
COPIES = sorted([*DATA.glob("p2p-*/*/*.txt"), *DATA.glob("pairs-hpcc/*/*_hpccoutf.txt")])
PINNED = re.compile(r"https://github\.com/\S+/(?:blob|tree|raw)/[0-9a-f]{7,40}|[0-9a-f]{40}")


def blob(data: bytes) -> str:
    """``git hash-object`` of ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_the_sets_hold_copies_to_check() -> None:
    assert len(SIDECARS) >= 270 and len(COPIES) >= 70


@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: str(p.relative_to(DATA)))
def test_a_sidecar_pins_its_source_states_its_licence_and_holds_its_copys_hash(
        sidecar: Path) -> None:
    copy = sidecar.with_name(sidecar.name.removesuffix(".provenance.md"))
    assert copy.is_file(), f"{sidecar} describes no file"
    text = sidecar.read_text()
    assert PINNED.search(text), f"{sidecar}: no source pinned to a commit"
    assert re.search(r"licen[cs]e", text, re.I), f"{sidecar}: no licence stated"
    assert blob(copy.read_bytes()) in text, f"{copy} is not the copy its sidecar hashed"


@pytest.mark.parametrize("copy", COPIES, ids=lambda p: str(p.relative_to(DATA)))
def test_every_raw_copy_has_its_sidecar(copy: Path) -> None:
    assert copy.with_name(copy.name + ".provenance.md").is_file()
