#!/usr/bin/env python3
"""Memory over a whole game: MCTS plays botbowl's random bot and, after every search, the process's
resident memory and the size of the tree it keeps are recorded. The tree of a decision is released
before the next one, so memory should stay flat however long the game. Writes a CSV and a plot.
"""
import argparse
import csv
import os
from pathlib import Path

from botbowl.ai.bots.random_bot import RandomBot

import mcts_bot
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli, plots
from mcts_bot.harness.games import make_game


def resident_mib() -> float:
    """This process's resident set size (Linux /proc; elsewhere the peak from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    cli.add_board_argument(parser, default=11)
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("results/memory.csv"), help="CSV (default results/memory.csv)")
    parser.add_argument("--plot", type=Path, default=Path("img/memory.png"), help="plot (default img/memory.png)")
    cli.add_budget_arguments(parser, default=Budget(seconds=0.5))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)

    rows = []

    def record(game, result, action):
        rows.append((len(rows) + 1, resident_mib(), result.stats.nodes))

    bot = mcts_bot.MCTSBot("mcts", seconds=budget.seconds, iterations=budget.iterations, seed=args.seed,
                           on_decision=record)
    game = make_game(args.board, bot, RandomBot("random", seed=args.seed), seed=args.seed)
    game.init()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["search", "resident_mib", "tree_nodes"])
        writer.writerows(rows)
    quarter = max(1, len(rows) // 4)
    first = sum(r[1] for r in rows[:quarter]) / quarter
    last = sum(r[1] for r in rows[-quarter:]) / quarter
    print(f"{len(rows)} searches ({budget}), score {game.state.home_team.state.score}-"
          f"{game.state.away_team.state.score}; resident memory: first quarter mean {first:.0f} MiB, "
          f"last quarter mean {last:.0f} MiB, max {max(r[1] for r in rows):.0f} MiB; "
          f"largest tree {max(r[2] for r in rows)} nodes")

    fig, ax = plots.figure((7.5, 3.6))
    ax.plot([r[0] for r in rows], [r[1] for r in rows], label="resident memory (MiB)")
    ax.set_xlabel(f"search (decision) in one game on the {args.board}-player board")
    ax.set_ylabel("MiB")
    ax.set_ylim(0, max(r[1] for r in rows) * 1.2)
    twin = ax.twinx()
    twin.plot([r[0] for r in rows], [r[2] for r in rows], color="#ff7f0e", alpha=0.5, linewidth=0.8,
              label="nodes in that search's tree")
    twin.set_ylabel("tree nodes")
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [line.get_label() for line in lines], loc="lower center", fontsize=8, framealpha=0.9)
    ax.set_title(f"MCTS vs random, {budget}: memory stays flat", fontsize=9)
    plots.save(fig, args.plot)
    print(f"csv: {args.out}, plot: {args.plot}")


if __name__ == "__main__":
    main()
