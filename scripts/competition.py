#!/usr/bin/env python3
"""Run MCTS in botbowl's own competition harness (botbowl.ai.competition.Competition) against an
opponent for a short series, under the competition configuration: competition mode, the clocks of
botbowl's `bot-bowl` configuration (120 s per turn, a secondary clock for decisions in the
opponent's turn), pathfinding. The harness alternates sides, so the bot plays home and away.

Reports per game the score, and for MCTS its decisions, the seconds per search, the least time it
had left on a clock when it answered, and its time-outs (answers after its clock had run out:
botbowl then forces the turn to end).
"""
import argparse
import time

from botbowl.ai.competition import Competition

import mcts_bot
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli
from mcts_bot.harness.bots import check_bot
from mcts_bot.harness.games import load_config, make_game
from mcts_bot.harness.matches import CheckedAgent, GameSpec, make_opponent


class SeriesRecorder(CheckedAgent):
    """CheckedAgent that also keeps the counters of each game of the series."""

    def __init__(self, bot):
        super().__init__(bot)
        self.games = []

    def new_game(self, game, team):
        self.decisions = self.illegal = self.exceptions = self.timeouts = 0
        self.min_seconds_left = None
        super().new_game(game, team)

    def end_game(self, game):
        super().end_game(game)
        self.games.append(dict(decisions=self.decisions, illegal=self.illegal, timeouts=self.timeouts,
                               min_seconds_left=self.min_seconds_left, searches=self.bot.totals.searches,
                               mean_iterations=self.bot.totals.mean_iterations, errors=self.bot.totals.errors,
                               search_seconds=self.bot.totals.seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=11)
    parser.add_argument("--games", type=cli.positive_int, default=2, help="games in the series, even (default 2)")
    cli.add_opponent_argument(parser, default="random")
    cli.add_preset_argument(parser)
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="seed of the bots (default 0)")
    cli.add_search_workers_argument(parser)
    cli.add_budget_arguments(parser, default=Budget(seconds=1.0))
    args = parser.parse_args()
    if args.games % 2:
        parser.error(f"--games {args.games}: botbowl's harness needs an even number (each bot plays home and away)")
    try:
        check_bot(args.opponent)
    except ValueError as exc:
        parser.error(str(exc))
    budget = cli.budget_from_args(args)

    mcts = SeriesRecorder(mcts_bot.MCTSBot("mcts", seconds=budget.seconds, iterations=budget.iterations,
                                           preset=args.preset, seed=args.seed, workers=args.search_workers,
                                           parallel=args.parallel))
    opponent = make_opponent(GameSpec(board=args.board, side="home", rollouts=False, seed=args.seed,
                                      opponent=args.opponent, seconds=budget.seconds, iterations=budget.iterations))
    opponent.name = f"{opponent.name} (opponent)"
    template = make_game(args.board, mcts, opponent, competition=True)  # for its teams, arena and ruleset
    config = load_config(args.board, competition=True)
    limits = config.time_limits
    print(f"MCTS ({args.preset}, {budget}, {args.search_workers} search worker(s), {args.parallel} parallel) "
          f"vs {args.opponent}, {args.games} games on the "
          f"{args.board}-player board; clocks: {limits.turn} s per turn, {limits.secondary} s secondary")
    competition = Competition(mcts, opponent, template.state.home_team, template.state.away_team, config=config,
                              ruleset=template.ruleset, arena=template.arena, n=args.games)
    start = time.time()
    results = competition.run()
    print(f"\n{args.games} games in {time.time() - start:.0f} s")
    for i, (game, stats) in enumerate(zip(results.game_results, mcts.games)):
        side = "home" if i % 2 == 0 else "away"
        left = "-" if stats["min_seconds_left"] is None else f"{stats['min_seconds_left']:.1f} s"
        print(f"game {i + 1}: MCTS {side}, {game.home_agent_name} {game.home_result.tds} - {game.away_result.tds} "
              f"{game.away_agent_name}; decisions {stats['decisions']}, searches {stats['searches']}, "
              f"mean iterations {stats['mean_iterations']:.0f}, "
              f"seconds per search {stats['search_seconds'] / max(stats['searches'], 1):.2f}, "
              f"least time left on a clock {left}, "
              f"time-outs {stats['timeouts']}, illegal actions {stats['illegal']}, search errors {stats['errors']}")
    wins = sum(1 for g in results.game_results if g.winner is not None and g.winner.name == mcts.name)
    print(f"MCTS won {wins} of {args.games}")


if __name__ == "__main__":
    main()
