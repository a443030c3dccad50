#!/usr/bin/env python3
"""Self-play for the learned policy: MCTS plays (itself by default, or any --opponent), and every
decision it searched is recorded with the root's visit counts, priors and values and each action's
features (format: mcts_bot/harness/selfplay.py). Each game goes to OUT/<game>.npz as it ends; the
same command run again plays only the games not yet there. Iteration budgets, so that a game's
records do not depend on the machine's load.
"""
import argparse
import sys
import time
from pathlib import Path

from tqdm import tqdm

from mcts_bot.harness import cli, selfplay
from mcts_bot.harness.collect import missing, save_game
from mcts_bot.harness.parallel import run_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=5)
    parser.add_argument("--bot", default="mcts", help="the recording MCTS bot: mcts (default) or mcts-<preset>")
    parser.add_argument("--opponent", nargs="+", default=["mcts"],
                        help="mcts (default: self-play), mcts-<preset>, scripted, grod, policy:FILE.npz (a generation "
                             "alone), ...; several make a pool, played in turn")
    parser.add_argument("--games", type=cli.positive_int, default=20, help="games to record (default 20)")
    parser.add_argument("--iterations", type=cli.positive_int, default=100, help="iterations per decision (default 100)")
    parser.add_argument("--deep-iterations", type=cli.positive_int, default=None, metavar="N",
                        help="playout cap randomisation (KataGo): a share of each searching side's decisions searched "
                             "at N iterations, and only those recorded as policy targets (default: off)")
    parser.add_argument("--deep-share", type=float, default=0.25,
                        help="with --deep-iterations: the share of decisions searched deep (default 0.25)")
    parser.add_argument("--policy", default=None, metavar="FILE",
                        help="a learned policy (scripts/run.sh train_policy) as every searching side's priors: "
                             "a generation's games, to train the next (default: the knowledge priors)")
    parser.add_argument("--value", default=None, metavar="FILE",
                        help="a learned value (scripts/run.sh train_value --out FILE) at every searching side's "
                             "leaves (default: the shipped value)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    parser.add_argument("--out", type=Path, default=None, help="data folder (default data/selfplay-<board>)")
    cli.add_worker_arguments(parser)
    args = parser.parse_args()
    cli.check_ray(parser, args)
    out = args.out or Path("data") / f"selfplay-{args.board}"
    try:
        todo = selfplay.specs(args.board, args.bot, args.opponent, args.games, args.iterations, args.seed, args.policy,
                               args.value, args.deep_iterations, args.deep_share)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    left = missing(out, todo)
    deep = f" ({args.deep_iterations} at a share {args.deep_share:g})" if args.deep_iterations else ""
    print(f"{args.bot} vs {' / '.join(args.opponent)} on the {args.board}-player board, {args.iterations} iterations{deep}"
          f"{', priors ' + args.policy if args.policy else ''}{', value ' + args.value if args.value else ''}: "
          f"{len(todo)} games, {len(todo) - len(left)} already in {out}", file=sys.stderr)
    decisions, start = 0, time.perf_counter()
    with tqdm(total=len(todo), initial=len(todo) - len(left), unit="game", file=sys.stderr) as bar:
        for record in run_tasks(selfplay.play_game, left, workers=args.workers, backend=args.backend,
                                ray_address=args.ray_address):
            save_game(out, record)
            decisions += len(record["chosen"])
            bar.update()
    hours = (time.perf_counter() - start) / 3600
    if left:
        print(f"{decisions} decisions from {len(left)} new games in {out}: "
              f"{len(left) / hours / args.workers:.1f} games per hour per worker")


if __name__ == "__main__":
    main()
