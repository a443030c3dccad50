"""A learning curve: each generation of the learned policy played alone, without search.

A generation is a policy file (`scripts/run.sh train_policy`); generation 0 is the knowledge priors
(`policy`). Each plays `scripted` and generation 0 as `PolicyBot` (a few milliseconds a decision, so
hundreds of games take minutes): a cheap, honest reading of what a generation learned, beside the
gate that matters (the generation as the search's prior, head to head with the default, through
`evaluate --policy`). Games are traces (`harness.trace`), one folder per pairing, written as they
end: the same command resumes and adds generations.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

from mcts_bot.harness import plots, trace
from mcts_bot.harness.bots import POLICY_FILE_PREFIX, check_bot, label
from mcts_bot.harness.evaluation import score_interval

GENERATION_0 = "policy"
OPPONENTS = ("scripted", GENERATION_0)


@dataclass(frozen=True)
class Point:
    """One generation's games against one opponent."""

    generation: int
    bot: str
    opponent: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return score_interval(self.wins, self.draws, self.games)[0]

    @property
    def interval(self) -> tuple:
        return score_interval(self.wins, self.draws, self.games)[1:]


def generation_bots(files: Sequence[Path]) -> List[str]:
    """The bot name of each generation: the knowledge priors, then each file's policy."""
    bots = [GENERATION_0] + [f"{POLICY_FILE_PREFIX}{path}" for path in files]
    for bot in bots:
        check_bot(bot)  # a missing or stale file: a clear error before any game
    return bots


def run(board: int, files: Sequence[Path], games_per_side: int, out: Path, *, base_seed: int = 0, workers: int = 1,
        backend: str = "local", ray_address: Optional[str] = None, progress: bool = True) -> List[Point]:
    """Play what is missing of every generation against each opponent; a Point per pairing played."""
    points = []
    for generation, bot in enumerate(generation_bots(files)):
        for opponent in OPPONENTS:
            if bot == opponent:
                continue  # generation 0 against itself says nothing
            settings = trace.TraceSettings(board=board, bots=(bot, opponent), games_per_side=games_per_side,
                                           base_seed=base_seed)
            records = trace.run(settings, out / f"{label(bot)}-vs-{opponent}", workers=workers, backend=backend,
                                ray_address=ray_address, progress=progress)
            results = [r["result"] for r in records if r["result"] is not None]
            points.append(Point(generation, bot, opponent, results.count("win"), results.count("draw"),
                                results.count("loss")))
    return points


def markdown_table(points: Sequence[Point]) -> str:
    lines = ["| Generation | Policy | Against | Games | W-D-L | Score | Score 95% CI |",
             "|---:|---|---|---:|---:|---:|---:|"]
    for p in points:
        low, high = p.interval
        lines.append(f"| {p.generation} | {label(p.bot)} | {p.opponent} | {p.games} | {p.wins}-{p.draws}-{p.losses} "
                     f"| {100 * p.score:.0f}% | {100 * low:.0f}-{100 * high:.0f}% |")
    return "\n".join(lines) + "\n"


def plot(points: Sequence[Point], path: Path, title: str) -> Path:
    """Score with its 95% interval per generation, one line per opponent; 50% dashed."""
    fig, ax = plots.figure((5.5, 4))
    ax.axhline(50, color="grey", lw=1, ls="--")
    for offset, (opponent, marker) in zip((-0.06, 0.06), zip(OPPONENTS, ("o", "s"))):
        mine = [p for p in points if p.opponent == opponent]
        if not mine:
            continue
        x = [p.generation + offset for p in mine]
        y = [100 * p.score for p in mine]
        errors = [[100 * (p.score - p.interval[0]) for p in mine], [100 * (p.interval[1] - p.score) for p in mine]]
        name = "generation 0" if opponent == GENERATION_0 else opponent
        ax.errorbar(x, y, yerr=errors, marker=marker, capsize=3, label=f"against {name}")
    generations = sorted({p.generation for p in points})
    ax.set_xticks(generations)
    ax.set_xlabel("generation (0: the knowledge priors)")
    ax.set_ylabel("score, %, policy alone (95% CI)")
    ax.set_ylim(0, 100)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return plots.save(fig, path)
