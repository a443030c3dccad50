"""Probe: can the learned policy's features tell where a deep search overrules the priors?
(docs/learning.md, "Where the deep searches overrule the priors, and sharper targets").

Reads self-play folders (scripts/run.sh selfplay, with playout caps) and prints:
1. per kind of the priors' favourite, how often the deep search's most visited action was another,
   and the commonest pairs (the favourite's kind, the most visited's);
2. for three splits by game (as `train_policy --seed 0 1 2`), the held-out cross-entropy to the visit
   shares and the held-out first-choice agreement of linear fits whose targets are the visit shares
   sharpened to the power 1/T (T = 0: the most visited action alone), at two L2 pulls.

    .venv/bin/python docs/probes/policy_targets.py data/selfplay-5-caps
"""
import argparse
from collections import Counter
from pathlib import Path

import numpy as np
from botbowl.core import ActionType

from mcts_bot.harness import selfplay, training
from mcts_bot.harness.collect import saved_games
from mcts_bot.knowledge.policy import PolicyModel, cross_entropy, fit_policy, top_choice_agreement


def overrules(folders):
    """(decisions, overruled) per kind of the priors' favourite, and overruled per (its kind, the most
    visited's kind), over the deep decisions with a choice."""
    decisions, overruled, pairs = Counter(), Counter(), Counter()
    for path in saved_games(folders):
        with np.load(path) as data:
            offsets, deep = data["offsets"], data["deep"]
            for i in np.flatnonzero(deep):
                a, b = offsets[i], offsets[i + 1]
                if b - a < 2 or data["visits"][a:b].sum() == 0:
                    continue
                favourite, best = np.argmax(data["prior"][a:b]), np.argmax(data["visits"][a:b])
                kind = ActionType(int(data["action_type"][a + favourite])).name
                decisions[kind] += 1
                if favourite != best:
                    overruled[kind] += 1
                    pairs[kind, ActionType(int(data["action_type"][a + best])).name] += 1
    return decisions, overruled, pairs


def sharpen(target: np.ndarray, offsets: np.ndarray, temperature: float) -> np.ndarray:
    """Each decision's target to the power 1 / temperature, renormalised (0: one-hot on its largest)."""
    if temperature == 0:
        out = np.zeros_like(target)
        for a, b in zip(offsets[:-1], offsets[1:]):
            out[a + np.argmax(target[a:b])] = 1.0
        return out
    p = target ** (1.0 / temperature)
    return p / np.repeat(np.add.reduceat(p, offsets[:-1]), np.diff(offsets))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--temperatures", nargs="+", type=float, default=[1.0, 0.5, 0.25, 0.0])
    parser.add_argument("--l2", nargs="+", type=float, default=[0.01, 0.001])
    args = parser.parse_args()

    decisions, overruled, pairs = overrules(args.folders)
    total = sum(decisions.values())
    print(f"{total} deep decisions with a choice; the priors' favourite overruled in {sum(overruled.values())} "
          f"({sum(overruled.values()) / max(1, total):.0%})")
    for kind, n in decisions.most_common():
        print(f"  {kind:26s} {n:5d}  overruled {overruled[kind]:4d} ({overruled[kind] / n:.0%})")
    print("the commonest overrules (the favourite's kind -> the most visited's):")
    for (kind, instead), n in pairs.most_common(10):
        print(f"  {kind} -> {instead}: {n}")

    data = selfplay.load(args.folders)
    for split in (0, 1, 2):
        train, test = training.split_by_game(data, 0.2, split)  # the split train_policy --seed makes
        start = PolicyModel.initial()
        print(f"split {split}: {train.decisions} training decisions, {test.decisions} held out; generation 0: "
              f"cross-entropy {cross_entropy(start, test.x, test.target, test.offsets):.3f}, "
              f"first choice {top_choice_agreement(start, test.x, test.target, test.offsets):.1%}")
        for temperature in args.temperatures:
            for l2 in args.l2:
                model, _ = fit_policy(train.x, sharpen(train.target, train.offsets, temperature), train.offsets, l2=l2)
                print(f"  T {temperature:<4} l2 {l2:<6} cross-entropy "
                      f"{cross_entropy(model, test.x, test.target, test.offsets):.3f}, first choice "
                      f"{top_choice_agreement(model, test.x, test.target, test.offsets):.1%}", flush=True)


if __name__ == "__main__":
    main()
