"""Data for the learned value: seeded games between chosen bots, one record per decision state.

Each record holds the state's features from both teams' points of view (home first), the threat
heuristic's value for home (the baseline the learned value must beat), who acts, the half and the
score; once the game is over, the targets: the game's result for home, and who scores the next
touchdown within the half (home 1, away 0, nobody 0.5). A game's records go to
`OUT/<key>.npz` as soon as it ends, so a run that stops resumes where it stopped.

`explore` makes each recorded bot play a random action that often, so that the data also covers
the unusual states a search's tree reaches.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

import botbowl
import numpy as np

from mcts_bot.adapter import fast_reversible
from mcts_bot.core.policies import random_rollout_policy
from mcts_bot.harness.bots import check_bot, label, make_bot, mcts_preset_of
from mcts_bot.harness.games import check_board_size, make_game
from mcts_bot.knowledge.features import NUM_FEATURES, features
from mcts_bot.knowledge.heuristics import threat_heuristic


@dataclass(frozen=True)
class CollectSpec:
    """One game to record."""

    board: int
    home: str
    away: str
    seed: int
    explore: float = 0.0
    seconds: Optional[float] = None
    iterations: Optional[int] = None

    def __post_init__(self) -> None:
        check_board_size(self.board)
        check_bot(self.home)
        check_bot(self.away)
        if not 0.0 <= self.explore < 1.0:
            raise ValueError(f"explore must be in [0, 1), got {self.explore}")
        if any(mcts_preset_of(name) for name in (self.home, self.away)) and self.seconds is None and self.iterations is None:
            raise ValueError("an MCTS bot needs a budget: give seconds or iterations")

    @property
    def key(self) -> str:
        """The game's file name: the bots by `label`, so a bot of one's own (`path/to/file.py:Class`) names no folder."""
        return (f"{self.board}p-{label(self.home)}-vs-{label(self.away)}-seed{self.seed}-explore{self.explore:g}"
                f"-{self.seconds}s-{self.iterations}it")


def pairing_of(key: str) -> str:
    """The bots of a collected game from its `CollectSpec.key` (the saved file's name): "grod-vs-scripted"."""
    return key.split("-", 1)[1].split("-seed", 1)[0]


def specs(board: int, home: str, away: str, games: int, base_seed: int = 0, **options) -> List[CollectSpec]:
    """`games` games, each seeded from the base seed and its number (the same command, the same games)."""
    return [CollectSpec(board=board, home=home, away=away,
                        seed=zlib.crc32(f"collect/{base_seed}/{board}/{home}/{away}/{i}".encode()) & 0x7FFFFFFF,
                        **options) for i in range(games)]


class Recorder(botbowl.Agent):
    """Wraps a bot: records each state it decides in, and explores with a random action now and then."""

    def __init__(self, bot: botbowl.Agent, explore: float, rng: np.random.RandomState, rows: list):
        super().__init__(bot.name)
        self.bot, self.explore, self.rng, self.rows = bot, explore, rng, rows

    def new_game(self, game, team):
        self.bot.new_game(game, team)

    def end_game(self, game):
        self.bot.end_game(game)

    def act(self, game):
        self.rows.append(value_row(game))
        if self.explore and self.rng.random_sample() < self.explore:
            return random_rollout_policy(game, self.rng)
        return self.bot.act(game)


def value_row(game: botbowl.Game) -> tuple:
    """What a record keeps of the state a bot decides in (`value_record` makes the arrays)."""
    home, away = game.state.home_team, game.state.away_team
    return (features(game, home), features(game, away), threat_heuristic(game, home),
            game.active_team is home, game.state.half, home.state.score, away.state.score)


def next_touchdowns(halves: np.ndarray, scores: np.ndarray, final: Sequence[int]) -> np.ndarray:
    """For each record: 1 if home scores the next touchdown of its half, 0 if away does, 0.5 if nobody.

    A score that changes between two records (or between the last record and the end) was made
    in the earlier record's half."""
    n = len(halves)
    target = np.full(n, 0.5)
    upcoming = None  # (half, scorer) of the first touchdown after the record being looked at
    for i in range(n - 1, -1, -1):
        later = np.asarray(final) if i == n - 1 else scores[i + 1]
        if not np.array_equal(later, scores[i]):
            upcoming = (halves[i], 1.0 if later[0] > scores[i][0] else 0.0)
        if upcoming is not None and upcoming[0] == halves[i]:
            target[i] = upcoming[1]
    return target


def collect_game(spec: CollectSpec) -> dict:
    """Play the game and return its records (arrays) and result."""
    rng = np.random.RandomState(spec.seed)
    rows: list = []
    home = Recorder(make_bot(spec.home, seed=spec.seed + 1, seconds=spec.seconds, iterations=spec.iterations), spec.explore, rng, rows)
    away = Recorder(make_bot(spec.away, seed=spec.seed + 2, seconds=spec.seconds, iterations=spec.iterations), spec.explore, rng, rows)
    game = make_game(spec.board, home, away, seed=spec.seed, game_id=spec.key)
    # The rule-based bots' own pathfinding makes squares by the hundred thousand: botbowl's
    # bookkeeping made faster, with the same records (about 15% off a game of grod's on 11 players).
    with fast_reversible.in_use():
        game.init()
    return value_record(spec.key, rows, game.state.home_team.state.score, game.state.away_team.state.score)


def value_record(key: str, rows: Sequence[tuple], home_score: int, away_score: int) -> dict:
    """A game's records as arrays (`value_row`'s, in the order of play), with its targets from the final score."""
    result = 1.0 if home_score > away_score else 0.0 if home_score < away_score else 0.5
    x = np.zeros((len(rows), 2, NUM_FEATURES))
    heuristic, home_acts, halves, scores = (np.zeros(len(rows)), np.zeros(len(rows), bool),
                                            np.zeros(len(rows), int), np.zeros((len(rows), 2), int))
    for i, (home_view, away_view, h, acts, half, hs, as_) in enumerate(rows):
        x[i, 0], x[i, 1], heuristic[i], home_acts[i], halves[i], scores[i] = home_view, away_view, h, acts, half, (hs, as_)
    return dict(key=key, x=x, heuristic=heuristic, home_acts=home_acts, half=halves, score=scores,
                result=np.full(len(rows), result),
                next_td=next_touchdowns(halves, scores, (home_score, away_score)),
                final=np.array([home_score, away_score]))


def save_game(out: Path, record: dict) -> Path:
    """Write one game's records atomically (a file that exists is complete)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{record['key']}.npz"
    tmp = out / f".{record['key']}.tmp.npz"
    np.savez_compressed(tmp, **{k: v for k, v in record.items() if k != "key"})
    tmp.replace(path)
    return path


def saved_games(folders: Sequence[Path]) -> List[Path]:
    """The files `save_game` finished in `folders`, sorted (its hidden temporaries left out)."""
    return sorted(path for folder in folders for path in Path(folder).glob("*.npz") if not path.name.startswith("."))


def missing(out: Path, todo: Sequence[CollectSpec]) -> List[CollectSpec]:
    return [spec for spec in todo if not (out / f"{spec.key}.npz").exists()]
