"""A learned value: the chance to win, from the state's features, by a small network in numpy.

Seed 001's idea (TD-Gammon) for Blood Bowl: instead of hand-set weights, a value learned from many
games of competent play. The model is logistic regression or a network with one hidden layer
(tanh), on standardised `features`; `scripts/train_value.py` trains it, and one file per board
size ships in `mcts_bot/knowledge/models/` (`value-<players>.npz`, about 40 KB): on 1-7 players
fitted to scripted self-play, on 11 players to games between `scripted` and `grod` in all four
pairings (docs/learned-value.md). `learned_value` is a
`Heuristic` (game, team) -> [0, 1] like the hand-made ones, usable as `heuristic=` or through the
`learned` preset.
"""
from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional

import botbowl
import numpy as np

from mcts_bot.knowledge.features import FEATURE_NAMES, features
from mcts_bot.knowledge.heuristics import game_result, threat_heuristic

MODELS = Path(__file__).parent / "models"


@dataclass
class ValueModel:
    """logit = w2 . tanh(W1 x + b1) + b2 on x standardised by (mean, scale); no hidden layer when W1 is None."""

    mean: np.ndarray
    scale: np.ndarray
    w2: np.ndarray
    b2: float
    w1: Optional[np.ndarray] = None
    b1: Optional[np.ndarray] = None
    info: Dict[str, str] = field(default_factory=dict)  # how it was trained: data, target, scores

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Logits of a batch (rows of features)."""
        z = (np.atleast_2d(x) - self.mean) / self.scale
        if self.w1 is not None:
            z = np.tanh(z @ self.w1 + self.b1)
        return z @ self.w2 + self.b2

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Win probabilities of a batch."""
        return 1.0 / (1.0 + np.exp(-np.clip(self.logits(x), -30.0, 30.0)))

    def save(self, path: Path) -> None:
        arrays = dict(mean=self.mean, scale=self.scale, w2=self.w2, b2=np.array(self.b2),
                      names=np.array(FEATURE_NAMES), info=np.array(list(self.info.items()), dtype=str).reshape(-1, 2))
        if self.w1 is not None:
            arrays.update(w1=self.w1, b1=self.b1)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> "ValueModel":
        with np.load(path, allow_pickle=False) as data:
            names = [str(n) for n in data["names"]]
            if names != FEATURE_NAMES:
                raise ValueError(f"{path} was trained on other features than this version computes: "
                                 f"retrain it with scripts/train_value.py")
            info = {str(k): str(v) for k, v in data["info"]} if data["info"].size else {}
            hidden = "w1" in data.files
            return cls(mean=data["mean"], scale=data["scale"], w2=data["w2"], b2=float(data["b2"]),
                       w1=data["w1"] if hidden else None, b1=data["b1"] if hidden else None, info=info)


def model_path(board_size: int) -> Path:
    return MODELS / f"value-{board_size}.npz"


@functools.lru_cache(maxsize=None)
def model_for(board_size: int) -> ValueModel:
    """The shipped model for a board size (players a side), loaded once per process."""
    path = model_path(board_size)
    if not path.exists():
        raise FileNotFoundError(f"no learned value for the {board_size}-player board ({path}): build it with "
                                f"scripts/run.sh collect --board {board_size} and scripts/run.sh train_value "
                                f"--board {board_size}")
    return ValueModel.load(path)


@functools.lru_cache(maxsize=None)
def _model_or_none(board_size: int) -> Optional[ValueModel]:
    try:
        return model_for(board_size)
    except FileNotFoundError as missing:
        logging.getLogger("mcts_bot").warning("%s; until then the threat heuristic scores the leaves", missing)
        return None


def model_value(model: ValueModel, game: botbowl.Game, team: botbowl.Team) -> float:
    """`model`'s chance that `team` wins (a finished game is 1, 0.5 or 0), kept off 0 and 1."""
    if game.state.game_over:
        return game_result(game, team)
    value = float(model.predict(features(game, team))[0])
    return min(0.999, max(0.001, value))


def learned_value(game: botbowl.Game, team: botbowl.Team) -> float:
    """The shipped model's chance that `team` wins (`model_value` with `model_for` the board size).

    On a board size no model was trained for, the threat heuristic stands in (with a warning, once):
    a custom board plays on rather than failing every search.
    """
    if game.state.game_over:
        return game_result(game, team)
    model = _model_or_none(game.config.pitch_max)
    if model is None:
        return threat_heuristic(game, team)
    return model_value(model, game, team)


def value_from_file(path: Path) -> Callable[[botbowl.Game, botbowl.Team], float]:
    """A heuristic (game, team) -> [0, 1] from a model file (`scripts/run.sh train_value --out FILE`), to
    search with another value than the shipped one (a re-fitted generation, for its gate). The file's
    board size is not checked: its features are the same on every board."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no value model at {path}: train one with scripts/run.sh train_value")
    return functools.partial(model_value, ValueModel.load(path))
