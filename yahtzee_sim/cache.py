"""On-disk cache of solved value tables, keyed by rule fingerprint and format version.

Files live in ``$YAHTZEE_SIM_CACHE`` (default: ``$XDG_CACHE_HOME/yahtzee_sim`` or
``~/.cache/yahtzee_sim``). Each file is a small JSON header line followed by the
raw float64 values; the header holds the SHA-256 of the values. A truncated or
corrupted file is reported with a warning and rebuilt, never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

FORMAT_VERSION = 1
_MAGIC = b"YSIMVT1\n"


class CacheWarning(UserWarning):
    """A cache file could not be used or written."""


def cache_dir() -> Path:
    """The cache folder (not created here)."""
    env = os.environ.get("YAHTZEE_SIM_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "yahtzee_sim"


def cache_path(kind: str, fingerprint: str) -> Path:
    """File of one cached table."""
    return cache_dir() / f"{kind}-{fingerprint}-v{FORMAT_VERSION}.bin"


def load_array(path: Path, expected_len: int) -> np.ndarray | None:
    """The cached array, or ``None`` (with a warning if the file exists but is unusable)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.warn(
            f"cannot read cache file {path}: {exc}; rebuilding", CacheWarning, stacklevel=3
        )
        return None
    try:
        if not raw.startswith(_MAGIC):
            raise ValueError("bad magic")
        end = raw.index(b"\n", len(_MAGIC))
        header = json.loads(raw[len(_MAGIC) : end])
        data = raw[end + 1 :]
        if header["n"] != expected_len or len(data) != 8 * expected_len:
            raise ValueError("truncated or wrong size")
        if hashlib.sha256(data).hexdigest() != header["sha256"]:
            raise ValueError("checksum mismatch")
    except (ValueError, KeyError, json.JSONDecodeError) as exc:
        warnings.warn(
            f"cache file {path} is corrupted ({exc}); rebuilding it", CacheWarning, stacklevel=3
        )
        return None
    return np.frombuffer(data, dtype=np.float64).copy()


def save_array(path: Path, values: np.ndarray, meta: dict) -> bool:
    """Write atomically (temporary file + rename); warn and return False on failure."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    data = values.tobytes()
    header = {"n": len(values), "sha256": hashlib.sha256(data).hexdigest(), **meta}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + json.dumps(header).encode() + b"\n" + data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        warnings.warn(f"cannot write cache file {path}: {exc}", CacheWarning, stacklevel=3)
        return False
    return True
