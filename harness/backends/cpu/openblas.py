"""The OpenBLAS the CPU learner multiplies with, loaded with kernels every AVX2 CPU runs alike.

Why not torch's own products: torch sends fp32 products to MKL, and MKL picks its kernels by
CPU vendor and model. Its reproducibility mode pins them to the AVX2 branch on Intel CPUs only
(an AMD CPU runs its ``AUTO`` branch instead, and the two sum in other orders), and the branch
it honours everywhere, ``COMPATIBLE``, about doubled the time of a training round's products.
Summed in another order, the same seed trains another policy, and a board's figures move by
points.

OpenBLAS picks its kernels by a core type that can be named. Its Haswell kernels need AVX2 and
FMA, which every x86-64 CPU with AVX2 has (Intel since Haswell, AMD since Excavator and every
Zen; OpenBLAS itself runs them on Zen), and its block sizes for that core type are constants
of the build, not read from the cache sizes of the CPU at hand. So the learner loads one
OpenBLAS build (the ``scipy-openblas32`` wheel, pinned to one release in the project's
dependencies, apart from the copy inside numpy) with ``OPENBLAS_CORETYPE=Haswell`` on such
CPUs: the same instructions in the same order on every one of them, hence the same bits.

What still changes the bits, and is therefore recorded (`describe`) and fingerprinted
(`harness.backends.cpu.fingerprint`): the OpenBLAS release, and the core type on CPUs where
Haswell's is not available (ARM, x86-64 without AVX2), which run whatever OpenBLAS picks for
them. A core type the user sets in ``OPENBLAS_CORETYPE`` is kept. The thread count does not
change them: OpenBLAS runs one thread per call, and `harness.backends.cpu.products` splits
each product into the same pieces whatever the thread count.
"""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from run_records import cpu_flags

PACKAGE = "scipy-openblas32"
"""The distribution that ships the library (a dependency of this project)."""

PINNED_CORE = "Haswell"
"""The core type asked for on x86-64 CPUs with AVX2 and FMA."""

CORE_VARIABLE = "OPENBLAS_CORETYPE"

THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"
"""Set to 1 for the load: OpenBLAS then starts no threads of its own (see the module docstring)."""


class BlasUnavailable(RuntimeError):
    """The learner's OpenBLAS could not be loaded; the message says how to get it."""


@dataclass(frozen=True)
class OpenBlas:
    """The loaded library and what it reports of itself."""

    library: ctypes.CDLL
    version: str
    core: str


def wanted_core() -> str | None:
    """The core type to ask OpenBLAS for here: the user's, else Haswell's on x86-64 CPUs with
    AVX2 and FMA, else None (OpenBLAS picks, and the record says what it picked)."""
    if CORE_VARIABLE in os.environ:
        return os.environ[CORE_VARIABLE]
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    return PINNED_CORE if {"avx2", "fma"} <= set(cpu_flags()) else None


@cache
def openblas() -> OpenBlas:
    """Load the library once, with the core type of `wanted_core`.

    OpenBLAS reads ``OPENBLAS_CORETYPE`` and ``OPENBLAS_NUM_THREADS`` once, when it is loaded,
    so they are set for the load only and put back afterwards: numpy's own OpenBLAS, loaded by
    then or later, keeps choosing for itself. The file is found without importing
    ``scipy_openblas32``, whose import loads the library at once, before a core type could be
    asked for.
    """
    path, version = _library_file()
    core = wanted_core()
    asked = {THREADS_VARIABLE: "1"} | ({CORE_VARIABLE: core} if core is not None else {})
    with _environment(asked):
        try:
            library = ctypes.CDLL(str(path))
        except OSError as exc:
            raise BlasUnavailable(f"{PACKAGE} is installed but {path} did not load: {exc}") from exc
    _declare(library)
    loaded = OpenBlas(library, version, _text(library, "get_corename"))
    if core == PINNED_CORE and loaded.core != PINNED_CORE:
        raise BlasUnavailable(
            f"OpenBLAS from {PACKAGE} runs its {loaded.core} kernels, not the {core} kernels "
            f"the CPU learner asks for: something imported scipy_openblas32 before it (that "
            f"import loads the library); import harness.backends.cpu first"
        )
    return loaded


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Set `values` in the environment for the block, then put back what was there."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _library_file() -> tuple[Path, str]:
    """The shared library inside the installed ``scipy_openblas32`` package, and its release."""
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        raise BlasUnavailable(
            f"the CPU learner needs {PACKAGE} for its matrix products: pip install -e . (or "
            f"pip install {PACKAGE}) installs it"
        )
    lib_dir = Path(next(iter(spec.submodule_search_locations))) / "lib"
    names = sorted(p for p in lib_dir.glob("*scipy_openblas*") if p.suffix in _SUFFIXES)
    if not names:
        raise BlasUnavailable(f"{PACKAGE} is installed but {lib_dir} holds no library")
    return names[0], importlib.metadata.version(PACKAGE)


_SUFFIXES = (".so", ".dylib", ".dll")


def _declare(library: ctypes.CDLL) -> None:
    c_int, c_float, c_void_p = ctypes.c_int, ctypes.c_float, ctypes.c_void_p
    gemm = library.scipy_cblas_sgemm
    gemm.restype = None
    gemm.argtypes = [c_int, c_int, c_int, c_int, c_int, c_int, c_float, c_void_p, c_int,
                     c_void_p, c_int, c_float, c_void_p, c_int]  # fmt: skip
    library.scipy_openblas_get_corename.restype = ctypes.c_char_p


def _text(library: ctypes.CDLL, name: str) -> str:
    raw = getattr(library, f"scipy_openblas_{name}")()
    return raw.decode("ascii", errors="replace").strip() if raw else "unknown"


def describe() -> str:
    """What computes the learner's fp32 products, for the run record: release and core type."""
    blas = openblas()
    return f"OpenBLAS {blas.version} {blas.core}"
