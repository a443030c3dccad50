"""Training the learned value (`mcts_bot.knowledge.value.ValueModel`) on collected games, and scoring it honestly.

- Split by game, never by state: a game's records are all in training or all in the test set
  (states of one game are near copies of each other). Early stopping uses a validation part of
  the training games; the test games are looked at once, for the scores.
- Targets: Monte Carlo (each state's target is its game's result) or TD(lambda) as seed 001, in
  batch ("fitted TD"): the targets are lambda-returns built from the model's own predictions along
  each game, from each team's point of view, and the model is refitted on them a few times.
- The baseline is the hand-made threat heuristic, calibrated on the same training games (a
  logistic fit of its logit): the learned value must beat that, not a raw heuristic.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from mcts_bot.harness import plots
from mcts_bot.harness.collect import pairing_of, saved_games
from mcts_bot.knowledge.features import NUM_FEATURES
from mcts_bot.knowledge.value import ValueModel


@dataclass
class Games:
    """Collected games, each as its records in time order."""

    keys: List[str]
    x: List[np.ndarray]  # per game: (records, 2, features), home view first
    result: List[float]  # per game: home's result
    next_td: List[np.ndarray]  # per game: per record, 1 home scores next in the half, 0 away, 0.5 nobody
    heuristic: List[np.ndarray]  # per game: per record, the threat heuristic's value for home

    def __len__(self) -> int:
        return len(self.keys)

    def subset(self, index) -> "Games":
        return Games([self.keys[i] for i in index], [self.x[i] for i in index], [self.result[i] for i in index],
                     [self.next_td[i] for i in index], [self.heuristic[i] for i in index])

    def __add__(self, other: "Games") -> "Games":
        return Games(self.keys + other.keys, self.x + other.x, self.result + other.result,
                     self.next_td + other.next_td, self.heuristic + other.heuristic)

    def flat(self, targets: Optional[List[np.ndarray]] = None) -> Tuple[np.ndarray, np.ndarray]:
        """All records from both points of view: features and targets (the game's result by default)."""
        xs, ys = [], []
        for i, x in enumerate(self.x):
            home = targets[i] if targets is not None else np.full(len(x), self.result[i])
            xs += [x[:, 0], x[:, 1]]
            ys += [home, 1.0 - home]
        return np.concatenate(xs), np.concatenate(ys)


def load_games(*folders: Path) -> Games:
    """The collected games of every folder, folder by folder (the order a split by seed draws from); a
    folder without any is an error."""
    paths = [saved_games([folder]) for folder in folders]
    for folder, found in zip(folders, paths):
        if not found:
            raise FileNotFoundError(f"no collected games in {folder}: run scripts/run.sh collect first")
    games = Games([], [], [], [], [])
    for path in sum(paths, []):
        with np.load(path) as data:
            if data["x"].shape[-1] != NUM_FEATURES:
                raise ValueError(f"{path} holds {data['x'].shape[-1]} features, this version computes "
                                 f"{NUM_FEATURES}: collect the data again")
            if not len(data["x"]):
                continue
            games.keys.append(path.stem)
            games.x.append(data["x"])
            games.result.append(float(data["result"][0]))
            games.next_td.append(data["next_td"])
            games.heuristic.append(data["heuristic"])
    return games


def split(games: Games, test_share: float, seed: int) -> Tuple[Games, Games]:
    order = np.random.RandomState(seed).permutation(len(games))
    n_test = max(1, int(round(test_share * len(games))))
    return games.subset(sorted(order[n_test:])), games.subset(sorted(order[:n_test]))


def split_by_game(data, test_share: float, seed: int):
    """Self-play decisions (`selfplay.PolicyData`, `SelfPlayValues`: anything with `game` and
    `subset(games)`) split into (train, held out) by game, a `test_share` of the games held out
    (at least one), drawn from `seed`."""
    games = np.unique(data.game)
    test_games = np.random.RandomState(seed).choice(games, size=max(1, int(round(test_share * len(games)))),
                                                    replace=False)
    return data.subset(np.setdiff1d(games, test_games)), data.subset(test_games)


# ------------------------------------------------------------------------------------------ fitting

def _init(n_in: int, hidden: int, rng: np.random.RandomState) -> Dict[str, np.ndarray]:
    if hidden:
        return dict(w1=rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)), b1=np.zeros(hidden),
                    w2=rng.normal(0, 1 / np.sqrt(hidden), hidden), b2=np.zeros(1))
    return dict(w2=np.zeros(n_in), b2=np.zeros(1))


def _forward(params, z):
    hidden = np.tanh(z @ params["w1"] + params["b1"]) if "w1" in params else z
    return hidden, hidden @ params["w2"] + params["b2"][0]


def _loss_and_grads(params, z, y, l2):
    hidden, logits = _forward(params, z)
    p = 1 / (1 + np.exp(-np.clip(logits, -30, 30)))
    n = len(y)
    d_logit = (p - y) / n
    grads = {"w2": hidden.T @ d_logit + l2 * params["w2"], "b2": np.array([d_logit.sum()])}
    if "w1" in params:
        d_hidden = np.outer(d_logit, params["w2"]) * (1 - hidden ** 2)
        grads["w1"] = z.T @ d_hidden + l2 * params["w1"]
        grads["b1"] = d_hidden.sum(axis=0)
    return grads


def _record_log_losses(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(_record_log_losses(p, y)))


def brier(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((p - y) ** 2))


def fit(x: np.ndarray, y: np.ndarray, x_val: np.ndarray, y_val: np.ndarray, *, hidden: int = 32, l2: float = 1e-4,
        epochs: int = 60, batch: int = 512, rate: float = 3e-3, seed: int = 0,
        start: Optional[ValueModel] = None) -> ValueModel:
    """A model fitted by Adam on cross-entropy (soft targets), the epoch with the best validation loss kept
    (`start` itself, when given and no epoch beats it). From `start`'s weights and standardisation
    when given (fine-tuning: its hidden size wins), else from random weights."""
    rng = np.random.RandomState(seed)
    if start is None:
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale < 1e-6] = 1.0
        params = _init(x.shape[1], hidden, rng)
    else:
        mean, scale = start.mean, start.scale
        params = dict(w2=start.w2.copy(), b2=np.array([start.b2]))
        if start.w1 is not None:
            params.update(w1=start.w1.copy(), b1=start.b1.copy())
    z, z_val = (x - mean) / scale, (x_val - mean) / scale
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}

    def validation_loss() -> float:
        _, logits = _forward(params, z_val)
        return log_loss(1 / (1 + np.exp(-np.clip(logits, -30, 30))), y_val)

    best, best_loss, step = None, np.inf, 0
    if start is not None:  # the weights to beat
        best, best_loss = {k: v.copy() for k, v in params.items()}, validation_loss()
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for first in range(0, len(y), batch):
            rows = order[first:first + batch]
            grads = _loss_and_grads(params, z[rows], y[rows], l2)
            step += 1
            for k, g in grads.items():
                m, v = moments[k]
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                params[k] -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        loss = validation_loss()
        if loss < best_loss:
            best_loss, best = loss, {k: v.copy() for k, v in params.items()}
    return ValueModel(mean=mean, scale=scale, w2=best["w2"], b2=float(best["b2"][0]), w1=best.get("w1"),
                      b1=best.get("b1"))


def td_targets(model: ValueModel, games: Games, lam: float) -> List[np.ndarray]:
    """Lambda-returns for home along each game: G_t = (1 - lam) V(t+1) + lam G(t+1), ending in the result.
    (Away's point of view is 1 - home's: the values of both views are averaged to keep them consistent.)"""
    targets = []
    for x, result in zip(games.x, games.result):
        values = 0.5 * (model.predict(x[:, 0]) + 1.0 - model.predict(x[:, 1]))
        g = np.empty(len(x))
        following = result
        for t in range(len(x) - 1, -1, -1):
            g[t] = following
            following = (1 - lam) * values[t] + lam * g[t]
        targets.append(g)
    return targets


def train(games: Games, *, target: str = "mc", lam: float = 0.7, rounds: int = 3, validation_share: float = 0.15,
          seed: int = 0, start: Optional[ValueModel] = None, **fit_options) -> ValueModel:
    """Fit on `games` (training games only): Monte Carlo targets, or fitted TD(lambda); each fit from
    `start`'s weights when given (fine-tuning: `start` itself unless an epoch beats it on validation)."""
    if target not in ("mc", "td"):
        raise ValueError(f"unknown target {target!r}: choose mc or td")
    fitting, validation = split(games, validation_share, seed + 1)
    x_val, y_val = validation.flat()  # validation always scores against real results
    model = fit(*fitting.flat(), x_val, y_val, seed=seed, start=start, **fit_options)
    if target == "td":
        for _ in range(rounds):
            model = fit(*fitting.flat(td_targets(model, fitting, lam)), x_val, y_val, seed=seed, start=start,
                        **fit_options)
    return model


# ------------------------------------------------------------------------------- self-play games

@dataclass
class SelfPlayValues:
    """The searched states of self-play games (`harness.selfplay`), each from its deciding team's view:
    features, the game's result and the search's root value for that team, and the game it is from."""

    x: np.ndarray
    result: np.ndarray
    root_value: np.ndarray
    game: np.ndarray

    def subset(self, games: np.ndarray) -> "SelfPlayValues":
        keep = np.isin(self.game, games)
        return SelfPlayValues(self.x[keep], self.result[keep], self.root_value[keep], self.game[keep])

    def targets(self, root_weight: float) -> np.ndarray:
        """The result and the root value blended: `root_weight` 0 is Monte Carlo, 1 the search's value."""
        return (1 - root_weight) * self.result + root_weight * self.root_value


def load_selfplay_values(folders: List[Path]) -> SelfPlayValues:
    files = saved_games(folders)
    if not files:
        raise FileNotFoundError(f"no self-play games in {', '.join(map(str, folders))}: play some with "
                                f"scripts/run.sh selfplay")
    parts = []
    for number, path in enumerate(files):
        with np.load(path) as data:
            if "root_value" not in data.files or data["state"].shape[-1] != NUM_FEATURES:
                raise ValueError(f"{path} is not a self-play record of this version ({NUM_FEATURES} features): "
                                 f"record it again with scripts/run.sh selfplay")
            n = len(data["result"])
            parts.append((data["state"], data["result"], data["root_value"], np.full(n, number)))
    return SelfPlayValues(*(np.concatenate([part[k] for part in parts]) for k in range(4)))


def train_on_selfplay(data: SelfPlayValues, *, root_weight: float, validation_share: float = 0.15, seed: int = 0,
                      **fit_options) -> ValueModel:
    """Fit on self-play states (training games only) to the blend of result and root value; early
    stopping on a validation part of the games, scored against their results."""
    if not 0 <= root_weight <= 1:
        raise ValueError(f"the root value's weight must be in [0, 1], got {root_weight}")
    games = np.unique(data.game)
    validation = np.random.RandomState(seed + 1).choice(games, max(1, int(round(validation_share * len(games)))),
                                                        replace=False)
    fitting, held = data.subset(np.setdiff1d(games, validation)), data.subset(validation)
    return fit(fitting.x, fitting.targets(root_weight), held.x, held.result, seed=seed, **fit_options)


def out_of_fold(data: SelfPlayValues, folds: int, seed: int,
                predict: Callable[[SelfPlayValues, SelfPlayValues], np.ndarray]) -> np.ndarray:
    """Each state's prediction by `predict(training games, held-out games)` with its game held out:
    the games dealt into `folds` folds by `seed`, each fold predicted from the others, so that a few
    dozen games can all score a fit."""
    games = np.random.RandomState(seed).permutation(np.unique(data.game))
    if not 2 <= folds <= len(games):
        raise ValueError(f"{folds} folds of {len(games)} games: a fold needs a game, a fit two folds")
    predictions = np.empty(len(data.x))
    for part in np.array_split(games, folds):
        held = np.isin(data.game, part)
        predictions[held] = predict(data.subset(np.setdiff1d(games, part)), data.subset(part))
    return predictions


def log_losses_by_game(p: np.ndarray, y: np.ndarray, game: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Per game (in `np.unique(game)` order): the log-loss summed over its records, and their number
    (what `difference_by_game` resamples)."""
    games, index = np.unique(game, return_inverse=True)
    return np.bincount(index, _record_log_losses(p, y), len(games)), np.bincount(index, minlength=len(games))


# ----------------------------------------------------------------------------------------- baseline

def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def _platt(logit: np.ndarray, ab) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(ab[0] * logit + ab[1], -30, 30)))


def calibration(p: np.ndarray, y: np.ndarray) -> Tuple[float, float]:
    """(a, b) such that sigmoid(a * logit(p) + b) best fits the results `y` (Platt scaling): what a
    prediction is worth once its scale and bias are mended."""
    logit = _logit(p)
    ridge = 1e-3  # keeps the slope finite where the predictions separate the results almost perfectly

    def loss(params):
        return log_loss(_platt(logit, params), y) + ridge * params[0] ** 2

    params = np.array([1.0, 0.0])
    for _ in range(50):  # Newton steps on the two parameters, halved until the loss goes down
        q = _platt(logit, params)
        w = q * (1 - q) + 1e-9
        n = len(y)
        g = np.array([np.sum((q - y) * logit) / n + 2 * ridge * params[0], np.sum(q - y) / n])
        hess = np.array([[np.sum(w * logit * logit) / n + 2 * ridge, np.sum(w * logit) / n],
                         [np.sum(w * logit) / n, np.sum(w) / n]])
        step = np.linalg.solve(hess + 1e-9 * np.eye(2), g)
        current = loss(params)
        while np.any(step) and loss(params - step) > current:
            step /= 2
            if np.max(np.abs(step)) < 1e-9:
                step[:] = 0
        if not np.any(step):
            break
        params = params - step
    return float(params[0]), float(params[1])


def calibrated(p: np.ndarray, ab: Tuple[float, float]) -> np.ndarray:
    """`p` mended by a `calibration`'s (a, b)."""
    return _platt(_logit(p), ab)


def calibrated_heuristic(games: Games) -> Tuple[float, float]:
    """The threat heuristic's `calibration` on both teams' views of `games`."""
    h = np.concatenate([np.concatenate([g, 1 - g]) for g in games.heuristic])
    y = np.concatenate([np.concatenate([np.full(len(g), r), np.full(len(g), 1 - r)])
                        for g, r in zip(games.heuristic, games.result)])
    return calibration(h, y)


def scores(model: ValueModel, heuristic_calibration: Tuple[float, float], test: Games,
           others: Optional[Dict[str, ValueModel]] = None) -> Dict[str, Dict[str, float]]:
    """Log-loss and Brier score on the test games: learned, `others` (the shipped value, say), calibrated
    heuristic, raw heuristic, base rate."""
    x, y = test.flat()
    h = np.clip(np.concatenate([np.concatenate([g, 1 - g]) for g in test.heuristic]), 1e-4, 1 - 1e-4)
    predictions = {"learned value": model.predict(x)}
    predictions.update({name: other.predict(x) for name, other in (others or {}).items()})
    predictions.update({
        "threat heuristic, calibrated": calibrated(h, heuristic_calibration),
        "threat heuristic, raw": h,
        "constant 0.5": np.full(len(y), 0.5),
    })
    return {name: {"log_loss": log_loss(p, y), "brier": brier(p, y)} for name, p in predictions.items()}


def game_log_losses(model: ValueModel, games: Games) -> Tuple[np.ndarray, np.ndarray]:
    """Per game: the log-loss summed over its records from both points of view, and their number (the
    pieces a bootstrap by game resamples)."""
    sums, sizes = [], []
    for x, result in zip(games.x, games.result):
        p = np.concatenate([model.predict(x[:, 0]), model.predict(x[:, 1])])
        y = np.concatenate([np.full(len(x), result), np.full(len(x), 1 - result)])
        sums.append(log_loss(p, y) * len(y))
        sizes.append(len(y))
    return np.array(sums), np.array(sizes)


def difference_by_game(first: np.ndarray, second: np.ndarray, sizes: np.ndarray, *, samples: int = 2000,
                       seed: int = 0) -> Tuple[float, float, float]:
    """Two predictions' held-out log-loss told apart (`game_log_losses` of each on the same games): the first's
    less the second's, and its 95% bootstrap interval resampling whole games (a game's records are not
    independent). Negative: the first predicts better."""
    gain = first - second
    rng = np.random.RandomState(seed)
    boots = [gain[i].sum() / sizes[i].sum() for i in (rng.randint(0, len(gain), len(gain)) for _ in range(samples))]
    low, high = np.percentile(boots, [2.5, 97.5])
    return float(gain.sum() / sizes.sum()), float(low), float(high)


def by_matchup(games: Games) -> Dict[str, Games]:
    """The games grouped by who played them, in order of first appearance."""
    groups: Dict[str, List[int]] = {}
    for i, key in enumerate(games.keys):
        groups.setdefault(pairing_of(key), []).append(i)
    return {name: games.subset(index) for name, index in groups.items()}


def calibration_plot(model: ValueModel, heuristic_calibration: Tuple[float, float], test: Games, path: Path,
                     title: str) -> Path:
    """Predicted win probability against the observed rate, in ten bins, learned vs calibrated heuristic."""
    x, y = test.flat()
    h = np.clip(np.concatenate([np.concatenate([g, 1 - g]) for g in test.heuristic]), 1e-4, 1 - 1e-4)
    series = {"learned value": model.predict(x),
              "threat heuristic, calibrated": calibrated(h, heuristic_calibration)}
    fig, ax = plots.figure((5, 4.6))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
    bins = np.linspace(0, 1, 11)
    for (name, p), marker in zip(series.items(), ("o", "s")):
        index = np.clip(np.digitize(p, bins) - 1, 0, 9)
        centres = [p[index == k].mean() for k in range(10) if np.any(index == k)]
        rates = [y[index == k].mean() for k in range(10) if np.any(index == k)]
        ax.plot(centres, rates, marker=marker, label=name)
    ax.set_xlabel("predicted chance to win")
    ax.set_ylabel("observed result (win 1, draw 1/2)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return plots.save(fig, path)
