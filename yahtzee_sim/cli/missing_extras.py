"""Optional extras: which one a missing package belongs to, and how to install it.

A command that needs an extra says so in one line (exit 2) with an install hint that
fits how the package was installed: from a source checkout (the package is imported
from a folder holding ``pyproject.toml``) ``pip install -e ".[web]"``, otherwise
``pip install 'yahtzee-sim[web]'``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from yahtzee_sim.cli.options import CliError

#: The top-level module of each optional dependency -> (its name, the extra bringing it).
OPTIONAL = {
    "flask": ("Flask", "web"),
    "pyarrow": ("pyarrow", "parquet"),
    "gymnasium": ("gymnasium", "rl"),
    "dask": ("dask", "dask"),
    "distributed": ("dask.distributed", "dask"),
}

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def source_checkout(package_dir: Path = _PACKAGE_DIR) -> bool:
    """Whether the package is imported from a source checkout (``pyproject.toml`` beside it)."""
    return (package_dir.parent / "pyproject.toml").is_file()


def install_hint(extra: str, *, checkout: bool | None = None) -> str:
    """The pip command that installs ``extra``.

    Parameters
    ----------
    extra : str
        The extra's name, e.g. ``"web"``.
    checkout : bool, optional
        Force the source-checkout form (True) or the installed form (False); default:
        :func:`source_checkout`.

    Returns
    -------
    str
        ``pip install -e ".[web]"`` in a checkout, else ``pip install 'yahtzee-sim[web]'``.

    Examples
    --------
    >>> install_hint("web", checkout=False)
    "pip install 'yahtzee-sim[web]'"
    """
    if checkout is None:
        checkout = source_checkout()
    return f'pip install -e ".[{extra}]"' if checkout else f"pip install 'yahtzee-sim[{extra}]'"


def missing_extra_message(what: str, module: str) -> str:
    """One line: ``what`` needs the optional ``module``, from which extra, how to install it."""
    name, extra = OPTIONAL[module]
    return f"{what} needs {name} (the optional extra '{extra}'): {install_hint(extra)}"


def require(module: str, what: str) -> ModuleType:
    """Import the optional ``module`` or raise a CliError naming its extra.

    Parameters
    ----------
    module : str
        A key of :data:`OPTIONAL`, e.g. ``"pyarrow"``.
    what : str
        What needs it, for the message, e.g. ``"--out FILE.parquet"``.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise CliError(missing_extra_message(what, module)) from None


def missing_optional(exc: BaseException) -> str | None:
    """The optional module whose absence caused ``exc`` (an ImportError chain), or None."""
    while exc is not None:
        name = getattr(exc, "name", None)
        if isinstance(exc, ImportError) and name and name.split(".")[0] in OPTIONAL:
            return name.split(".")[0]
        exc = exc.__cause__ or exc.__context__
    return None
