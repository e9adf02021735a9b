"""CI check: the committed example report ``reports/yahtzee/`` is what today's code writes.

Writes ``yahtzee-sim report`` (the defaults: rules ``yahtzee``, all strategies,
100,000 games, seed 0) into a temporary folder and compares every CSV file and
``report.md``/``report.html`` with the committed ones, byte for byte (the PNG
figures depend on the Matplotlib and FreeType versions, so only their presence is
checked). Exits 1 with the differing files and the command that regenerates the
example when they differ.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "reports" / "yahtzee"


def main() -> int:
    from yahtzee_sim.analysis.report.build import build_report
    from yahtzee_sim.analysis.report.write import write_report

    with tempfile.TemporaryDirectory() as tmp:
        files = write_report(build_report(progress=False), tmp)
        fresh = Path(tmp)
        stale = [
            name
            for name in files
            if not (EXAMPLE / name).is_file()
            or (
                not name.endswith(".png")
                and (EXAMPLE / name).read_bytes() != (fresh / name).read_bytes()
            )
        ]
        extra = sorted({p.name for p in EXAMPLE.iterdir()} - set(files))
    if stale or extra:
        print(
            f"reports/yahtzee is stale: differs {stale}, not written any more {extra}; "
            "regenerate it with: rm -r reports/yahtzee && yahtzee-sim report",
            file=sys.stderr,
        )
        return 1
    print(f"reports/yahtzee is current ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
