#!/usr/bin/env python3
"""A trace of games, counted: how a bot wins or loses, not only the score.

Two bots play seeded games on one board, each at home in half of them; per bot, summed over the
games: possessions and how they ended, touchdowns, squares gained per turn with the ball, where
the carrier ends its turn (sideline, guards), free receivers, passes and hand-offs, dodges,
pick-ups, GFIs, re-rolls, turnovers by cause, blitzes without a block (and why), and for an MCTS bot how
often its search overruled its priors' first choice and by how much (`mcts_bot/harness/trace.py`
defines each).

Every game is written to OUT/traces.jsonl as soon as it ends; running the same command again skips
the games already there. `--report` tables the games in OUT/traces.jsonl, playing none. The table
is printed and written to OUT/trace.md. `--report FOLDER FOLDER ...` pools the games of several
runs (base seeds) of the same bots and settings into one table, printed only. `--compare FIRST
SECOND` sets bot A of two runs side by side on the games they share (the same game seeds: a bot of
one's own against the default's knowledge, say), with the difference game by game.
"""
import argparse
import sys
from pathlib import Path

from mcts_bot.core.search import Budget
from mcts_bot.harness import cli, trace
from mcts_bot.harness.records import read_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=3)
    parser.add_argument("--games", type=cli.positive_int, default=5, help="games per side (default 5)")
    parser.add_argument("--bots", nargs=2, default=["mcts", "scripted"], metavar=("A", "B"),
                        help=f"the two bots: {cli.OPPONENT_HELP} (default: mcts scripted)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    cli.add_worker_arguments(parser)
    parser.add_argument("--out", type=Path, default=Path("results/trace"),
                        help="results folder (default results/trace)")
    parser.add_argument("--policy", default=None, metavar="FILE",
                        help="a learned policy (scripts/run.sh train_policy) as the MCTS bots' priors instead of their preset's")
    parser.add_argument("--value", default=None, metavar="FILE",
                        help="a learned value (scripts/run.sh train_value --out FILE) at the MCTS bots' leaves instead "
                             "of their preset's: a re-fitted value's gate, traced")
    parser.add_argument("--record", type=Path, default=None, metavar="DIR",
                        help="also write each game's searches by the MCTS bots (every searched decision: the state's "
                             "features, each root action's features, visits, prior and value, and the result) to "
                             "DIR/<game>.npz as it ends, in self-play's format: the search's own games, for "
                             "train_policy, train_value --selfplay, or refeaturize --value (games already in OUT "
                             "are not played again)")
    parser.add_argument("--report", nargs="*", type=Path, default=None, metavar="FOLDER",
                        help="play nothing: the table of every game in OUT/traces.jsonl, or of every game in each "
                             "FOLDER/traces.jsonl pooled (several base seeds' runs, the same bots and settings)")
    parser.add_argument("--compare", nargs=2, type=Path, default=None, metavar=("FIRST", "SECOND"),
                        help="play nothing: bot A of two runs (FIRST/traces.jsonl, SECOND/traces.jsonl) on the games "
                             "they share (the same board, opponent, side and game seed: the same --games and --seed), "
                             "side by side, and the first's score less the second's, game by game, with its interval")
    cli.add_budget_arguments(parser, default=Budget(seconds=1.0))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)
    try:
        settings = trace.TraceSettings(board=args.board, bots=tuple(args.bots), games_per_side=args.games,
                                       seconds=budget.seconds, iterations=budget.iterations, base_seed=args.seed,
                                       policy=args.policy, value=args.value,
                                       record=str(args.record) if args.record is not None else None)
    except ValueError as exc:
        parser.error(str(exc))
    cli.check_ray(parser, args)

    path = args.out / trace.RESULTS_FILE
    if args.compare:
        paths = [folder / trace.RESULTS_FILE for folder in args.compare]
        try:
            first, second = (trace.pooled_records([p]) for p in paths)
            print(f"# {' against '.join(map(str, args.compare))}\n\n" + trace.compare_table(first, second), end="")
        except ValueError as exc:
            parser.error(f"--compare on {', '.join(map(str, paths))}: {exc}")
        return
    if args.report:  # several runs pooled: one table, printed only
        paths = [folder / trace.RESULTS_FILE for folder in args.report]
        try:
            records = trace.pooled_records(paths)
            print(f"# {trace.describe_records(records)}\n\n" + trace.markdown_table(records), end="")
        except ValueError as exc:
            parser.error(f"--report on {', '.join(map(str, paths))}: {exc}")
        return
    if args.report is not None:
        records = read_results(path)
        try:
            title = trace.describe_records(records)
        except ValueError as exc:
            parser.error(f"--report on {path}: {exc}")
    else:
        recorded = f"; searches: {args.record}" if args.record is not None else ""
        print(f"{' vs '.join(args.bots)}: {args.games} games per side on the {args.board}-player board; "
              f"results: {path}{recorded}", file=sys.stderr)
        records = trace.run(settings, args.out, workers=args.workers, backend=args.backend,
                            ray_address=args.ray_address)
        title = trace.describe_records(records)
    table = f"# {title}\n\n" + trace.markdown_table(records)
    (args.out / trace.TABLE_FILE).write_text(table, encoding="utf-8")
    print(table, end="")
    print(f"table: {args.out / trace.TABLE_FILE}", file=sys.stderr)


if __name__ == "__main__":
    main()
