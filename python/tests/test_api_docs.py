"""The API is documented three times over: docstrings (help()), the type stubs
(python/gdstudio.pyi, for editors and type checkers) and docs/python.md. These tests
keep the three equal to what the module defines."""

import ast
import inspect

import gdstudio as gd

from conftest import SOURCE_DIR

STUB = SOURCE_DIR / "python" / "gdstudio.pyi"
DOC = SOURCE_DIR / "docs" / "python.md"


def public_names(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def stub_tree():
    return ast.parse(STUB.read_text())


def stub_top_level():
    names = set()
    for node in stub_tree().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return names


def stub_class(name):
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise AssertionError(f"{name} is not in {STUB}")


def test_stub_declares_exactly_the_module():
    module = public_names(gd) | {"__version__"}
    # The stub's own type aliases are not module attributes.
    aliases = {"PathLike", "Shape", "Sample", "Progress"}
    assert stub_top_level() - aliases - {"__version__"} == module - {"__version__"}


def test_stub_declares_every_model_member_and_record_field():
    model_members = {n.name for n in stub_class("Model").body if isinstance(n, ast.FunctionDef)}
    assert public_names(gd.Model) <= model_members | {"_repr_html_"}
    assert {"_repr_html_"} <= model_members
    for name in public_names(gd):
        obj = getattr(gd, name)
        if isinstance(obj, type) and issubclass(obj, tuple):
            fields = [n.target.id for n in stub_class(name).body if isinstance(n, ast.AnnAssign)]
            assert fields == list(obj._fields), name


def test_stub_signatures_match_the_functions():
    # pybind11 puts "name(arg: type = default, ...) -> result" first in each docstring.
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            doc = getattr(gd, node.name).__doc__
            stub_args = [a.arg for a in node.args.args]
            first = doc.splitlines()[0]
            module_args = [p.split(":")[0].strip() for p in first[first.index("(") + 1:first.index(")")].split(",")
                           if p.strip()]
            assert module_args == stub_args, node.name


def test_everything_has_a_docstring():
    assert gd.__doc__
    for name in public_names(gd):
        obj = getattr(gd, name)
        assert inspect.getdoc(obj), name
    for name in public_names(gd.Model):
        assert inspect.getdoc(getattr(gd.Model, name)), f"Model.{name}"


def test_the_python_page_names_everything():
    text = DOC.read_text()
    for name in public_names(gd):
        assert f"`{name}" in text or f"gd.{name}" in text, f"{name} is missing from {DOC}"
    for name in public_names(gd.Model):
        assert f".{name}" in text, f"Model.{name} is missing from {DOC}"


def test_errors_form_one_hierarchy():
    for name in ("LoadError", "SaveError", "TransformError", "FreezeError", "RunError", "ConvertError",
                 "RenderError", "ArgumentError"):
        cls = getattr(gd, name)
        assert issubclass(cls, gd.Error) and cls.__module__ == "gdstudio", name
    assert issubclass(gd.ArgumentError, ValueError)
    assert not issubclass(gd.RunError, ValueError)
