"""The exact results of the default report that ship with the package.

A first report evaluates twelve strategies exactly, their score laws and regrets: about
a minute on two cores, more than its compiling. These results cannot change until the
code computing them does, so those of the default report (:data:`SHIPPED_REPORT_RULES`, the
default strategies, :data:`SHIPPED_TOP` costliest situations) ship with the package, in
``shipped_results.json.xz`` beside this module (0.15 MB). Each record is keyed by
:func:`~yahtzee_sim.analysis.report.exact_cache.identity_key`: the rules' fingerprint and
the strategy's class, version and parameters, not the code. The tests hold every
shipped record bit for bit equal to a fresh evaluation, and
``python tools/shipped_results.py`` writes them again after a change that moves a
result (``--check`` compares them).

A record is the JSON of :func:`~yahtzee_sim.analysis.report.exact_cache.to_record`
with the score law's probabilities (``pmf``, shortest round-trip floats) and their
SHA-256 (``pmf_sha256``, of the float64 bytes).
"""

from __future__ import annotations

import hashlib
import json
import lzma
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.atomic import write_atomic

__all__ = [
    "SHIPPED_REPORT_RULES",
    "SHIPPED_TOP",
    "pmf_digest",
    "read_results_file",
    "record",
    "records",
    "write_results_file",
]

#: The rule sets whose default report's exact results ship.
SHIPPED_REPORT_RULES = ("yahtzee",)
#: The costliest situations of each shipped regret (the report's default ``--top``).
SHIPPED_TOP = 10

_FILE = "shipped_results.json.xz"
_FORMAT = 1


def _resource():
    return resources.files("yahtzee_sim.analysis.report") / _FILE


@lru_cache(maxsize=1)
def records() -> dict[str, dict]:
    """Every shipped record by its key (``{}`` when the file is missing or unreadable)."""
    return read_results_file(_resource())


def read_results_file(path) -> dict[str, dict]:
    """The records of a file :func:`write_results_file` wrote (a path or a package resource),
    by key; ``{}`` when it is missing, unreadable or of another format."""
    source = Path(path) if isinstance(path, str) else path
    try:
        data = json.loads(lzma.decompress(source.read_bytes()))
    except (OSError, lzma.LZMAError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    found = data.get("records")
    return found if isinstance(found, dict) else {}


def record(key: str) -> dict | None:
    """The shipped record under ``key``, or ``None``: none ships, or its ``pmf`` fails
    its digest."""
    found = records().get(key)
    if not isinstance(found, dict):
        return None
    try:
        intact = pmf_digest(np.asarray(found["pmf"], dtype=np.float64)) == found["pmf_sha256"]
    except (KeyError, TypeError, ValueError):
        return None
    return found if intact else None


def _text(found) -> str:
    """Records as JSON (NaN equal to NaN, tuples to lists; the order of keys matters: a
    regret's losses by decision are listed in the order of the turn)."""
    return json.dumps(found)


def pmf_digest(pmf: np.ndarray) -> str:
    """SHA-256 of the float64 bytes of a score law's probabilities."""
    return hashlib.sha256(np.ascontiguousarray(pmf, dtype=np.float64).tobytes()).hexdigest()


def write_results_file(found: dict[str, dict], path: str | Path | None = None) -> Path:
    """Write ``found`` (records by key, each with its ``pmf`` and ``pmf_sha256``) to
    ``path`` (default: the package's file), keys sorted (within a record: as given),
    xz-compressed; returns the path.
    A file that holds these records already is kept as it is (the compressed bytes may
    differ between xz versions)."""
    out = Path(str(_resource())) if path is None else Path(path)
    ordered = {key: found[key] for key in sorted(found)}  # each record in its own order
    if out.exists() and _text(read_results_file(out)) == _text(ordered):
        return out
    text = json.dumps({"format": _FORMAT, "records": ordered}, indent=0)
    write_atomic(out, lzma.compress(text.encode(), preset=9 | lzma.PRESET_EXTREME))
    records.cache_clear()
    return out
