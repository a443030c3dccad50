#!/usr/bin/env python3
"""Run one search on a reproducible position and print its tree as XML and the action it chooses.

The position: a new game on the chosen board, advanced by --steps random actions drawn from --seed.
With --html FILE, the decision is also written as a page to look at: the board with the chosen
action drawn on it, and the tree (to --max-depth, default 3 there) as a collapsible list.
"""
import argparse
from pathlib import Path

import numpy as np

import mcts_bot
from mcts_bot.core.nodes import describe_action
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli
from mcts_bot.harness.games import random_position
from mcts_bot.views.decision_page import decision_html


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    cli.add_board_argument(parser, default=3)
    parser.add_argument("--seed", type=cli.non_negative_int, default=0,
                        help="seed of the position and of the search (default 0)")
    parser.add_argument("--steps", type=cli.non_negative_int, default=40,
                        help="random actions played before the search (default 40)")
    cli.add_preset_argument(parser)
    parser.add_argument("--rollouts", choices=["on", "off"], help="override the preset's rollouts")
    parser.add_argument("--max-depth", type=cli.non_negative_int, default=None,
                        help="decisions below the root to print (default: all; in the --html page: 3)")
    parser.add_argument("--html", type=Path, metavar="FILE", help="also write the decision as an HTML page to FILE")
    cli.add_budget_arguments(parser, default=Budget(iterations=200))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)

    game = random_position(args.board, seed=args.seed, steps=args.steps)
    if game.state.game_over:
        parser.error(f"the game ended within {args.steps} random steps: ask for fewer --steps")
    rollouts = None if args.rollouts is None else args.rollouts == "on"
    preset = mcts_bot.configure(args.preset, rollouts=rollouts)
    result = mcts_bot.run_search(game, budget=budget, preset=preset, rng=np.random.RandomState(args.seed))
    print(mcts_bot.to_xml(result.root, max_depth=args.max_depth))
    team = game.active_team
    print(f"\n{args.board}-player board, seed {args.seed}, after {args.steps} random steps: "
          f"{'home' if team == game.state.home_team else 'away'} to act, {result.stats}")
    chosen = preset.for_game(game).final_policy(result.root).action if result.root.children else None
    print(f"Chosen: {describe_action(chosen)}" if chosen is not None
          else "Nothing to choose here (no action for the tree)")
    if args.html is not None:
        max_depth = args.max_depth if args.max_depth is not None else mcts_bot.views.decision_page.DEFAULT_MAX_DEPTH
        args.html.write_text(decision_html(game, result.root, action=chosen, stats=result.stats,
                                                    max_depth=max_depth), encoding="utf-8")
        print(f"Wrote {args.html}")


if __name__ == "__main__":
    main()
