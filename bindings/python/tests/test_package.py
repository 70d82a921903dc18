"""The package itself: one abi3 extension, typed, and documented everywhere."""

from __future__ import annotations

import ast
import inspect
import struct
import sys
from pathlib import Path
from typing import List

import pytest

import toolgate
import toolgate._native as native
import toolgate.claude
import toolgate.mcp
import toolgate.openai_agents

PACKAGE = Path(toolgate.__file__).parent


def test_the_extension_is_one_abi3_module():
    assert Path(native.__file__).name.endswith(".abi3.so")


# The installed extension's size ceiling (bindings/python/README.md, "Install"): a stripped
# build is about 5 MB; with the release profile's debug info it was 34 MB.
MAX_EXTENSION_BYTES = 15 * 1024 * 1024


def elf_section_names(data: bytes) -> List[str]:
    """The section names of a 64-bit ELF file, read from its section header table."""
    assert data[:4] == b"\x7fELF" and data[4] == 2, "a 64-bit ELF file"
    order = "<" if data[5] == 1 else ">"
    shoff, = struct.unpack_from(order + "Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(order + "HHH", data, 0x3A)
    headers = [struct.unpack_from(order + "IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_offset, strtab_size = headers[shstrndx][4], headers[shstrndx][5]
    strtab = data[strtab_offset:strtab_offset + strtab_size]
    return [strtab[h[0]:strtab.index(b"\0", h[0])].decode() for h in headers]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF on Linux")
def test_the_extension_is_stripped():
    path = Path(native.__file__)
    assert path.stat().st_size < MAX_EXTENSION_BYTES, path.stat().st_size
    names = elf_section_names(path.read_bytes())
    assert ".text" in names and ".dynsym" in names
    debug = [n for n in names if n.startswith((".debug", ".zdebug")) or n == ".symtab"]
    assert debug == [], debug


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
