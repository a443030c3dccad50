#!/usr/bin/env python3
"""Soak test: many full games on every board size, both sides, several seeds, against random and
against itself, with small budgets. Every action MCTS returns is checked against the game's
available actions. Exits 1 if any game crashed, any action was illegal, the bot raised, a clock ran
out, or a search stopped on an error.

Games are written to OUT/games.jsonl as they finish; rerunning the command resumes.
"""
import argparse
import sys
from pathlib import Path

from mcts_bot.core.search import Budget
from mcts_bot.harness import bots, cli, evaluation
from mcts_bot.harness.games import BOARD_SIZES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=cli.board_size, nargs="+", default=list(BOARD_SIZES),
                        help="board sizes (default: all)")
    parser.add_argument("--seeds", type=cli.positive_int, default=5,
                        help="games per board, side, rollout setting and opponent (default 5)")
    parser.add_argument("--opponents", nargs="+", default=["random", "mcts"], help="bots to play: random, scripted, grod, mcts, mcts-<preset>, a registered bot or path/to/file.py:ClassName "
                             "(default: random mcts)")
    cli.add_preset_argument(parser)
    parser.add_argument("--competition", action="store_true", help="play under botbowl's competition clocks")
    parser.add_argument("--workers", type=cli.positive_int, default=cli.available_cores(),
                        help="games in parallel (default: the number of cores)")
    cli.add_search_workers_argument(parser, flag="--search-workers", default=1)
    parser.add_argument("--out", type=Path, default=Path("results/soak"), help="results folder (default results/soak)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    cli.add_budget_arguments(parser, default=Budget(iterations=20))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)
    try:
        runs = [evaluation.Settings(boards=tuple(args.boards), games_per_side=args.seeds, rollouts=(False, True),
                                    preset=args.preset, opponent=opponent, seconds=budget.seconds,
                                    iterations=budget.iterations, base_seed=args.seed, competition=args.competition,
                                    search_workers=args.search_workers, parallel=args.parallel)
                for opponent in args.opponents]
    except ValueError as exc:
        parser.error(str(exc))

    records = []
    for settings in runs:
        print(settings.describe(), file=sys.stderr)
        records += evaluation.run(settings, args.out / bots.label(settings.opponent), workers=args.workers)
    counts = {
        "games": len(records),
        "finished": sum(1 for r in records if r["result"] is not None),
        "decisions": sum(r["decisions"] for r in records),
        "searches": sum(r["searches"] for r in records),
        "crashed games": sum(1 for r in records if r["crash"]),
        "illegal actions": sum(r["illegal_actions"] for r in records),
        "illegal actions of MCTS opponents": sum(r["opponent_illegal_actions"] for r in records
                                                 if r["spec"]["opponent"].startswith("mcts")),
        "exceptions raised by the bot": sum(r["exceptions"] for r in records),
        "time-outs": sum(r["timeouts"] for r in records),
        "searches stopped by an error": sum(r["search_errors"] for r in records),
        "safe actions played": sum(r["safe_actions"] for r in records),
    }
    width = max(map(len, counts))
    for name, value in counts.items():
        print(f"{name:<{width}}  {value}")
    failed = any(counts[name] for name in ("crashed games", "illegal actions", "illegal actions of MCTS opponents",
                                           "exceptions raised by the bot", "time-outs", "searches stopped by an error"))
    for record in records:
        if record["crash"]:
            print(f"\ncrash in {record['key']}:\n{record['crash']}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
