"""`harness leaderboard publish`: the static site, its safety, and the site in headless Chromium.

The site is built from the tiny real comparison in conftest.py, with one proposal given a hostile
model transcript (markup, a script, an image that would fetch). The browser test opens every
page from file:// in Debian's chromium (driven over the DevTools pipe, `chromium.py`) and checks
no console errors, no request leaves file://, the tables are there, every plot loads, every link
resolves, and none of the hostile text became markup.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markupsafe import escape
from typer.testing import CliRunner

from designers import ModelCall, Proposal
from harness_cli import app
from leaderboards import LeaderboardError, LoadedRun, load_runs, publish_site
from leaderboards.site import MANIFEST
from tests.leaderboards.chromium import INSTALL_HINT, Chromium, find_chromium

runner = CliRunner()
FETCHES = re.compile(r"""(src|href)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?https?:|@import""")
"""What would make a page or plot fetch from the network (XML namespace URIs do not)."""
HOSTILE = (
    "<script>console.error('pwned by script')</script>"
    '<img src="https://example.invalid/x.png" onerror="console.error(\'pwned by img\')">'
    '</pre></details><b id="injected">bold?</b> & "quotes"'
)


def _hostile(run: LoadedRun) -> LoadedRun:
    """`run` with a model-backed proposal after round 0 whose every text field is hostile."""
    first = run.record.rounds[0]
    call = ModelCall(purpose="analysis", model="test/hostile", response=HOSTILE,
                     messages=({"role": "system", "content": HOSTILE},
                               {"role": "user", "content": "plain question"}),
                     reasoning=HOSTILE, prompt_tokens=1200, completion_tokens=340,
                     cost_usd=0.0021, seconds=1.5, error=HOSTILE)  # fmt: skip
    proposal = Proposal(designer=run.record.designer, config=first.config,
                        changes={"sizes": {"3": {"hole_ratio": HOSTILE}}}, rationale=HOSTILE,
                        summary=HOSTILE, transcript=(call,), failures=(HOSTILE,))  # fmt: skip
    rounds = (first.model_copy(update={"proposal": proposal}), *run.record.rounds[1:])
    return LoadedRun(run.path, run.record.model_copy(update={"rounds": rounds}))


@pytest.fixture(scope="module")
def site(compare_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    read = load_runs([compare_root])
    runs = [_hostile(read[0]), *read[1:]]
    out = tmp_path_factory.mktemp("site") / "site"
    result = publish_site(runs, out, resamples=200, reference=True)
    assert result.out == out and len(result.board.runs) == 4
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_site_holds_pages_plots_and_small_run_files(site: Path) -> None:
    files = _files(site)
    for name in ("index.html", "board.json", "board.csv", "plots/sizes-3agents.svg",
                 "plots/validation.svg", "plots/profile-valid.svg",
                 "plots/profile-optimal_makespan.svg", "plots/trajectory-random.svg",
                 "plots/trajectory-uniform-seed-1.svg", "runs/random-seed-0.html",
                 "runs/uniform-seed-1.html", "files/random-seed-0/result.json",
                 "files/uniform-seed-0/run.json", "files/uniform-seed-0/round-000/round.json",
                 "files/uniform-seed-0/round-000/config.yaml"):  # fmt: skip
        assert name in files, sorted(files)
    assert not any("checkpoint" in name or name.endswith(".pt") for name in files)
    manifest = json.loads(files[MANIFEST])
    assert set(manifest["files"]) == set(files) - {MANIFEST}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == digest, name
    for name, data in files.items():
        if name.endswith((".html", ".svg")):
            text = data.decode()
            assert not FETCHES.search(text), (name, FETCHES.search(text))
            assert "<script" not in text and "<link" not in text, name
    index = files["index.html"].decode()
    assert 'id="main-designer"' in index and 'id="detail-3agents-size"' in index
    assert "reported, not reproduced" in index
    assert 'href="runs/random-seed-0.html"' in index
    assert "3agents valid / opt. makespan / opt. SOC" in index and "68.67 / 48.00" in index
    run_page = files["runs/random-seed-0.html"].decode()
    assert "opt. makespan (paper&#39;s) (%)" in run_page and "opt. SOC (%)" in run_page


def test_the_index_tells_the_story_first(site: Path) -> None:
    """Headline Sums, then the plots in story order, then every other table collapsed."""
    index = (site / "index.html").read_text()
    order = ['id="main-designer"', 'id="plots-sizes"', 'id="plots-profiles"',
             'id="plots-normalised"', 'id="plots-validation"', 'id="plots-trajectories"',
             'id="details"', 'id="deltas"', 'id="detail-3agents-size"', 'id="reference"',
             'id="runs"']  # fmt: skip
    at = [index.index(marker) for marker in order]
    assert at == sorted(at), dict(zip(order, at, strict=True))
    details = index.split('<section id="details">')[1].split('<section id="runs">')[0]
    tables = details.count('<section class="board-table"')
    assert tables >= 5 and details.count('<details class="table"><summary>') == tables
    assert '<details class="table" open' not in details
    assert ("This board has no controls: &#39;matched&#39; and &#39;harder&#39; are not among "
            "the ranked runs") in index  # fmt: skip
    assert (
        index.count('src="plots/normalised-') == 0 and '<img src="plots/profile-valid.svg"' in index
    )
    for img in re.findall(r"<img [^>]*>", index):
        width, height = re.search(r'width="(\d+)" height="(\d+)"', img).groups()  # type: ignore[union-attr]
        assert int(width) > 100 and int(height) > 100, img


def test_seeds_rounds_and_the_meta_line_read_as_on_the_cli(site: Path) -> None:
    """Seed ids after the word seed, rounds from 1 (`1/1`), the meta line once."""
    index = (site / "index.html").read_text()
    assert '<td class="text">seeds 0, 1</td>' in index
    caption = "per map size and round (round 1: the starting configuration), mean over seeds 0, 1;"
    assert caption in index
    heatmap = (site / "plots/trajectory-random.svg").read_text()
    assert "<title>random: configuration per round (mean over seeds 0, 1)</title>" in heatmap
    meta = re.findall(r"\d+ runs, greedy answers; envdesign-bench [^<]*board schema \d+", index)
    assert len(meta) == 1, meta
    page = (site / "runs/random-seed-0.html").read_text()
    assert '<a href="#round-1">1/1</a>' in page and "<h3>Round 1/1</h3>" in page
    assert "Proposal for round 2" in page and 'id="round-0"' not in page


def test_changes_asked_is_a_table_in_size_order(site: Path) -> None:
    page = (site / "runs/random-seed-0.html").read_text()
    table = page.split('<table class="changes">')[1].split("</table>")[0]
    assert '<td class="text">3x3</td>' in table and "hole_ratio" in table
    assert "&lt;script&gt;" in table and "<script>" not in table


def test_model_text_is_escaped_on_run_pages(site: Path) -> None:
    page = (site / "runs/random-seed-0.html").read_text()
    assert "&lt;script&gt;console.error(&#39;pwned by script&#39;)&lt;/script&gt;" in page
    assert 'id="injected"' not in page and "<b " not in page and '<img src="https' not in page
    assert page.count("&lt;/pre&gt;&lt;/details&gt;") >= 7  # rationale, summary, call, ...
    for part in ("1200 / 340 tokens", "$0.0021", "test/hostile", "reasoning (&lt;think&gt;"):
        assert part in page, part


def test_publish_through_the_cli_is_deterministic_and_replaces_only_sites(
    compare_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    args = ["leaderboard", "publish", str(compare_root), "--out", str(out), "--resamples", "200"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0 and "site written to" in first.output, first.output
    before = _files(out)
    again = runner.invoke(app, args)  # replaces the earlier site
    assert again.exit_code == 0, again.output
    assert _files(out) == before, "same runs must give the same bytes"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"], "temporary directories left"
    assert b"reported, not reproduced" not in before["index.html"]


def test_a_failed_build_leaves_the_earlier_site(
    compare_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    runs = load_runs([compare_root])
    publish_site(runs, out, resamples=100)
    before = _files(out)

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("plot failed")

    monkeypatch.setattr("leaderboards.plots.validation_svg", broken)
    with pytest.raises(RuntimeError, match="plot failed"):
        publish_site(runs, out, resamples=100)
    assert _files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_bad_out_and_missing_matplotlib_are_one_line_errors(
    compare_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    cases = [
        (a_file, "is a file; pass a directory"),
        (a_file / "site", "cannot write the site to"),
        (full, "non-empty directory that holds no site"),
    ]
    for out, message in cases:
        result = runner.invoke(app, ["leaderboard", "publish", str(compare_root), "--out",
                                     str(out)], env={"COLUMNS": "300"})  # fmt: skip
        assert result.exit_code == 2 and message in result.output, (out, result.output)
        assert len(result.output.strip().splitlines()) == 1, result.output
    assert (full / "keep.txt").read_text() == "mine" and a_file.read_text() == "mine"
    with pytest.raises(LeaderboardError, match="is a file"):
        publish_site(load_runs([compare_root]), a_file)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = runner.invoke(app, ["leaderboard", "publish", str(compare_root), "--out",
                                 str(tmp_path / "new")], env={"COLUMNS": "300"})  # fmt: skip
    assert result.exit_code == 2 and "envdesign-bench[site]" in result.output, result.output
    assert not (tmp_path / "new").exists()


# -- in the browser ---------------------------------------------------------------------------

LINKS = "Array.from(document.querySelectorAll('a[href]'), a => a.href)"
IMAGES = """Array.from(document.images, i => ({src: i.src, complete: i.complete,
                                              width: i.naturalWidth}))"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    binary = find_chromium()
    if binary is None:
        pytest.skip(INSTALL_HINT)
    with Chromium(binary) as chromium:
        yield chromium


def _check_page(browser: Chromium, page: Path) -> list[str]:
    """Open `page`; assert it loaded cleanly; return its links."""
    load = browser.open(page)
    assert load.errors == [], (page, load.errors)
    outside = [u for u in load.requests if not u.startswith(("file://", "data:"))]
    assert outside == [], (page, outside)
    images = browser.evaluate(IMAGES)
    assert images, page
    for image in images:
        assert image["complete"] and image["width"] > 0, (page, image)
    assert browser.evaluate("document.getElementById('injected')") is None
    assert browser.evaluate("document.querySelectorAll('script').length") == 0
    links: list[str] = browser.evaluate(LINKS)
    return links


def test_the_site_opens_offline_in_chromium(site: Path, browser: Chromium) -> None:
    links = _check_page(browser, site / "index.html")
    tables = browser.evaluate("document.querySelectorAll('table').length")
    ids = browser.evaluate("Array.from(document.querySelectorAll('section[id]'), s => s.id)")
    assert tables >= 8, tables
    assert {"main-designer", "deltas", "detail-3agents-size", "reference",
            "reference-size-3agents", "runs"} <= set(ids)  # fmt: skip
    pages = set()
    for link in links:
        parts = urlsplit(link)
        assert parts.scheme == "file", link
        target = Path(unquote(parts.path))
        assert target.is_file(), link
        assert target.resolve().is_relative_to(site.resolve()), link
        if target.suffix == ".html" and target.name != "index.html":
            pages.add(target)
    assert len(pages) == 4, sorted(pages)
    for page in sorted(pages):
        for link in _check_page(browser, page):
            parts = urlsplit(link)
            target = Path(unquote(parts.path))
            assert target.is_file() and target.resolve().is_relative_to(site.resolve()), link
    hostile = browser.open(site / "runs/random-seed-0.html")
    text = browser.evaluate("document.body.innerText")
    assert "<script>console.error('pwned by script')</script>" in text
    assert not [m for m in hostile.console if "pwned" in m[1]]


FOLD = 1200
"""A plot must be visible within the first this many pixels of the index page."""
WINDOW = (1280, 900)
MARGIN = 10
"""The most empty room a plot keeps around its drawn content, per side (CSS px)."""
CONTENT = """(() => {
  const svg = document.documentElement, page = svg.getBoundingClientRect();
  const background = svg.querySelector('#figure_1 > #patch_1');
  let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
  for (const e of svg.querySelectorAll('path, use, image, text, rect, line, polyline, polygon')) {
    if (e.closest('defs, clipPath, [clip-path]') || (background && background.contains(e))) {
      continue;  // clipped to its axes, whose frame is measured; or not drawn at all
    }
    const box = e.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    l = Math.min(l, box.left); t = Math.min(t, box.top);
    r = Math.max(r, box.right); b = Math.max(b, box.bottom);
  }
  return {width: page.width, height: page.height, left: l - page.left, top: t - page.top,
          right: page.right - r, bottom: page.bottom - b};
})()"""
"""The SVG's own size and the empty room around what it draws (its white background aside)."""


def test_the_index_shows_a_plot_above_the_fold(
    site: Path, browser: Chromium, tmp_path: Path
) -> None:
    """In a 1280 x 1200 window the first plot lies wholly on screen, and is drawn there."""
    from PIL import Image

    browser.set_viewport(WINDOW[0], FOLD)
    try:
        load = browser.open(site / "index.html")
        assert load.errors == [], load.errors
        box = browser.box('img[src$=".svg"]')
        shot = browser.screenshot(tmp_path / "index.png")
    finally:
        browser.set_viewport(*WINDOW)
    assert box is not None and box.width > 100 and box.height > 100, box
    assert box.y >= 0 and box.bottom <= FOLD, box
    with Image.open(shot) as image:
        assert image.size == (WINDOW[0], FOLD)
        plot = image.convert("L").crop((round(box.x), round(box.y), round(box.x + box.width),
                                        round(box.bottom)))  # fmt: skip
        inked = sum(plot.histogram()[:200])  # pixels darker than light grey
    assert inked > 0.02 * plot.width * plot.height, "the plot's place on screen is blank"


def test_every_plot_is_sized_to_its_content(site: Path, browser: Chromium) -> None:
    """Each SVG's width and height are its drawn content's, with a few pixels of room."""
    plots = sorted((site / "plots").glob("*.svg"))
    assert len(plots) >= 8
    for plot in plots:
        assert browser.open(plot).errors == [], plot
        room = browser.evaluate(CONTENT)
        assert room["width"] > 100 and room["height"] > 100, (plot.name, room)
        for side in ("left", "top", "right", "bottom"):
            assert -1 <= room[side] <= MARGIN, (plot.name, side, room)


def test_the_browser_helper_reports_errors(tmp_path: Path, browser: Chromium) -> None:
    """The checks above can fail: a broken image and a console error are both seen."""
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><img src="missing.svg"><script>console.error("x")</script>')
    load = browser.open(page)
    assert any("console error: x" in e for e in load.errors), load.errors
    assert any("missing.svg" in e or "ERR_FILE_NOT_FOUND" in e for e in load.errors), load.errors


# -- failed design steps ----------------------------------------------------------------------


def _failing(run: LoadedRun, designer: str, allow: bool) -> LoadedRun:
    """`run` as `designer`'s, its design step after round 0 failed for missing credentials."""
    first = run.record.rounds[0]
    proposal = Proposal(designer=designer, config=first.config, kept_previous=True,
                        failure_reason="missing credentials",
                        failures=("no API key: set OPENAI_API_KEY",))  # fmt: skip
    rounds = (first.model_copy(update={"proposal": proposal}), *run.record.rounds[1:])
    update = {"rounds": rounds, "designer": designer, "allow_design_failures": allow}
    return LoadedRun(run.path, run.record.model_copy(update=update))


@pytest.fixture(scope="module")
def flagged_site(compare_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """random as run; uniform failing every step (unranked); gpt the same, but allowed."""
    read = load_runs([compare_root])
    uniform = [r for r in read if r.record.designer == "uniform"]
    runs = [r for r in read if r.record.designer == "random"]
    runs += [_failing(r, "uniform", allow=False) for r in uniform]
    runs += [_failing(r, "gpt", allow=True) for r in uniform]
    out = tmp_path_factory.mktemp("flagged") / "site"
    publish_site(runs, out, resamples=100)
    return out


def test_the_site_flags_failed_design_steps_and_lists_the_unranked(flagged_site: Path) -> None:
    index = (flagged_site / "index.html").read_text()
    assert (
        "uniform: not ranked: 2/2 design steps failed (missing credentials); its runs trained "
        "on the starting configuration throughout (--allow-design-failures shows it, flagged)"
    ) in index
    assert '<td class="text">gpt ‡</td>' in index and "uniform ‡" not in index
    assert (
        "‡ gpt: 2/2 design steps failed: missing credentials; shown because its runs were "
        "started with --allow-design-failures"
    ) in index
    runs_table = index.split('<section id="runs">')[1]
    assert runs_table.count("1/1 design steps failed: missing credentials (not ranked)") == 2
    assert runs_table.count('class="text failure">1/1 design steps failed') == 4
    assert 'href="runs/uniform-seed-1.html"' in runs_table, "its runs keep their pages"
    page = (flagged_site / "runs/uniform-seed-0.html").read_text()
    assert (
        "1/1 design steps failed: missing credentials; not ranked on the board: every design "
        "step of uniform failed, so its runs trained on the starting configuration throughout"
    ) in page
    assert "No usable answer (missing credentials): the previous configuration was kept." in page
    shown = (flagged_site / "runs/gpt-seed-0.html").read_text()
    assert "1/1 design steps failed: missing credentials (each kept the previous" in shown
    validation = (flagged_site / "plots/validation.svg").read_text()
    assert "<!-- gpt -->" in validation and "<!-- uniform -->" not in validation
    board = json.loads((flagged_site / "board.json").read_text())
    assert [u["designer"] for u in board["unranked"]] == ["uniform"]
    assert sorted(r["designer"] for r in board["rows"]) == ["gpt", "random"]
    assert "\ndesign,uniform,designer," in (flagged_site / "board.csv").read_text()


def test_run_pages_show_each_rounds_configuration_as_the_run_wrote_it(
    site: Path, compare_root: Path
) -> None:
    """Each round's configuration on its run page is the run's own `config.yaml`, the file its
    round record vouches for (and the page links), not a second rendering of it."""
    page = (site / "runs/random-seed-0.html").read_text()
    written = (compare_root / "quick/random/seed-0/round-000/config.yaml").read_text()
    assert f"<pre>{escape(written)}</pre>" in page
