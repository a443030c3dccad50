"""How often a search after a decision made without search (a move's follow-up, a single legal
action) goes on from the earlier tree: the default on 3 players against botbowl's random bot at 60
iterations, the game seeds of tests/test_robustness.py (docs/ablations.md, "Tree reuse across a
move's follow-up").

    .venv/bin/python docs/probes/reuse_after_forced.py [--seeds 11 12]
"""
import argparse

from botbowl.ai.bots.random_bot import RandomBot

import mcts_bot
from mcts_bot.harness.games import make_game


def count(seed: int) -> str:
    searches = []  # (the decision's number, whether its search went on from the earlier tree)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=60, seed=seed,
                           on_decision=lambda game, result, action: searches.append(
                               (bot.totals.decisions, result.root.visits > result.stats.iterations)))
    make_game(3, bot, RandomBot("random", seed=seed), seed=seed).init()
    pairs = list(zip(searches, searches[1:]))
    after_forced = [reused for (m, _), (n, reused) in pairs if n - m > 1]
    after_search = [reused for (m, _), (n, reused) in pairs if n - m == 1]
    return (f"seed {seed}: {bot.totals.searches} searches; after a decision made without search "
            f"{sum(after_forced)} of {len(after_forced)} went on from the tree, after a search {sum(after_search)} "
            f"of {len(after_search)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12])
    for seed in parser.parse_args().seeds:
        print(count(seed), flush=True)
