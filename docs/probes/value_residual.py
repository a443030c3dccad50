"""Probe: do the search's recorded games teach the value anything beyond who tends to win them?
(docs/learning.md, "A value fitted on the recorded games, cross-validated")

A re-fit of the whole value (`train_value --selfplay --folds`) has 2,000-odd weights and did not beat
the shipped value recalibrated (two numbers, a and b in sigmoid(a logit(v) + b)). This asks the same
question with few weights: a logistic correction on top of the shipped value,
sigmoid(a logit(v) + b + c . f), f the value's own state features (standardized on the training
folds), with an L2 penalty on c. Every searched decision from the searching side, each game's
decisions predicted from the other folds' games (the folds `train_value --folds` deals with the same
seed); each row less the recalibration, with a 95% bootstrap by game:

    .venv/bin/python docs/probes/value_residual.py data/searches-11/*/
"""
import argparse
from pathlib import Path

import numpy as np

from mcts_bot.harness import training
from mcts_bot.knowledge.features import FEATURE_NAMES
from mcts_bot.knowledge.value import ValueModel, model_path


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(z, -30, 30)))


def fit_logistic(z: np.ndarray, y: np.ndarray, penalty: np.ndarray) -> np.ndarray:
    """Weights w minimising the mean log-loss of sigmoid(z w) plus sum(penalty * w**2), by Newton
    steps: convex, so it converges from zero."""
    w = np.zeros(z.shape[1])
    n = len(y)
    for _ in range(50):
        q = sigmoid(z @ w)
        grad = z.T @ (q - y) / n + 2 * penalty * w
        hess = (z * (q * (1 - q))[:, None]).T @ z / n + np.diag(2 * penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


class Correction:
    """sigmoid(a logit(v) + c . f + b) on the shipped value v and the chosen feature columns
    (standardized on the games it is fitted on; none: the two-number recalibration)."""

    def __init__(self, shipped: ValueModel, columns: np.ndarray):
        self.shipped, self.columns = shipped, columns

    def _design(self, data: training.SelfPlayValues) -> np.ndarray:
        v = np.clip(self.shipped.predict(data.x), 1e-4, 1 - 1e-4)  # the clip training.calibration uses
        logit = np.log(v / (1 - v))[:, None]
        extra = (data.x[:, self.columns] - self.mean) / self.scale
        return np.hstack([logit, extra, np.ones((len(data.x), 1))])

    def fit(self, data: training.SelfPlayValues, l2: float) -> "Correction":
        self.mean, self.scale = data.x[:, self.columns].mean(0), data.x[:, self.columns].std(0) + 1e-9
        z = self._design(data)
        penalty = np.zeros(z.shape[1])
        penalty[1:-1] = l2  # the features' weights only: the scale and the bias are free, as in the recalibration
        self.w = fit_logistic(z, data.result, penalty)
        return self

    def predict(self, data: training.SelfPlayValues) -> np.ndarray:
        return sigmoid(self._design(data) @ self.w)


def corrected_out_of_fold(data: training.SelfPlayValues, folds: int, seed: int, shipped: ValueModel,
                          columns: np.ndarray, l2: float) -> np.ndarray:
    return training.out_of_fold(data, folds, seed, lambda train, held:
                                Correction(shipped, columns).fit(train, l2).predict(held))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+", help="folders of recorded searches (trace --record, selfplay)")
    parser.add_argument("--board", type=int, default=11)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--l2", type=float, nargs="+", default=[1e-1, 1e-2, 1e-3, 1e-4],
                        help="penalties on the features' weights, one row each")
    args = parser.parse_args()
    data = training.load_selfplay_values(args.data)
    shipped = ValueModel.load(model_path(args.board))
    every = np.arange(len(FEATURE_NAMES))
    rows = {"shipped value": shipped.predict(data.x),
            "recalibrated (a, b)": corrected_out_of_fold(data, args.folds, args.seed, shipped, every[:0], 0)}
    for l2 in args.l2:
        rows[f"corrected, {len(every)} features, L2 {l2:g}"] = corrected_out_of_fold(
            data, args.folds, args.seed, shipped, every, l2)
    base, sizes = training.log_losses_by_game(rows["recalibrated (a, b)"], data.result, data.game)
    print(f"{len(np.unique(data.game))} games, {len(data.x)} searched decisions, {args.folds} folds\n")
    print("| Value | Log-loss | Less the recalibrated, 95% bootstrap by game |\n|---|---:|---:|")
    for name, p in rows.items():
        losses = training.log_losses_by_game(p, data.result, data.game)[0]
        gain, low, high = training.difference_by_game(losses, base, sizes, seed=args.seed)
        print(f"| {name} | {training.log_loss(p, data.result):.4f} | {gain:+.4f} ({low:+.4f} to {high:+.4f}) |")
    full = Correction(shipped, every).fit(data, args.l2[-1])
    print(f"\nFitted on every game at L2 {args.l2[-1]:g}: a = {full.w[0]:.3f}, b = {full.w[-1]:+.3f}; "
          "the largest feature weights (per standard deviation):")
    for i in np.argsort(-np.abs(full.w[1:-1]))[:8]:
        print(f"  {FEATURE_NAMES[i]}: {full.w[1 + i]:+.3f}")


if __name__ == "__main__":
    main()
