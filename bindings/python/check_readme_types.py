"""Type-checks the Python examples of bindings/python/README.md, and the package's own
source, with `mypy --strict` and `pyright`, with the SDKs installed (run by ci.sh).

Each ```python block becomes one module; a block that uses `await` or `async with` at its
top level (as a notebook would) is checked as the body of an `async def`. Exits non-zero
when either checker reports an error.

    python bindings/python/check_readme_types.py [README.md]
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
TOP_LEVEL_AWAIT = re.compile(r"^(async with|async for|.*\bawait\b)", re.MULTILINE)


def blocks(readme: Path) -> List[str]:
    return [m.group(1) for m in BLOCK.finditer(readme.read_text(encoding="utf-8"))]


def module(code: str) -> str:
    if TOP_LEVEL_AWAIT.search(code):
        return "async def _example() -> None:\n" + textwrap.indent(code, "    ")
    return code


def main() -> int:
    readme = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "README.md"
    found = blocks(readme)
    if not found:
        print(f"no ```python blocks in {readme}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, code in enumerate(found, 1):
            path = Path(tmp) / f"readme_example_{i}.py"
            path.write_text(module(code), encoding="utf-8")
            files.append(str(path))
        files.append(str(HERE / "python" / "toolgate"))
        config = Path(tmp) / "pyrightconfig.json"
        config.write_text('{"typeCheckingMode": "standard"}\n')
        py = sys.executable
        runs = [
            [py, "-m", "mypy", "--strict", "--no-incremental", *files],
            [py, "-m", "pyright", "--pythonpath", py, "-p", str(config), *files],
        ]
        failed = False
        for cmd in runs:
            print("$", " ".join(cmd[1:4]), f"... ({len(found)} README examples and the package)", flush=True)
            failed |= subprocess.run(cmd, cwd=tmp).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
