"""Probe: does the carrier's exposure help the learned value tell who wins? (docs/learned-value.md; not kept)

The value's 45 inputs with 8 more: the carrier's exposure (`mcts_bot.knowledge.exposure`: marked,
open to a blitz with no dice, only with dice, out of reach) one-hot, for our carrier or theirs.
Collects games as `scripts/run.sh collect` does, with the 53 inputs, then fits the value twice on
the same split, once on the first 45 inputs and once on all 53, and compares them on held-out games:

    .venv/bin/python docs/probes/exposure_value.py collect data/exposure-11 --games 400
    .venv/bin/python docs/probes/exposure_value.py fit data/exposure-11
"""
import argparse
import sys
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path
from typing import Iterator

import botbowl
import numpy as np

from mcts_bot.harness import collect, training
from mcts_bot.knowledge import features
from mcts_bot.knowledge.exposure import EXPOSURES, exposure
from mcts_bot.knowledge.value import model_for

EXTRA = 2 * len(EXPOSURES)
PAIRINGS = (("grod", "grod", 0.5), ("grod", "scripted", 0.25), ("scripted", "grod", 0.25))


def exposure_inputs(game: botbowl.Game, team: botbowl.Team) -> np.ndarray:
    """The carrier's exposure one-hot: the first four if he is `team`'s, the last four if not; all 0
    with nobody holding the ball."""
    extra = np.zeros(EXTRA)
    carrier = game.get_ball_carrier()
    if carrier is not None and carrier.position is not None:
        theirs = carrier.team.team_id != team.team_id
        extra[EXPOSURES.index(exposure(game, carrier)) + theirs * len(EXPOSURES)] = 1.0
    return extra


def features_with_exposure(game: botbowl.Game, team: botbowl.Team) -> np.ndarray:
    return np.concatenate([features.features(game, team), exposure_inputs(game, team)])


@contextmanager
def with_exposure() -> Iterator[None]:
    """The collector and the trainer on the 53 inputs for the duration."""
    saved = collect.features, collect.NUM_FEATURES, training.NUM_FEATURES
    collect.features = features_with_exposure
    collect.NUM_FEATURES = training.NUM_FEATURES = features.NUM_FEATURES + EXTRA
    try:
        yield
    finally:
        collect.features, collect.NUM_FEATURES, training.NUM_FEATURES = saved


def _collect_game(spec: collect.CollectSpec) -> dict:
    with with_exposure():
        return collect.collect_game(spec)


def collect_games(out: Path, games: int, workers: int) -> None:
    """`games` games on 11 players, split over the pairings, written as they end (resumes)."""
    todo = [spec for home, away, share in PAIRINGS
            for spec in collect.specs(11, home, away, int(games * share), 0, explore=0.05)]
    left = collect.missing(out, todo)
    print(f"{len(todo)} games, {len(todo) - len(left)} already in {out}", file=sys.stderr)
    with get_context("fork").Pool(workers) as pool:
        for done, record in enumerate(pool.imap_unordered(_collect_game, left), 1):
            collect.save_game(out, record)
            print(f"\r{done}/{len(left)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def _sliced(games: training.Games, n: int) -> training.Games:
    return training.Games(games.keys, [x[:, :, :n] for x in games.x], games.result, games.next_td, games.heuristic)


def fit_both(folder: Path, seed: int = 0) -> None:
    with with_exposure():
        games = training.load_games(folder)
    train, test = training.split(games, 0.2, seed)
    losses = {}
    for name, n in (("45 inputs", features.NUM_FEATURES), ("53, with the exposure", features.NUM_FEATURES + EXTRA)):
        model = training.train(_sliced(train, n), target="td", lam=0.7, seed=seed)
        losses[name], sizes = training.game_log_losses(model, _sliced(test, n))
        print(f"{name}: held-out log-loss {losses[name].sum() / sizes.sum():.4f}")
    shipped, _ = training.game_log_losses(model_for(11), _sliced(test, features.NUM_FEATURES))
    print(f"the shipped value (fitted on other games): {shipped.sum() / sizes.sum():.4f}")
    gain, low, high = training.difference_by_game(losses["45 inputs"], losses["53, with the exposure"], sizes, seed=seed)
    print(f"45 less 53: {gain:+.4f} (95% bootstrap by game {low:+.4f} to {high:+.4f}), "
          f"{len(train)} games fitted, {len(test)} held out")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=("collect", "fit"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.step == "collect":
        collect_games(args.folder, args.games, args.workers)
    else:
        fit_both(args.folder)


if __name__ == "__main__":
    main()
