"""Numba kernels. Internal: the public API wraps them.

**Cache freshness.** Numba's on-disk cache normally keys each compiled kernel on its
own source file only, so a kernel that inlines a shared one (the scoring step of
``scoring.py``, the widget) would load a stale machine-code cache after the shared file
changes. :class:`SharedSourceLocator` is put first among numba's cache locators: for
every kernel of this project (any module of the package, the strategies or the analysis,
:func:`in_project`) the cache is keyed on the kernel's own file *and* every shared kernel
file, so editing any of them recompiles exactly what may depend on it — no cache
deletion by hand. Cache file names carry :func:`names_tag`, so renaming a shared file
never leaves an unreadable index.

**Why the kernel files stay flat.** The shared files are this folder's modules (and the
strategies' card module): a kernel in a subfolder would be inlined by others without
being part of their stamp. The shared kernels therefore stay one flat folder, named for
what each computes; a kernel only its own module calls may live beside that module.

**Helpers without entry points.** A helper that only kernels call is declared
``no_cpython_wrapper=True, no_cfunc_wrapper=True``: numba otherwise builds, for every
helper it compiles, a Python entry point that unboxes each argument (the ``KernelRules``
bundle alone is some thirty arrays) and a C entry point, neither of which a kernel calls;
without them ``solve_level`` compiles in about 13 % fewer CPU seconds
(``benchmarks/bench_compile_split.py``), its machine code unchanged. Python code must
never call such a helper (numba crashes instead of raising;
``tests/kernels/test_helper_wrappers.py`` checks that none does).

**The one step at import.** Numba picks a kernel's cache locator when its decorator
runs, that is when the kernel's module is imported; so the two locators must be in
numba's list before any kernel module is imported, which only this package's
``__init__`` guarantees. Importing it inserts two classes into that list (:func:`install`,
no file is read); the folders and source stamps are found when the first kernel asks
(:func:`project_dirs`, once).
"""

from __future__ import annotations

import functools
import hashlib
import warnings
from pathlib import Path

from numba.core import caching, config

#: The folder of the shared kernels (every file here may be inlined by any kernel).
KERNEL_DIR = Path(__file__).resolve().parent


def subpackage_dirs(name: str) -> tuple[Path, ...]:
    """The folder(s) of the sub-package ``name`` (``"strategies"``, ``"analysis"``), found
    by the package's file layout (no module name, no import): ``NAME/`` beside the package
    in a source checkout (an editable install), ``yahtzee_sim/NAME/`` once installed."""
    candidates = (KERNEL_DIR.parent / name, KERNEL_DIR.parents[1] / name)
    found = [d.resolve() for d in candidates if (d / "__init__.py").is_file()]
    return tuple(dict.fromkeys(found))


def strategy_dirs() -> tuple[Path, ...]:
    """The folder(s) holding the strategies' modules (:func:`subpackage_dirs`)."""
    return subpackage_dirs("strategies")


@functools.cache
def project_dirs() -> tuple[Path, ...]:
    """Folders whose modules, at any depth, may define kernels: the package and the
    strategies' and analysis folders (beside it in a source checkout), found once."""
    found = (KERNEL_DIR.parent.resolve(), *strategy_dirs(), *subpackage_dirs("analysis"))
    return tuple(dict.fromkeys(found))


def in_project(py_file: str | Path) -> bool:
    """Whether ``py_file`` is a module of this project (below a :func:`project_dirs` folder)."""
    path = Path(py_file).resolve()
    return any(d in path.parents for d in project_dirs())


def shared_sources() -> list[Path]:
    """Files every kernel may inline: the kernel folder and the strategies' card module."""
    files = sorted(KERNEL_DIR.glob("*.py"))
    cards = [d / "_yahtzee_boxes.py" for d in strategy_dirs() if (d / "_yahtzee_boxes.py").exists()]
    return [*files, *cards[:1]]


def source_stamp(py_file: str | Path, shared: tuple[Path, ...] | None = None) -> str:
    """SHA-256 over a kernel's own file and every shared kernel file (names and bytes)."""
    h = hashlib.sha256()
    for path in sorted({Path(py_file).resolve(), *(shared or shared_sources())}):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@functools.cache
def _stamp_once(py_file: str) -> str:  # kernels of one file share it; files are read once
    return source_stamp(py_file)


@functools.cache
def names_tag(shared: tuple[Path, ...] | None = None) -> str:
    """Short digest of the shared kernel files' names, part of every cache file name.

    Numba unpickles a cache index (which names the types it saw, such as
    ``KernelRules``, by module) before it compares source stamps: an index written when
    a shared module had another name would fail to load. Renaming, adding or removing
    a shared file changes this tag, so such an index is never read; the kernels compile
    again into new files."""
    names = "\n".join(sorted(p.name for p in (shared or shared_sources())))
    return hashlib.sha256(names.encode()).hexdigest()[:8]


class _SharedStamp:
    """Cache keys of this project's kernels: :func:`source_stamp` and :func:`names_tag`."""

    def get_source_stamp(self):
        return _stamp_once(self._py_file)

    def get_disambiguator(self):
        return f"{super().get_disambiguator()}-{names_tag()}"

    @classmethod
    def from_function(cls, py_func, py_file):
        if not in_project(py_file):
            return None
        return super().from_function(py_func, py_file)


class SharedSourceLocator(_SharedStamp, caching.InTreeCacheLocator):
    """Numba cache locator for this project's kernels: cached next to the source (as
    numba does by default), stamped with :func:`source_stamp`."""


class KernelCacheWarning(UserWarning):
    """The folder ``NUMBA_CACHE_DIR`` names cannot hold compiled kernels."""


@functools.cache
def warn_unusable_cache_dir(folder: str, reason: str) -> None:
    """Warn, once per folder, that ``NUMBA_CACHE_DIR`` is not used."""
    warnings.warn(
        f"NUMBA_CACHE_DIR={folder!r} cannot be used ({reason}): compiled kernels are cached "
        "beside their source where it is writable, else compiled again in every process",
        KernelCacheWarning,
        stacklevel=2,
    )


class SharedUserDirLocator(_SharedStamp, caching.UserProvidedCacheLocator):
    """The same keys in the folder ``NUMBA_CACHE_DIR`` names, when it is set (numba's own
    rule: that folder takes precedence over the cache beside the source).

    Numba skips a folder it cannot make or write without a word; this locator warns
    (:class:`KernelCacheWarning`, once per folder) before numba falls back."""

    @classmethod
    def from_function(cls, py_func, py_file):
        located = super().from_function(py_func, py_file)
        if located is None and config.CACHE_DIR and in_project(py_file):
            try:
                cls(py_func, py_file).ensure_cache_path()
            except OSError as exc:
                warn_unusable_cache_dir(str(config.CACHE_DIR), exc.strerror or str(exc))
        return located


def numba_locators() -> list | None:
    """Numba's list of cache locator classes (``None`` if this numba keeps it elsewhere)."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    locators = getattr(impl, "_locator_classes", None)
    return locators if isinstance(locators, list) else None


def install() -> None:
    """Put this project's cache locators first in numba's list (once; nothing else)."""
    locators = numba_locators()
    if locators is None:  # an unknown numba: keep its own caching (keyed on each file)
        return
    for locator in (SharedSourceLocator, SharedUserDirLocator):  # the user's folder first
        if locator not in locators:
            locators.insert(0, locator)


install()
