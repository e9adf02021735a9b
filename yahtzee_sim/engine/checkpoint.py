"""Checkpoints of long simulations: the completed blocks, saved atomically.

A checkpoint is an uncompressed ``.npz`` file rewritten atomically
(:func:`~yahtzee_sim.engine.atomic.atomic_path`: a process killed while writing it leaves
the previous checkpoint) after every completed block. It holds a JSON description of the run
(strategy, rules fingerprint, seed, games, block size, first game, and whether it
returns ``Results`` or an ``Aggregate``), the number of completed blocks, what they
produced (per-game arrays or exact aggregates) and a SHA-256 over all of it. Resuming
with a different run, or from a damaged file, is refused with a clear
:class:`CheckpointError`.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np

from yahtzee_sim.engine.aggregate import Aggregate
from yahtzee_sim.engine.atomic import atomic_path
from yahtzee_sim.errors import CheckpointError

FORMAT = 2  # 2: the run says ``output`` (results or aggregate)
_AGG_ARRAYS = ("histogram", "box_sums", "box_zeros", "box_turn_sums")
_AGG_COUNTS = ("bonus_games", "yahtzees", "yahtzee_bonuses")


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(name.encode() + str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()


def save_checkpoint(path: Path, run: dict, blocks_done: int, parts) -> None:
    """Write the checkpoint atomically: the old one stays until the new one is whole.
    ``parts`` is a list of per-game dicts or an Aggregate."""
    arrays: dict[str, np.ndarray] = {}
    if isinstance(parts, Aggregate):
        for name in _AGG_ARRAYS:
            arrays[f"agg_{name}"] = getattr(parts, name)
        arrays["agg_counts"] = np.array([getattr(parts, c) for c in _AGG_COUNTS], np.int64)
    elif parts:
        for key in parts[0]:
            arrays[f"games_{key}"] = np.concatenate([p[key] for p in parts])
    header = {"format": FORMAT, "run": run, "blocks_done": blocks_done}
    arrays["header"] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), dtype=np.uint8)
    arrays["checksum"] = np.frombuffer(_digest(arrays).encode(), dtype=np.uint8)
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


def load_checkpoint(path: Path, run: dict, rules):
    """``(blocks_done, parts)`` from a checkpoint of this very run.

    Raises
    ------
    CheckpointError
        If the file is damaged or was written by a different run.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
        checksum = bytes(arrays.pop("checksum")).decode()
        header = json.loads(bytes(arrays["header"]).decode())
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise CheckpointError(
            f"checkpoint {path} is corrupted ({exc}); delete it to start over"
        ) from None
    if _digest(arrays) != checksum:
        raise CheckpointError(
            f"checkpoint {path} is corrupted (checksum mismatch); delete it to start over"
        )
    if header.get("format") != FORMAT:
        raise CheckpointError(
            f"checkpoint {path} has format {header.get('format')}, this version reads {FORMAT}"
        )
    if header["run"] != run:
        diff = sorted(k for k in run if header["run"].get(k) != run[k])
        detail = ", ".join(f"{k}: {header['run'].get(k)!r} there, {run[k]!r} now" for k in diff)
        raise CheckpointError(f"checkpoint {path} belongs to a different run ({detail})")
    done = int(header["blocks_done"])
    if run["output"] == "results":
        keys = [k for k in arrays if k.startswith("games_")]
        parts = [{k.removeprefix("games_"): arrays[k] for k in keys}] if keys else []
        return done, parts
    agg = Aggregate.empty(rules)
    for name in _AGG_ARRAYS:
        setattr(agg, name, arrays[f"agg_{name}"].astype(np.int64))
    for name, value in zip(_AGG_COUNTS, arrays["agg_counts"].tolist(), strict=True):
        setattr(agg, name, int(value))
    return done, agg
