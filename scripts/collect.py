#!/usr/bin/env python3
"""Collect data for the learned value: seeded games between two bots on one board, one record per
decision state (features of both teams, the threat heuristic's value, and the targets: the result
and who scores next in the half). Each game is written to OUT/<game>.npz as it ends; running the
same command again plays only the games not yet there.

The default number of games per board is what the shipped models were trained on: about ten
minutes of scripted self-play per board on 2 cores, under an hour for all five.
"""
import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from mcts_bot.harness import cli, collect
from mcts_bot.harness.parallel import run_tasks

GAMES = {1: 1500, 3: 2000, 5: 800, 7: 500, 11: 300}  # per board: the shipped models' data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=3)
    parser.add_argument("--home", default="scripted",
                        help="scripted (default), grod, random, mcts, mcts-<preset>, or a bot of your own as "
                             "path/to/file.py:ClassName")
    parser.add_argument("--away", default="scripted", help="(default scripted)")
    parser.add_argument("--games", type=cli.positive_int, default=None,
                        help="games to record (default per board: " + ", ".join(f"{b}: {n}" for b, n in GAMES.items()) + ")")
    parser.add_argument("--explore", type=float, default=0.05,
                        help="share of random actions the recorded bots play, for coverage (default 0.05)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    cli.add_worker_arguments(parser)
    parser.add_argument("--out", type=Path, default=None, help="data folder (default data/value-<board>)")
    cli.add_budget_arguments(parser, default=None)
    args = parser.parse_args()
    budget = cli.budget_from_args(args)
    cli.check_ray(parser, args)
    out = args.out or Path("data") / f"value-{args.board}"
    try:
        todo = collect.specs(args.board, args.home, args.away, args.games or GAMES[args.board], args.seed, explore=args.explore,
                             seconds=budget.seconds if budget else None, iterations=budget.iterations if budget else None)
    except ValueError as exc:
        parser.error(str(exc))
    left = collect.missing(out, todo)
    print(f"{args.home} vs {args.away} on the {args.board}-player board: {len(todo)} games, "
          f"{len(todo) - len(left)} already in {out}", file=sys.stderr)
    records = 0
    with tqdm(total=len(todo), initial=len(todo) - len(left), unit="game", file=sys.stderr) as bar:
        for record in run_tasks(collect.collect_game, left, workers=args.workers, backend=args.backend,
                                ray_address=args.ray_address):
            collect.save_game(out, record)
            records += len(record["x"])
            bar.update()
    print(f"{records} records from {len(left)} new games in {out}")


if __name__ == "__main__":
    main()
