"""Where a key of a TOML file is written, for error messages (perfmodel.files.toml)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from perfmodel.files.toml import key_line

TEXT = '''# comment = 1
kind = "x"
text = """
[not.a.table]
fake = 1
"""
cov = [
    [1, 2],
    [3, 4]
]

[network]
model = "hockney"   # trailing comment

[network.params]
alpha = { value = 1.0, unit = "s" }
"dotted key" = 2
a.b = 3

[[inputs]]
path = "one"

[[inputs]]
path = "two"
'''


def test_keys_tables_and_inline_tables_are_found_on_their_lines() -> None:
    assert key_line(TEXT, "kind") == 2
    assert key_line(TEXT, "cov") == 7
    assert key_line(TEXT, "network") == 12
    assert key_line(TEXT, "network.model") == 13
    assert key_line(TEXT, "network.params.alpha.unit") == 16
    assert key_line(TEXT, "network.params.dotted key") == 17
    assert key_line(TEXT, "network.params.a.b") == 18
    assert key_line(TEXT, "inputs[0].path") == 21
    assert key_line(TEXT, "inputs[1].path") == 24


def test_strings_and_arrays_over_several_lines_hide_what_they_hold() -> None:
    assert key_line(TEXT, "not.a.table") is None
    assert key_line(TEXT, "fake") is None
    assert key_line(TEXT, "3, 4") is None


def test_a_missing_key_falls_back_to_its_table() -> None:
    assert key_line(TEXT, "network.params.beta.value") == 15
    assert key_line(TEXT, "inputs[1].rows") == 23
    assert key_line(TEXT, "schema_version") is None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=300), st.text(max_size=30))
def test_any_text_gives_a_line_of_it_or_none(text: str, key: str) -> None:
    line = key_line(text, key)
    assert line is None or 1 <= line <= len(text.splitlines())


def test_escaped_backslashes_and_strings_in_arrays_do_not_hide_later_keys() -> None:
    text = ('comments = ["copied from C:\\\\runs\\\\", "a \\"quoted\\" word [x"]\n'
            'notes = ["""two\nlines""", "c"]\n'
            'tail = "# not a comment"\n'
            '[network]\n'
            'model = "magic"\n')
    assert key_line(text, "tail") == 4
    assert key_line(text, "network.model") == 6


def test_tables_under_arrays_of_tables_take_their_element() -> None:
    text = ("[[section]]\nkind = 'a'\n[section.opts]\nx = 1\n[[section.run]]\nlabel = 'r0'\n"
            "[[section]]\nkind = 'b'\n[section.opts]\nx = 2\n[[section.run]]\nlabel = 'r1'\n"
            "[[section.run]]\nlabel = 'r2'\n")
    assert key_line(text, "section[0].opts.x") == 4
    assert key_line(text, "section[1].opts.x") == 10
    assert key_line(text, "section[0].run[0].label") == 6
    assert key_line(text, "section[1].run[0].label") == 12
    assert key_line(text, "section[1].run[1].label") == 14
