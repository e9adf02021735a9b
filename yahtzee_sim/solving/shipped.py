"""The value tables that ship with the package, so that a first run needs no solve.

The max-EV table of the default rules, ``yahtzee``, ships with the package
(``yahtzee_sim/solving/tables``: its 8 MB of float64, compressed with xz to 2.4 MB), keyed
by the rule set's fingerprint and checked by a SHA-256 digest of its values.
:func:`~yahtzee_sim.solving.solver.value_table` takes a shipped table where it would
solve; the tests hold each shipped table bit for bit equal to a fresh solve, and
``python tools/shipped_tables.py`` writes them again after a deliberate change of the
solver (``--check`` compares them).
"""

from __future__ import annotations

import hashlib
import json
import lzma
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from yahtzee_sim.engine.atomic import write_atomic

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from yahtzee_sim.game.rules import RuleSet

__all__ = ["SHIPPED_RULES", "shipped_values", "ships", "tables_folder", "write_shipped"]

#: The rule sets whose max-EV table ships.
SHIPPED_RULES = ("yahtzee",)

_FOLDER = "tables"
_MANIFEST = "manifest.json"


def tables_folder() -> Traversable:
    """The folder of the shipped tables and their manifest (a package resource)."""
    return resources.files("yahtzee_sim.solving") / _FOLDER


def _manifest() -> dict:
    """The manifest (``{}`` when it is missing or unreadable: nothing ships)."""
    try:
        manifest = json.loads((tables_folder() / _MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def ships(rules: RuleSet) -> bool:
    """Whether a max-EV table of ``rules`` ships (by its fingerprint)."""
    return rules.fingerprint() in _manifest()


def shipped_values(rules: RuleSet) -> np.ndarray | None:
    """The shipped max-EV values of ``rules``, or ``None``: none ships for its
    fingerprint, or its file is missing, unreadable or fails its digest."""
    entry = _manifest().get(rules.fingerprint())
    try:
        data = lzma.decompress((tables_folder() / entry["file"]).read_bytes())
        intact = len(data) == 8 * entry["n"] and _digest(data) == entry["sha256"]
    except (OSError, lzma.LZMAError, KeyError, TypeError):
        return None
    return np.frombuffer(data, dtype=np.float64).copy() if intact else None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_shipped(values: dict[str, np.ndarray], folder: str | Path | None = None) -> dict:
    """Write the max-EV ``values`` of each rule set named (a preset's name, e.g. those of
    :data:`SHIPPED_RULES`, solved by the caller) and the manifest into ``folder`` (default:
    the package's); returns the manifest. A table whose values are those already shipped
    keeps its file (the compressed bytes may differ between xz versions); files of the
    folder that the manifest no longer names are deleted."""
    from yahtzee_sim.game.rules import get_rules

    out = Path(str(tables_folder())) if folder is None else Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for name, table in values.items():
        data = np.ascontiguousarray(table, dtype=np.float64).tobytes()
        fingerprint = get_rules(name).fingerprint()
        entry = {"file": f"values-{fingerprint}.f64.xz", "n": len(data) // 8}
        entry |= {"rules": name, "sha256": _digest(data)}
        path = out / entry["file"]
        if not (path.exists() and _same_values(path, entry)):
            write_atomic(path, lzma.compress(data, preset=9))  # (extreme: 0.3% less, 3x the time)
        manifest[fingerprint] = entry
    write_atomic(out / _MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    for stale in set(out.glob("values-*.f64.xz")) - {out / e["file"] for e in manifest.values()}:
        stale.unlink()
    return manifest


def _same_values(path: Path, entry: dict) -> bool:
    try:
        return _digest(lzma.decompress(path.read_bytes())) == entry["sha256"]
    except (OSError, lzma.LZMAError):
        return False
