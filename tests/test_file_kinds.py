"""A file of the wrong kind is named as what it is, with the command that takes it.

The corpus is ``tests/fixtures/bad/wrong_kinds``: benchmark outputs, a timings CSV, a
measurement CSV, each of perfmodel's own TOML kinds and a pickle.  Each is given to every
command that reads another kind (:data:`COMMANDS`); the refusal is one line naming the file,
what it is (:data:`KINDS`) and what was wanted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfmodel.errors import InputError
from perfmodel.files.kinds import identify, wrong_kind
from perfmodel.kinds import binary_kind
from tests.conftest import invoke_in

HERE = Path(__file__).parent / "fixtures" / "bad" / "wrong_kinds"
TOY = str(HERE.parent / "models" / "ok_model.toml")

# file -> (its key, how it is named, a fragment of the command that takes it)
KINDS: dict[str, tuple[str, str, str]] = {
    "osu_latency.txt": ("measurements", "an OSU latency output", "perfmodel calibrate"),
    "imb_mpi1.txt": ("measurements", "an IMB output (PingPong, PingPing", "perfmodel calibrate"),
    "netperf_tcp_rr.txt": ("measurements", "a netperf TCP_RR output", "perfmodel calibrate"),
    "npb_result.txt": ("measurements", "an NPB MG result", "perfmodel scaling"),
    "stream.txt": ("measurements", "a STREAM output", "perfmodel inspect"),
    "pingpong.csv": ("measurements", "a perfmodel CSV of pingpong measurements",
                     "perfmodel calibrate"),
    "timings.csv": ("timings", "a timings CSV", "--fit"),
    "profile.toml": ("profile", "a perfmodel machine profile", "perfmodel network"),
    "spec.toml": ("spec", "a perfmodel network spec", "--spec"),
    "model.toml": ("model", "a perfmodel application model", "perfmodel predict"),
    "saved_fit.toml": ("fit", "a saved application fit", "--from"),
    "catalogue.toml": ("catalogue", "a perfmodel hardware catalogue", "--candidates"),
    "report.toml": ("report", "a perfmodel report specification", "perfmodel report"),
}

# the key of what a command wants -> (the command, "{}" the file; what its error says is wanted)
COMMANDS: dict[str, tuple[list[str], str]] = {
    "profile": (["network", "{}"], "not a machine profile"),
    "spec": (["calibrate", str(HERE / "pingpong.csv"), "--spec", "{}", "--no-write"],
             "not a network spec"),
    "model": (["predict", "{}"], "not an application model"),
    "fit": (["predict", TOY, "--from", "{}"], "not an application fit"),
    "timings": (["predict", TOY, "--fit", "{}"], "not a timings CSV"),
    "catalogue": (["whatif", TOY, "-m", str(HERE / "profile.toml"), "--set", "work=10",
                   "--set", "hop=0.01", "--candidates", "{}", "--vary", "nodes=1,2"],
                  "not a hardware catalogue"),
    # report takes a specification or profiles: other TOML is read as a profile
    "report": (["report", "{}", "--out", "r.md"], "a machine profile"),
    "measurements": (["calibrate", "{}", "--no-write"], "not a measurement file"),
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_file_is_named_as_what_it_is(name: str) -> None:
    key, noun, fix = KINDS[name]
    path = HERE / name
    found = identify(path.read_text(encoding="utf-8"), path)
    assert found is not None
    assert (found.key, found.noun[:len(noun)]) == (key, noun)
    assert fix in found.advice(path) and str(path) in found.advice(path)


def test_every_file_of_the_corpus_is_in_the_table() -> None:
    assert {p.name for p in HERE.iterdir()} == set(KINDS) | {"pickle.toml"}


def _run(args: list[str], cwd: Path) -> tuple[int, str]:
    result = invoke_in(cwd, args)
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("want", "name"), [
    (w, n) for w in sorted(COMMANDS) for n in sorted(KINDS)
    if KINDS[n][0] != w and (w, KINDS[n][0]) != ("report", "profile")])
def test_a_command_given_another_kind_says_what_it_is(want: str, name: str,
                                                      tmp_path: Path) -> None:
    args, wanted = COMMANDS[want]
    path = HERE / name
    code, err = _run([a.replace("{}", str(path)) for a in args], tmp_path)
    _, noun, fix = KINDS[name]
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"error: {path}"), err
    assert f"this is {noun}" in lines[0] and wanted in lines[0], err
    assert " — " in lines[0] and fix in lines[0].split(" — ", 1)[1], err
    assert list(tmp_path.iterdir()) == [], "nothing may be written"


@pytest.mark.parametrize("want", sorted(set(COMMANDS) - {"measurements", "timings"}))
def test_a_pickle_is_refused_as_binary_and_named(want: str, tmp_path: Path) -> None:
    args, _ = COMMANDS[want]
    path = HERE / "pickle.toml"
    code, err = _run([a.replace("{}", str(path)) for a in args], tmp_path)
    assert code == 2 and "is binary, not text (a Python pickle)" in err, err


def test_binary_kinds_by_their_first_bytes() -> None:
    assert binary_kind(b"\x80\x04\x95") == "a Python pickle"
    assert binary_kind(b"\x89PNG\r\n") == "a PNG image"
    assert binary_kind(b"kind = 1") == ""


def test_a_broken_file_of_the_wanted_kind_keeps_its_own_error() -> None:
    text = 'kind = "perfmodel machine profile"\nschema_version = = 1\n'
    assert wrong_kind("p.toml", text, "profile") is None
    assert isinstance(wrong_kind("p.toml", text, "spec"), InputError)


def test_text_of_no_known_kind_is_not_named() -> None:
    assert identify("hello world\nthis is prose\n") is None
    assert identify("a,b\n1,2\n") is None   # a CSV, but of nothing perfmodel reads


def test_the_message_names_the_file_and_the_command(tmp_path: Path) -> None:
    path = tmp_path / "osu_latency.out"
    path.write_text((HERE / "osu_latency.txt").read_text(encoding="utf-8"), encoding="utf-8")
    code, err = _run(["network", str(path)], tmp_path)
    assert code == 2
    assert err.strip() == (f"error: {path}: this is an OSU latency output, not a "
                           f"machine profile — calibrate it first: perfmodel calibrate {path}")
