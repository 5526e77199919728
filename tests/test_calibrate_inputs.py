"""calibrate on what a site has (issue 31): a folder walked, every table listed with what it
informs, multi-pair tables placed by the rank layout the user gives once, the node from HPL
and STREAM, and a profile that network, predict and whatif use with no spec.

The real outputs are data/alaska's (OSU 5.6.2 on EDR InfiniBand and 25 GbE RoCE, Apache-2.0,
data/alaska/README.md); HPL and STREAM are the fixtures of tests/fixtures/benchmarks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, invoke_in

EDR = ROOT / "data" / "alaska" / "ib-gcc9-openmpi4-ucx"
HPL = ROOT / "tests" / "fixtures" / "benchmarks" / "public" / "hpl_2.3_np64_nb_sweep.txt"
STREAM = ROOT / "tests" / "fixtures" / "benchmarks" / "stream.txt"
HPCG = ROOT / "tests" / "fixtures" / "benchmarks" / "public" / "hpcg_3.1_np64.txt"


def _calibrate(tmp_path: Path, *args: str) -> dict:
    got = invoke_in(tmp_path, ["calibrate", *args, "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    return json.loads(got.output)


def test_a_folder_is_walked_and_each_table_says_what_it_informs(tmp_path: Path) -> None:
    doc = _calibrate(tmp_path, str(EDR), "--nodes-per-job", "2")
    roles = {Path(c["path"]).parent.name: c for c in doc["contributions"]}
    assert roles["Osu_latency"]["role"] == "law"
    assert roles["Osu_bw"]["role"] == "fabric"
    assert roles["Osu_mbw_mr__16"]["said"] == \
        "the fabric: 16 pairs across nodes, 16 streams sharing each NIC"
    assert roles["Osu_bibw"]["said"].endswith("both ways (the ports' duplex)")
    assert len(doc["contributions"]) == 9
    fabric = doc["fabric"]
    params = {p["name"]: p for p in fabric["parameters"]}
    assert fabric["topology"] == "switched"
    for name in ("line_rate", "overhead", "gap"):
        assert params[name]["status"] == "fitted"
    assert params["line_rate"]["value"] == pytest.approx(12.1e9, rel=0.05)   # EDR's ~12 GB/s
    assert fabric["fit"]["median_rel_err"] < 0.05   # its own multi-stream tables within 5 %
    assert doc["model"] == "piecewise"              # the one-message law is the best fit still


def test_without_a_layout_multi_pair_tables_are_said_not_placed(tmp_path: Path) -> None:
    doc = _calibrate(tmp_path, str(EDR))
    unused = [c["said"] for c in doc["contributions"] if c["role"] == "unused"]
    unplaced = "placement unknown (give --ranks-per-node N or --nodes-per-job N)"
    assert unused.count(unplaced) == 5
    # one pair alone shares nothing: no fabric, and its tables say so instead of "the fabric"
    alone = [u for u in unused if u != unplaced]
    assert len(alone) == 3 and all(u.startswith("every stream table is one stream") for u in alone)
    assert doc["fabric"] is None
    assert any(n.startswith("fabric: not fitted: every stream table") for n in doc["notes"])


def test_a_file_nobody_can_read_is_skipped_in_a_folder_and_refused_by_name(
        tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(EDR / "omb" / "Osu_latency", folder / "lat")
    (folder / "notes.txt").write_text("the cluster was busy on Tuesday\n")
    doc = _calibrate(tmp_path, str(folder))
    skipped = [c for c in doc["contributions"] if c["role"] == "skipped"]
    assert [Path(c["path"]).name for c in skipped] == ["notes.txt"]
    assert skipped[0]["said"] == "format not recognised"
    named = invoke_in(tmp_path, ["calibrate", str(folder / "notes.txt"), "--no-write"])
    assert named.exit_code == 2 and "format not recognised" in named.output


def test_an_empty_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    got = invoke_in(tmp_path, ["calibrate", str(tmp_path / "empty"), "--no-write"])
    assert got.exit_code == 2 and "is a folder with no files" in got.output


def test_two_layouts_at_once_are_refused(tmp_path: Path) -> None:
    got = invoke_in(tmp_path, ["calibrate", str(EDR), "--nodes-per-job", "2",
                               "--ranks-per-node", "4", "--no-write"])
    assert got.exit_code == 2 and "both say how ranks were placed" in got.output


def test_the_node_comes_from_hpl_and_stream(tmp_path: Path) -> None:
    from perfmodel.readers import read

    hpl = read(HPL)[0]
    best = float(max(hpl.extra["flop_rate"] / hpl.concurrency["processes"]))
    triad = next(t for t in read(STREAM) if t.benchmark == "Triad")
    doc = _calibrate(tmp_path, str(EDR / "omb" / "Osu_latency"), str(HPL), str(STREAM))
    node = {p["name"]: p for p in doc["node"]}
    assert node["flop_rate"]["value"] == pytest.approx(best, rel=1e-9)
    assert node["flop_rate"]["status"] == "derived"
    assert "HPL's best run" in node["flop_rate"]["source"]
    rate = float(triad.size[0] / triad.time[0])   # 2 threads: the domain and each one's share
    assert node["domain_bandwidth"]["value"] == pytest.approx(rate, rel=1e-9)
    assert node["memory_bandwidth"]["value"] == pytest.approx(rate / 2, rel=1e-9)
    assert node["memory_domain"]["value"] == 2
    assert node["cache_line"]["status"] == "assumed"


def test_hpcg_gives_the_memory_bandwidth_where_stream_does_not(tmp_path: Path) -> None:
    # the fixture: "GB/s Summary::Raw Total B/W=125.271" over 64 processes
    doc = _calibrate(tmp_path, str(EDR / "omb" / "Osu_latency"), str(HPL), str(HPCG))
    node = {p["name"]: p for p in doc["node"]}
    assert node["memory_bandwidth"]["value"] == pytest.approx(125.271e9 / 64, rel=1e-9)
    assert node["memory_bandwidth"]["status"] == "assumed"   # a lower bound, every core busy
    assert "HPCG's memory traffic" in node["memory_bandwidth"]["source"]
    said = [c for c in doc["contributions"] if c["path"].endswith("hpcg_3.1_np64.txt")]
    assert said[0]["role"] == "node"
    both = _calibrate(tmp_path, str(EDR / "omb" / "Osu_latency"), str(HPL), str(HPCG),
                      str(STREAM))
    node = {p["name"]: p for p in both["node"]}
    assert "STREAM Triad" in node["domain_bandwidth"]["source"]
    assert "HPCG" not in node["memory_bandwidth"]["source"]
    assert any("HPCG's memory traffic" in n and "not used" in n for n in both["notes"])


def test_hpcg_alone_gives_no_node_and_says_so(tmp_path: Path) -> None:
    doc = _calibrate(tmp_path, str(EDR / "omb" / "Osu_latency"), str(HPCG))
    assert doc["node"] is None
    assert any(n.startswith("node: HPCG gives a memory rate, but a node needs a flop rate or "
                            "STREAM") for n in doc["notes"])


def test_stream_alone_gives_a_node_of_its_memory_rates_and_no_flop_rate(
        tmp_path: Path) -> None:
    """STREAM without HPL: the node holds STREAM's rates and no flop rate, said; the profile
    reads back as written; a model that costs arithmetic on it is refused in one line (exit 2),
    where before the node was dropped and the model refused for want of a node."""
    doc = _calibrate(tmp_path, str(EDR / "omb" / "Osu_latency"), str(STREAM))
    node = {p["name"]: p for p in doc["node"]}
    assert "flop_rate" not in node
    assert node["domain_bandwidth"]["status"] == "derived"
    assert any("no HPL a flop rate" in n and "memory bandwidth alone" in n
               for n in doc["notes"])
    got = invoke_in(tmp_path, ["calibrate", str(EDR), str(STREAM), "--nodes-per-job", "2",
                               "--name", "memory", "--quiet"])
    assert got.exit_code == 0, got.output
    path = tmp_path / "calibration" / "memory.toml"
    from perfmodel.machine.profile import load

    back = load(path).node
    assert back is not None and not back.has_flop_rate
    rate, how = back.memory_rate
    assert rate == pytest.approx(node["domain_bandwidth"]["value"] / 2, rel=1e-12)
    assert how == "a share of 2"   # two threads: each one's share, every thread busy
    run = invoke_in(tmp_path, ["predict", "npb-cg", "-m", str(path), "--nodes", "1,4"])
    assert run.exit_code == 2, run.output
    assert "has a node without a flop rate" in run.output
    assert "Traceback" not in run.output


def test_a_profile_from_outputs_alone_predicts_with_no_spec(tmp_path: Path) -> None:
    got = invoke_in(tmp_path, ["calibrate", str(EDR), str(HPL), "--nodes-per-job", "2",
                               "--name", "edr", "--quiet"])
    assert got.exit_code == 0, got.output
    profile = str(tmp_path / "calibration" / "edr.toml")
    for args in (["network", profile, "--pairs", "1,16", "--nodes-per-job", "2"],
                 ["predict", "npb-cg", "-m", profile, "--nodes", "1,4"],
                 ["whatif", "npb-cg", "-m", profile, "--vary", "link-speed=25Gb/s,100Gb/s",
                  "--vary", "channels=1,2", "--vary", "nodes=2,4"]):
        run = invoke_in(tmp_path, args)
        assert run.exit_code == 0, (args, run.output)


def test_ranks_per_node_places_the_pairs_of_network(tmp_path: Path) -> None:
    got = invoke_in(tmp_path, ["calibrate", str(EDR), "--nodes-per-job", "2", "--name", "e",
                               "--quiet"])
    assert got.exit_code == 0, got.output
    profile = str(tmp_path / "calibration" / "e.toml")
    shared = json.loads(invoke_in(tmp_path, ["network", profile, "--pairs", "16", "--sizes",
                                             "4MiB", "--ranks-per-node", "16", "--json"]).output)
    two = json.loads(invoke_in(tmp_path, ["network", profile, "--pairs", "16", "--sizes",
                                          "4MiB", "--nodes-per-job", "2", "--json"]).output)
    assert two["rows"] == shared["rows"]   # 32 ranks on 2 nodes: 16 to a node
    apart = json.loads(invoke_in(tmp_path, ["network", profile, "--pairs", "16", "--sizes",
                                            "4MiB", "--json"]).output)
    one_nic = shared["rows"][0]["aggregate_bandwidth"]
    assert one_nic == pytest.approx(12.4e9, rel=0.05)   # measured: 12.31–12.39 GB/s
    assert apart["rows"][0]["aggregate_bandwidth"] > 10 * one_nic
    alone = invoke_in(tmp_path, ["network", profile, "--ranks-per-node", "4"])
    assert alone.exit_code == 2 and "a rank layout places the ranks of --pairs" in alone.output
    inside = invoke_in(tmp_path, ["network", profile, "--pairs", "8", "--ranks-per-node", "32"])
    assert inside.exit_code == 2
    assert "puts the 16 ranks of 8 pairs inside one node" in inside.output


def test_ping_pongs_far_apart_say_they_may_be_two_machines(tmp_path: Path) -> None:
    """RoCE's osu_latency beside EDR's IMB PingPong (the R export), times 2-4 times apart at
    the same sizes: one table's law, and a note that they may be two machines (a ping-pong
    alone cannot tell: on one alaska partition OSU and IMB sit up to 55 % apart)."""
    roce = ROOT / "data" / "alaska" / "roce-gcc9-openmpi4-ucx" / "omb" / "Osu_latency"
    edr = ROOT / "tests" / "fixtures" / "benchmarks" / "imb_pingpong_r_export.csv"
    doc = _calibrate(tmp_path, str(roce), str(edr))
    (note,) = [n for n in doc["notes"] if n.startswith("the ping-pong tables disagree")]
    assert "as far apart as two machines' can be" in note
    assert doc["fit"]["n_points"] == 24


def test_stream_tables_of_two_networks_are_refused(tmp_path: Path) -> None:
    """EDR's folder with one RoCE osu_mbw_mr beside it: at 8 pairs and 64 KiB … 4 MiB the
    bandwidths are 2.5-4 times apart, which no repeat of one network's run is."""
    folder = tmp_path / "two"
    shutil.copytree(EDR, folder / "edr")
    roce = ROOT / "data" / "alaska" / "roce-gcc9-openmpi4-ucx" / "omb" / "Osu_mbw_mr__8"
    shutil.copytree(roce, folder / "roce8")
    got = invoke_in(tmp_path, ["calibrate", str(folder), "--nodes-per-job", "2", "--no-write"])
    assert got.exit_code == 2
    assert "times apart" in got.output and "they look like two networks" in got.output
    assert "roce8" in got.output


def test_apart_compares_each_table_with_the_others_at_the_same_sizes() -> None:
    import numpy as np

    from perfmodel.calibrate import _apart
    from perfmodel.measurements import Measurements

    m = np.array([8.0, 16.0, 32.0])

    def table(name: str, times: list[float], sizes: np.ndarray = m) -> Measurements:
        return Measurements(name, sizes, np.array(times), tuple(range(1, len(sizes) + 1)))

    a, b, c = table("a", [1, 2, 3]), table("b", [1, 2, 3]), table("c", [2, 4, 6])
    first, second = _apart([a, b, c]), _apart([a, c, b])
    assert first == pytest.approx([second[0], second[2], second[1]])   # order does not matter
    assert first[2] == pytest.approx(np.log(2.0))   # c: twice the others' times
    elsewhere = table("d", [2, 4], np.array([64.0, 128.0]))
    assert _apart([a, elsewhere]) == [0.0, 0.0]     # no size shared: nothing to compare


def test_a_walk_skips_a_file_it_cannot_use_and_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(EDR / "omb" / "Osu_latency", folder / "lat")
    fixtures = ROOT / "tests" / "fixtures" / "benchmarks"
    shutil.copy(fixtures / "stream.txt", folder / "stream-a.txt")
    shutil.copy(fixtures / "stream.txt", folder / "stream-b.txt")   # the same run twice
    doc = _calibrate(tmp_path, str(folder))
    skipped = {Path(c["path"]).name: c["said"] for c in doc["contributions"]
               if c["role"] == "skipped"}
    assert list(skipped) == ["stream-b.txt"]
    assert skipped["stream-b.txt"].startswith("is the same content as")
    with_benchmark = _calibrate(tmp_path, str(folder), "--benchmark", "latency")
    assert with_benchmark["model"] == "piecewise"
    roles = {Path(c["path"]).name: c["role"] for c in with_benchmark["contributions"]
             if c["path"].endswith(".txt")}
    # --benchmark picks the law's table; a file without it still informs the node
    assert roles == {"stream-a.txt": "node", "stream-b.txt": "skipped"}


def test_inspect_says_what_calibrate_takes_each_table_for(tmp_path: Path) -> None:
    imb = ROOT / "tests" / "fixtures" / "benchmarks" / "imb_mpi1.txt"
    mbw = next((EDR / "omb" / "Osu_mbw_mr__8").glob("*.out"))
    got = invoke_in(tmp_path, ["inspect", str(imb), str(mbw), str(HPL), "--rows", "0",
                               "--json"])
    assert got.exit_code == 0, got.output
    files = json.loads(got.output)["files"]
    uses = {t["benchmark"]: t["calibrate_informs"] for f in files for t in f["tables"]}
    assert uses["PingPong"] == "the point-to-point law"
    assert uses["Exchange"] == "nothing: an Exchange ring: fit it with --benchmark Exchange"
    assert uses["mbw_mr"].startswith("nothing: placement unknown")
    assert uses["HPL"] == "the node's flop rate (HPL)"


def test_ping_pongs_a_fifth_apart_keep_one_law_of_the_widest_table(tmp_path: Path) -> None:
    """EDR's osu_latency and its IMB PingPong (the R export) agree: one law of both.  The
    same IMB times made 20 % slower (another run, another benchmark's timing) do not: the law
    is fitted to one table alone, the other named and recorded as unused."""
    from perfmodel.readers import read

    osu = EDR / "omb" / "Osu_latency"
    imb = ROOT / "tests" / "fixtures" / "benchmarks" / "imb_pingpong_r_export.csv"
    both = _calibrate(tmp_path, str(osu), str(imb))
    assert both["fit"]["n_points"] == 48
    assert not any(n.startswith("the ping-pong tables disagree") for n in both["notes"])
    (t,) = read(imb)
    slow = tmp_path / "imb_slow.csv"
    slow.write_text("size_bytes,one_way_us\n" + "".join(
        f"{int(m)},{1.2e6 * s:.6g}\n" for m, s in zip(t.size, t.time, strict=True)))
    apart = _calibrate(tmp_path, str(osu), str(slow))
    assert apart["fit"]["n_points"] == 24
    (note,) = [n for n in apart["notes"] if n.startswith("the ping-pong tables disagree")]
    import re

    assert re.search(r"imb_slow\.csv \+(19|2[0-3])%", note), note
    used = {Path(r["path"]).name: r["rows_used"] for r in apart["inputs"]}
    assert sorted(used.values()) == [0, 24]


def test_a_profile_keeps_its_rank_layout_and_a_report_reads_the_inputs_so(
        tmp_path: Path) -> None:
    from perfmodel.machine.profile import load

    got = invoke_in(tmp_path, ["calibrate", str(EDR), "--nodes-per-job", "2", "--name", "e",
                               "--quiet"])
    assert got.exit_code == 0, got.output
    prof = load(tmp_path / "calibration" / "e.toml")
    assert prof.layout == {"nodes_per_job": 2}
    spec = tmp_path / "r.toml"
    spec.write_text('kind = "perfmodel report"\nschema_version = 1\ntitle = "EDR"\n'
                    'figures = "svg"\ntext = "x"\n[[section]]\nkind = "profile"\n'
                    'title = "The profile"\nprofile = "calibration/e.toml"\n')
    rep = invoke_in(tmp_path, ["report", str(spec), "--out", str(tmp_path / "out" / "r.md")])
    assert rep.exit_code == 0, rep.output
    text = (tmp_path / "out" / "r.md").read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and " | 32 | 1 | 1 | " in ln]
    assert rows, "the 32-pair rows the fabric was fitted to are in the report"
    assert prof.network.measured is not None
    said = "follows the measured table: the law times each size's median ratio"
    assert said in text and f"×{prof.network.measured.largest:.2f} there" in text
    bad = tmp_path / "bad.toml"
    bad.write_text((tmp_path / "calibration" / "e.toml").read_text().replace(
        "nodes_per_job = 2", "nodes_per_job = 0"))
    refused = invoke_in(tmp_path, ["network", str(bad), "--sizes", "8B"])
    assert refused.exit_code == 2 and "layout" in refused.output


def test_repeated_runs_of_one_benchmark_are_pooled_and_the_profile_follows_their_median(
        tmp_path: Path) -> None:
    """Three runs of osu_latency that sit far apart (×0.6, ×1, ×1.8: other node pairs, a noisy
    cloud), said to be repeats (--repeats): the law is fitted to all 3 × 21 rows, said, and
    inside the sizes the profile gives their median at each size — the middle run's times.
    Not said, they may be three machines: one table's law, and the note says so."""
    import numpy as np

    src = ROOT / "tests" / "fixtures" / "benchmarks" / "osu_latency.txt"
    lines = src.read_text().splitlines()
    rows = [ln.split() for ln in lines if ln and not ln.startswith("#")]
    head = [ln for ln in lines if ln.startswith("#")]
    folder = tmp_path / "runs"
    folder.mkdir()
    for i, k in enumerate((0.6, 1.0, 1.8)):
        body = [f"{s:<10}{float(t) * k:>16.2f}" for s, t in rows]
        (folder / f"osu_latency-{i}.out").write_text("\n".join(["", *head, *body]) + "\n")
    alone = _calibrate(tmp_path, str(folder))
    assert alone["fit"]["n_points"] == len(rows)
    (note,) = [n for n in alone["notes"] if n.startswith("the ping-pong tables disagree")]
    assert "--repeats if they are runs of one configuration" in note
    doc = _calibrate(tmp_path, str(folder), "--repeats")
    assert doc["fit"]["n_points"] == 3 * len(rows)
    (note,) = [n for n in doc["notes"] if n.startswith("the 3 ping-pong tables, repeats")]
    assert "fitted to all of them" in note
    got = invoke_in(tmp_path, ["calibrate", str(folder), "--repeats", "--name", "runs",
                               "--quiet"])
    assert got.exit_code == 0, got.output
    from perfmodel.machine.profile import load

    net = load(tmp_path / "calibration" / "runs.toml").network
    sizes = np.array([float(s) for s, _ in rows])
    middle = np.array([round(float(t), 2) for _, t in rows]) * 1e-6
    assert net.time(sizes) == pytest.approx(middle, rel=1e-9)


def test_a_walk_of_a_machines_folder(tmp_path: Path) -> None:
    """A machine's folder as sites keep it: ping-pongs, HPL runs of two hosts that printed the
    same line, a launch script and a README. --benchmark picks the law's table and the HPL runs
    still give the node; the second HPL run is another run, not a copy; the script and the page
    are skipped as what they are."""
    folder = tmp_path / "machine"
    shutil.copytree(EDR / "omb" / "Osu_latency", folder / "lat")
    text = HPL.read_text()
    (folder / "hpl-host1.out").write_text(text)
    (folder / "hpl-host2.out").write_text("host: cn209\n" + text)   # the same line, elsewhere
    (folder / "run.sh").write_text("#!/bin/bash\nmpirun -np 64 ./xhpl\nosu_latency > lat.out\n")
    (folder / "README.md").write_text("# Results\n\nWe ran HPL (xhpl) and OSU.\n")
    doc = _calibrate(tmp_path, str(folder), "--benchmark", "latency")
    roles = {Path(c["path"]).name: (c["role"], c["said"]) for c in doc["contributions"]
             if not c["path"].endswith(".out") or "hpl" in c["path"]}
    assert roles["hpl-host1.out"][0] == roles["hpl-host2.out"][0] == "node"
    assert roles["run.sh"] == ("skipped", "is a script, not a benchmark's output")
    assert roles["README.md"][0] == "skipped" and "is a document (.md)" in roles["README.md"][1]
    assert doc["node"] is not None and "flop_rate" in json.dumps(doc["node"])


def test_no_law_says_what_the_inputs_held(tmp_path: Path) -> None:
    folder = tmp_path / "node-only"
    folder.mkdir()
    shutil.copy(HPL, folder / "hpl.out")
    shutil.copy(ROOT / "tests" / "fixtures" / "benchmarks" / "stream.txt", folder / "stream.txt")
    (folder / "notes.txt").write_text("nothing measured here\n")
    got = invoke_in(tmp_path, ["calibrate", str(folder), "--no-write"])
    assert got.exit_code == 2 and "Traceback" not in got.output
    said = " ".join(got.output.split())
    assert ("no ping-pong table among the inputs (2 files read: of their tables 2 give the "
            "node, 3 unused; 1 skipped as no benchmark output)") in said, said


def test_the_listing_puts_the_node_runs_last(tmp_path: Path) -> None:
    """Many HPL runs fill a listing: the law's table and the files skipped come before them,
    so a listing cut short still shows why a file was not used."""
    folder = tmp_path / "machine"
    shutil.copytree(EDR / "omb" / "Osu_latency", folder / "a-lat")
    shutil.copy(HPL, folder / "b-hpl.out")
    (folder / "c-notes.txt").write_text("the cluster was busy on Tuesday\n")
    got = invoke_in(tmp_path, ["calibrate", str(folder), "--no-write"])
    assert got.exit_code == 0, got.output
    text = got.output
    listing = text[text.rindex("Inputs"):]
    assert listing.index("c-notes.txt") < listing.index("b-hpl.out")


def test_nodes_in_name_is_not_advised_once_given(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(EDR / "omb" / "Osu_latency", folder / "lat")
    shutil.copy(ROOT / "tests" / "fixtures" / "benchmarks" / "osu_allreduce.txt",
                folder / "allreduce.txt")
    doc = _calibrate(tmp_path, str(folder), "--nodes-in-name")
    (said,) = [c["said"] for c in doc["contributions"] if "allreduce" in c["path"]]
    assert "its file's name does not say it" in said and "--nodes-in-name" not in said


def test_tables_of_one_benchmark_asked_for_by_name_that_disagree_are_said(
        tmp_path: Path) -> None:
    """Three MPI stacks' osu_get_latency (not a ping-pong, fitted when asked for by name), one
    twice as slow as the others: they are not pooled without a word."""
    lines = (ROOT / "tests" / "fixtures" / "benchmarks" / "osu_latency.txt").read_text()
    text = lines.replace("# OSU MPI Latency Test v7.4", "# OSU MPI_Get latency Test v7.4")
    folder = tmp_path / "get"
    folder.mkdir()
    for name, scale in (("a", 1.0), ("b", 1.02), ("c", 2.0)):
        rows = [ln if not ln[:1].isdigit() else
                f"{ln.split()[0]:<10}{float(ln.split()[1]) * scale:>12.2f}"
                for ln in text.splitlines()]
        (folder / f"{name}.txt").write_text("\n".join(rows) + "\n")
    doc = _calibrate(tmp_path, str(folder), "--benchmark", "get_latency")
    assert any(n.startswith("the get_latency tables disagree") for n in doc["notes"])


UNIPR = ROOT / "data" / "p2p-sixth"
SHM = UNIPR / "shm-intranode-unipr-hpc" / "imb2019.4_pingpong_1node_unipr_shm_wn11.txt"
OPA = UNIPR / "omnipath-unipr-hpc" / "imb2019.4_pingpong_2nodes_unipr_opa_wn11-12.txt"


def test_a_ping_pong_named_as_inside_one_node_does_not_make_the_networks_law(
        tmp_path: Path) -> None:
    """One cluster's IMB PingPong inside one node (shared memory, ``1node…shm``) beside one
    across two Omni-Path nodes (``2nodes``), both of 24 sizes and about twice apart: the law is
    the Omni-Path run's, whichever comes first, and the note says why.  Before, the first of
    the tables of most sizes was taken: the shared memory's."""
    folder = tmp_path / "mix"
    folder.mkdir()
    for f in (SHM, OPA):
        shutil.copy(f, folder / f.name)
    doc = _calibrate(tmp_path, str(folder))
    (note,) = [n for n in doc["notes"] if n.startswith("the ping-pong tables disagree")]
    assert f"fitted to {folder / OPA.name} alone, the one its name says ran across" in note
    assert "is named as run inside one node" in note
    alone = _calibrate(tmp_path, str(OPA))
    assert doc["parameters"] == alone["parameters"]


def test_a_law_of_shared_memory_alone_says_it_is_no_network(tmp_path: Path) -> None:
    doc = _calibrate(tmp_path, str(SHM))
    assert any("named as run inside one node: the law is of the messages between processes "
               "sharing its memory" in n for n in doc["notes"])
    assert not any("inside one node" in n for n in _calibrate(tmp_path, str(OPA))["notes"])


@pytest.mark.parametrize(("source", "said"), [
    ("osu_latency_intra-node.out", "inside"), ("runs/shm/osu_latency.out", "inside"),
    ("imb_pingpong_1node.txt", "inside"), ("same_node/osu.txt", "inside"),
    ("osu_latency_inter_node.out", "across"), ("runs/2-nodes/osu_latency", "across"),
    ("osu_latency-2n-size32-iter-0.out", "across"),
    ("interconnect/osu_latency.out", None), ("osu_latency.txt", None),
    ("intra_vs_inter/osu_latency.txt", None), ("/home/shm/runs/2nodes/osu.txt", "across"),
    ("imb_inter_numa.txt", "inside"), ("inter_socket/osu.txt", "inside"),
    ("imb_intra_group.txt", "across"), ("intra-rack/osu.txt", "across"),
    ("no_shm/osu.txt", None), ("2nodes/shm_off/osu.txt", "across"),
    ("archer2/intranode/run1/imb.txt", "inside"), ("nodes1ppn32_hpccoutf.txt", "inside"),
    ("nodes2ppn1_hpccoutf.txt", "across"), ("nodes8ppn24_hpccoutf.txt", None)])
def test_where_a_ping_pong_ran_is_read_from_whole_words_of_its_name(source: str,
                                                                     said: str | None) -> None:
    from perfmodel.choice import placement

    assert placement(source) == said


def test_a_two_size_table_named_across_beside_shared_memory_is_refused_not_pooled(
        tmp_path: Path) -> None:
    """An HPC Challenge ping-pong across two nodes (2 sizes) beside a shared-memory IMB table:
    a law of more parameters cannot be fitted to the across table alone, and the only other is
    inside one node.  Before, every table was pooled into one law, mostly shared memory's,
    without a word; now a one-line refusal names the fix, and the default (Hockney's law where
    two sizes are all) fits the across table alone."""
    folder = tmp_path / "mix"
    folder.mkdir()
    hpcc = ROOT / "data" / "pairs-hpcc" / "archer" / "archer_nodes2ppn1_hpccoutf.txt"
    shutil.copy(hpcc, folder / "hpcc_inter.txt")
    shutil.copy(SHM, folder / SHM.name)
    got = invoke_in(tmp_path, ["calibrate", str(folder), "--model", "piecewise", "--no-write"])
    assert got.exit_code == 2 and "too few for this law alone" in got.output
    assert "--model hockney" in got.output and "Traceback" not in got.output
    doc = _calibrate(tmp_path, str(folder))
    (note,) = [n for n in doc["notes"] if n.startswith("the ping-pong tables disagree")]
    assert f"fitted to {folder / 'hpcc_inter.txt'} alone, the one its name says ran across" \
        in note


def _without(tmp_path: Path, lines: tuple[str, ...], name: str) -> Path:
    """hpcc-archer.toml with its node's ``lines`` (parameter names) taken out, renamed."""
    text = (ROOT / "calibration" / "hpcc-archer.toml").read_text()
    kept = [ln for ln in text.splitlines(keepends=True)
            if not any(ln.startswith(f"{n} = ") for n in lines)]
    path = tmp_path / f"{name}.toml"
    path.write_text("".join(kept).replace('name = "hpcc-archer"', f'name = "{name}"'))
    return path


def test_a_node_of_stream_alone_runs_memory_kernels_and_refuses_arithmetic(
        tmp_path: Path) -> None:
    """On a node without a flop rate: NPB IS (no arithmetic, only memory traffic) runs; CG
    (arithmetic) is refused in one line; a machine with no node at all does not borrow it, so
    its own refusal names it; a profile with neither a flop rate nor a measured memory rate is
    refused at its file's line."""
    mem = _without(tmp_path, ("flop_rate",), "archer-mem")
    ran = invoke_in(tmp_path, ["predict", "npb-is", "-m", str(mem), "--nodes", "1,4"])
    assert ran.exit_code == 0, ran.output
    cg = invoke_in(tmp_path, ["predict", "npb-cg", "-m", str(mem), "--nodes", "1,4"])
    assert cg.exit_code == 2 and "'archer-mem' has a node without a flop rate" in cg.output
    swept = invoke_in(tmp_path, ["whatif", "npb-cg", "-m", str(mem), "--vary",
                                 f"machine={ROOT / 'calibration' / 'alaska-roce.toml'}",
                                 "--vary", "nodes=1,4"])
    assert swept.exit_code == 2 and "'alaska-roce' has no [node]" in swept.output
    bare = _without(tmp_path, ("flop_rate", "memory_bandwidth", "memory_domain",
                               "domain_bandwidth", "cache_line"), "bare")
    got = invoke_in(tmp_path, ["predict", "--fit", str(ROOT / "data" / "pairs" /
                                                     "gromacs-1400k-archer.csv"),
                               "-m", str(bare), "--on",
                               str(ROOT / "calibration" / "hpcc-csd3skylake.toml")])
    assert got.exit_code == 2, got.output
    assert "bare.toml:" in got.output and "no flop_rate and no measured memory" in got.output
    assert "Traceback" not in got.output


def test_a_spec_may_give_a_node_of_memory_rates_alone(tmp_path: Path) -> None:
    """A spec's [node] with memory_bandwidth and no flop_rate gives a node without a flop
    rate; with neither, the spec is refused at its [node] line."""
    base = (ROOT / "data" / "seeds" / "beowulf-1995-ethernet.spec.toml").read_text()
    head = base.split("\n[node")[0]
    spec = tmp_path / "mem.spec.toml"
    spec.write_text(head + '\n[node.params.memory_bandwidth]\nvalue = "1.2GB/s"\n'
                    'source = "a STREAM Triad run"\n')
    got = invoke_in(tmp_path, ["calibrate", str(ROOT / "data" / "seeds" /
                                                "beowulf-1995-ethernet.csv"),
                               "--spec", str(spec), "--no-write", "--json"])
    assert got.exit_code == 0, got.output
    node = {p["name"]: p for p in json.loads(got.output)["node"]}
    assert "flop_rate" not in node and node["memory_bandwidth"]["value"] == 1.2e9
    spec.write_text(head + '\n[node.params.cache_line]\nvalue = "64B"\nsource = "x"\n')
    bad = invoke_in(tmp_path, ["calibrate", str(ROOT / "data" / "seeds" /
                                                "beowulf-1995-ethernet.csv"),
                               "--spec", str(spec), "--no-write"])
    assert bad.exit_code == 2 and "node has no flop_rate" in bad.output
