#!/usr/bin/env python3
"""Train the learned value for one board from collected games (scripts/run.sh collect), score it on
held-out games against the threat heuristic calibrated on the same training games and against the
shipped value (their difference with a 95% bootstrap interval by game), plot its calibration, and
write the model to results/models/value-<board>.npz; with --install, where the package loads it
(mcts_bot/knowledge/models/value-<board>.npz), replacing the shipped one. --train-games N fits on N
of the training games and tests on the same held-out games: how the value gains with data.

The split is by game (a game's states are all in training or all in the test set); early
stopping looks only at training games; the test games are scored once, at the end.

With --selfplay, the data are self-play records (scripts/run.sh selfplay): the bot's own searched
states, with the search's root value as a target beside the result (--root-weight), scored on
held-out games against the shipped value and against the root values themselves; with --folds K,
every game is held out once (K fits, each on the other folds' games), for the few dozen games an
evaluation run records (scripts/run.sh trace --record).
"""
import argparse
import json
from pathlib import Path
from typing import Optional

import numpy as np

from mcts_bot.harness import cli, training
from mcts_bot.knowledge.value import ValueModel, model_path


def shipped_value(board: int) -> Optional[ValueModel]:
    """The value the package ships for the board, to score a re-fit against (None if there is none)."""
    return ValueModel.load(model_path(board)) if model_path(board).exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=3)
    parser.add_argument("--data", type=Path, nargs="+", default=None,
                        help="folders of collected games (default data/value-<board>)")
    parser.add_argument("--more-data", type=Path, nargs="+", action="append", default=[],
                        help="more folders of games, split on their own by the same rule and added to both sides: "
                             "the held-out games of --data stay the ones a fit on --data alone is scored on (each "
                             "--more-data a group split on its own)")
    parser.add_argument("--selfplay", action="store_true",
                        help="the data are self-play records (default folder data/selfplay-<board>)")
    parser.add_argument("--root-weight", type=float, default=0.5,
                        help="with --selfplay: the target is (1 - w) result + w root value (default 0.5)")
    parser.add_argument("--folds", type=cli.positive_int, default=None,
                        help="with --selfplay: score a fit on every game by K-fold cross-validation (each fold's "
                             "games predicted by a fit on the others) instead of holding out --test-share; the "
                             "model written is fitted on all games")
    parser.add_argument("--fine-tune", action="store_true",
                        help="start from the shipped value's weights rather than random ones (kept unless an "
                             "epoch beats them on the validation games)")
    parser.add_argument("--target", choices=["mc", "td"], default="td",
                        help="Monte Carlo (the game's result) or TD(lambda) targets (default td)")
    parser.add_argument("--lam", type=float, default=0.7, help="lambda of TD(lambda) (default 0.7)")
    parser.add_argument("--hidden", type=cli.non_negative_int, default=32,
                        help="hidden units; 0 for logistic regression (default 32)")
    parser.add_argument("--epochs", type=cli.positive_int, default=40, help="(default 40)")
    parser.add_argument("--test-share", type=float, default=0.2, help="share of games held out (default 0.2)")
    parser.add_argument("--train-games", type=cli.positive_int, default=None,
                        help="fit on this many of the training games, drawn by --seed (default all); the held-out "
                             "games stay the same, so fits on more and less data compare on one test")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="split and initial weights (default 0)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--out", type=Path, default=None, help="model file (default results/models/value-<board>.npz)")
    out.add_argument("--install", action="store_true",
                     help="write the model where the package loads it, replacing the shipped one")
    parser.add_argument("--plot", type=Path, default=None, help="calibration plot (default img/value-calibration-<board>.png)")
    args = parser.parse_args()
    if not 0 < args.test_share < 1 or not 0 <= args.lam <= 1 or not 0 <= args.root_weight <= 1:
        parser.error("--test-share must be in (0, 1), --lam and --root-weight in [0, 1]")
    current = shipped_value(args.board)
    if args.fine_tune and current is None:
        parser.error(f"--fine-tune starts from the shipped value, and there is none at {model_path(args.board)}")
    if args.selfplay and args.more_data:
        parser.error("--more-data is for collected games, not self-play records: pass the self-play folders to --data")
    if args.selfplay:
        return train_on_selfplay(parser, args, current)
    if args.root_weight != parser.get_default("root_weight") or args.folds:
        parser.error("--root-weight and --folds are for self-play records: add --selfplay")
    folders = args.data or [Path("data") / f"value-{args.board}"]
    try:
        groups = [training.load_games(*group) for group in [folders, *args.more_data]]
    except (FileNotFoundError, ValueError) as exc:
        parser.error(str(exc))
    # each group split on its own, so that adding a group leaves the others' held-out games as they were
    games, (train_games, test_games) = groups[0], training.split(groups[0], args.test_share, args.seed)
    for group in groups[1:]:
        more_train, more_test = training.split(group, args.test_share, args.seed)
        train_games, test_games, games = train_games + more_train, test_games + more_test, games + group
    if args.train_games is not None:
        if args.train_games > len(train_games):
            parser.error(f"--train-games {args.train_games}: there are only {len(train_games)} training games")
        train_games = train_games.subset(sorted(np.random.RandomState(args.seed).permutation(len(train_games))
                                                [:args.train_games]))
    records = sum(len(x) for x in train_games.x) + sum(len(x) for x in test_games.x)
    print(f"{len(games)} games, {records} records: {len(train_games)} games to train on, {len(test_games)} held out")
    model = training.train(train_games, target=args.target, lam=args.lam, seed=args.seed, hidden=args.hidden,
                           epochs=args.epochs, start=current if args.fine_tune else None)
    calibration = training.calibrated_heuristic(train_games)
    shipped = {"shipped value": current} if current is not None else {}
    results = training.scores(model, calibration, test_games, shipped)
    print(f"\nHeld-out games ({len(test_games)}), both teams' points of view:\n")
    print("| Value | Log-loss | Brier |\n|---|---:|---:|")
    for name, score in results.items():
        print(f"| {name} | {score['log_loss']:.4f} | {score['brier']:.4f} |")
    if current is not None:
        learned, sizes = training.game_log_losses(model, test_games)
        gain, low, high = training.difference_by_game(learned, training.game_log_losses(current, test_games)[0],
                                                      sizes, seed=args.seed)
        print(f"\nLearned less shipped: {gain:+.4f} (95% bootstrap by game {low:+.4f} to {high:+.4f}; "
              f"negative: the learned value predicts better)")
    groups = training.by_matchup(test_games)
    if len(groups) > 1:  # data of several pairings of bots: how each value predicts each pairing's games
        names = ["learned value", *shipped]
        print(f"\nHeld-out log-loss by the bots that played:\n\n| Games | Held out | {' | '.join(names)} |\n"
              f"|---|---:|{'---:|' * len(names)}")
        for pairing, part in groups.items():
            part_scores = training.scores(model, calibration, part, shipped)
            print(f"| {pairing} | {len(part)} | " + " | ".join(f"{part_scores[n]['log_loss']:.4f}" for n in names) + " |")
    if args.fine_tune and np.array_equal(model.w2, current.w2):
        print("\nNo epoch beat the shipped value on the validation games: the model is the shipped one.")
    target = (args.target if args.target == "mc" else f"td({args.lam:g})") + (", fine-tuned" if args.fine_tune else "")
    model.info = {"board": str(args.board), "games": str(len(train_games)), "records": str(records),
                  "target": target, "hidden": str(args.hidden),
                  "test": json.dumps(results), "data": " ".join(map(str, [*folders, *sum(args.more_data, [])]))}
    out = model_path(args.board) if args.install else args.out or Path("results") / "models" / f"value-{args.board}.npz"
    model.save(out)
    plot = args.plot or Path("img") / f"value-calibration-{args.board}.png"
    training.calibration_plot(model, calibration, test_games, plot,
                              f"{args.board}-player board: {len(test_games)} held-out games")
    print(f"\nmodel: {out}; calibration plot: {plot}")
    if not args.install:
        print(f"to play with it: scripts/run.sh train_value ... --install (or copy it to {model_path(args.board)})")


def train_on_selfplay(parser: argparse.ArgumentParser, args: argparse.Namespace, shipped: Optional[ValueModel]) -> None:
    folders = args.data or [Path("data") / f"selfplay-{args.board}"]
    try:
        data = training.load_selfplay_values(folders)
    except (FileNotFoundError, ValueError) as exc:
        parser.error(str(exc))
    games = np.unique(data.game)
    if len(games) < 3:
        parser.error(f"{len(games)} self-play games in {', '.join(map(str, folders))}: a split by game needs at least 3")
    fit_options = dict(root_weight=args.root_weight, seed=args.seed, hidden=args.hidden, epochs=args.epochs,
                       start=shipped if args.fine_tune else None)

    def recalibrated(train: training.SelfPlayValues, held: training.SelfPlayValues) -> np.ndarray:
        # The shipped value with its scale and bias mended on the training games: what a re-fit must beat
        # to have learned more than who tends to win these games.
        return training.calibrated(shipped.predict(held.x), training.calibration(shipped.predict(train.x), train.result))

    blend = f"target (1 - {args.root_weight:g}) result + {args.root_weight:g} root value"
    if args.folds:
        if args.folds > len(games):
            parser.error(f"--folds {args.folds}: there are only {len(games)} games")
        print(f"{len(games)} self-play games, {len(data.x)} searched states, in {args.folds} folds: each game's "
              f"states predicted from the other folds' games; {blend}")
        train = held = data
        predictions = {"re-fitted value": training.out_of_fold(
            data, args.folds, args.seed, lambda fold_train, fold_held:
            training.train_on_selfplay(fold_train, **fit_options).predict(fold_held.x))}
        if shipped is not None:
            predictions["shipped value, recalibrated"] = training.out_of_fold(data, args.folds, args.seed, recalibrated)
        model = training.train_on_selfplay(data, **fit_options)  # the model written: fitted on every game
    else:
        train, held = training.split_by_game(data, args.test_share, args.seed)
        print(f"{len(games)} self-play games, {len(data.x)} searched states: {len(np.unique(train.game))} games to "
              f"train on, {len(np.unique(held.game))} held out; {blend}")
        model = training.train_on_selfplay(train, **fit_options)
        predictions = {"re-fitted value": model.predict(held.x)}
        if shipped is not None:
            predictions["shipped value, recalibrated"] = recalibrated(train, held)
    predictions["the search's root values"] = held.root_value
    if shipped is not None:
        predictions["shipped value"] = shipped.predict(held.x)
    held_games = len(np.unique(held.game))
    print(f"\nHeld-out games ({held_games}), against their results, from each searching team's view:\n")
    print("| Value | Log-loss | Brier |\n|---|---:|---:|")
    scores = {}
    for name, p in predictions.items():
        scores[name] = {"log_loss": training.log_loss(p, held.result), "brier": training.brier(p, held.result)}
        print(f"| {name} | {scores[name]['log_loss']:.4f} | {scores[name]['brier']:.4f} |")
    if shipped is not None:
        print()
        for first, second in [("re-fitted value", "shipped value"), ("re-fitted value", "shipped value, recalibrated"),
                              ("the search's root values", "shipped value")]:
            losses, sizes = training.log_losses_by_game(predictions[first], held.result, held.game)
            gain, low, high = training.difference_by_game(
                losses, training.log_losses_by_game(predictions[second], held.result, held.game)[0], sizes,
                seed=args.seed)
            print(f"{first} less the {second}: {gain:+.4f} (95% bootstrap by game {low:+.4f} to {high:+.4f}; "
                  f"negative: the first predicts better)")
    if args.fine_tune and np.array_equal(model.w2, shipped.w2):
        print("\nNo epoch beat the shipped value on the validation games: the model is the shipped one.")
    target = f"selfplay, root weight {args.root_weight:g}" + (", fine-tuned" if args.fine_tune else "")
    model.info = {"board": str(args.board), "games": str(len(np.unique(train.game))), "records": str(len(train.x)),
                  "target": target, "hidden": str(args.hidden), "test": json.dumps(scores),
                  "data": " ".join(map(str, folders))}
    out = model_path(args.board) if args.install else args.out or Path("results") / "models" / f"value-{args.board}-selfplay.npz"
    model.save(out)
    print(f"\nmodel: {out}" + (" (fitted on every game; the scores above are cross-validated)" if args.folds else ""))


if __name__ == "__main__":
    main()
