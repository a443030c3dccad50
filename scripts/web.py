#!/usr/bin/env python3
"""botbowl's web UI with the MCTS bot available: open the address shown, create a game and pick
"mcts" (or "mcts-vanilla", ...) as a player. The bot searches 1 s per decision unless told otherwise.
With --seed, the bots and each new game's dice are seeded, so the same clicks replay the same game.
"""
import argparse
import itertools
from functools import partial

import botbowl.web.server as server
from botbowl.ai.registry import registry
from botbowl.web import api

import mcts_bot
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli


def seed_new_games(first_seed: int) -> None:
    """Give each game the web UI creates the next seed from `first_seed` (botbowl's UI seeds at random).

    `api.new_game` creates and initialises a game; no dice are rolled before its START_GAME action.
    """
    seeds = itertools.count(first_seed)
    unseeded = api.new_game

    def new_game(*args, **kwargs):
        game = unseeded(*args, **kwargs)
        game.set_seed(next(seeds))
        return game
    api.new_game = new_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=cli.positive_int, default=5005, help="(default 5005)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--seed", type=cli.non_negative_int, help="seed the bots and the games (default: random)")
    cli.add_search_workers_argument(parser)
    cli.add_budget_arguments(parser, default=Budget(seconds=1.0))
    args = parser.parse_args()
    budget = cli.budget_from_args(args)
    # botbowl's registry cannot register a name twice, so the budget goes into the factories in its table.
    for name, factory in mcts_bot.BOT_NAMES.items():
        if name.startswith("mcts"):
            registry.bots[name] = partial(factory, seconds=budget.seconds, iterations=budget.iterations,
                                          seed=args.seed, workers=args.search_workers,
                                          parallel=args.parallel)
        else:  # the scripted sparring partner has no budget
            registry.bots[name] = partial(factory, seed=args.seed)
    if args.seed is not None:
        seed_new_games(args.seed)
    print(f"botbowl web UI on http://{args.host}:{args.port}/ with bots: {', '.join(mcts_bot.BOT_NAMES)} ({budget})")
    server.start_server(host=args.host, port=args.port)


if __name__ == "__main__":
    main()
