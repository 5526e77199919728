"""The expression language of model files: what it accepts, what it refuses, and that
refusing runs nothing."""

from __future__ import annotations

import builtins
import contextlib
from pathlib import Path
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfmodel.apps.expr import Binary, Call, Name, Num, names_in, parse, to_sympy
from perfmodel.errors import InputError

NAMES = {"a", "b", "p", "n"}
SYM = {k: sympy.Symbol(k, positive=True) for k in NAMES}


@pytest.mark.parametrize(("text", "expected"), [
    ("a + b", "a + b"),
    ("2*a^2", "2*a**2"),
    ("2*a**2", "2*a**2"),
    ("-a - -b", "-a + b"),
    ("a / p + n * log2(p)", "a/p + n*log(p)/log(2)"),
    ("2^3^2", "512"),                       # right-associative
    ("max(a, b, 1) + min(a, b)", "Max(1, a, b) + Min(a, b)"),
    ("sqrt(n) * ceil(n / p) + floor(1.5) + abs(-a) + exp(0) + log10(100)",
     "a + sqrt(n)*ceiling(n/p) + 1 + 1 + 2"),
    ("1e-6 + .5", "0.500001000000000"),
])
def test_accepted_formulas_become_sympy(text: str, expected: str) -> None:
    got = to_sympy(parse(text, NAMES), SYM)
    assert sympy.simplify(got - sympy.sympify(expected, locals=SYM)) == 0


def test_tree_and_names() -> None:
    tree = parse("a + 2*f(b)", NAMES, functions={"f": (1, 1)})
    assert tree == Binary("+", Name("a"), Binary("*", Num(2.0), Call("f", (Name("b"),))))
    assert names_in(tree) == {"a", "b"}


@pytest.mark.parametrize(("text", "fragment"), [
    ('__import__("os").system("true")', "not allowed"),
    ("__import__(1)", "'__import__' is not allowed"),
    ("a.__class__", "attribute access"),
    ("a[0]", "indexing"),
    ("'text'", "text is not part"),
    ("lambda: 1", "':' is not allowed"),
    ("[x for x in a]", "indexing"),
    ("a if b else p", "unexpected 'if'"),
    ("open(a)", "unknown function 'open'"),
    ("eval(a)", "unknown function 'eval'"),
    ("zz + 1", "unknown name 'zz'"),
    ("log", "log is a function"),
    ("log(a, b)", "takes 1 argument"),
    ("max(a)", "takes 2 to 8 arguments"),
    ("2^1000", "exponent 1000 is too large"),
    ("9^9^9", "exponent"),
    ("2^(2^(2^10))", "exponent"),
    ("((2^64)^64)^64", "constant power is too large"),
    ("1e999", "too large"),
    ("(((a", "missing ')'"),
    ("a +", "ends too early"),
    ("a b", "unexpected 'b'"),
    ("", "empty"),
    ("(" * 200 + "a" + ")" * 200, "nesting deeper"),
    ("-" * 500 + "a", "too many signs"),
    ("a" * 3000, "characters long"),
    ("a ; b", "';' is not allowed"),
    ("a\nb", "'\\n' is not allowed"),
])
def test_refused_with_one_clear_line(text: str, fragment: str) -> None:
    with pytest.raises(InputError) as exc:
        parse(text, NAMES, where="parts.I.compute")
    message = str(exc.value)
    assert fragment in message and "\n" not in message.replace("'\\n'", "")
    assert message.startswith("parts.I.compute")


def test_refusing_hostile_formulas_runs_nothing(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither eval, exec nor __import__ is reached, and the file the formulas try to create
    never appears."""
    sentinel = tmp_path / "ran"
    called: list[str] = []
    real_import = builtins.__import__

    def spy(name: str) -> Any:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            called.append(name)
            raise AssertionError(f"{name} was called")
        return refuse

    monkeypatch.setattr(builtins, "eval", spy("eval"))
    monkeypatch.setattr(builtins, "exec", spy("exec"))
    hostile = [f'__import__("os").system("touch {sentinel}")',
               f'open("{sentinel}", "w")', "exec('1')", "eval('1')",
               "(lambda: 1)()", "a.__globals__", "[].__class__.__base__"]

    def guarded_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in ("os", "subprocess"):
            called.append(f"import {name}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded_import)
    for text in hostile:
        with pytest.raises(InputError):
            parse(text, NAMES)
    assert called == [] and not sentinel.exists()


@settings(max_examples=400, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab pn0123456789.eE+-*/^(),_ lgmaxsqrt\t")),
               max_size=60))
def test_fuzz_only_input_errors(text: str) -> None:
    try:
        tree = parse(text, NAMES)
    except InputError:
        return
    to_sympy(tree, SYM)  # a tree the parser accepts always converts


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(max_size=80))
def test_fuzz_any_text(text: str) -> None:
    with contextlib.suppress(InputError):
        parse(text, NAMES)
