"""The handbook's figures: run the Python blocks of the pages that show images of
``docs/img`` and copy the images they draw there.

Usage: ``python .ci/doc_figures.py [--out FOLDER]`` (default ``docs/img``). A page's blocks
run in order in one namespace, in a temporary folder; every image the page shows as
``../img/NAME`` that the blocks write as ``NAME`` is copied to the folder.
``tests/analysis/test_plots.py`` runs this into a temporary folder and compares the images
with the committed ones.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose images are drawn by their own code blocks.
PAGES = (ROOT / "docs" / "guide" / "report.md",)
BLOCK = re.compile(r"^```python[^\n]*\n(?P<body>.*?)^```[ \t]*$", flags=re.S | re.M)
IMAGE = re.compile(r"!\[[^\]]*\]\(\.\./img/(?P<name>[^)]+)\)")


def draw_page(page: Path, out: Path) -> list[str]:
    """Run ``page``'s Python blocks and copy the images it shows into ``out``."""
    text = page.read_text()
    names = IMAGE.findall(text)
    namespace: dict = {"__name__": "__doc_figures__"}
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for block in BLOCK.finditer(text):
                exec(compile(block["body"], page.name, "exec"), namespace)
            drawn = [n for n in names if Path(n).is_file()]
            for name in drawn:
                shutil.copyfile(name, out / name)
        finally:
            os.chdir(here)
    return drawn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "Agg")
    for page in PAGES:
        drawn = draw_page(page, args.out.resolve())
        print(f"{page.relative_to(ROOT)}: {', '.join(drawn)} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
