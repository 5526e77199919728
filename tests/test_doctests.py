"""The examples in the package's docstrings run, as STYLE.md asks ("examples that run as
doctests"): every module of perfmodel, each as one test. Examples compare rounded numbers,
never the last digit of a float."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import perfmodel

# perfmodel.__main__ runs the command line when imported: it has nothing to test
MODULES = sorted(m.name for m in pkgutil.walk_packages(perfmodel.__path__, "perfmodel.")
                 if m.name != "perfmodel.__main__")


def test_the_package_has_modules_with_examples() -> None:
    finder = doctest.DocTestFinder()
    with_examples = [name for name in MODULES
                     if any(t.examples for t in finder.find(importlib.import_module(name)))]
    assert len(with_examples) >= 10, with_examples


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False, report=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
