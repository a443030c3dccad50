"""The search workers: helper processes that search alongside the agent, and how they talk to it.

Helpers are started once per game (`SearchWorkers.start`) and warmed up before the first decision:
each plays a few moves of the game and a short search of its own, so that what a search touches
(the code and data it reads, the learned value's model for the board, the memory it inherited
from the agent's process) is in place before its first deadline. They are stopped at the end of
the game, when the agent is collected, and at exit; one whose agent's process was killed ends by
itself. A helper that fails or dies is replaced at the next decision. One that does not answer by
the deadline is late, not failed (on a loaded machine a helper is sometimes a step late): it is
counted and left to finish; its late reply is thrown away when it comes, and until then it sits
out the decisions (the next one can start a millisecond after the last). One that owes a reply for
`STUCK_SECONDS`, or dies owing it, is stopped and replaced, and that is a failure.
The decision goes on with the statistics that did arrive, so a helper can cost a decision some
iterations, never the game.

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
from botbowl.core.procedure import Turn

from mcts_bot.adapter import actions as game_actions
from mcts_bot.adapter.search_copy import SearchGame, private_copy
from mcts_bot.core.preset import Preset
from mcts_bot.core.search import Budget, run_search

log = logging.getLogger("mcts_bot")

# How long after the deadline a reply is still taken: a helper's last iteration can run long (a
# scripted completion with pathfinding takes tens of milliseconds), more so on a loaded machine.
LATE_SECONDS = 0.1
PARENT_CHECK_SECONDS = 1.0  # how often an idle helper checks that the agent's process is still there
HANG_SECONDS = 30.0  # without a deadline (an iteration budget), a helper that takes longer is given up
STUCK_SECONDS = 10.0  # a helper that owes a reply this long is replaced (no decision's time comes near it)
# Warming up: moves played to reach a turn, the iterations of the short search there, and how long
# the agent waits for its helpers to be ready (botbowl gives a bot 20 s to start a Bot Bowl game).
WARM_STEPS = 80
WARM_ITERATIONS = 8
WARM_SECONDS = 5.0


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


def warm_up(conn: Connection, message: tuple, preset: Preset, rng: np.random.RandomState) -> None:
    """A helper's first job, ("warm", a pickled private copy, team id): play the game on to a turn
    (the preset's rollout policy) and search it briefly, then reply ("ready", None, 0), or
    ("error", why, 0). Every helper's `serve` loop hands this message here."""
    _, snapshot, team_id = message
    try:
        game = pickle.loads(snapshot)
        if not game.state.available_actions:
            game.set_available_actions()  # a game not started yet (`Agent.new_game` comes first): START_GAME
        preset = preset.for_game(game)
        for _ in range(WARM_STEPS):
            if game.state.game_over or (isinstance(game.get_procedure(), Turn)
                                        and len(game_actions.legal_actions(game)) > 1):
                break
            game_actions.step(game, preset.rollout_policy(game, rng), preset.end_moves)
        team = game.active_team or game.get_team_by_id(team_id)
        run_search(game, budget=Budget(iterations=WARM_ITERATIONS), preset=preset, rng=rng, team=team, copy=False)
        reply = ("ready", None, 0)
    except Exception as exc:  # noqa: BLE001 - reported to the agent, which logs it once
        reply = ("error", f"warming up: {type(exc).__name__}: {exc}", 0)
    try:
        conn.send(reply)
    except (BrokenPipeError, OSError):
        pass


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
        # Helpers that missed a deadline: the replies still to come, and since when the oldest is due
        self._late: Dict[Connection, Tuple[int, float]] = {}
        self._errors: List[str] = []  # failures found between decisions (`take_errors`)
        self._finalizer = weakref.finalize(self, _stop, self._helpers)

    def start(self, game: Optional[botbowl.Game] = None, team: Optional[botbowl.Team] = None) -> None:
        """Start the helpers that are not running (all of them at the start of a game); with a
        game, warm the new ones up on it (`warm_up`) and wait until they are ready, at most
        `WARM_SECONDS`. One not ready by then is late: it is given its first decision all the same."""
        self._settle_late()
        alive = [(p, c) for p, c in self._helpers if p.is_alive()]
        _stop([h for h in self._helpers if h not in alive])
        self._helpers[:] = alive
        context = process_context()
        started = []
        while len(self._helpers) < self.count - 1:
            ours, theirs = context.Pipe()
            process = context.Process(target=self.serve, args=(theirs, self.preset, int(self.seeds.randint(2 ** 31)),
                                                            os.getpid()),
                                      name=f"mcts-search-{len(self._helpers) + 1}", daemon=True)
            process.start()
            theirs.close()
            self._helpers.append((process, ours))
            started.append(ours)
        if game is not None and started:
            team = team if team is not None else game.active_team
            warming = self._send_to(started, ("warm", pickle.dumps(private_copy(game, seed=0),
                                                                    protocol=pickle.HIGHEST_PROTOCOL),
                                              None if team is None else team.team_id))
            _, _, errors, late = self.collect(warming, time.perf_counter() + WARM_SECONDS - LATE_SECONDS)
            self._errors += errors

    def take_errors(self) -> List[str]:
        """The failures found since the last call (a helper that failed to warm up, or never
        answered a decision and was replaced)."""
        errors, self._errors = self._errors, []
        return errors

    def stop(self) -> None:
        _stop(self._helpers)
        self._late.clear()

    def share(self, game: SearchGame, team: botbowl.Team) -> List[Connection]:
        """Send the state to every helper, for tree parallelism (`parallel.tree`): the connections
        that took it. `game` is a private copy, as for `submit`."""
        return self._send_all(lambda snapshot: ("state", snapshot, team.team_id), game)

    def late(self, connections: List[Connection]) -> None:
        """These helpers owe a finished decision one reply per entry: thrown away when they come;
        meanwhile the helper sits out the decisions, and is replaced if they take `STUCK_SECONDS`."""
        for conn in connections:
            due, since = self._late.get(conn, (0, time.perf_counter()))
            self._late[conn] = (due + 1, since)

    def submit(self, game: SearchGame, team: botbowl.Team, budget: Budget,
               deadline: Optional[float]) -> List[Connection]:
        """Send the state to every helper, to search until `deadline` (a `time.perf_counter()`
        value: the clock is the system's monotonic one, the same in every process) or for the
        budget's iterations; the connections that took the job. `game` is a private copy
        (`search_copy.private_copy`), sent as it is: the agent can search the same copy itself."""
        return self._send_all(lambda snapshot: ("search", snapshot, team.team_id, budget.iterations, deadline), game)

    def _send_all(self, message: Callable[[bytes], tuple], game: SearchGame) -> List[Connection]:
        """Send every helper not owing a reply `message(the pickled game)`; the connections that took it."""
        if self.count < 2:
            return []
        self.start()
        ready = [conn for _, conn in self._helpers if conn not in self._late]
        if not ready:
            return []
        snapshot = pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)
        return self._send_to(ready, message(snapshot))

    def _send_to(self, connections: List[Connection], message: tuple) -> List[Connection]:
        """Send `message` to these helpers; the connections that took it."""
        sent = []
        for conn in connections:
            try:
                conn.send(message)
                sent.append(conn)
            except (BrokenPipeError, OSError):
                self.retire([conn])  # replaced at the next decision
        return sent

    def collect(self, pending: List[Connection], deadline: Optional[float]) -> Tuple[list, int, List[str], int]:
        """The helpers' replies that come by the deadline (plus `LATE_SECONDS`): their payloads,
        iterations, errors, and how many were late (their replies are thrown away when they come)."""
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
                    self.retire([conn])
                    continue
                if status == "error":
                    errors.append(payload)
                else:
                    results.append(payload)
                    iterations += done
        self.late(waiting)
        return results, iterations, errors, len(waiting)

    def _settle_late(self) -> None:
        """Throw away the late replies that came. Stop the helpers that died meanwhile and those that
        owe a reply for `STUCK_SECONDS`: failures both (a death seen only after its decision's
        deadline was counted late there, not failed)."""
        now = time.perf_counter()
        for conn, (due, since) in list(self._late.items()):
            try:
                while due and conn.poll():
                    conn.recv()
                    due -= 1
            except (EOFError, OSError) as exc:
                del self._late[conn]
                self._errors.append(f"a search worker died after its deadline: {type(exc).__name__}")
                self.retire([conn])
                continue
            if not due:
                del self._late[conn]
            elif now - since >= STUCK_SECONDS:
                del self._late[conn]
                self._errors.append(f"a search worker gave no answer for {STUCK_SECONDS:g} s: replaced")
                self.retire([conn])
            else:
                self._late[conn] = (due, since)

    def retire(self, connections: List[Connection]) -> None:
        """Stop the helpers on these connections and wait for them, so that the next decision
        sees them gone and starts new ones (a helper that just died can otherwise still look alive)."""
        for process, conn in self._helpers:
            if conn in connections:
                process.kill()
                process.join(timeout=1.0)
