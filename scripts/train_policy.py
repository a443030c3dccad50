#!/usr/bin/env python3
"""Train the learned policy on self-play data (scripts/run.sh selfplay): fit the action weights (and
a hidden layer, --hidden) to the searches' visit shares (or Gumbel MuZero's improved policy,
--target improved, or the choice the default's margin would make, --target margin) by
cross-entropy, starting from (and pulled toward) the knowledge priors, and score it on held-out
games against those priors. Writes results/models/policy-<board>.npz (--out).

The split is by game. Search with a trained model as the prior: `evaluate --policy FILE` (or, from
Python, `mcts_bot.harness.bots.with_models("default", policy=FILE)`, which also makes it read the
choice its preset plans with).
"""
import argparse
from pathlib import Path

import numpy as np

from mcts_bot.harness import cli, selfplay, training
from mcts_bot.knowledge.policy import ACTION_FEATURE_NAMES, PolicyModel, cross_entropy, fit_policy, top_choice_agreement


def score(measure, model: PolicyModel, data: selfplay.PolicyData) -> float:
    """`measure` (cross_entropy, top_choice_agreement) of `model` on `data`'s decisions."""
    return measure(model, data.x, data.target, data.offsets, data.states)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=5)
    parser.add_argument("--data", type=Path, nargs="+", default=None,
                        help="folders of self-play games (default data/selfplay-<board>)")
    parser.add_argument("--target", choices=selfplay.TARGETS, default="visits",
                        help="what the policy learns: the root's visit shares, the improved policy "
                             "(softmax of log prior + the children's rescaled values), or the margin's choice (the "
                             "prior's favourite unless the most visited beats its value by 0.02) (default visits)")
    parser.add_argument("--generation", type=cli.positive_int, default=1,
                        help="the generation this model is, recorded in its file (default 1)")
    parser.add_argument("--l2", type=float, default=0.01, help="pull toward the knowledge priors' weights (default 0.01)")
    parser.add_argument("--hidden", type=cli.non_negative_int, default=0,
                        help="relu units in a hidden layer beside the linear score (default 0: linear)")
    parser.add_argument("--context", action="store_true",
                        help="with --hidden: the hidden layer reads the state's features too (the score, the time, "
                             "whose ball)")
    parser.add_argument("--steps", type=cli.positive_int, default=None,
                        help="full-batch Adam steps (default 300, 1500 with a hidden layer)")
    parser.add_argument("--test-share", type=float, default=0.2, help="share of games held out (default 0.2)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="the split (default 0)")
    parser.add_argument("--out", type=Path, default=None, help="model file (default results/models/policy-<board>.npz)")
    args = parser.parse_args()
    if not 0 < args.test_share < 1 or args.l2 < 0:
        parser.error("--test-share must be in (0, 1) and --l2 at least 0")
    if args.context and not args.hidden:
        parser.error("--context gives the hidden layer the state's features: give --hidden N too")
    folders = args.data or [Path("data") / f"selfplay-{args.board}"]
    try:
        data = selfplay.load(folders, target=args.target)
    except (FileNotFoundError, ValueError) as exc:
        parser.error(str(exc))
    games = np.unique(data.game)
    if len(games) < 2:
        parser.error(f"{len(games)} game in {', '.join(map(str, folders))}: a split by game needs at least two")
    train, test = training.split_by_game(data, args.test_share, args.seed)
    test_games = np.unique(test.game)
    start = PolicyModel.initial()
    steps = args.steps or (1500 if args.hidden else 300)
    model, losses = fit_policy(train.x, train.target, train.offsets, start=start, l2=args.l2, steps=steps,
                               hidden=args.hidden, states=train.states if args.context else None, seed=args.seed)
    print(f"{train.decisions} training decisions ({len(games) - len(test_games)} games), "
          f"{test.decisions} held out ({len(test_games)} games)")
    print(f"cross-entropy to the search's {selfplay.TARGETS[args.target]} "
          "(lower is better), and how often the likeliest action is the target's:")
    for name, m in (("knowledge priors (generation 0)", start), ("trained policy", model)):
        print(f"  {name:32s} train {score(cross_entropy, m, train):.4f}  held out {score(cross_entropy, m, test):.4f}"
              f"  first choice held out {score(top_choice_agreement, m, test):.1%}")
    print("weights:", ", ".join(f"{n} {w:+.2f}" for n, w in zip(ACTION_FEATURE_NAMES, model.weights)))
    model.info.update(generation=str(args.generation), trained_on=" ".join(map(str, folders)), target=args.target,
                      hidden=str(args.hidden), context=str(args.context),
                      decisions=str(train.decisions),
                      held_out_cross_entropy=f"{score(cross_entropy, model, test):.4f}",
                      held_out_first_choice=f"{score(top_choice_agreement, model, test):.4f}")
    out = args.out or Path("results") / "models" / f"policy-{args.board}.npz"
    model.save(out)
    print(f"model: {out}")


if __name__ == "__main__":
    main()
