"""netgauge (LogGP) and mpptest outputs as the tools wrote them: real public files (see
tests/fixtures/benchmarks/public/PROVENANCE.md) read back at known rows, their messy lines
said in notes, their sniffers kept apart from every other format, and damaged files refused
in one line through the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfmodel.measurements import Measurements
from perfmodel.readers import FALLBACKS, REGISTRY, mpptest, netgauge, read, sniff
from tests.conftest import invoke_in

FIX = Path(__file__).parent / "fixtures" / "benchmarks"
PUBLIC = FIX / "public"
US = 1e-6
NEW = (netgauge.NAME, mpptest.NAME)


def _one(name: str) -> Measurements:
    tables = read(PUBLIC / name)
    assert len(tables) == 1, [t.label for t in tables]
    return tables[0]


def _row(t: Measurements, line: int) -> int:
    return t.line.index(line)


def _said(t: Measurements, *fragments: str) -> str:
    """The one note holding every fragment."""
    found = [n for n in t.notes if all(f in n for f in fragments)]
    assert len(found) == 1, (fragments, t.notes)
    return found[0]


# --- netgauge -------------------------------------------------------------------------------

def test_netgauge_screen_output_gives_the_loggp_time_of_its_fitted_parameters() -> None:
    t = _one("netgauge_2.4.6_loggp_ib_stdout.txt")
    assert (t.format, t.version, t.benchmark, t.pattern, t.quantity) == \
        ("netgauge", "2.4.6", "loggp", "pingpong", "one_way")
    assert len(t) == 128 and t.size[0] == 1 and t.size[-1] == 130049
    assert t.counts("processes") == (2,) and t.counts("pairs") == (1,)
    assert "o_s + (s − 1)·G + L + o_r" in t.meaning and "derived" in t.meaning
    assert "derived" in t.attrs and "-x loggp" in t.attrs["command"]
    i = _row(t, 10)   # s=1025: 0.217390 + 1024·0.000208 + 1.128100 + 0.281527 µs
    assert t.size[i] == 1025
    assert t.time[i] == pytest.approx(1.840009 * US, rel=1e-6)
    assert t.extra["G"][i] == pytest.approx(0.000208e-6, rel=1e-6)     # s per byte
    assert t.extra["L"][i] == pytest.approx(1.1281e-6, rel=1e-6)
    assert t.extra["o_r"][i] == pytest.approx(0.281527e-6, rel=1e-6)
    assert t.reps is not None and set(t.reps) == {200.0}
    # s = 1 has no G (-nan): (s − 1)·G is 0, said
    assert t.line[0] == 8 and np.isnan(t.extra["G"][0])
    assert t.time[0] == pytest.approx((0.129187 + 1.128100 + 0.171759) * US, rel=1e-6)
    _said(t, "line 8", "s = 1", "T = o_s + L + o_r")
    assert not any("left out" in n for n in t.notes)


def test_netgauge_noisy_tcp_run_says_every_row_it_leaves_out() -> None:
    t = _one("netgauge_2.4.6_loggp_tcp_en2_stdout.txt")
    assert len(t) == 90   # 133 parameter lines: 35 negative, 5 printed twice, 3 warned
    assert t.reps is not None and set(t.reps) == {100.0}
    assert t.time[0] == pytest.approx(55.464322 * US, rel=1e-6)   # line 8, s = 1
    assert "35 rows left out: a negative fitted" in _said(t, "negative fitted")
    twice = _said(t, "protocol change")
    assert twice.startswith("5 rows left out") and "lines 25, 59, 89" in twice
    assert "(lines 176, 207, 210)" in _said(t, "d < g + size·G")
    assert "lines 276, 277, 278" in _said(t, "not data skipped")     # the Slurm lines
    for gone in (12, 25, 59, 176, 276):
        assert gone not in t.line
    # s=8193 (lines 25, 26): the first line is the old fit; the second, the new one, has a
    # negative G, so the size has no row
    assert 8193 not in t.size and 26 not in t.line
    j = _row(t, 60)   # s=24577: the second of its two lines (g=226.996712), kept
    assert t.size[j] == 24577 and t.extra["g"][j] == pytest.approx(226.996712e-6, rel=1e-6)
    assert t.time[j] == pytest.approx((238.789945 + 24576 * 0.001274 + 37.689019 + 257.225639)
                                      * US, rel=1e-6)


def test_netgauge_tool_messages_are_said_not_read(tmp_path: Path) -> None:
    """Lines netgauge prints beside its rows, put into the real RDMA output where the tool
    prints them (an outlier removed, a modified netgauge's debug line, a run cut short)."""
    lines = (PUBLIC / "netgauge_2.4.6_loggp_ib_stdout.txt").read_text().splitlines(True)
    lines[10:10] = ["**** removed value 0.244 for size 1025 from gresults, lsquares was: "
                    "104.5, new lsquares: 98.9\n",
                    "n is 1, d is 0.000000, o_r is 0, s is 2049, the median latency in the "
                    "test is 4.3 (us)\n"]
    lines.append("Testing 131073 bytes 200 times:\n")
    path = tmp_path / "ng.txt"
    path.write_text("".join(lines))
    (t,) = read(path)
    assert len(t) == 128
    assert "(line 11)" in _said(t, "outlier(s) out of its g, G fit")
    assert "lines 12" in _said(t, "modified netgauge")
    _said(t, "stopped while testing 131073 bytes (line 265)")


def test_netgauge_results_file_is_the_measured_round_trip_halved() -> None:
    t = _one("netgauge_loggp_ng_out.txt")
    assert (t.benchmark, t.pattern, t.quantity, t.statistic[0] if t.statistic else None) == \
        ("loggp", "pingpong", "round_trip", "median")
    assert len(t) == 128 and t.line[0] == 4 and t.line[-1] == 131
    assert t.attrs["n"] == "10"
    # PRTT(1,0,1) / 2 is the file's own L
    assert t.time[0] == pytest.approx(2.244175 / 2 * US, rel=1e-9)
    assert t.time[0] == pytest.approx(t.extra["L"][0], rel=1e-6)
    i = _row(t, 27)   # 23553 B: PRTT(1,0,s) 10.426044 µs, G 0.000097 µs/B
    assert t.size[i] == 23553 and t.time[i] == pytest.approx(5.213022 * US, rel=1e-9)
    assert t.extra["G"][i] == pytest.approx(0.000097e-6, rel=1e-6)
    assert t.extra["o_s"][i] == pytest.approx(5.905062e-6, rel=1e-6)
    assert np.isnan(t.extra["g"][0]) and np.isnan(t.extra["G"][0])


def test_netgauge_results_file_keeps_the_second_row_of_a_protocol_change() -> None:
    t = _one("netgauge_loggp_ng_out_gdr_fork.txt")
    assert len(t) == 128   # 132 rows, 4 sizes written twice
    twice = _said(t, "protocol change")
    assert twice.startswith("4 rows left out") and "lines 11, 18, 33" in twice
    assert 11 not in t.line and 12 in t.line
    i = _row(t, 12)
    assert t.size[i] == 7169 and t.extra["g"][i] == pytest.approx(9.501985e-6, rel=1e-6)
    assert t.time[i] == pytest.approx(1299.295605 / 2 * US, rel=1e-9)
    assert "kept, their time is the measured round trip" in _said(t, "negative fitted")
    assert len(np.unique(t.size)) == len(t)


# --- mpptest --------------------------------------------------------------------------------

def test_mpptest_gnuplot_data_is_a_one_way_ping_pong_of_the_fastest_trial() -> None:
    t = _one("mpptest_1.0.5_short_data_gnuplot.txt")
    assert (t.format, t.benchmark, t.pattern, t.quantity) == \
        ("mpptest", "pair", "pingpong", "one_way")
    assert t.statistic is not None and set(t.statistic) == {"min"}
    assert len(t) == 37 and t.line[0] == 3 and t.line[-1] == 39
    assert t.size[0] == 0 and t.time[0] == pytest.approx(1790e-6, rel=1e-9)
    i = _row(t, 4)
    assert t.size[i] == 32 and t.time[i] == pytest.approx(1833.333333e-6, rel=1e-9)
    assert t.extra["rate"][i] == pytest.approx(17454.55, rel=1e-9)
    assert t.counts("pairs") == (1,) and t.attrs["ranks"] == "0 and 1 (distance 1)"
    _said(t, "rate column checked against len / the time (36 rows)")
    _said(t, "does not say the test", "assumed")


def test_mpptest_cit_output_with_two_runs_gives_two_tables() -> None:
    first, second = read(PUBLIC / "mpptest_1.0.13_sp2_short_cit.txt")
    assert (len(first), len(second)) == (47, 49)
    assert (first.attrs["lines"], second.attrs["lines"]) == ("9–56", "74–123")
    assert first.attrs["type"] == "blocking" and "9.481563e-08" in first.attrs["fit"]
    i = _row(first, 11)
    assert first.size[i] == 30 and first.time[i] == pytest.approx(97.2855e-6, rel=1e-9)
    assert second.time[-1] == pytest.approx(206.396747e-6, rel=1e-9)
    assert not any("not data" in n for n in first.notes)   # the C.It commands are the format's
    _said(first, "2 pair tables", "--benchmark picks the first")


def test_mpptest_givedy_time_is_the_mean_and_its_rate_the_fastest() -> None:
    t = _one("mpptest_givedy_pcm_np2_gnuplot.txt")
    assert t.statistic is not None and set(t.statistic) == {"mean"}
    assert "mean" in t.meaning and len(t) == 15
    i = _row(t, 17)
    assert t.size[i] == 32768
    assert t.time[i] == pytest.approx(17.650950e-6, rel=1e-9)
    assert t.extra["t_min"][i] == pytest.approx(17.368793e-6, rel=1e-9)
    assert t.extra["t_max"][i] == pytest.approx(19.500256e-6, rel=1e-9)
    assert t.extra["rate"][i] == pytest.approx(32768 / 17.368793e-6, rel=1e-6)
    _said(t, "checked against len / t_min (14 rows)")
    assert t.counts("pairs") == (1,)


def test_mpptest_bisect_rates_are_totals_over_its_pairs() -> None:
    t = _one("mpptest_givedy_bisect_np16_gnuplot.txt")
    assert (t.benchmark, t.pattern) == ("bisect", "pingpong")
    assert t.counts("pairs") == (8,) and t.counts("processes") == (16,)
    assert t.attrs["ranks"] == "0 and 15 (distance 15)"
    _said(t, "8 × len / t_min", "-bisect")
    assert t.time[_row(t, 4)] == pytest.approx(1.629797e-6, rel=1e-9)


def test_mpptest_1_2_rates_with_exponents_are_read() -> None:
    t = _one("mpptest_1.2_fast_ethernet_gnuplot.txt")
    assert t.version == "1.2.x" and len(t) == 33
    i = _row(t, 4)
    assert t.extra["rate"][i] == pytest.approx(52.551e3, rel=1e-9)
    assert t.time[i] == pytest.approx(608.930588e-6, rel=1e-9)
    assert t.extra["rate"][-1] == pytest.approx(1.331e6, rel=1e-9)
    _said(t, "checked against len / the time (32 rows)")


# --- sniffing -------------------------------------------------------------------------------

def _fixtures() -> list[Path]:
    return sorted(p for p in FIX.rglob("*") if p.is_file() and p.suffix != ".md")


def test_no_older_fixture_is_claimed_by_the_new_readers() -> None:
    older = [p for p in _fixtures() if not p.name.startswith(("netgauge_", "mpptest_"))]
    assert len(older) > 40
    for path in older:
        text = path.read_text(errors="replace")
        assert not netgauge.sniff(text), path
        assert not mpptest.sniff(text), path
        found = sniff(text)
        assert found is None or found.NAME not in NEW, path


@pytest.mark.parametrize("path", [p for p in _fixtures()
                                  if p.name.startswith(("netgauge_", "mpptest_"))],
                         ids=lambda p: p.name)
def test_new_fixtures_are_claimed_by_their_reader_only(path: Path) -> None:
    text = path.read_text()
    own = path.name.split("_")[0]
    found = sniff(text)
    assert found is REGISTRY[own]
    others = [n for n, r in REGISTRY.items()
              if n != own and n not in FALLBACKS and r.sniff(text)]
    assert others == []


# --- bad input through the command line -----------------------------------------------------

NG_HEADER = "# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G lsqu(g,G)\n"
NG_ROW = "1 10 2.244175 4.112484 23.683617 1.122088 0.137985 0.168865 -nan -nan -nan\n"
NG_SCREEN = ("Testing 1 bytes 100 times:\n"
             " L=1.128100  s=1  o_s=0.129187  o_r=0.171759  g=-nan  G=-nan (-nan GiB/s) "
             "lsqu(g,G)=-nan \n")
MPP_HEADER = "\n#p0\tp1\tdist\tlen\tave time (us)\trate\n"
MPP_ROW = "0\t1\t1\t32\t1833.333333\t17454.55\n"

BAD: dict[str, tuple[str, int, str]] = {
    "ng_screen_cut_row": (NG_SCREEN + "Testing 1025 bytes 100 times:\n L=1.128100  s=1025  "
                          "o_s=0.21\n", 4, "cut short or damaged"),
    "ng_screen_word": (NG_SCREEN.replace("o_r=0.171759", "o_r=fast"), 2,
                       "o_r='fast' is not a number"),
    "ng_screen_no_parameters": ("# Info:   (0): Netgauge v2.4.6 MPI enabled (P=2)\n"
                                "Testing 1 bytes 100 times:\n", 1, "no LogGP parameter lines"),
    "ng_banner_no_rows": ("# Info:   (0): Netgauge v2.4.6 MPI enabled (P=2, threadlevel=0) "
                          "(./netgauge -x one_one )\n16 bytes \t -> 1.50 us\n", 1,
                          "no LogGP parameter lines"),
    "ng_out_header_only": (NG_HEADER, 1, "a header and no rows"),
    "ng_out_cut_row": (NG_HEADER + NG_ROW + "1025 10 3.322662 7.057275\n", 3,
                       "has 4 of its 11 values"),
    "ng_out_garbage": (NG_HEADER + NG_ROW + "1025 10 3.3 7.0 35.1 1.12 x 0.28 0.2 0.0002 0\n",
                       3, "o_s is 'x', not a number"),
    "mpp_cut_row": (MPP_HEADER + MPP_ROW + "0\t1\t1\t64\t1880.0\n", 4, "has 5 of its 6 values"),
    "mpp_header_only": (MPP_HEADER, 2, "no data rows"),
    "mpp_garbage_after_header": (MPP_HEADER + "Segmentation fault\nhello 1 2 3\n", 2,
                                 "no data rows"),
    "mpp_word_in_row": (MPP_HEADER + MPP_ROW + "0\t1\t1\t64\tslow\t34042.55\n", 4,
                        "time is 'slow', not a number"),
    "mpp_givedy_cut": (MPP_HEADER + "0\t1\t1\t4\t1.63\t2485513.48\t1.60\t1.77\n"
                       "0\t1\t1\t8\t1.64\t4971026.96\n", 4, "has 6 of its 8 values"),
    "goptest": ("set default\n\n#np time (us) for various sizes\n2\t10.5\t11.2\n4\t20.1\t22.3\n",
                3, "goptest output"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_is_one_line_with_its_line_number(name: str, tmp_path: Path) -> None:
    text, line, fragment = BAD[name]
    path = tmp_path / f"{name}.txt"
    path.write_text(text)
    result = invoke_in(tmp_path, ["inspect", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 2, (result.stdout, result.stderr)
    (msg,) = result.stderr.strip().splitlines()
    assert msg.startswith(f"error: {path}:{line}: "), msg
    assert fragment in msg and " — " in msg, msg
    assert "Traceback" not in result.stdout + result.stderr


# --- calibrate ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["netgauge_loggp_ng_out.txt",
                                  "mpptest_1.0.5_short_data_gnuplot.txt",
                                  "mpptest_1.0.13_sp2_short_cit.txt"])
def test_calibrate_fits_a_ping_pong_law(name: str, tmp_path: Path) -> None:
    path = PUBLIC / name
    result = invoke_in(tmp_path, ["calibrate", str(path), "--no-write"],
                       env={"COLUMNS": "200"})
    assert result.exit_code == 0, (result.stdout, result.stderr)
    said = " ".join(result.stdout.split())
    fmt = name.split("_")[0]
    assert f": used {fmt} " in said, said
    assert list(tmp_path.iterdir()) == []
    from perfmodel.calibrate import calibrate

    fit = calibrate([path], name="t")
    best = fit.selection.best
    assert best.data.pattern == "pingpong" and best.median_rel_err < 0.05
    small = float(np.median(best.data.time[np.argsort(best.data.size)[:3]]))
    assert 0.5 < best.fitted[int(np.argmin(best.data.size))] / small < 2


def test_a_bisection_run_is_not_a_single_pair_ping_pong(tmp_path: Path) -> None:
    path = PUBLIC / "mpptest_givedy_bisect_np16_gnuplot.txt"
    result = invoke_in(tmp_path, ["calibrate", str(path), "--no-write"],
                       env={"COLUMNS": "200"})
    assert result.exit_code == 2
    assert "no single-stream rows (pairs = 8)" in result.stderr
