"""Assumptions named where they decide an answer, and a spec that adds a fabric without
discarding the measured law (issue 31).

The profile is data/alaska's EDR outputs (osu_latency, osu_bw, osu_mbw_mr at 1 … 32 pairs,
placed across two nodes) with the HPL fixture for the node: its fabric was fitted, so every
framing parameter (packet, header, bond) is an assumption; a second channel helps npb-cg only
if messages are split into packets, and the what-if must say so.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.conftest import ROOT, invoke_in

EDR = ROOT / "data" / "alaska" / "ib-gcc9-openmpi4-ucx"
HPL = ROOT / "tests" / "fixtures" / "benchmarks" / "public" / "hpl_2.3_np64_nb_sweep.txt"
WHATIF = ["--vary", "link-speed=25Gb/s", "--vary", "channels=1,2", "--vary", "nodes=2,4,8,16",
          "--json"]


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("edr")
    got = invoke_in(where, ["calibrate", str(EDR), str(HPL), "--nodes-per-job", "2",
                            "--name", "edr", "--quiet"])
    assert got.exit_code == 0, got.output
    return where / "calibration" / "edr.toml"


def test_whatif_names_the_packet_size_that_decides_a_second_channel(profile: Path,
                                                                    tmp_path: Path) -> None:
    doc = json.loads(invoke_in(tmp_path, ["whatif", "npb-cg", "-m", str(profile),
                                          *WHATIF]).output)
    said = {d["parameter"]: d for d in doc["decisive_assumptions"]}
    assert "packet" in said, doc["decisive_assumptions"]
    packet = said["packet"]
    assert packet["assumed"] is None   # infinite: messages not split
    assert packet["tried"] <= 65536
    assert packet["changes"].startswith("channels 1 → 2 would pay at 16 ")
    (step,) = doc["steps"]
    assert step["axis"] == "channels" and step["pays_at_nodes"] == []   # as assumed: nowhere
    assert max(step["gain"].values()) == pytest.approx(1.0, abs=1e-9)


def test_a_given_packet_size_is_no_longer_named(profile: Path) -> None:
    from perfmodel.machine.profile import load
    from perfmodel.whatif import decisive

    prof = load(profile)
    assert any(p.name == "packet" for _, p in decisive.assumed(prof))
    fab = prof.fabric
    assert fab is not None
    given = replace(prof, fabric=replace(fab, params=tuple(
        replace(p, value=4096.0, status="fixed", source="the NIC's MTU, from its datasheet")
        if p.name == "packet" else p for p in fab.params)))
    assert all(p.name != "packet" for _, p in decisive.assumed(given))


def test_time_moves_says_the_largest_move_beyond_the_share() -> None:
    from perfmodel.whatif.decisive import time_moves

    assert time_moves([1.0, 2.0], [1.01, 2.02], [1, 2], 0.05) is None
    assert time_moves([1.0, 2.0], [1.01, 1.5], [1, 2], 0.05) == \
        "the time at 2 nodes would move by -25.0%"


def test_a_spec_without_a_model_keeps_the_measured_law(tmp_path: Path) -> None:
    spec = tmp_path / "edr.spec.toml"
    spec.write_text('kind = "perfmodel network spec"\nschema_version = 1\n[fabric]\n'
                    'topology = "switched"\n[fabric.params.line_rate]\nvalue = "100Gbps"\n'
                    'source = "EDR InfiniBand: 4 lanes of 25 Gb/s"\n[fabric.params.eta]\n'
                    'value = "0.97"\nsource = "64b/66b line coding"\n')
    got = invoke_in(tmp_path, ["calibrate", str(EDR / "omb" / "Osu_latency"), "--spec",
                               str(spec), "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    doc = json.loads(got.output)
    assert doc["model"] == "piecewise"   # not forced to Hockney by the spec
    params = {p["name"]: p for p in doc["fabric"]["parameters"]}
    overhead = params["overhead"]
    assert overhead["status"] == "derived"   # not a default 0 beside a measured latency
    assert overhead["value"] == pytest.approx(1.0e-6, rel=0.1)
    assert "point-to-point law's one-way time" in overhead["source"]


def test_a_spec_with_params_must_name_their_model(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('kind = "perfmodel network spec"\nschema_version = 1\n'
                    '[params.alpha]\nvalue = "2us"\nsource = "a datasheet"\n')
    got = invoke_in(tmp_path, ["calibrate", str(EDR / "omb" / "Osu_latency"), "--spec",
                               str(spec), "--no-write"])
    assert got.exit_code == 2
    assert "[params] are given, so the model they belong to must be named" in got.output


def test_a_sweep_too_large_says_its_assumptions_were_not_tried(profile: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    from perfmodel.whatif import decisive

    monkeypatch.setattr(decisive, "MAX_CONFIGURATIONS", 4)
    doc = json.loads(invoke_in(tmp_path, ["whatif", "npb-cg", "-m", str(profile),
                                          *WHATIF]).output)
    (said,) = doc["decisive_assumptions"]
    assert said["tried"] is None and said["changes"].startswith("not tried: the sweep has 8 ")
    assert "packet" in said["parameter"]
