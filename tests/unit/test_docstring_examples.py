"""The worked examples in explorer's docstrings (`>>>`) run and print what they say."""

import doctest
import importlib
import pkgutil

import pytest

import explorer


def modules_with_examples() -> list[str]:
    names = []
    for module in pkgutil.walk_packages(explorer.__path__, "explorer."):
        if module.name.endswith("__main__"):  # runs the command line when imported
            continue
        finder = doctest.DocTestFinder()
        if any(test.examples for test in finder.find(importlib.import_module(module.name))):
            names.append(module.name)
    return names


MODULES = modules_with_examples()


def test_there_are_examples_to_run():
    assert len(MODULES) >= 5, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name), report=True)
    assert result.attempted > 0 and result.failed == 0
