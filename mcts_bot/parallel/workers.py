"""The search workers: helper processes that search alongside the agent, and how they talk to it.

Helpers are started once per game (`SearchWorkers.start`), stopped at the end of the game, when the
agent is collected, and at exit; one whose agent's process was killed ends by itself. A helper
that fails or dies is replaced at the next decision; one that does not answer by the deadline is
left to finish, and at the next decision its late reply is thrown away and it searches again (on a
loaded machine a helper is sometimes a step late), or, if it still has not answered, it is stopped
and replaced. The decision goes on with the statistics that did arrive, so a helper can cost a
decision some iterations, never the game.

What a helper does with a decision is its `serve` loop: `parallel.root.serve` (root parallelism:
a search of its own, its root's statistics sent back) or `parallel.tree.serve` (tree parallelism:
iterations of the agent's one tree).
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import time
import weakref
from multiprocessing.connection import Connection, wait
from typing import Callable, Dict, List, Optional, Tuple

import botbowl
import numpy as np
from botbowl.core import Action, ActionType

from mcts_bot.adapter.search_copy import SearchGame
from mcts_bot.core.preset import Preset
from mcts_bot.core.search import Budget

log = logging.getLogger("mcts_bot")

# How long after the deadline a reply is still taken: a helper's last iteration can run long (a
# scripted completion with pathfinding takes tens of milliseconds), more so on a loaded machine.
LATE_SECONDS = 0.1
PARENT_CHECK_SECONDS = 1.0  # how often an idle helper checks that the agent's process is still there
HANG_SECONDS = 30.0  # without a deadline (an iteration budget), a helper that takes longer is given up


def action_key(action: Action) -> tuple:
    """An action as plain values (type, player id, square): the same in every process."""
    position = None if action.position is None else (action.position.x, action.position.y)
    return action.action_type.name, None if action.player is None else action.player.player_id, position


def action_from_key(game: botbowl.Game, key: tuple) -> Action:
    """The action `action_key` describes, on `game`'s own players and squares."""
    name, player_id, position = key
    return Action(ActionType[name], player=None if player_id is None else game.get_player(player_id),
                  position=None if position is None else game.get_square(*position))


def receive(conn: Connection, parent: int):
    """A helper's next message; None when it is to end: told to (None sent), its pipe closed, or
    the agent's process gone (killed without the chance to stop its helpers)."""
    try:
        while not conn.poll(PARENT_CHECK_SECONDS):
            if os.getppid() != parent:
                return None
        return conn.recv()
    except (EOFError, OSError):
        return None


def process_context() -> multiprocessing.context.BaseContext:
    """fork where the system has it (a child inherits the preset as it is, plug-ins need not
    pickle, and starts at once), else spawn."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _stop(helpers: list) -> None:
    for process, conn in helpers:
        try:
            conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        conn.close()
    for process, _ in helpers:
        process.join(timeout=1.0)
        if process.is_alive():
            process.kill()
            process.join(timeout=1.0)
    helpers.clear()


class SearchWorkers:
    """`count - 1` helper processes that search alongside the agent's own process, each running
    `serve(connection, preset, seed, parent pid)`: `root.serve` or `tree.serve`."""

    def __init__(self, count: int, preset: Preset, seed: Optional[int], serve: Callable):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"workers must be a positive integer, got {count!r}")
        self.count = count
        self.preset = preset
        self.serve = serve
        self.seeds = np.random.RandomState(seed)
        self._helpers: list = []  # (process, connection)
        self._late: Dict[Connection, int] = {}  # helpers that missed a deadline: the replies still to come
        self._finalizer = weakref.finalize(self, _stop, self._helpers)

    def start(self) -> None:
        """Start the helpers that are not running (all of them at the start of a game)."""
        self._settle_late()
        alive = [(p, c) for p, c in self._helpers if p.is_alive()]
        _stop([h for h in self._helpers if h not in alive])
        self._helpers[:] = alive
        context = process_context()
        while len(self._helpers) < self.count - 1:
            ours, theirs = context.Pipe()
            process = context.Process(target=self.serve, args=(theirs, self.preset, int(self.seeds.randint(2 ** 31)),
                                                            os.getpid()),
                                      name=f"mcts-search-{len(self._helpers) + 1}", daemon=True)
            process.start()
            theirs.close()
            self._helpers.append((process, ours))

    def stop(self) -> None:
        _stop(self._helpers)
        self._late.clear()

    def share(self, game: SearchGame, team: botbowl.Team) -> List[Connection]:
        """Send the state to every helper, for tree parallelism (`parallel.tree`): the connections
        that took it. `game` is a private copy, as for `submit`."""
        return self._send_all(lambda snapshot: ("state", snapshot, team.team_id), game)

    def late(self, connections: List[Connection]) -> None:
        """These helpers owe a finished decision one reply per entry: thrown away if they come by
        the next decision, else the helper is replaced then."""
        for conn in connections:
            self._late[conn] = self._late.get(conn, 0) + 1

    def submit(self, game: SearchGame, team: botbowl.Team, budget: Budget,
               deadline: Optional[float]) -> List[Connection]:
        """Send the state to every helper, to search until `deadline` (a `time.perf_counter()`
        value: the clock is the system's monotonic one, the same in every process) or for the
        budget's iterations; the connections that took the job. `game` is a private copy
        (`search_copy.private_copy`), sent as it is: the agent can search the same copy itself."""
        return self._send_all(lambda snapshot: (snapshot, team.team_id, budget.iterations, deadline), game)

    def _send_all(self, message: Callable[[bytes], tuple], game: SearchGame) -> List[Connection]:
        """Send every helper `message(the pickled game)`; the connections that took it."""
        if self.count < 2:
            return []
        self.start()
        snapshot = pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)
        sent = []
        for process, conn in self._helpers:
            try:
                conn.send(message(snapshot))
                sent.append(conn)
            except (BrokenPipeError, OSError):
                self._retire([conn])  # replaced at the next decision
        return sent

    def collect(self, pending: List[Connection], deadline: Optional[float]) -> Tuple[List[RootStatistics], int, List[str]]:
        """The helpers' replies that come by the deadline (plus `LATE_SECONDS`): statistics,
        iterations, errors. A helper that does not answer in time is stopped, to be replaced."""
        limit = time.perf_counter() + HANG_SECONDS if deadline is None else deadline + LATE_SECONDS
        results, iterations, errors = [], 0, []
        waiting = list(pending)
        while waiting:
            ready = wait(waiting, timeout=max(0.0, limit - time.perf_counter()))
            if not ready:
                break
            for conn in ready:
                waiting.remove(conn)
                try:
                    status, payload, done = conn.recv()
                except (EOFError, OSError) as exc:
                    errors.append(f"a search worker died: {type(exc).__name__}")
                    self._retire([conn])
                    continue
                if status == "ok":
                    results.append(payload)
                    iterations += done
                else:
                    errors.append(payload)
        if waiting:
            errors.append(f"{len(waiting)} search worker(s) did not answer in time")
            self.late(waiting)
        return results, iterations, errors

    def _settle_late(self) -> None:
        """Throw away the late replies that came; stop the helpers whose reply still has not."""
        for conn, due in list(self._late.items()):
            del self._late[conn]
            try:
                while due and conn.poll():
                    conn.recv()
                    due -= 1
                if not due:
                    continue
            except (EOFError, OSError):
                pass
            self._retire([conn])

    def _retire(self, connections: List[Connection]) -> None:
        """Stop the helpers on these connections and wait for them, so that the next decision
        sees them gone and starts new ones (a helper that just died can otherwise still look alive)."""
        for process, conn in self._helpers:
            if conn in connections:
                process.kill()
                process.join(timeout=1.0)
