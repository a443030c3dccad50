#!/usr/bin/env python3
"""Demo: MCTS plays botbowl's random bot, then shows its search statistics and one decision's tree as XML.

With --pages FOLDER, every decision of the bot is also written as an HTML page (board, chosen action,
tree) into FOLDER, with an index.html.
"""
import argparse
from pathlib import Path

from botbowl.ai.bots.random_bot import RandomBot

import mcts_bot
from mcts_bot.core.nodes import describe_action
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli
from mcts_bot.harness.games import make_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    cli.add_board_argument(parser, default=3)
    cli.add_preset_argument(parser)
    parser.add_argument("--away", action="store_true", help="MCTS plays away (default: home)")
    cli.add_search_workers_argument(parser)
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="seed of the game and the bot (default 0)")
    parser.add_argument("--max-depth", type=cli.non_negative_int, default=1,
                        help="decisions below the root shown in the XML tree (default 1)")
    parser.add_argument("--pages", type=Path, metavar="FOLDER",
                        help="write one HTML page per decision, and index.html, into FOLDER")
    cli.add_budget_arguments(parser, default=Budget(seconds=0.2))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)

    shown = {}

    def keep_turn_tree(game, result, action):
        # The first choice of which player acts, from our second turn on, makes a telling tree.
        turn = game.active_team.state.turn
        if not shown and turn >= 2 and any(a.action_type.name.startswith("START_") for a in result.root.actions):
            shown.update(action=action, stats=result.stats, where=f"half {game.state.half}, turn {turn}",
                         xml=mcts_bot.to_xml(result.root, max_depth=args.max_depth))

    pages = mcts_bot.DecisionPages(args.pages) if args.pages is not None else None

    def on_decision(game, result, action):
        keep_turn_tree(game, result, action)
        if pages is not None:
            pages(game, result, action)

    bot = mcts_bot.MCTSBot("mcts", seconds=budget.seconds, iterations=budget.iterations, preset=args.preset,
                           seed=args.seed, on_decision=on_decision, workers=args.search_workers,
                           parallel=args.parallel)
    opponent = RandomBot("random", seed=args.seed + 1)
    home, away = (opponent, bot) if args.away else (bot, opponent)
    game = make_game(args.board, home, away, seed=args.seed)
    side = "away" if args.away else "home"
    print(f"MCTS ({args.preset}, {side}) vs random on the {args.board}-player board, "
          f"{budget}, seed {args.seed}")
    game.init()  # two bots: botbowl plays the whole game here

    home_score, away_score = game.state.home_team.state.score, game.state.away_team.state.score
    mine, theirs = (away_score, home_score) if args.away else (home_score, away_score)
    result = "won" if mine > theirs else "drew" if mine == theirs else "lost"
    totals = bot.totals
    print(f"\nScore: home {home_score} - {away_score} away: MCTS {result} {mine}-{theirs}")
    print(f"Decisions: {totals.decisions}, searched: {totals.searches}, "
          f"mean iterations per search: {totals.mean_iterations:.0f}, "
          f"iterations per second: {totals.iterations / max(totals.seconds, 1e-9):.0f}, errors: {totals.errors}"
          + (f", search workers' answers too late to use: {totals.late_workers}" if bot.workers.count > 1 else ""))
    if shown:
        print(f"\nOne decision ({shown['where']}): {shown['stats']}")
        print(f"Chosen: {describe_action(shown['action'])}\n")
        print(shown["xml"])
    if pages is not None:
        print(f"\n{len(pages.entries)} decision pages in {args.pages}: open {args.pages / 'index.html'}")


if __name__ == "__main__":
    main()
