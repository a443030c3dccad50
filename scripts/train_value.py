#!/usr/bin/env python3
"""Train the learned value for one board from collected games (scripts/run.sh collect), score it on
held-out games against the threat heuristic calibrated on the same training games, plot its
calibration, and write the model to results/models/value-<board>.npz; with --install, where the
package loads it (mcts_bot/knowledge/models/value-<board>.npz), replacing the shipped one.

The split is by game (a game's states are all in training or all in the test set); early
stopping looks only at training games; the test games are scored once, at the end.
"""
import argparse
import json
from pathlib import Path

from mcts_bot.harness import cli, training
from mcts_bot.knowledge.value import model_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=3)
    parser.add_argument("--data", type=Path, nargs="+", default=None,
                        help="folders of collected games (default data/value-<board>)")
    parser.add_argument("--target", choices=["mc", "td"], default="td",
                        help="Monte Carlo (the game's result) or TD(lambda) targets (default td)")
    parser.add_argument("--lam", type=float, default=0.7, help="lambda of TD(lambda) (default 0.7)")
    parser.add_argument("--hidden", type=cli.non_negative_int, default=32,
                        help="hidden units; 0 for logistic regression (default 32)")
    parser.add_argument("--epochs", type=cli.positive_int, default=40, help="(default 40)")
    parser.add_argument("--test-share", type=float, default=0.2, help="share of games held out (default 0.2)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="split and initial weights (default 0)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--out", type=Path, default=None, help="model file (default results/models/value-<board>.npz)")
    out.add_argument("--install", action="store_true",
                     help="write the model where the package loads it, replacing the shipped one")
    parser.add_argument("--plot", type=Path, default=None, help="calibration plot (default img/value-calibration-<board>.png)")
    args = parser.parse_args()
    if not 0 < args.test_share < 1 or not 0 <= args.lam <= 1:
        parser.error("--test-share must be in (0, 1) and --lam in [0, 1]")
    folders = args.data or [Path("data") / f"value-{args.board}"]
    games = training.Games([], [], [], [], [])
    try:
        for folder in folders:
            part = training.load_games(folder)
            for name in ("keys", "x", "result", "next_td", "heuristic"):
                getattr(games, name).extend(getattr(part, name))
    except (FileNotFoundError, ValueError) as exc:
        parser.error(str(exc))
    train_games, test_games = training.split(games, args.test_share, args.seed)
    records = sum(len(x) for x in games.x)
    print(f"{len(games)} games, {records} records: {len(train_games)} games to train on, {len(test_games)} held out")
    model = training.train(train_games, target=args.target, lam=args.lam, seed=args.seed, hidden=args.hidden,
                           epochs=args.epochs)
    calibration = training.calibrated_heuristic(train_games)
    results = training.scores(model, calibration, test_games)
    print(f"\nHeld-out games ({len(test_games)}), both teams' points of view:\n")
    print("| Value | Log-loss | Brier |\n|---|---:|---:|")
    for name, score in results.items():
        print(f"| {name} | {score['log_loss']:.4f} | {score['brier']:.4f} |")
    model.info = {"board": str(args.board), "games": str(len(train_games)), "records": str(records),
                  "target": args.target if args.target == "mc" else f"td({args.lam:g})", "hidden": str(args.hidden),
                  "test": json.dumps(results), "data": " ".join(map(str, folders))}
    out = model_path(args.board) if args.install else args.out or Path("results") / "models" / f"value-{args.board}.npz"
    model.save(out)
    plot = args.plot or Path("img") / f"value-calibration-{args.board}.png"
    training.calibration_plot(model, calibration, test_games, plot,
                              f"{args.board}-player board: {len(test_games)} held-out games")
    print(f"\nmodel: {out}; calibration plot: {plot}")
    if not args.install:
        print(f"to play with it: scripts/run.sh train_value ... --install (or copy it to {model_path(args.board)})")


if __name__ == "__main__":
    main()
