"""A one-seed site of hand-made runs with three rounds: how seeds, rounds, intervals and the
meta line read on its pages and plots.

Seeds: a count reads as a count and ids follow the word seed (`seed 0`, never a bare `0`
under a "seeds" heading, nor "mean over seeds 0"). Rounds: numbered from 1 as `harness runs
show` numbers them (`1/3`), the first one's configuration called the starting configuration.
With one seed no table promises an interval and no legend explains a mark no cell carries.
The meta line (runs, versions, board schema) is printed once per page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from leaderboards import LoadedRun, publish_site
from leaderboards.plots import trajectory_svg, validation_svg
from leaderboards.render.tables import provenance_note
from leaderboards.site import SiteResult
from tasks import create_task
from tests.leaderboards.handmade import designed, rates, run
from tests.leaderboards.test_plots import heatmap_ticks, ticks

pytest.importorskip("matplotlib")

LOW = rates({3: (20, 10, 5), 4: (20, 8, 2)})
HIGH = rates({3: (20, 16, 9), 4: (20, 12, 6)})


def _runs() -> list[LoadedRun]:
    """random and mine, seed 0 each, three rounds (two design steps); a zero-shot policy."""
    policy = run("model", 0, HIGH)
    policy = LoadedRun(Path("hand/policies/model"),
                       policy.record.model_copy(update={"kind": "policy"}))  # fmt: skip
    return [designed(run("random", 0, LOW), [None, None]),
            designed(run("mine", 0, HIGH), [None, None]), policy]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> SiteResult:
    return publish_site(_runs(), tmp_path_factory.mktemp("one-seed") / "site", resamples=100)


def _text(result: SiteResult, name: str) -> str:
    return (result.out / name).read_text()


def test_seed_ids_follow_the_word_seed(site: SiteResult) -> None:
    index = _text(site, "index.html")
    assert '<td class="text">mlp</td><td class="text">seed 0</td>' in index
    assert '<td class="text">seed 0</td>' in index and '<td class="text">0</td>' not in index
    assert "mine: ratio, hole_ratio and wait_ratio per map size and round" in index
    assert "seed 0 only; each run&#39;s own is on its page" in index
    assert "mean over seeds 0" not in index
    title = _text(site, "plots/trajectory-mine.svg")
    assert "<title>mine: configuration per round (seed 0 only)</title>" in title
    assert '<th class="num">n seeds</th>' in index, "the power table's count of seeds"


def test_run_pages_number_rounds_from_1_as_the_cli_does(site: SiteResult) -> None:
    page = _text(site, "runs/mine-seed-0.html")
    rounds = page.split('<section id="rounds">')[1]
    table = rounds.split("</table>")[0]
    assert re.findall(r'<a href="#round-(\d)">([\d/]+)</a>', table) == [
        ("1", "1/3"), ("2", "2/3"), ("3", "3/3")
    ]  # fmt: skip
    assert re.findall(r'<section class="round" id="round-(\d)">\s*<h3>Round ([\d/]+)</h3>',
                      rounds) == [("1", "1/3"), ("2", "2/3"), ("3", "3/3")]  # fmt: skip
    assert re.findall(r"Proposal for round (\d)", page) == ["2", "3"]
    assert "round-0" not in page.replace("round-000/", "") and "Round 0" not in page
    assert (
        "<dt>starting configuration</dt><dd>shared: every designer of seed 0 starts from it; "
        "round 1 trained on it</dd>"
    ) in page


def test_plots_number_rounds_from_1(site: SiteResult) -> None:
    assert ticks(_text(site, "plots/validation.svg"), 1) == [1.0, 2.0, 3.0]
    for name in ("plots/trajectory-mine.svg", "plots/trajectory-mine-seed-0.svg"):
        assert heatmap_ticks(_text(site, name)) == [1.0, 2.0, 3.0], name
    many = designed(run("mine", 0, HIGH), [None] * 19).record  # 20 rounds: every other tick
    svg = trajectory_svg(create_task("mapf-frozenlake"), [many], "mine")
    assert heatmap_ticks(svg) == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 17.0, 19.0]
    curves = site.board.curves
    assert curves and all(c.rounds == (0, 1, 2) for c in curves), "the board keeps indices"
    assert ticks(validation_svg(site.board), 1) == [1.0, 2.0, 3.0]


def test_one_seed_tables_promise_no_interval_and_print_no_empty_legend(site: SiteResult) -> None:
    index = _text(site, "index.html")
    assert "1 seed: no interval" in index
    assert "[95% CI]" not in index and "95% interval includes" not in index
    assert "†" not in index and "Intervals:" not in index
    assert "Designers: Sum (%), mean over seeds</h2>" in index
    assert "Minus baseline random (percentage points)</summary>" in index


def test_the_meta_line_is_printed_once_per_page(site: SiteResult) -> None:
    line = provenance_note(site.board)
    assert line.startswith("3 runs, greedy answers; envdesign-bench ")
    index = _text(site, "index.html")
    assert 'id="main-designer"' in index and 'id="main-policy"' in index, "two Sum tables"
    assert index.count(line) == 1
    assert index.index(line) < index.index('<nav class="site">'), "under the title"
