"""The board's plots: axes fitted to the data, bands where intervals exist, nothing empty drawn.

Tick labels are read back from the SVG itself (matplotlib writes each text as a comment beside
its glyph paths), so these tests see the axes a reader sees.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from leaderboards import Board, Estimate, RateCell, build_board, load_runs
from leaderboards.plots import config_grid, fit_range, size_curves_svg, trajectory_svg
from tasks import create_task

pytest.importorskip("matplotlib")

COMMENT = re.compile(r"<!-- (.*?) -->")
SVG_SIZE = re.compile(r'<svg [^>]*width="([\d.]+)pt" height="([\d.]+)pt"')


def ticks(svg: str, axis: int) -> list[float]:
    """The numeric labels of the `axis`-th axis (1: first panel's x, 2: its y, ...)."""
    part = svg.split(f'<g id="matplotlib.axis_{axis}">', 1)[1]
    part = part.split(f'<g id="matplotlib.axis_{axis + 1}">', 1)[0]
    out = []
    for text in COMMENT.findall(part):
        try:
            out.append(float(text.replace("\N{MINUS SIGN}", "-")))
        except ValueError:
            continue
    return out


def heatmap_ticks(svg: str) -> list[float]:
    """The round labels under the first panel of a configuration heatmap."""
    part = svg.split('<g class="x-ticks">', 1)[1].split("</g>", 1)[0]
    return [float(label) for label in re.findall(r">([^<]+)</text>", part)]


@pytest.fixture(scope="module")
def board(compare_root: Path) -> Board:
    return build_board(load_runs([compare_root]), resamples=100, reference=True)


def _rates_between(board: Board, low: float, high: float) -> Board:
    """`board` with every per-size cell's rates spread over low..high (interval +-2 points)."""
    details = []
    sizes = [d for d in board.details if d.cut == "size"]
    for k, d in enumerate(sizes):
        mean = low + 2 + (high - low - 4) * k / max(len(sizes) - 1, 1)
        e = Estimate(mean=mean, low=mean - 2, high=mean + 2, seeds=2)
        details.append(d.model_copy(update={"rates": RateCell(valid=e, optimal_makespan=e,
                                                                optimal_soc=e)}))  # fmt: skip
    return board.model_copy(update={"details": tuple(details), "reference": None})


def test_fit_range_holds_every_value_with_a_little_room() -> None:
    # 6% of the 25-point span on each side: 1.5 points.
    assert fit_range([20.0, 31.0, 45.0], floor=0.0, ceiling=100.0) == pytest.approx((18.5, 46.5))
    assert fit_range([0.0, 0.0], floor=0.0, ceiling=100.0, min_span=2.0) == pytest.approx(
        (-0.12, 2.12)
    )
    # widened to 4 points below the ceiling, then padded by 0.24 each side
    assert fit_range([100.0], floor=0.0, ceiling=100.0, min_span=4.0) == pytest.approx(
        (95.76, 100.24)
    )
    assert fit_range([None, 0.5, float("nan"), 0.7], min_span=0.1) == pytest.approx((0.488, 0.712))
    with pytest.raises(ValueError, match="no finite value"):
        fit_range([None, float("inf")])


def test_size_curves_fit_rates_in_20_to_45_not_0_to_100(board: Board) -> None:
    svg = size_curves_svg(_rates_between(board, 20.0, 45.0), "3agents")
    y = ticks(svg, 2)
    assert y and min(y) >= 15 and max(y) <= 50, y
    assert 0.0 not in y and 100.0 not in y


def test_size_curves_hold_the_paper_rows_when_drawn(board: Board) -> None:
    """The paper's rows reach 69%: the shared axis holds them, and our rates near 0 too."""
    y = ticks(size_curves_svg(board, "3agents"), 2)
    assert min(y) <= 0 and 70 <= max(y) < 80, y
    bare = ticks(size_curves_svg(board.model_copy(update={"reference": None}), "3agents"), 2)
    assert max(bare) < 15, bare


def test_plots_are_cropped_to_their_content(board: Board) -> None:
    """The saved size is the drawn content's: narrower than the figure asked for, never zero."""
    svg, asked = size_curves_svg(board, "3agents"), 11.0
    match = SVG_SIZE.search(svg)
    assert match is not None
    width, height = (float(v) for v in match.groups())
    assert 0.5 * asked * 72 < width < asked * 72 and height > 100, (width, height)


def test_heatmaps_show_each_cell_as_the_mean_over_runs_on_fixed_scales(
    compare_root: Path,
) -> None:
    """A cell per size and round, labelled with the mean over the runs; the colour scale is
    the field's own (hole_ratio to its legal top), so equal values take equal colours."""
    task = create_task("mapf-frozenlake")
    records = [r.record for r in load_runs([compare_root])][:2]
    svg = trajectory_svg(task, records, "a <designer>")
    assert "<title>a &lt;designer&gt;</title>" in svg, "names are text, never markup"
    match = SVG_SIZE.search(svg)
    assert match is not None and all(float(v) > 100 for v in match.groups())
    assert re.findall(r'<g class="panel" id="(\w+)">', svg) == ["ratio", "hole_ratio", "wait_ratio"]
    assert ">map size</text>" in svg and ">0.5</text>" in svg, "hole_ratio's bar ends at its top"
    for field in ("ratio", "hole_ratio", "wait_ratio"):
        sizes, grid = config_grid(task, records, field)
        assert sizes == [f"{n}x{n}" for n in range(3, 11)]
        panel = svg.split(f'<g class="panel" id="{field}">', 1)[1].split('<g class="x-ticks">')[0]
        labels = re.findall(r">(\d\.\d\d)</text>", panel)
        rounds = min(len(r.rounds) for r in records)
        assert len(labels) == len(sizes) * rounds
        assert labels == [f"{v:.2f}" for row in grid for v in row[:rounds]]
        fills = re.findall(r'<rect [^>]*fill="(#[0-9a-f]{6})"', panel)
        by_value = {(label, fill) for label, fill in zip(labels, fills, strict=True)}
        assert len({label for label, _ in by_value}) == len(by_value), "one colour per value"
