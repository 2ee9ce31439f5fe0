"""Documentation of the Python package: every public class and function has a numpy-style
docstring with an example, the examples run (doctest), and the type hints resolve."""

import doctest
import inspect
import typing

import pytest

import compclust
from compclust import _datasets, _estimators, _input, _overlap, _score, datasets, distributed, metrics

MODULES = [compclust, _estimators, _overlap, _input, _datasets, _score, distributed, metrics]


def _public():
    seen = {}
    for mod in (compclust, datasets, distributed, metrics, _input):
        for name in getattr(mod, "__all__", None) or dir(mod):
            obj = getattr(mod, name)
            if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("compclust"):
                continue
            seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
            if inspect.isclass(obj):
                for m, f in vars(obj).items():
                    if inspect.isfunction(f) and not m.startswith("_"):
                        seen[f"{obj.__module__}.{f.__qualname__}"] = f
    return seen


PUBLIC = _public()


def test_public_api_is_listed():
    assert {"AddSClustering", "ComparisonHierarchy", "OverlapClustering", "TSTE"} <= set(compclust.__all__)
    for name in ("load_mnist_tsne", "load_zoo", "load_car", "load_food", "make_planted", "make_comparisons"):
        assert any(k.endswith(f"datasets.{name}") for k in PUBLIC), name


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_docstring_has_example(qualname):
    doc = inspect.getdoc(PUBLIC[qualname]) or ""
    assert "Examples\n--------" in doc and ">>>" in doc, qualname
    if inspect.isclass(PUBLIC[qualname]):
        assert "Parameters\n----------" in doc, qualname


@pytest.mark.parametrize("qualname", sorted(PUBLIC))
def test_type_hints_resolve(qualname):
    obj = PUBLIC[qualname]
    target = obj.__init__ if inspect.isclass(obj) else obj
    hints = typing.get_type_hints(target)
    params = [p for p in inspect.signature(target).parameters if p not in ("self", "kwargs")]
    assert set(params) <= set(hints), (qualname, set(params) - set(hints))
    assert "return" in hints, qualname


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_doctests(mod):
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0
    assert res.attempted > 0
