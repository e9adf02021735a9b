"""The value tables that ship with the package, so that a first run needs no solve.

Solving a rule set takes a second, but the first solve in an environment compiles the
solver for a minute. The max-EV table of the default rules, ``yahtzee``, therefore ships
with the package (``yahtzee_sim/solving/tables``: its 8 MB of float64, compressed with
xz to 2.4 MB), keyed by the rule set's fingerprint and checked by a SHA-256 digest of
its values. :func:`~yahtzee_sim.solving.solver.value_table` takes a shipped table
where it would solve; the tests hold each shipped table bit for bit equal to a fresh
solve, and ``python tools/shipped_tables.py`` writes them again after a deliberate change
of the solver (``--check`` compares them).
"""

from __future__ import annotations

import hashlib
import json
import lzma
from importlib import resources

import numpy as np

__all__ = ["SHIPPED_RULES", "shipped_values", "ships", "tables_folder", "write_shipped"]

#: The rule sets whose max-EV table ships.
SHIPPED_RULES = ("yahtzee",)

_FOLDER = "tables"
_MANIFEST = "manifest.json"


def tables_folder():
    """The folder of the shipped tables and their manifest (a package resource)."""
    return resources.files("yahtzee_sim.solving") / _FOLDER


def _manifest() -> dict:
    try:
        return json.loads((tables_folder() / _MANIFEST).read_text())
    except FileNotFoundError:
        return {}


def ships(rules) -> bool:
    """Whether a max-EV table of ``rules`` ships (by its fingerprint)."""
    return rules.fingerprint() in _manifest()


def shipped_values(rules) -> np.ndarray | None:
    """The shipped max-EV values of ``rules`` (a :class:`~yahtzee_sim.game.rules.RuleSet`),
    or ``None``: none ships for its fingerprint, or the file fails its digest."""
    entry = _manifest().get(rules.fingerprint())
    if entry is None:
        return None
    try:
        data = lzma.decompress((tables_folder() / entry["file"]).read_bytes())
    except (FileNotFoundError, lzma.LZMAError):
        return None
    if len(data) != 8 * entry["n"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        return None
    return np.frombuffer(data, dtype=np.float64).copy()


def write_shipped(values: dict[str, np.ndarray], folder=None) -> dict:
    """Write the max-EV ``values`` of each rule set named (a preset's name, e.g. those of
    :data:`SHIPPED_RULES`, solved by the caller) and the manifest into ``folder`` (default:
    the package's); returns the manifest."""
    from pathlib import Path

    from yahtzee_sim.game.rules import get_rules

    out = Path(str(tables_folder())) if folder is None else Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for name, table in values.items():
        data = np.ascontiguousarray(table, dtype=np.float64).tobytes()
        fingerprint = get_rules(name).fingerprint()
        file = f"values-{fingerprint}.f64.xz"
        (out / file).write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
        manifest[fingerprint] = {
            "rules": name,
            "file": file,
            "n": len(data) // 8,
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    (out / _MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest
