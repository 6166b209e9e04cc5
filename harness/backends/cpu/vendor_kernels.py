"""The torch operations whose float results depend on the CPU's vendor, and a guard against them.

torch hands two kinds of float32/float64 work on the CPU to Intel's MKL, which picks its
kernels by CPU vendor and instruction set at run time:

* **vector math** (`VECTOR_MATH`): the unary functions of ATen's ``cpu/vml.h`` (``exp``,
  ``log``, ``sqrt``, ``tanh``, ``erf``...) on contiguous memory go to MKL's VM functions
  (``vmsExp``, ``vmsSqrt``...), which are not correctly rounded: on an AMD EPYC with AVX-512,
  ``torch.sqrt`` differed from the correctly rounded root in about one float32 value in five,
  and gave other bits than the same call on an Intel Haswell or an AMD EPYC-Rome, with
  ``MKL_CBWR`` set or not. ``pow(x, 0.5)`` is the same kernel as ``sqrt``.
* **BLAS** (`BLAS`): matrix products. The learner computes its fp32 products with its own
  OpenBLAS (`harness.backends.cpu.products`); one that reached torch's ``mm`` would run MKL's.

So the CPU learner calls none of them in float32 or float64: its probabilities come from
softmax (`policy.probabilities`), its Adam is fused (ATen's kernel, the CPU's square-root
instruction), and its few logarithms are Python's. bf16 is not covered: its products go to
oneDNN and differ between CPUs by design (`run_records.machine`).

`forbid_vendor_kernels` is the guard: inside it, such a call raises `VendorKernelCalled`, which
names the operation. It sees the operations torch dispatches (what Python code calls, and
what composite operations decompose into), not what a kernel calls inside itself; runs on
emulated Intel and AMD CPUs (``tests/harness/test_cross_cpu.py``) check the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

VECTOR_MATH = frozenset(
    {"acos", "asin", "atan", "cos", "erf", "erfc", "erfinv", "exp", "log", "log10", "log2",
     "sin", "sqrt", "tan", "tanh"}
)  # fmt: skip
"""ATen operations MKL's vector math computes for float32 and float64 (ATen's ``cpu/vml.h``,
the ``vms*``/``vmd*`` functions libtorch_cpu links; ``trunc`` is there too, but exact in any
implementation). In-place, ``out=`` and ``_foreach_`` forms count as the operation."""

BLAS = frozenset({"mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot", "addr"})
"""ATen operations MKL's BLAS computes for float32 and float64."""

SQRT_EXPONENT = 0.5
"""``pow(x, 0.5)`` is dispatched to the ``sqrt`` kernel."""

_FLOATS = (torch.float32, torch.float64)


class VendorKernelCalled(RuntimeError):
    """A float operation that MKL computes, with vendor-dependent results, was called."""


def vendor_kernel(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """Why calling `func` on these arguments computes vendor-dependent floats, or None."""
    base = func.overloadpacket.__name__.removeprefix("_foreach_").rstrip("_")
    tensors = [x for x in tree_flatten((args, kwargs))[0] if isinstance(x, torch.Tensor)]
    if not any(t.dtype in _FLOATS and t.device.type == "cpu" for t in tensors):
        return None
    if base in VECTOR_MATH:
        return "MKL's vector math"
    if base == "pow" and len(args) > 1 and args[1] == SQRT_EXPONENT:
        return "MKL's vector math (pow by 0.5 is sqrt)"
    if base in BLAS:
        return "MKL's BLAS"
    return None


class _Guard(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's mode is untyped
    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None
    ) -> Any:
        kwargs = kwargs or {}
        library = vendor_kernel(func, args, kwargs)
        if library is not None:
            raise VendorKernelCalled(
                f"{func} on {_dtypes(args, kwargs)} is computed by {library}, whose results "
                f"depend on the CPU's vendor: compute it another way (see "
                f"harness.backends.cpu.vendor_kernels)"
            )
        return func(*args, **kwargs)


def _dtypes(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    found = {str(x.dtype) for x in tree_flatten((args, kwargs))[0] if isinstance(x, torch.Tensor)}
    return ", ".join(sorted(found))


@contextmanager
def forbid_vendor_kernels() -> Iterator[None]:
    """Raise `VendorKernelCalled` at the first float operation MKL would compute in the block.

    Every operation passes through Python while it is active (a few times slower): a check for
    tests (``tests/harness/test_vendor_kernels.py``), not for runs.
    """
    with _Guard():  # type: ignore[no-untyped-call]
        yield
