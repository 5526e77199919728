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
    """The parser itself calls neither eval, exec nor __import__ of os or subprocess, and
    the file the formulas try to create never appears.  (Accepted formulas are compiled by
    SymPy's lambdify, which execs code it generates from the checked tree only.)"""
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


HEAD = 'kind = "perfmodel application model"\nschema_version = 1\nname = "t"\n' \
       '[params.a]\nunit = "s"\ndescription = "x"\n'


@settings(max_examples=300, derandomize=True, deadline=2000,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([*"a p0123456789.+-*/^(),", "log2(", "sqrt(", "max(", "min(",
                                 "exp(", "floor("]), max_size=30).map("".join))
def test_fuzz_formulas_through_compile_and_evaluate(text: str) -> None:
    """Any formula a model file accepts compiles and evaluates quickly (deadline 2 s) to
    finite numbers, NaN or inf, never an exception other than InputError."""
    import numpy as np

    from perfmodel.apps.model_file import loads

    body = HEAD + f'[parts.x]\ncompute = "{text} + a"\n'
    try:
        model = loads(body)
        got = model.part_times(np.array([1.0, 2.0, 3.0, 64.0]), {"a": 1.5})["x"]
    except InputError:
        return
    assert got.shape == (4,) and got.dtype == np.float64


@pytest.mark.parametrize(("formula", "fragment"), [
    ("1/0*a", "infinite or too large"),
    ("log(0)*a", "infinite or too large"),
    ("(-8)^(1/3)*a", "not a real number"),
    ("10^64*10^64*10^64*10^64*10^64*a", "infinite or too large"),
    ("floor(exp(exp(20)))*a", "infinite or too large"),
])
def test_bad_constants_are_refused(formula: str, fragment: str) -> None:
    with pytest.raises(InputError, match=fragment):
        parse(formula, NAMES)


def test_formulas_that_would_make_sympy_expand_stay_as_written() -> None:
    """Nested powers and continued fractions compile without SymPy simplifying them (which
    took minutes and hundreds of MB before)."""
    import numpy as np

    from perfmodel.apps.model_file import loads

    nested = "(1+" * 18 + "p" + ")^2" * 18 + " + a"
    fraction = "a/(1+" * 45 + "a" + ")" * 45
    for formula in (nested, fraction, "max(a, p) + min(a, 1)"):
        model = loads(HEAD + f'[parts.x]\ncompute = "{formula}"\n')
        got = model.part_times(np.array([1.0, 2.0]), {"a": 1.0})["x"]
        assert got.shape == (2,)
    model = loads(HEAD + '[parts.x]\ncompute = "max(a, p) + min(a, 1)"\n')
    np.testing.assert_allclose(model.part_times(np.array([1.0, 4.0]), {"a": 2.0})["x"],
                               [3.0, 5.0])


_LEAF = st.sampled_from(["a", "p", "2", "0.5", "3e2", "1e-3", "64"])
_FORMULA = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "^"]), inner)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["log", "log2", "sqrt", "exp", "ceil", "floor", "abs", "-"]),
                  inner).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["max", "min"]), inner, inner)
        .map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
    ),
    max_leaves=24,
)


@settings(max_examples=250, derandomize=True, deadline=3000,
          suppress_health_check=[HealthCheck.too_slow])
@given(_FORMULA)
def test_fuzz_well_formed_formulas_compile_and_evaluate(text: str) -> None:
    """Well-formed formulas (nested operators and functions, up to 24 leaves): each is
    refused with an InputError (a bad constant) or compiles and evaluates within 3 s."""
    import numpy as np

    from perfmodel.apps.model_file import loads

    try:
        model = loads(HEAD + f'[parts.x]\ncompute = "{text} + a"\n')
    except InputError:
        return
    got = model.part_times(np.array([1.0, 2.0, 3.0, 64.0]), {"a": 1.5})["x"]
    assert got.shape == (4,) and got.dtype == np.float64


def test_powers_of_whole_numbers_and_of_zero_evaluate_as_floats() -> None:
    """Found by the fuzz test above: ``300^64`` compiled to a 159-digit Python integer NumPy
    could not hold, and ``(a - a)^-2`` raised ZeroDivisionError on Python floats; both are
    numbers (3.4e158, inf), and the formula as written (for reports) keeps its integers."""
    import numpy as np

    from perfmodel.apps.model_file import loads

    model = loads(HEAD + '[parts.x]\ncompute = "max(3e2 ^ 64, p) + a"\n')
    got = model.part_times(np.array([1.0, 2.0]), {"a": 1.5})["x"]
    np.testing.assert_allclose(got, 300.0 ** 64, rtol=1e-12)
    assert "300**64" in str(model.symbolic[("x", "compute")]).replace(" ", "")
    model = loads(HEAD + '[parts.x]\ncompute = "max(2, (a - a) ^ (0.5 - 3)) + a"\n')
    assert np.all(np.isinf(model.part_times(np.array([1.0, 2.0]), {"a": 1.5})["x"]))
