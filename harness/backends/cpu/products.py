"""The CPU learner's fp32 matrix products: the same bits on any x86-64 CPU with AVX2, on any
number of threads.

Two things decide the bits of a product besides its inputs: which kernels compute it (pinned
in `harness.backends.cpu.openblas`) and how it is cut into pieces. A BLAS that runs threads of
its own cuts a product by its thread count, and the cut decides which rows its edge kernels
compute: 1 and 2 OpenBLAS threads gave other bits for the same product. Here every product is
cut into the same tiles whatever the thread count (`tiles`: blocks of `TILE_ROWS` rows, or of
`TILE_COLS` columns for a product with few rows, such as a weight gradient), each tile is one
single-threaded OpenBLAS call, and torch's thread count only decides how many tiles run at
once. So a run computes the same numbers on a laptop's 2 cores and a server's 64: two runs
agree whatever their thread counts.

Only float32 goes through here; the policy sends bf16 products to torch (`policy.product`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache

import torch

from harness.backends.cpu.openblas import openblas

TILE_ROWS = 512
"""Rows per tile of a product with at least twice as many rows (a forward pass: thousands of
observations): one single-threaded call on 512 x 351 x 256 runs at the kernel's full speed,
and a 32768-row chunk still gives 64 tiles to share between threads."""
TILE_COLS = 128
"""Columns per tile of a product with fewer rows (a weight gradient: 256 rows, tens of
thousands of summed ones). Each tile packs the whole left operand again, so few wide tiles
beat many narrow ones (on 2 cores: 1.1-1.3x faster than 32 or 64 columns)."""

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


@dataclass(frozen=True)
class _Operand:
    """A 2-D float32 operand as CBLAS takes it in row-major order."""

    tensor: torch.Tensor
    trans: int
    ld: int

    @classmethod
    def of(cls, t: torch.Tensor) -> _Operand:
        """A row-major or transposed view as it lies; anything else copied contiguous."""
        rows, cols = t.shape
        if t.stride(1) == 1 and t.stride(0) >= max(1, cols):
            return cls(t, _NO_TRANS, t.stride(0))
        if t.stride(0) == 1 and t.stride(1) >= max(1, rows):
            return cls(t, _TRANS, t.stride(1))
        return cls(t.contiguous(), _NO_TRANS, max(1, cols))

    def pointer(self, row: int, col: int) -> int:
        """The address of element (row, col) of the operand as multiplied."""
        t = self.tensor
        return t.data_ptr() + (row * t.stride(0) + col * t.stride(1)) * t.element_size()


@dataclass(frozen=True)
class Tile:
    """Rows [row, row + rows) and columns [col, col + cols) of a product's output."""

    row: int
    rows: int
    col: int
    cols: int


def tiles(rows: int, cols: int) -> list[Tile]:
    """The fixed pieces an output of `rows` x `cols` is computed in, whatever the threads.

    Blocks of `TILE_ROWS` rows (the last one takes the remainder) when there are at least
    twice as many rows; else blocks of `TILE_COLS` columns likewise; else the whole output.
    """
    if rows >= 2 * TILE_ROWS:
        return [Tile(r, _span(r, rows, TILE_ROWS), 0, cols) for r in _starts(rows, TILE_ROWS)]
    if cols >= 2 * TILE_COLS:
        return [Tile(0, rows, c, _span(c, cols, TILE_COLS)) for c in _starts(cols, TILE_COLS)]
    return [Tile(0, rows, 0, cols)]


def _starts(length: int, block: int) -> range:
    return range(0, (length // block) * block, block)


def _span(start: int, length: int, block: int) -> int:
    return length - start if start + 2 * block > length else block


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for 2-D float32 CPU tensors, tile by tile (`tiles`) on torch's thread count.

    No autograd: `linear` is the differentiable product.
    """
    if a.dtype != torch.float32 or b.dtype != torch.float32:
        raise TypeError(f"matmul takes float32 tensors, got {a.dtype} and {b.dtype}")
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply shapes {tuple(a.shape)} and {tuple(b.shape)}")
    if a.device.type != "cpu" or b.device.type != "cpu":
        raise ValueError("matmul computes on the CPU only")
    rows, inner = a.shape
    cols = b.shape[1]
    out = torch.empty(rows, cols, dtype=torch.float32)
    if rows == 0 or cols == 0:
        return out
    if inner == 0:
        return out.zero_()
    left, right = _Operand.of(a), _Operand.of(b)
    pieces = tiles(rows, cols)
    threads = min(torch.get_num_threads(), len(pieces))
    compute = _TileProduct(left, right, out, inner)
    if threads == 1:
        compute(pieces)
        return out
    groups = [pieces[i::threads] for i in range(threads)]
    futures = [_pool(threads).submit(compute, group) for group in groups[1:]]
    compute(groups[0])
    for future in futures:
        future.result()
    return out


@dataclass(frozen=True)
class _TileProduct:
    """Computes tiles of ``out = left @ right``, one OpenBLAS call each (the GIL is released
    during each call, so several of these run at once)."""

    left: _Operand
    right: _Operand
    out: torch.Tensor
    inner: int

    def __call__(self, pieces: Sequence[Tile]) -> None:
        gemm = openblas().library.scipy_cblas_sgemm
        ldc, size = self.out.stride(0), self.out.element_size()
        for tile in pieces:
            gemm(
                _ROW_MAJOR, self.left.trans, self.right.trans, tile.rows, tile.cols, self.inner,
                1.0, self.left.pointer(tile.row, 0), self.left.ld,
                self.right.pointer(0, tile.col), self.right.ld,
                0.0, self.out.data_ptr() + (tile.row * ldc + tile.col) * size, ldc,
            )  # fmt: skip


@cache
def _pool(threads: int) -> ThreadPoolExecutor:
    """Helper threads for products run on `threads` threads (the caller is one of them)."""
    return ThreadPoolExecutor(max_workers=threads - 1, thread_name_prefix="products")


class _Linear(torch.autograd.Function):
    """x @ weight.T + bias, and its backward pass, with every product through `matmul`."""

    @staticmethod
    def forward(
        ctx: torch.autograd.function.FunctionCtx,
        x: torch.Tensor,
        weight: torch.Tensor,
        bias: torch.Tensor | None,
    ) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        out = matmul(x, weight.t())
        return out if bias is None else out.add_(bias)

    @staticmethod
    def backward(
        ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor
    ) -> tuple[torch.Tensor | None, torch.Tensor | None, torch.Tensor | None]:
        x, weight = ctx.saved_tensors  # type: ignore[attr-defined]
        wants = ctx.needs_input_grad  # type: ignore[attr-defined]
        grad_x = matmul(grad, weight) if wants[0] else None
        grad_w = matmul(grad.t(), x) if wants[1] else None
        grad_b = grad.sum(0) if wants[2] else None
        return grad_x, grad_w, grad_b


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """`torch.nn.functional.linear` of float32 inputs by `matmul`; differentiable."""
    out = _Linear.apply(x, weight, bias)  # type: ignore[no-untyped-call]
    assert isinstance(out, torch.Tensor)
    return out
