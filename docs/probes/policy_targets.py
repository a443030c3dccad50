"""Probe: can the learned policy's features tell where a deep search overrules the priors?
(docs/learning.md, "Where the deep searches overrule the priors, and sharper targets").

Reads self-play folders (scripts/run.sh selfplay, with playout caps) and prints:
1. per kind of the priors' favourite, how often the deep search's most visited action was another,
   and the commonest pairs (the favourite's kind, the most visited's);
2. for three splits by game (as `train_policy --seed 0 1 2`), the held-out cross-entropy to the visit
   shares and the held-out first-choice agreement of linear fits whose targets are the visit shares
   sharpened to the power 1/T (T = 0: the most visited action alone), at two L2 pulls;
3. with --without PREFIX, each fit again with the features named PREFIX... held at 0 (what they add),
   and the first choice on the decisions between player actions alone (START_* or END_TURN) and on
   those where the target's first choice is not generation 0's (the overrules);
4. how much the overrules gain: the most visited child's mean value over the favourite's, and how
   many beat it by the margin the default's final choice asks on 11 players (0.02); --target margin
   fits to that choice alone (`selfplay.margin_choice`) instead of the visit shares.

    .venv/bin/python docs/probes/policy_targets.py data/selfplay-5-caps
    .venv/bin/python docs/probes/policy_targets.py data/selfplay-11-caps-v3 --temperatures 1 --without plan_
    .venv/bin/python docs/probes/policy_targets.py data/selfplay-11-caps-v3 --target margin --temperatures 1 --without plan_
"""
import argparse
from collections import Counter
from pathlib import Path

import numpy as np
from botbowl.core import ActionType

from mcts_bot.harness import selfplay, training
from mcts_bot.harness.collect import saved_games
from mcts_bot.knowledge.grod import START_TYPES
from mcts_bot.knowledge.policy import (ACTION_FEATURE_NAMES, KINDS, PolicyModel, cross_entropy, fit_policy,
                                       top_choice_agreement)

_STARTS = [ACTION_FEATURE_NAMES.index(f"kind_{KINDS[t]}") for t in START_TYPES + (ActionType.END_TURN,)]


def overrules(folders):
    """(decisions, overruled) per kind of the priors' favourite, overruled per (its kind, the most
    visited's kind), and each overrule's gain (the most visited's mean value less the favourite's),
    over the deep decisions with a choice."""
    decisions, overruled, pairs = Counter(), Counter(), Counter()
    gains = []
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
                    gains.append(data["q"][a + best] - data["q"][a + favourite])
    return decisions, overruled, pairs, np.array(gains)


def sharpen(target: np.ndarray, offsets: np.ndarray, temperature: float) -> np.ndarray:
    """Each decision's target to the power 1 / temperature, renormalised (0: one-hot on its largest)."""
    if temperature == 0:
        out = np.zeros_like(target)
        for a, b in zip(offsets[:-1], offsets[1:]):
            out[a + np.argmax(target[a:b])] = 1.0
        return out
    p = target ** (1.0 / temperature)
    return p / np.repeat(np.add.reduceat(p, offsets[:-1]), np.diff(offsets))


def between_actions(data: selfplay.PolicyData) -> selfplay.PolicyData:
    """The decisions of `data` between player actions (a START_* or END_TURN among the actions)."""
    starts = data.x[:, _STARTS].any(axis=1)
    return data.take([i for i in range(data.decisions) if starts[data.offsets[i]:data.offsets[i + 1]].any()])


def without(data: selfplay.PolicyData, columns) -> selfplay.PolicyData:
    x = data.x.copy()
    x[:, columns] = 0.0
    return selfplay.PolicyData(x, data.target, data.offsets, data.game, data.states)


def overruling(data: selfplay.PolicyData) -> selfplay.PolicyData:
    """The decisions of `data` whose target's first choice is not generation 0's."""
    scores = PolicyModel.initial().scores(data.x)
    keep = [i for i, (a, b) in enumerate(zip(data.offsets[:-1], data.offsets[1:]))
            if np.argmax(scores[a:b]) != np.argmax(data.target[a:b])]
    return data.take(keep)


def report(name: str, model: PolicyModel, test: selfplay.PolicyData) -> str:
    starts, overruled = between_actions(test), overruling(test)
    agree = lambda d: f"{top_choice_agreement(model, d.x, d.target, d.offsets):.1%} of {d.decisions}"  # noqa: E731
    return (f"{name}cross-entropy {cross_entropy(model, test.x, test.target, test.offsets):.3f}, first choice "
            f"{top_choice_agreement(model, test.x, test.target, test.offsets):.1%} (between player actions "
            f"{agree(starts)}; the overrules {agree(overruled)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--temperatures", nargs="+", type=float, default=[1.0, 0.5, 0.25, 0.0])
    parser.add_argument("--l2", nargs="+", type=float, default=[0.01, 0.001])
    parser.add_argument("--target", choices=selfplay.TARGETS, default="visits", help="what the fits learn (default visits)")
    parser.add_argument("--without", default=None, metavar="PREFIX",
                        help="fit again with the features whose names start with PREFIX held at 0")
    args = parser.parse_args()
    ablated = [i for i, name in enumerate(ACTION_FEATURE_NAMES) if args.without and name.startswith(args.without)]
    if args.without and not ablated:
        parser.error(f"no action feature starts with {args.without!r}: {', '.join(ACTION_FEATURE_NAMES)}")

    decisions, overruled, pairs, gains = overrules(args.folders)
    total = sum(decisions.values())
    print(f"{total} deep decisions with a choice; the priors' favourite overruled in {sum(overruled.values())} "
          f"({sum(overruled.values()) / max(1, total):.0%}), the most visited's mean value above the favourite's "
          f"by {np.median(gains):.4f} (median; quartiles {np.percentile(gains, 25):.4f}, {np.percentile(gains, 75):.4f}), "
          f"by more than {selfplay.MARGIN} in {np.sum(gains > selfplay.MARGIN)} ({np.sum(gains > selfplay.MARGIN) / max(1, total):.1%} "
          f"of the decisions)")
    for kind, n in decisions.most_common():
        print(f"  {kind:26s} {n:5d}  overruled {overruled[kind]:4d} ({overruled[kind] / n:.0%})")
    print("the commonest overrules (the favourite's kind -> the most visited's):")
    for (kind, instead), n in pairs.most_common(10):
        print(f"  {kind} -> {instead}: {n}")

    data = selfplay.load(args.folders, target=args.target)
    for split in (0, 1, 2):
        train, test = training.split_by_game(data, 0.2, split)  # the split train_policy --seed makes
        print(f"split {split}: {train.decisions} training decisions, {test.decisions} held out; "
              + report("generation 0: ", PolicyModel.initial(), test))
        for temperature in args.temperatures:
            for l2 in args.l2:
                target = sharpen(train.target, train.offsets, temperature)
                model, _ = fit_policy(train.x, target, train.offsets, l2=l2)
                print(report(f"  T {temperature:<4} l2 {l2:<6} ", model, test), flush=True)
                if ablated:
                    model, _ = fit_policy(without(train, ablated).x, target, train.offsets, l2=l2)
                    print(report(f"    without {args.without}*: ", model, without(test, ablated)), flush=True)


if __name__ == "__main__":
    main()
