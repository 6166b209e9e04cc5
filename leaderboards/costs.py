"""What designing cost: model calls, tokens and dollars from the proposals' transcripts.

Per run, the sums over its rounds' proposals; per designer, the mean over its runs. Dollars are
given only where every call reported a price (providers and local servers often do not): a
partly priced run is shown as not recorded rather than as a smaller sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import mean

from designers import Proposal
from leaderboards.board import CostRow
from run_records import ResultRecord


def cost_row(designer: str, records: Sequence[ResultRecord]) -> CostRow:
    """Mean per run over `records`, the runs of one designer."""
    proposals = [[r.proposal for r in rec.rounds if r.proposal is not None] for rec in records]
    calls = [sum(len(p.transcript) for p in mine) for mine in proposals]
    dollars, note = _dollars(proposals)
    design = [p.seconds for mine in proposals for p in mine]
    train = [r.train_seconds for rec in records for r in rec.rounds]
    return CostRow(
        designer=designer,
        runs=len(records),
        proposals=mean(len(mine) for mine in proposals),
        model_calls=mean(calls),
        prompt_tokens=mean(sum(p.prompt_tokens for p in mine) for mine in proposals),
        completion_tokens=mean(sum(p.completion_tokens for p in mine) for mine in proposals),
        cost_usd=dollars,
        cost_note=note,
        design_seconds_per_round=round(mean(design), 4) if design else None,
        train_seconds_per_round=round(mean(train), 4) if train else None,
        run_seconds=round(mean(rec.seconds for rec in records), 4),
    )


def _dollars(proposals: Sequence[Sequence[Proposal]]) -> tuple[float | None, str | None]:
    calls = [c for mine in proposals for p in mine for c in p.transcript]
    if not calls:
        return None, "no model calls"
    priced = [c.cost_usd for c in calls if c.cost_usd is not None]
    if len(priced) < len(calls):
        return None, f"not recorded ({len(priced)} of {len(calls)} calls priced)"
    per_run = [sum(c.cost_usd or 0.0 for p in mine for c in p.transcript) for mine in proposals]
    return round(mean(per_run), 6), None
