import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfmodel.errors import UnitError
from perfmodel.units import (
    format_rate,
    format_size,
    format_time,
    parse_list,
    parse_rate,
    parse_size,
    parse_time,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("10Mbps", 1.25e6), ("100Mb/s", 12.5e6), ("1GbE", 125e6), ("10GbE", 1.25e9),
    ("12.5GB/s", 12.5e9), ("1.25MB/s", 1.25e6), ("1.25 MBps", 1.25e6), ("8MiB/s", 8 * 2**20),
    ("1Gbit/s", 125e6), ("5.33Gb/s", 5.33e9 / 8), ("100 B/s", 100.0), ("2.5kB/s", 2500.0),
])
def test_rates_bits_and_bytes(text: str, expected: float) -> None:
    assert parse_rate(text) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("text", "expected"), [
    ("8KiB", 8192), ("4K", 4000), ("4KB", 4000), ("4kB", 4000), ("1MiB", 2**20), ("1MB", 1e6),
    ("512B", 512), ("512", 512), ("0", 0), ("1GiB", 2**30), ("8Kib", 1024), ("64b", 8),
    ("1e3", 1000), (" 2 KiB ", 2048),
])
def test_sizes_prefixes_as_written(text: str, expected: float) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("2us", 2e-6), ("2µs", 2e-6), ("2μs", 2e-6), ("1.5ms", 1.5e-3), ("3s", 3.0), ("10ns", 1e-8),
    ("2 usec", 2e-6), ("1min", 60.0),
])
def test_times(text: str, expected: float) -> None:
    assert parse_time(text) == pytest.approx(expected)


@pytest.mark.parametrize(("parser", "text", "fragment"), [
    (parse_rate, "10mbps", "milli"),       # lower-case m is milli, never mega
    (parse_rate, "10", "no unit"),         # a bare rate is ambiguous
    (parse_time, "2", "no unit"),
    (parse_rate, "10 furlongs", "unknown rate unit"),
    (parse_size, "8 KIB", "unknown size unit"),
    (parse_time, "2 parsecs", "unknown time unit"),
    (parse_size, "abc", "cannot read"),
    (parse_size, "", "cannot read"),
    (parse_rate, "1gbps", "did you mean 'Gbps'"),
    (parse_size, "1e400", "not a finite"),
])
def test_bad_units_say_what_and_how(parser, text: str, fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UnitError) as info:
        parser(text)
    assert fragment in info.value.one_line()
    assert info.value.fix  # every refusal says how to write it


def test_pint_traps_are_not_ours() -> None:
    # pint reads Gb as gilbert and Mbps as megabaud; we read bits per second
    assert parse_rate("1Gb/s") == 1e9 / 8
    assert parse_rate("100Mbps") == 100e6 / 8


def test_list() -> None:
    assert parse_list("1B,8KiB, 1MiB", "size") == [1.0, 8192.0, 2.0**20]
    with pytest.raises(UnitError):
        parse_list(" , ", "size")


def test_formatting_rounds_before_choosing_a_prefix() -> None:
    assert format_rate(999_999.99) == "1 MB/s"
    assert format_time(0.000999999) == "1 ms"
    assert format_time(2e-6) == "2 µs"
    assert format_size(8192) == "8 KiB"
    assert format_size(1000) == "1000 B"
    assert format_rate(math.nan) == "—"


@given(st.floats(min_value=1e-3, max_value=1e12, allow_nan=False),
       st.sampled_from(["B", "KiB", "MB", "GiB", "kB"]))
def test_size_round_trip(value: float, unit: str) -> None:
    factor = {"B": 1, "KiB": 1024, "MB": 1e6, "GiB": 2**30, "kB": 1e3}[unit]
    assert parse_size(f"{value!r}{unit}") == pytest.approx(value * factor, rel=1e-12)


@given(st.text(max_size=12))
def test_parsers_never_crash(text: str) -> None:
    for parser in (parse_size, parse_time, parse_rate):
        try:
            v = parser(text)
        except UnitError:
            continue
        assert math.isfinite(v)
