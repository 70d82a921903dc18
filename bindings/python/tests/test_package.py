"""The package itself: one abi3 extension, typed, and documented everywhere."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import toolgate
import toolgate._native as native
import toolgate.claude
import toolgate.mcp
import toolgate.openai_agents

PACKAGE = Path(toolgate.__file__).parent


def test_the_extension_is_one_abi3_module():
    assert Path(native.__file__).name.endswith(".abi3.so")


def test_typed():
    assert (PACKAGE / "py.typed").is_file()
    stub = ast.parse((PACKAGE / "_native.pyi").read_text())
    declared = {n.name for n in stub.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    declared |= {t.id for n in stub.body if isinstance(n, ast.AnnAssign) for t in [n.target] if isinstance(t, ast.Name)}
    public = {n for n in dir(native) if not n.startswith("_")}
    assert public <= declared, public - declared


def test_everything_public_has_a_docstring():
    missing = []
    for module in (toolgate, toolgate.claude, toolgate.mcp, toolgate.openai_agents):
        assert module.__doc__, module.__name__
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or callable(obj)):
                continue
            if not (obj.__doc__ or "").strip():
                missing.append(f"{module.__name__}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if not (getattr(member, "__doc__", None) or "").strip():
                        missing.append(f"{module.__name__}.{name}.{attr}")
    assert missing == []


def test_all_names_exist():
    for name in toolgate.__all__:
        assert hasattr(toolgate, name), name
