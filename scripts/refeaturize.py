#!/usr/bin/env python3
"""Recorded self-play games with their action features computed again by this version: each game is
replayed from its seed and moves (format 3, mcts_bot/harness/selfplay.py), so that features added
after the games were played can be trained on without playing them again. With --value, the games
become the learned value's data instead (scripts/run.sh collect's format: every decision of either
side), so that the search's own games (selfplay, or trace --record) can be pooled into a value's fit
(train_value --more-data). Each game goes to OUT/<game>.npz as it is done; the same command run
again does only the games not yet there.
"""
import argparse
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from mcts_bot.harness import cli, selfplay
from mcts_bot.harness.collect import save_game, saved_games
from mcts_bot.harness.parallel import run_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="+", type=Path,
                        help="folders of recorded games (scripts/run.sh selfplay --out, or trace --record)")
    parser.add_argument("--out", type=Path, required=True, help="the folder for the games with the new features")
    parser.add_argument("--value", action="store_true",
                        help="write the games as the learned value's data (collect's format), for train_value")
    cli.add_worker_arguments(parser)
    args = parser.parse_args()
    cli.check_ray(parser, args)
    files = saved_games(args.data)
    if not files:
        parser.error(f"no self-play games in {', '.join(map(str, args.data))}")
    if any(path.parent.resolve() == args.out.resolve() for path in files):
        parser.error("--out must be another folder than the games read")
    old = [path.name for path in files if int(np.load(path)["version"]) < 3]
    if old:
        parser.error(f"{len(old)} of {len(files)} games (the first: {old[0]}) were recorded before format 3 and keep "
                     f"no moves to replay: leave their folder out, or record them again with scripts/run.sh selfplay")
    left = [path for path in files if not (args.out / path.name).exists()]
    print(f"{len(files)} games, {len(files) - len(left)} already in {args.out}", file=sys.stderr)
    with tqdm(total=len(files), initial=len(files) - len(left), unit="game", file=sys.stderr) as bar:
        convert = selfplay.value_data if args.value else selfplay.refeaturize
        for record in run_tasks(convert, left, workers=args.workers, backend=args.backend,
                                ray_address=args.ray_address):
            save_game(args.out, record)
            bar.update()


if __name__ == "__main__":
    main()
