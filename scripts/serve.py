#!/usr/bin/env python3
"""Serve the MCTS bot over botbowl's socket interface, as Bot Bowl runs its entries.

botbowl's competition server connects to this process (PythonSocketClient / DockerAgent) and
sends new_game / act / end_game requests; the bot answers each with its decision. Runs until stopped.
"""
import argparse

from botbowl.ai.competition.python_socket import DEFAULT_PORT, DEFAULT_TOKEN, PythonSocketServer

import mcts_bot
from mcts_bot.core.search import Budget
from mcts_bot.harness import cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=cli.positive_int, default=DEFAULT_PORT, help=f"(default {DEFAULT_PORT})")
    parser.add_argument("--token", default=DEFAULT_TOKEN, help="the token the server expects (default botbowl's)")
    parser.add_argument("--name", default="mcts", help="the bot's name (default mcts)")
    cli.add_preset_argument(parser)
    parser.add_argument("--seed", type=cli.non_negative_int, default=None, help="seed of the bot (default: none)")
    cli.add_search_workers_argument(parser)
    cli.add_budget_arguments(parser, default=Budget(seconds=1.0))
    args = parser.parse_args()
    if args.port > 65535:
        parser.error(f"--port {args.port} is not a port number (1-65535)")
    budget = cli.budget_from_args(args)
    bot = mcts_bot.MCTSBot(args.name, seconds=budget.seconds, iterations=budget.iterations, preset=args.preset,
                           seed=args.seed, workers=args.search_workers, parallel=args.parallel)
    print(f"serving {args.name} ({args.preset}, {budget}); stop with Ctrl-C", flush=True)
    try:
        PythonSocketServer(bot, port=args.port, token=args.token).run()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
