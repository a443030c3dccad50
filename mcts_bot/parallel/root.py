"""Root parallelism: several searches of one decision at once, in separate processes, their root
statistics merged before the final choice.

The agent's own process searches as it always does (with the subtree it kept from its last
decision); each helper process runs an independent search of the same state, with its own dice
and seed (and, like the agent, from the subtree of its last search when the state is in it), and
sends back the statistics of its root's children: visits, and the sum and the sum of squares of
their values, by action. They are added to the agent's root children before the final policy
chooses. Root parallelism shares no tree and takes no locks; of the three schemes of
Chaslot, Winands and van den Herik ("Parallel Monte-Carlo Tree Search", 2008) it scaled best, and
with Blood Bowl's wide roots and noisy leaves the independent searches are what the merged counts
need.

The helpers are `workers.SearchWorkers` processes running `serve`.
"""
from __future__ import annotations

import pickle
from multiprocessing.connection import Connection
from typing import List, Optional, Tuple

import numpy as np

from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.core.nodes import ActionNode, find_state
from mcts_bot.core.preset import Preset
from mcts_bot.core.search import Budget, run_search
from mcts_bot.parallel.workers import HANG_SECONDS, action_key, receive, warm_up

# (action key, visits, sum of values, sum of squared values) for each child of a root
RootStatistics = List[Tuple[tuple, int, float, float]]

# A helper stops searching this long before the deadline, to send its statistics (a millisecond or
# two; its search already starts no iteration that would end past its deadline at the pace so far).
# 30 ms cost a helper an eighth of a 0.25 s decision: 2 workers did 1.64x / 1.70x the iterations
# of one on 5 / 11 players with it, 1.88x / 1.77x with 5 ms (medians of four benchmark runs).
REPLY_SECONDS = 0.005


def root_statistics(root: ActionNode) -> RootStatistics:
    return [(action_key(child.action), child.visits, child.total_value, child.total_square)
            for child in root.children if child.visits]


def merge(root: ActionNode, statistics: RootStatistics) -> int:
    """Add another search's root statistics to `root`'s children of the same actions; the visits added.

    An action `root` has no child for yet (expansion in order, without priors) is left out: its
    child cannot be created out of turn."""
    children = {action_key(child.action): child for child in root.children}
    added = 0
    for key, visits, total, square in statistics:
        child = children.get(key)
        if child is None:
            continue
        child.visits += visits
        child.total_value += total
        child.total_square += square
        root.visits += visits
        root.total_value += total
        root.total_square += square
        added += visits
    return added


def serve(conn: Connection, preset: Preset, seed: int, parent: int) -> None:
    """A helper's loop: search each state it is sent, ("search", pickled copy, team id, iterations,
    deadline), reply ("ok", the root's statistics, iterations) or ("error", why, 0); warm up when
    told to (`workers.warm_up`); end when told to (None), or when the agent's process is gone
    (killed without the chance to stop its helpers).

    With `reuse_tree`, a helper keeps its last tree, like the agent: when the new state is in it
    (the agent's action and its outcome, and the follow-ups it played without searching), the
    search goes on from that node."""
    rng = np.random.RandomState(seed)
    kept: Optional[ActionNode] = None  # the last search's root, for the team of `kept_team`
    kept_team = None
    while True:
        job = receive(conn, parent)
        if job is None:
            return
        if job[0] == "warm":
            warm_up(conn, job, preset, rng)
            continue
        _, snapshot, team_id, iterations, deadline = job
        try:
            game = pickle.loads(snapshot)
            root = None
            if kept is not None and kept_team == team_id:
                root = find_state(kept, game_state_hash(game))
            kept = None  # the old tree is let go before the new search grows
            budget = Budget(seconds=HANG_SECONDS, iterations=iterations)
            result = run_search(game, budget=budget, preset=preset, rng=rng, team=game.get_team_by_id(team_id),
                                deadline=None if deadline is None else deadline - REPLY_SECONDS, root=root,
                                copy=False)  # the unpickled game is this helper's own
            if preset.reuse_tree:
                kept, kept_team = result.root, team_id
            reply = ("ok", root_statistics(result.root), result.stats.iterations)
        except Exception as exc:  # noqa: BLE001 - reported to the agent, which logs it once
            kept = None
            reply = ("error", f"{type(exc).__name__}: {exc}", 0)
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return
