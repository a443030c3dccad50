"""Board-size evaluation: many seeded games, played in parallel, kept as they finish, summarised.

The seed's performance table (`../shared/seeds/000_*`, "Performance") is the model: per board
size and rollout setting, MCTS's wins and touchdowns as home and as away, plus draws, losses and a
95% confidence interval on the win rate.

Each game's seed follows from the base seed and the game's place in its cell (board, rollouts,
side, number), so the same command plays the same games whatever the number of workers, and a run
that was interrupted resumes by playing only the games missing from its results file. Records
are keyed by everything that defines their game, so one results file can hold several runs (more
games per side, other boards, another budget) and each command's table uses its own games only
(`describe_records` titles a table of a whole file, refusing one that mixes settings).
"""
from __future__ import annotations

import csv
import io
import math
import sys
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from mcts_bot.core.search import Budget
from mcts_bot.harness import plots
from mcts_bot.harness.games import check_team
from mcts_bot.harness.matches import SIDES, GameSpec, play_game
from mcts_bot.harness.records import play_missing

RESULTS_FILE = "games.jsonl"


def game_seed(base_seed: int, board: int, rollouts: bool, side: str, number: int) -> int:
    """The seed of one game: a stable function of the base seed and the game's place in the run."""
    return zlib.crc32(f"{base_seed}/{board}/{int(rollouts)}/{side}/{number}".encode()) & 0x7FFFFFFF


def _clocks(competition: bool, clock_scale: float, spend_clock: bool) -> str:
    if not competition:
        return ""
    scaled = f" x{clock_scale:g}" if clock_scale != 1.0 else ""
    return f", competition clocks{scaled}" + (", spending the clock" if spend_clock else "")


def _preset_label(preset: str, policy: Optional[str], value: Optional[str]) -> str:
    return preset + (f", policy {policy}" if policy is not None else "") + (f", value {value}" if value is not None else "")


def _opponent_label(opponent: str, seconds: Optional[float]) -> str:
    return opponent if seconds is None else f"{opponent} at {seconds:g} s"


@dataclass(frozen=True)
class Settings:
    """What an evaluation plays: every game of every board, side and rollout setting."""

    boards: Sequence[int]
    games_per_side: int
    rollouts: Sequence[bool]
    preset: str = "default"
    opponent: str = "random"
    seconds: Optional[float] = None
    iterations: Optional[int] = None
    team: str = "human"
    base_seed: int = 0
    competition: bool = False
    search_workers: int = 1
    parallel: str = "root"
    opponent_seconds: Optional[float] = None  # an MCTS opponent's own seconds per decision
    clock_scale: float = 1.0
    spend_clock: bool = False
    policy: Optional[str] = None  # a learned policy's file: MCTS's priors
    value: Optional[str] = None  # a learned value's file: MCTS's leaf value

    def __post_init__(self) -> None:
        if self.games_per_side < 1:
            raise ValueError(f"games per side must be at least 1, got {self.games_per_side}")
        if not self.boards:
            raise ValueError("no board size given")
        if not self.rollouts:
            raise ValueError("no rollout setting given")
        # Building the specs checks boards, preset, opponent and budget before any game is played.
        self.specs()
        for board in self.boards:
            check_team(self.team, board)

    def specs(self) -> List[GameSpec]:
        return [GameSpec(board=board, side=side, rollouts=rollouts,
                         seed=game_seed(self.base_seed, board, rollouts, side, number),
                         preset=self.preset, opponent=self.opponent, seconds=self.seconds,
                         iterations=self.iterations, team=self.team, competition=self.competition,
                         search_workers=self.search_workers, parallel=self.parallel,
                         opponent_seconds=self.opponent_seconds, clock_scale=self.clock_scale,
                         spend_clock=self.spend_clock, policy=self.policy, value=self.value)
                for rollouts in self.rollouts for board in self.boards
                for number in range(self.games_per_side) for side in SIDES]  # sides alternate: a cut run stays even

    def describe(self) -> str:
        budget = Budget(seconds=self.seconds, iterations=self.iterations)
        return (f"MCTS ({_preset_label(self.preset, self.policy, self.value)}) "
                f"vs {_opponent_label(self.opponent, self.opponent_seconds)}, "
                f"boards {', '.join(map(str, self.boards))}, "
                f"{self.games_per_side} games per side, "
                f"rollouts {'/'.join('on' if r else 'off' for r in self.rollouts)}, "
                f"{budget}, base seed {self.base_seed}" + _clocks(self.competition, self.clock_scale, self.spend_clock))


# ----------------------------------------------------------------------------------------- results

# What makes games comparable in one table; board, side, rollouts and seed are what the table varies.
SETTING_FIELDS = ("preset", "opponent", "seconds", "iterations", "team", "competition", "opponent_seconds",
                  "clock_scale", "spend_clock", "policy", "value")
# For records written before these settings existed:
SETTING_DEFAULTS = {"clock_scale": 1.0, "spend_clock": False, "policy": None, "value": None}


def describe_records(records: Sequence[dict]) -> str:
    """A title for a table of finished games; a clear error when they were played with different
    settings (another preset, opponent, budget, opponent's budget, team or clock), which one table
    must not mix."""
    if not records:
        raise ValueError("no finished games to summarise: play some first (without --report)")
    settings = {tuple(r["spec"].get(k, SETTING_DEFAULTS.get(k)) for k in SETTING_FIELDS) for r in records}
    if len(settings) > 1:
        listed = "; ".join(", ".join(f"{k}={v}" for k, v in zip(SETTING_FIELDS, values))
                           for values in sorted(settings, key=str))
        raise ValueError(f"the results file mixes {len(settings)} settings ({listed}): "
                         f"give each setting its own --out folder")
    preset, opponent, seconds, iterations, team, competition, opponent_seconds, clock_scale, spend_clock, policy, \
        value = next(iter(settings))
    boards = sorted({r["spec"]["board"] for r in records})
    return (f"MCTS ({_preset_label(preset, policy, value)}) vs {_opponent_label(opponent, opponent_seconds)}, "
            f"boards {', '.join(map(str, boards))}, "
            f"{Budget(seconds=seconds, iterations=iterations)}, {len(records)} games"
            + _clocks(competition, clock_scale, spend_clock))


# ------------------------------------------------------------------------------------------ running

def run(settings: Settings, out: Path, *, workers: int = 1, backend: str = "local",
        ray_address: Optional[str] = None, progress: bool = True,
        on_result: Optional[Callable[[dict], None]] = None) -> List[dict]:
    """Play the games of `settings` not yet in `out`, appending each record as it finishes.

    Returns every record of these settings in `out` (earlier ones included), in the settings' order.
    """
    def win_rate(records: List[dict]) -> str:
        return f"MCTS win rate {100 * sum(r['result'] == 'win' for r in records) / len(records):.0f}%"

    return play_missing(settings.specs(), play_game, out / RESULTS_FILE, workers=workers, backend=backend,
                        ray_address=ray_address, progress=progress, on_result=on_result, postfix=win_rate)


# ------------------------------------------------------------------------------------------ summary

def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple:
    """The Wilson score interval for a proportion: well behaved at 0%, 100% and small n."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # The interval contains p exactly: rounding must not put the end of 10/10 a hair below 1.0.
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def score_interval(wins: int, draws: int, games: int) -> tuple:
    """(score, low, high): the share of points (win 1, draw 1/2) with its 95% Wilson interval."""
    points = wins + 0.5 * draws
    low, high = wilson_interval(points, games)
    return (points / games if games else 0.0, low, high)


def paired_difference(differences: Sequence[float], first: str, second: str) -> str:
    """`first`'s score less `second`'s, game by game on the same game seeds (each difference a game's
    points, win 1 and draw 1/2, less its twin's): the mean with its 95% interval, and how many were
    better, worse and the same."""
    if not differences:
        return "No pair of games played yet."
    n = len(differences)
    mean = sum(differences) / n
    half = 1.959964 * math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n) if n > 1 else float("nan")
    better, worse = sum(d > 0 for d in differences), sum(d < 0 for d in differences)
    return (f"{first} less {second}, over {n} paired games: {mean:+.3f} ({mean - half:+.3f} to {mean + half:+.3f}); "
            f"{better} better, {worse} worse, {n - better - worse} the same.")


COLUMNS = ["Rollouts", "Env", "Home Wins", "Home TDs", "Away Wins", "Away TDs", "Total Wins", "Total TDs",
           "AVG Wins", "AVG TDs", "Iterations", "Draws", "Losses", "Win rate 95% CI"]


@dataclass
class Row:
    rollouts: bool
    board: int
    games: Dict[str, List[dict]]

    def _count(self, side: Optional[str], result: str) -> int:
        sides = SIDES if side is None else (side,)
        return sum(1 for s in sides for r in self.games[s] if r["result"] == result)

    def _tds(self, side: Optional[str]) -> int:
        sides = SIDES if side is None else (side,)
        return sum(r["score"][0] for s in sides for r in self.games[s])

    def _n(self, side: Optional[str] = None) -> int:
        sides = SIDES if side is None else (side,)
        return sum(len(self.games[s]) for s in sides)

    def iterations(self, side: Optional[str] = None) -> float:
        """Mean iterations per search over the games that searched."""
        sides = SIDES if side is None else (side,)
        searched = [r for s in sides for r in self.games[s] if r["searches"]]
        return sum(r["mean_iterations"] for r in searched) / len(searched) if searched else 0.0

    def overruled(self, side: str) -> str:
        """The share of searches whose choice was not the priors' first, or "-" (no priors, or
        records older than this count)."""
        searched = [r for r in self.games[side] if r["searches"]]
        if not searched or any("overruled" not in r for r in searched):
            return "-"
        return f"{100 * sum(r['overruled'] for r in searched) / sum(r['searches'] for r in searched):.0f}%"

    def win_rate(self, side: Optional[str] = None) -> tuple:
        """(rate, low, high) of wins over games, for one side or both."""
        n, wins = self._n(side), self._count(side, "win")
        low, high = wilson_interval(wins, n)
        return (wins / n if n else 0.0, low, high)

    def score(self, side: Optional[str] = None) -> tuple:
        """(score, low, high): the share of points (win 1, draw 1/2) with a 95% Wilson interval."""
        return score_interval(self._count(side, "win"), self._count(side, "draw"), self._n(side))

    def score_cells(self, side: str) -> List[str]:
        rate, low, high = self.score(side)
        against = sum(r["score"][1] for r in self.games[side])
        return [str(self.board), side, f"{self._count(side, 'win')}-{self._count(side, 'draw')}-"
                f"{self._count(side, 'loss')}", f"{100 * rate:.0f}%", f"{100 * low:.0f}-{100 * high:.0f}%",
                f"{self._tds(side)}-{against}", f"{self.iterations(side):.0f}", self.overruled(side)]

    def cells(self) -> List[str]:
        n = self._n()
        rate, low, high = self.win_rate()
        return ["Yes" if self.rollouts else "No", str(self.board),
                f"{self._count('home', 'win')}/{self._n('home')}", str(self._tds("home")),
                f"{self._count('away', 'win')}/{self._n('away')}", str(self._tds("away")),
                f"{self._count(None, 'win')}/{n}", str(self._tds(None)),
                f"{rate:.2f}", f"{self._tds(None) / n:.2f}" if n else "-", f"{self.iterations():.0f}",
                str(self._count(None, "draw")), str(self._count(None, "loss")),
                f"{100 * low:.0f}-{100 * high:.0f}%"]


def summarise(records: Iterable[dict]) -> List[Row]:
    """One row per (rollouts, board), in the seed's order: rollouts on first, boards ascending."""
    cells: Dict[tuple, Dict[str, List[dict]]] = defaultdict(lambda: {side: [] for side in SIDES})
    crashed = []
    for record in records:
        if record["result"] is None:
            crashed.append(record)
            continue
        spec = record["spec"]
        cells[(spec["rollouts"], spec["board"])][spec["side"]].append(record)
    if crashed:
        print(f"warning: {len(crashed)} game(s) crashed and are left out of the table "
              f"(see 'crash' in the results file)", file=sys.stderr)
    return [Row(rollouts, board, games) for (rollouts, board), games in
            sorted(cells.items(), key=lambda item: (not item[0][0], item[0][1]))]


def markdown_table(rows: List[Row]) -> str:
    rule = ["-" * (len(c) + 2) if i == 0 else "-" * (len(c) + 1) + ":" for i, c in enumerate(COLUMNS)]  # right-aligned
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def score_table(rows: List[Row]) -> str:
    """Per board and side: wins-draws-losses, the score (win 1, draw 1/2) with its 95% interval,
    touchdowns, mean iterations per search, and how often the search overruled its priors' first choice."""
    lines = ["| Rollouts | Env | Side | W-D-L | Score | Score 95% CI | TDs for-against | Iterations | Prior overruled |",
             "|----------|----:|------|------:|------:|-------------:|----------------:|-----------:|----------------:|"]
    lines += ["| " + " | ".join(["Yes" if row.rollouts else "No"] + row.score_cells(side)) + " |"
              for row in rows for side in SIDES if row.games[side]]
    return "\n".join(lines) + "\n"


def csv_table(rows: List[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(row.cells())
    return buffer.getvalue()


def plot(rows: List[Row], path: Path, title: str) -> Path:
    """The score (win 1, draw 1/2) per board size, home and away, rollouts on and off, with 95% intervals."""
    fig, ax = plots.figure((7.5, 4.2))
    boards = sorted({row.board for row in rows})
    positions = {board: i for i, board in enumerate(boards)}
    series = [(rollouts, side) for rollouts in (True, False) for side in SIDES
              if any(row.rollouts == rollouts for row in rows)]
    width = 0.8 / max(len(series), 1)
    for k, (rollouts, side) in enumerate(series):
        xs, ys, lows, highs = [], [], [], []
        for row in rows:
            if row.rollouts != rollouts or not row.games[side]:
                continue
            rate, low, high = row.score(side)
            xs.append(positions[row.board] - 0.4 + width * (k + 0.5))
            ys.append(rate)
            lows.append(rate - low)
            highs.append(high - rate)
        label = f"{side}, rollouts {'on' if rollouts else 'off'}"
        ax.bar(xs, ys, width=width * 0.9, label=label, yerr=[lows, highs], capsize=3,
               color=("#1f77b4" if side == "home" else "#ff7f0e"), alpha=1.0 if rollouts else 0.55,
               hatch=None if rollouts else "//")
    ax.set_xticks(range(len(boards)), [f"{b} player{'s' if b > 1 else ''}" for b in boards])
    ax.set_ylim(0, 1.18)  # room above the bars for the legend
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.axhline(0.5, color="grey", ls=":", lw=1)
    ax.set_ylabel("MCTS score: win 1, draw 1/2 (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper center", ncol=len(series))
    ax.grid(axis="y", alpha=0.3)
    return plots.save(fig, path)
