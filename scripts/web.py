#!/usr/bin/env python3
"""botbowl's web UI with the MCTS bot available: open the address shown, create a game and pick
"mcts" (or "mcts-vanilla", ...) as a player. The bot plays with its default budget of 1 s per decision.
"""
import argparse

import botbowl.web.server as server

import mcts_bot  # noqa: F401  (registers the bots, so the web UI offers them)
from mcts_bot.harness import cli


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=cli.positive_int, default=5005, help="(default 5005)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    args = parser.parse_args()
    print(f"botbowl web UI on http://{args.host}:{args.port}/ with bots: {', '.join(mcts_bot.BOT_NAMES)}")
    server.start_server(host=args.host, port=args.port)


if __name__ == "__main__":
    main()
