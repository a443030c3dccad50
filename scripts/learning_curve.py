#!/usr/bin/env python3
"""The learning curve of the learned policy, played alone (no search): generation 0 (the knowledge
priors) and each --policies file, against scripted and against generation 0, on one board; the table
with 95% intervals and a plot.

Games are written to OUT/<generation>-vs-<opponent>/traces.jsonl as they end (mcts_bot/harness/trace.py):
the same command resumes, and adding a file to --policies plays only the new generation's games.
This reads what a generation learned cheaply; whether it searches better is the gate's question
(scripts/run.sh evaluate --opponent mcts --policy FILE).
"""
import argparse
import sys
from pathlib import Path

from mcts_bot.harness import cli, learning_curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=5)
    parser.add_argument("--policies", type=Path, nargs="*", default=[], metavar="FILE",
                        help="the generations' policy files, in order (generation 1, 2, ...)")
    parser.add_argument("--games", type=cli.positive_int, default=60, help="games per side and pairing (default 60)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    cli.add_worker_arguments(parser)
    parser.add_argument("--out", type=Path, default=None, help="results folder (default results/learning-curve-<board>)")
    parser.add_argument("--plot", type=Path, default=None, help="plot (default img/learning-curve-<board>.png)")
    args = parser.parse_args()
    cli.check_ray(parser, args)
    try:
        learning_curve.generation_bots(args.policies)
    except ValueError as exc:
        parser.error(str(exc))
    out = args.out or Path("results") / f"learning-curve-{args.board}"
    print(f"generations 0-{len(args.policies)} alone on the {args.board}-player board, {args.games} games per side "
          f"and pairing; results: {out}", file=sys.stderr)
    points = learning_curve.run(args.board, args.policies, args.games, out, base_seed=args.seed,
                                workers=args.workers, backend=args.backend, ray_address=args.ray_address)
    table = learning_curve.markdown_table(points)
    (out / "learning-curve.md").write_text(table, encoding="utf-8")
    print(table, end="")
    plot = learning_curve.plot(points, args.plot or Path("img") / f"learning-curve-{args.board}.png",
                               f"The learned policy alone, {args.board}-player board, {args.games} games per side")
    print(f"table: {out / 'learning-curve.md'}; plot: {plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
