"""The CPU learner's fp32 products: right, the same bits on any thread count, and through the
pinned OpenBLAS kernels rather than MKL's CPU-dependent ones."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from harness.backends.cpu import openblas, products
from harness.backends.cpu.policy import AgentPolicy
from harness.backends.cpu.products import TILE_COLS, TILE_ROWS, Tile, tiles
from run_records import cpu_flags

ROOT = Path(__file__).resolve().parents[2]

SHAPES = [
    (1, 1, 1),
    (3, 5, 7),
    (300, 351, 256),
    (2 * TILE_ROWS + 17, 256, 11),
    (256, 4000, 351),  # a weight gradient: few rows, many summed
    (5, 2 * TILE_COLS + 3, 2 * TILE_COLS + 9),
]


@pytest.mark.parametrize(("rows", "inner", "cols"), SHAPES)
def test_products_match_float64(rows: int, inner: int, cols: int) -> None:
    torch.manual_seed(rows + inner + cols)
    a, b = torch.randn(rows, inner), torch.randn(inner, cols)
    expected = (a.double() @ b.double()).float()
    torch.testing.assert_close(products.matmul(a, b), expected, rtol=1e-5, atol=1e-4 * inner**0.5)


@pytest.mark.parametrize(("rows", "inner", "cols"), SHAPES)
def test_transposed_and_sliced_operands(rows: int, inner: int, cols: int) -> None:
    """Transposed views go to OpenBLAS as they lie, other strides are copied: same result."""
    torch.manual_seed(0)
    a = torch.randn(inner, rows).t()
    b = torch.randn(cols, inner + 3)[:, 1 : inner + 1].t()
    wide = torch.randn(rows, 2 * inner)[:, ::2]
    expected = products.matmul(a.contiguous(), b.contiguous())
    assert torch.equal(products.matmul(a, b), expected)
    torch.testing.assert_close(
        products.matmul(wide, b), (wide.double() @ b.double()).float(), rtol=1e-5, atol=1e-3
    )


def test_empty_products() -> None:
    assert products.matmul(torch.randn(0, 4), torch.randn(4, 3)).shape == (0, 3)
    assert products.matmul(torch.randn(2, 4), torch.randn(4, 0)).shape == (2, 0)
    assert torch.equal(products.matmul(torch.randn(2, 0), torch.randn(0, 3)), torch.zeros(2, 3))


def test_bad_operands_are_refused() -> None:
    with pytest.raises(TypeError, match="float32"):
        products.matmul(torch.randn(2, 2).double(), torch.randn(2, 2))
    with pytest.raises(ValueError, match="cannot multiply"):
        products.matmul(torch.randn(2, 3), torch.randn(2, 3))


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (7, 500), (600, 3), (5000, 256), (256, 351)])
def test_tiles_cover_the_output_once(rows: int, cols: int) -> None:
    covered = torch.zeros(rows, cols, dtype=torch.int32)
    for tile in tiles(rows, cols):
        covered[tile.row : tile.row + tile.rows, tile.col : tile.col + tile.cols] += 1
    assert bool((covered == 1).all())


def test_tiles_are_fixed_blocks() -> None:
    assert tiles(2 * TILE_ROWS + 5, 9) == [
        Tile(0, TILE_ROWS, 0, 9),
        Tile(TILE_ROWS, TILE_ROWS + 5, 0, 9),
    ]
    assert len(tiles(100, 5 * TILE_COLS)) == 5
    assert tiles(TILE_ROWS, TILE_COLS) == [Tile(0, TILE_ROWS, 0, TILE_COLS)]


@pytest.mark.parametrize(("rows", "inner", "cols"), SHAPES)
def test_same_bits_on_any_thread_count(rows: int, inner: int, cols: int) -> None:
    """1 and 2 OpenBLAS threads of its own gave other bits for 300 x 351 x 256; the fixed
    tiles do not depend on how many run at once."""
    torch.manual_seed(1)
    a, b = torch.randn(rows, inner), torch.randn(inner, cols)
    before = torch.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3, 5):
            torch.set_num_threads(threads)
            results.append(products.matmul(a, b))
    finally:
        torch.set_num_threads(before)
    assert all(torch.equal(results[0], r) for r in results[1:])


def test_linear_is_differentiable_like_torch() -> None:
    """`products.linear` under autograd gives nn.Linear's values and gradients (to float
    rounding), so any code that trains through the policy's layers trains the same network."""
    torch.manual_seed(2)
    x = torch.randn(700, 40, requires_grad=True)
    weight = torch.randn(30, 40, requires_grad=True)
    bias = torch.randn(30, requires_grad=True)
    upstream = torch.randn(700, 30)
    (products.linear(x, weight, bias) * upstream).sum().backward()
    got = [t.grad.clone() for t in (x, weight, bias) if t.grad is not None]
    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, weight, bias))
    (torch.nn.functional.linear(x64, w64, b64) * upstream.double()).sum().backward()
    for g, e in zip(got, [t.grad for t in (x64, w64, b64)], strict=True):
        assert e is not None
        torch.testing.assert_close(g, e.float(), rtol=1e-4, atol=1e-3)


def test_policy_layers_use_the_products_in_fp32_only() -> None:
    """fp32 forward passes go through the pinned products; bf16 (autocast) stays with torch."""
    torch.manual_seed(3)
    policy = AgentPolicy(7, (64, 32))
    obs = (torch.rand(50, 351) < 0.3).float()
    layer = policy.linears()[0]
    expected = products.linear(obs, layer.weight, layer.bias)
    assert torch.equal(layer(obs), expected)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert layer(obs).dtype == torch.bfloat16


@pytest.mark.skipif(
    not {"avx2", "fma"} <= set(cpu_flags()), reason="Haswell's kernels need AVX2 and FMA"
)
def test_openblas_runs_haswell_kernels_where_the_cpu_has_avx2() -> None:
    assert openblas.wanted_core() in (openblas.PINNED_CORE, os.environ.get("OPENBLAS_CORETYPE"))
    assert openblas.describe().startswith("OpenBLAS ")
    if "OPENBLAS_CORETYPE" not in os.environ:
        assert openblas.openblas().core == openblas.PINNED_CORE


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_loading_the_wheel_first_is_refused_in_one_line() -> None:
    """``import scipy_openblas32`` loads the library with the kernels the CPU's type picks; the
    learner must then refuse in one line rather than run other kernels than it records (or
    carry on where that pick is Haswell's anyway)."""
    done = _python(
        """
        import scipy_openblas32
        from harness.backends.cpu import openblas
        print("picked:", scipy_openblas32.get_openblas_config())
        try:
            print("loaded:", openblas.describe())
        except openblas.BlasUnavailable as exc:
            print("refused:", exc)
        """
    )
    picked, outcome = done.stdout.strip().splitlines()
    if openblas.wanted_core() != openblas.PINNED_CORE or " Haswell " in picked:
        assert outcome.startswith("loaded:"), done.stdout + done.stderr
    else:
        assert outcome.startswith("refused:"), done.stdout + done.stderr
        assert "import harness.backends.cpu first" in outcome


def test_the_fp32_learner_calls_no_mkl_blas() -> None:
    """MKL's products are what differ between Intel and AMD CPUs: none may run in training.
    MKL_VERBOSE logs every MKL BLAS call; a torch product in a second process is the control
    that shows the log works."""
    learner = _python(
        """
        from harness.backends.cpu import CpuBackend
        from harness.backends.cpu.fingerprint import learner_fingerprint
        learner_fingerprint(CpuBackend, "fp32", 2)
        """,
        MKL_VERBOSE="1",
    )
    control = _python("import torch; torch.randn(64, 64) @ torch.randn(64, 64)", MKL_VERBOSE="1")
    assert learner.returncode == 0 and control.returncode == 0, learner.stderr + control.stderr
    assert "MKL_VERBOSE SGEMM" in control.stdout, control.stdout
    assert "GEMM" not in learner.stdout, learner.stdout[:2000]
