"""Output files of the commands: checks before any work, atomic writes, figures."""

from __future__ import annotations

from pathlib import Path

from yahtzee_sim.cli.missing_extras import require
from yahtzee_sim.cli.options import CliError
from yahtzee_sim.engine.atomic import atomic_path

FRAME_SUFFIXES = (".parquet", ".csv")
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


def _alternatives(suffixes: tuple[str, ...]) -> str:
    """``.a``, ``.a or .b``, ``.a, .b or .c``."""
    return ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]


def check_file(option: str, path: Path | None, suffixes: tuple[str, ...] | None = None) -> None:
    """Fail early (CliError) if ``path`` has a wrong suffix or its folder does not exist.

    Parameters
    ----------
    option : str
        The option that named the file, for the message (``"--out"``).
    path : Path or None
        The file; None (option not given) passes.
    suffixes : tuple of str, optional
        The allowed suffixes; None allows any.
    """
    if path is None:
        return
    if path.is_dir():
        raise CliError(f"{option} must name a file, got the folder {str(path)!r}")
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise CliError(f"{option} must end in {_alternatives(suffixes)}, got {str(path)!r}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CliError(f"{option}: directory {str(parent)!r} does not exist")


def check_frame_file(option: str, path: Path | None) -> None:
    """:func:`check_file` for a table (``.parquet`` or ``.csv``); parquet needs pyarrow."""
    check_file(option, path, FRAME_SUFFIXES)
    if path is not None and path.suffix == ".parquet":
        require("pyarrow", f"{option} FILE.parquet")


def write_frame(frame, path: Path) -> None:
    """Write a DataFrame to ``.parquet`` or ``.csv`` atomically
    (:func:`~yahtzee_sim.engine.atomic.atomic_path`)."""
    with atomic_path(path) as tmp:
        if path.suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False)


def print_result(as_json: bool, data: dict, text: str, plot: Path | None) -> int:
    """Print ``data`` as one JSON object (``--json``: no wall time, so the same command
    prints the same bytes), else ``text`` and where the plot was written; return 0."""
    import json

    if as_json:
        print(json.dumps(data))
    else:
        print(text if plot is None else f"{text}\nplot written to {plot}")
    return 0


def save_figure(path: Path, draw, figsize: tuple[float, float], ncols: int = 1) -> None:
    """Draw a figure off-screen and save it to ``path`` (120 dpi), atomically
    (:func:`~yahtzee_sim.engine.atomic.atomic_path`).

    Parameters
    ----------
    path : Path
        ``.png``, ``.pdf`` or ``.svg``.
    draw : callable
        ``draw(ax)`` (or ``draw(axes)`` with ``ncols > 1``) draws the plot.
    figsize : tuple of float
        Width and height in inches.
    ncols : int
        Side-by-side axes.
    """
    # matplotlib is imported here, not at the top: `yahtzee-sim --help` must stay fast.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, ncols, figsize=figsize)
    draw(ax)
    fig.tight_layout()
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=120)
    finally:
        plt.close(fig)
