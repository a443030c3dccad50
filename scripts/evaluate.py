#!/usr/bin/env python3
"""Board-size evaluation: MCTS against an opponent on each board size, as home and as away,
with and without rollouts; the seed's table with draws, losses and 95% intervals, and a plot.

Every game is written to OUT/games.jsonl as soon as it ends; running the same command again
skips the games already there and plays the rest. Several commands can write to one folder (more
games, other seeds); `--report` then tables every game in it, playing none.
"""
import argparse
import sys
from pathlib import Path

import mcts_bot
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli, evaluation
from mcts_bot.harness.bots import check_bot
from mcts_bot.harness.games import BOARD_SIZES
from mcts_bot.harness.records import read_results

ROLLOUTS = {"on": (True,), "off": (False,), "both": (True, False), "preset": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=cli.board_size, nargs="+", default=list(BOARD_SIZES),
                        help="board sizes among 1 3 5 7 11 (default: all)")
    parser.add_argument("--games", type=cli.positive_int, default=10, help="games per side and setting (default 10)")
    parser.add_argument("--rollouts", choices=sorted(ROLLOUTS), default="preset",
                        help="rollouts on, off, both (a row each, as in the seed's table) or as the preset has them "
                             "(default preset)")
    cli.add_preset_argument(parser)
    cli.add_opponent_argument(parser, default="random")
    parser.add_argument("--opponent-seconds", type=cli.positive_float, default=None, metavar="SECONDS",
                        help="an MCTS opponent's own seconds per decision, e.g. half of --seconds to measure what "
                             "twice the time is worth (default: the same budget as MCTS)")
    parser.add_argument("--team", default="human", help="team file for both sides (default human)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    parser.add_argument("--competition", action="store_true", help="play under botbowl's competition clocks")
    parser.add_argument("--clock-scale", type=cli.positive_float, default=1.0, metavar="X",
                        help="with --competition: scale the turn and secondary clocks, e.g. 0.25 for 30 s a turn "
                             "(default 1)")
    parser.add_argument("--spend-clock", action="store_true",
                        help="with --competition: MCTS takes its clock's share of the turn (MCTSBot(spend_clock=True))"
                             " rather than capping each decision at --seconds")
    parser.add_argument("--policy", default=None, metavar="FILE",
                        help="a learned policy (scripts/run.sh train_policy) as MCTS's priors instead of the preset's")
    parser.add_argument("--value", default=None, metavar="FILE",
                        help="a learned value (scripts/run.sh train_value --out FILE) at MCTS's leaves instead of the "
                             "preset's: the gate of a re-fitted value, e.g. against --opponent mcts")
    cli.add_worker_arguments(parser)
    cli.add_search_workers_argument(parser, flag="--search-workers", default=1)
    parser.add_argument("--out", type=Path, default=Path("results/evaluation"),
                        help="results folder (default results/evaluation)")
    parser.add_argument("--plot", type=Path, default=None, help="plot file (default img/<name of --out>.png)")
    parser.add_argument("--title", default=None, help="plot title (default: the settings)")
    parser.add_argument("--report", action="store_true",
                        help="play nothing: the table and plot of every game in OUT/games.jsonl")
    cli.add_budget_arguments(parser, default=Budget(seconds=1.0))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)
    try:
        check_bot(args.opponent)
        settings = evaluation.Settings(boards=tuple(args.boards), games_per_side=args.games,
                                       rollouts=ROLLOUTS[args.rollouts] or (mcts_bot.get_preset(args.preset).rollouts,),
                                       preset=args.preset, opponent=args.opponent,
                                       seconds=budget.seconds, iterations=budget.iterations, team=args.team,
                                       base_seed=args.seed, competition=args.competition,
                                       search_workers=args.search_workers, parallel=args.parallel,
                                       opponent_seconds=args.opponent_seconds, clock_scale=args.clock_scale,
                                       spend_clock=args.spend_clock, policy=args.policy, value=args.value)
    except ValueError as exc:
        parser.error(str(exc))
    cli.check_ray(parser, args)

    results = args.out / evaluation.RESULTS_FILE
    if args.report:
        records = read_results(results)
        try:
            title = evaluation.describe_records(records)
        except ValueError as exc:
            parser.error(f"--report on {results}: {exc}")
    else:
        title = settings.describe()
        print(title, file=sys.stderr)
        print(f"results: {results}", file=sys.stderr)
        records = evaluation.run(settings, args.out, workers=args.workers, backend=args.backend,
                                 ray_address=args.ray_address)
    rows = evaluation.summarise(records)
    table = evaluation.markdown_table(rows) + "\n" + evaluation.score_table(rows)
    (args.out / "table.md").write_text(table, encoding="utf-8")
    (args.out / "table.csv").write_text(evaluation.csv_table(rows), encoding="utf-8")
    plot_path = args.plot or Path("img") / f"{args.out.name}.png"
    evaluation.plot(rows, plot_path, args.title or title)
    print(table)
    problems = {key: sum(r[key] for r in records) for key in ("illegal_actions", "exceptions", "timeouts")}
    problems["crashed games"] = sum(1 for r in records if r["crash"])
    print(f"{len(records)} games; " + ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in problems.items()))
    print(f"table: {args.out / 'table.md'}, {args.out / 'table.csv'}; plot: {plot_path}")


if __name__ == "__main__":
    main()
