"""Tree parallelism: helper processes that play iterations of the agent's one tree.

Root parallelism (`parallel.root`) grows one tree per process and merges only their roots, so
two processes see no deeper than one. Here the tree lives in the agent's process alone, and every
iteration deepens it. The agent runs its own iterations as always and, between them, hands each
helper a *prescription*: the path its tree policy picks from the root, with a virtual visit on
every action of it, so that the next selections (its own, the helpers') weigh the action as
explored once more until the result is in (Chaslot, Winands and van den Herik, "Parallel
Monte-Carlo Tree Search", 2008). A helper holds a copy of the decision's state, steps the path on
it and reports back what the agent's own iteration would have found: the hash of each state
reached, the priors of the node it expanded, and the value of the leaf after the rollout. The
agent takes the virtual visits back and backs the value up.

Dice: in a tree-parallel search the agent reseeds its copy's dice before every step down the tree
and notes on each state the seed that first led there (`ActionNode.dice_seed`) and how often its
dice did (`arrivals`). botbowl's steps are deterministic given the dice, so a helper sent down an
outcome with its seed reaches that very state, and the agent sends helpers down the outcomes as
often as dice reached them. With the chance a fresh throw would have of a new outcome, a helper
throws its own dice instead, and its iteration ends where they lead if that is elsewhere.

Keeping the helpers busy: the agent hands out work between its own iterations and after each step
of one (`Search.after_step`), since one iteration can take tens of milliseconds (a turn's plan
for the priors on 11 players). A node that a result still out is expanding is not expanded again:
prescriptions and the agent's own iterations stop there, as at a leaf, instead of working out its
priors a second time (up to a fifth of all prior computations, before).

Helpers are the processes of `workers.SearchWorkers` (started once per game, replaced when they
fail), running `serve` instead of the root-parallel loop. A helper that fails, dies or falls
behind costs the decision its iterations, never the game: the agent searches on alone.
"""
from __future__ import annotations

import itertools
import pickle
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Dict, List, Optional, Set, Tuple

import numpy as np
from botbowl.core.game import InvalidActionError

from mcts_bot.adapter import fast_reversible
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.preset import Preset
from mcts_bot.core.search import Search
from mcts_bot.logs import log_failure_once
from mcts_bot.parallel.workers import HANG_SECONDS, action_from_key, action_key, receive, warm_up

# A prescribed step: (action, the outcome the agent's tree expects or None for a new one, whether
# that outcome is the action's only one so far: then a step that threw no dice needs no hash, the
# seed of the dice to throw, or None for the helper's own).
Step = Tuple[tuple, Optional[int], bool, Optional[int]]
# What a helper found: the state hash after each step it took and the seed of its dice, the priors
# of the node it expanded (action keys, priors, the index it took) if it expanded one, the leaf's
# actions and acting team and whether the game is over there (when the leaf may be new to the
# tree), and the leaf's value. Or None: a stored action was illegal.
Playout = Tuple[List[int], List[int], Optional[Tuple[List[tuple], List[float], int]],
                Optional[Tuple[List[tuple], Optional[str], bool]], float]

# Prescriptions queued per helper, so that it stays busy while the agent is inside an iteration of
# its own (a turn's plan for the priors can take tens of milliseconds; a helper's iteration a few).
# 4 gave more iterations (1.67-1.68x one process's instead of 1.45-1.57x on 5 players, 0.25 s, two
# one-off runs) but no more strength: 77.5% against `scripted` in 20 games where 2 scored 82.5%,
# and the search overruled its priors more often (32% of decisions against 26%), as the more
# results are out, the flatter the root's visits.
JOBS_PER_HELPER = 2
# How long past the deadline the results still out are waited for. The rest are let go: their
# helpers answer anyway (one iteration under way; what is queued behind it expires at once), and
# the next decision throws those answers away (job numbers are never reused in a process).
WAIT_SECONDS = 0.01
_job_numbers = itertools.count()


@fast_reversible.used_by
def play(search, prescription: List[Step], expand: bool, deadline: Optional[float] = None) -> Optional[Playout]:
    """One helper iteration on `search`'s copy (a `core.search.Search`, at the decision's state): step
    the prescription (with the dice seeds it gives, else fresh ones) until the state differs from
    the expected one, expand the node at its end if asked (its priors, then the action with the
    highest), roll out, evaluate; back to the decision's state afterwards. None when a prescribed
    action is not legal here (a hash collision). Past the decision's `deadline` (a
    `time.perf_counter()` value; None: none) the agent is waiting for the result: no node is
    expanded then, and the rollout stops."""
    game = search.game
    search.deadline = deadline
    root_step = game.get_step()
    hashes: List[int] = []
    seeds: List[int] = []

    def throw(seed: Optional[int]) -> None:
        seed = int(search.rng.randint(2 ** 31)) if seed is None else seed
        game.rng.seed(seed)
        seeds.append(seed)

    try:
        expansion = None
        try:
            for key, expected, single, seed in prescription:
                throw(seed)
                thrown = game.dice_thrown()
                search.step(action_from_key(game, key))
                state = expected if single and game.dice_thrown() == thrown else game_state_hash(game)
                hashes.append(state)
                if state != expected:
                    break
            else:
                if expand and not game.state.game_over and not search.past_turn() and \
                        (deadline is None or time.perf_counter() < deadline):
                    actions = search.legal_actions(below_root=bool(prescription))
                    if actions:
                        priors = search.preset.priors(game, actions) if len(actions) > 1 else [1.0]
                        chosen = int(np.argmax(priors))  # the first of the highest: PUCT's pick among the untried
                        throw(None)
                        search.step(actions[chosen])
                        hashes.append(game_state_hash(game))
                        expansion = ([action_key(a) for a in actions], list(priors), chosen)
        except InvalidActionError:
            return None
        leaf = None  # what the agent needs to add the state reached to its tree, if it may be new there
        if expansion is not None or (hashes and hashes[-1] != prescription[len(hashes) - 1][1]):
            active = game.active_team
            leaf = ([action_key(a) for a in search.legal_actions(below_root=True)],
                    None if active is None else active.team_id, game.state.game_over)
        if search.preset.rollouts:
            search.rollout()
        value = float(search.preset.heuristic(game, search.team))
        return hashes, seeds, expansion, leaf, value
    finally:
        search.revert(root_step)


def serve(conn: Connection, preset: Preset, seed: int, parent: int) -> None:
    """A helper's loop: ("state", pickled copy, team id) starts a decision, ("play", job, steps,
    expand, deadline) asks for one iteration, answered by ("done", job, playout or None),
    ("expired", job, None) if it came when the decision's deadline had passed, or ("error", job,
    message); ("warm", ...) warms it up (`workers.warm_up`); None ends the helper, as does the
    agent's process going away."""
    rng = np.random.RandomState(seed)
    search = None
    failure = "no state to play from"
    while True:
        message = receive(conn, parent)
        if message is None:
            return
        if message[0] == "warm":
            warm_up(conn, message, preset, rng)
            continue
        if message[0] == "state":
            search = None  # the last decision's copy goes first
            try:
                _, snapshot, team_id = message
                game = pickle.loads(snapshot)
                game.set_seed(int(rng.randint(2 ** 31)))
                search = Search(game, team_id, preset.for_game(game), rng, deadline=None)
            except Exception as exc:  # noqa: BLE001 - reported with the first iteration asked for
                failure = f"the state could not be loaded: {type(exc).__name__}: {exc}"
            continue
        _, job, prescription, expand, deadline = message
        try:
            if search is None:
                reply = ("error", job, failure)
            elif deadline is not None and time.perf_counter() >= deadline:
                reply = ("expired", job, None)  # queued behind a long one: the agent is not waiting for it
            else:
                reply = ("done", job, play(search, prescription, expand, deadline))
        except Exception as exc:  # noqa: BLE001 - reported to the agent, which logs it once
            search, failure = None, f"{type(exc).__name__}: {exc}"  # the copy may be half-stepped
            reply = ("error", job, failure)
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


@dataclass
class _Job:
    conn: Connection
    path: List[ChanceNode]  # the prescribed actions' nodes, each with a virtual visit until the result is in
    forced: List[bool]  # for each: whether the helper threw the dice of a seed the tree gave
    end: ActionNode  # the node the prescription stops at
    expand: bool  # whether the helper expands it
    virtual: List[float] = field(default_factory=list)  # the values the virtual visits counted with


def _virtual_value(chance: ChanceNode) -> float:
    """The value a result still out counts with: the action's mean so far. Only the exploration
    term moves (the action looks visited one more time), not its value. A virtual *loss* (the
    worst value) sent the other selections to actions the priors rate low: at 0.25 s on 5 players
    the choices of such searches agreed with those of a 6 s search in 33 and 35 of 72 decisions
    (two runs), those of one process alone in 42 and 41, and with the mean in 42."""
    return chance.value


class TreeHelpers:
    """The agent's side of a tree-parallel search: prescribing paths to the helpers on these
    connections (each holding the decision's state) and backing their results up. One per decision."""

    def __init__(self, connections: List[Connection], rng: np.random.RandomState):
        self.rng = rng
        self.free = {conn: JOBS_PER_HELPER for conn in connections}
        self.jobs: Dict[int, _Job] = {}
        self.answered: Set[Connection] = set()  # the helpers that replied this decision
        self.completed = 0  # helper iterations backed up
        self.skipped = 0  # helper iterations that found a stored action illegal
        self.errors: List[str] = []
        self.lost: List[Connection] = []  # helpers that failed this decision: given no more work
        # Helpers that failed or gave no result this decision, one entry per result still due from
        # them: replaced at the next decision if those have not come by then.
        self.late: List[Connection] = []
        self.silent = 0  # helpers that gave no result this decision (late, not failed)
        self.active = True
        self.search = None
        self.root: Optional[ActionNode] = None
        # The nodes a result still out expands: prescriptions (and the agent's own iterations) stop
        # there without expanding them again; their priors would be worked out twice.
        self.expanding: Set[ActionNode] = set()

    def bind(self, search, root: ActionNode) -> None:
        """The search (a `core.search.Search`, its copy at the decision's state) and the root to grow."""
        self.search, self.root = search, root

    @property
    def in_flight(self) -> int:
        return len(self.jobs)

    def keep_busy(self, room: float) -> None:
        """Between two of the agent's iterations: back up the results that came in, and give the
        helpers more work (at most `room` iterations more in all). A failure here is logged once
        and ends the helping for this decision (the results still out are let go)."""
        if not self.active:
            return
        try:
            self.collect()
            self.dispatch(room)
        except Exception as exc:  # noqa: BLE001 - the helpers are a bonus, never a risk
            log_failure_once(exc, "the tree-parallel helpers failed; searching on alone")
            self.errors.append(f"{type(exc).__name__}: {exc}")
            self.active = False
            self.abandon()

    def finish(self, deadline: Optional[float]) -> None:
        """At the end of the search: wait for the results still out until shortly after the
        deadline (`WAIT_SECONDS`; without one, until a helper would count as hung), then let go of
        the rest. A helper that gave no result at all this decision counts in `silent` and goes
        to `late` (late, not failed: its answers are thrown away when they come)."""
        limit = time.perf_counter() + HANG_SECONDS if deadline is None else deadline + WAIT_SECONDS
        try:
            while self.active and self.jobs and len(self.lost) < len(self.free):
                left = limit - time.perf_counter()
                if left <= 0:
                    break
                self.collect(timeout=left)
        except Exception as exc:  # noqa: BLE001
            log_failure_once(exc, "the tree-parallel helpers failed at the end of a search")
            self.errors.append(f"{type(exc).__name__}: {exc}")
        self.active = False
        silent = [job.conn for job in self.jobs.values() if job.conn not in self.answered]
        self.silent = len(set(silent))
        self.late += silent
        self.abandon()

    def prescribe(self) -> Tuple[List[Step], List[ChanceNode], ActionNode, bool]:
        """The path the tree policy picks from the root, as the agent's own iteration would go; it
        stops where the agent's would stop stepping: at a node without its children yet (the helper
        expands it: `True`, unless another result still out does), a terminal node, or an untried
        action. The root must have its children.

        Outcomes: the helper is sent down an outcome seen so far, drawn as often as dice reached
        it, with the seed of the dice that reached it first (botbowl's steps are deterministic
        given the dice); or, with the chance a new outcome would have if dice were thrown afresh
        (as in a Chinese restaurant process: outcomes / (arrivals + outcomes)), it throws its own
        dice, and goes on only if they reach the drawn outcome too."""
        tree_policy = self.search.preset.tree_policy
        steps: List[Step] = []
        path: List[ChanceNode] = []
        node = self.root
        while not node.is_leaf:
            if not node.children:
                return steps, path, node, node not in self.expanding
            chance = tree_policy(node)
            path.append(chance)
            states = list(chance.outcomes.values())
            if not states:
                steps.append((action_key(chance.action), None, False, None))
                break
            arrivals = np.array([max(s.arrivals, 1) for s in states], dtype=float)
            child = states[0] if len(states) == 1 else \
                states[int(self.rng.choice(len(states), p=arrivals / arrivals.sum()))]
            fresh = child.dice_seed is None or self.rng.random_sample() < len(states) / (arrivals.sum() + len(states))
            steps.append((action_key(chance.action), child.key, len(states) == 1, None if fresh else child.dice_seed))
            node = child
        return steps, path, node, False

    def dispatch(self, room: float) -> None:
        """Keep the helpers busy: a prescription to each with room in its queue, at most `room` in all."""
        if not self.root.children:
            return  # the agent expands the root itself, with its first iteration
        for conn in list(self.free):
            while self.free[conn] > 0 and room > 0 and conn not in self.lost:
                steps, path, end, expand = self.prescribe()
                try:
                    number = next(_job_numbers)
                    conn.send(("play", number, steps, expand, self.search.deadline))
                except (BrokenPipeError, OSError) as exc:
                    self._lose(conn, f"a search worker died: {type(exc).__name__}")
                    break
                job = self.jobs[number] = _Job(conn, path, [step[3] is not None for step in steps], end, expand)
                if expand:
                    self.expanding.add(end)
                for chance in path:
                    value = _virtual_value(chance)
                    chance.visit(value)
                    job.virtual.append(value)
                self.free[conn] -= 1
                room -= 1

    def collect(self, timeout: float = 0.0) -> None:
        """Back up the results that arrive within `timeout` seconds (0: those already there)."""
        busy = [conn for conn, free in self.free.items() if conn not in self.lost and free < JOBS_PER_HELPER]
        if not busy:
            return
        for conn in wait(busy, timeout=timeout):
            while conn not in self.lost and conn.poll():
                try:
                    status, job_id, payload = conn.recv()
                except (EOFError, OSError) as exc:
                    self._lose(conn, f"a search worker died: {type(exc).__name__}")
                    break
                job = self.jobs.pop(job_id, None)
                if job is None:
                    continue  # a reply to an earlier decision, let go of then
                self.free[conn] += 1
                self.answered.add(conn)
                self._unvisit(job)
                if status == "expired":
                    continue
                if status != "done":
                    self._lose(conn, payload)
                elif payload is None:
                    self.skipped += 1
                else:
                    self._apply(job, payload)
                    self.completed += 1

    def abandon(self) -> None:
        """Take back the virtual visits of the results still out, and let them go."""
        for job in self.jobs.values():
            self._unvisit(job)
        self.jobs.clear()

    def _lose(self, conn: Connection, error: str) -> None:
        self.errors.append(error)
        self.lost.append(conn)
        for job_id in [j for j, job in self.jobs.items() if job.conn is conn]:
            job = self.jobs.pop(job_id)
            self._unvisit(job)
            self.late.append(conn)

    def _unvisit(self, job: _Job) -> None:
        """Take back the job's virtual visits and its claim on expanding its end."""
        if job.expand:
            self.expanding.discard(job.end)
        for chance, value in zip(job.path, job.virtual):
            chance.visits -= 1
            chance.total_value -= value
            chance.total_square -= value * value
        job.virtual = []

    def _apply(self, job: _Job, playout: Playout) -> None:
        """Back the helper's value up the path it took, adding the node it reached if it is new."""
        hashes, seeds, expansion, leaf, value = playout
        visited: List = [self.root]
        for i, state in enumerate(hashes):
            chance = job.path[i] if i < len(job.path) else self._expanded(job.end, expansion)
            if chance is None:
                break
            node = chance.outcomes.get(state)
            if node is None:
                if i != len(hashes) - 1 or leaf is None:
                    break  # the tree changed under the prescription (a node rebuilt): stop here
                actions, active, game_over = leaf
                game = self.search.game
                node = chance.outcomes[state] = ActionNode(
                    key=state, actions=[action_from_key(game, key) for key in actions],
                    is_opponent=active is not None and active != self.search.team_id, terminal=game_over)
                node.dice_seed = seeds[i]
            if i >= len(job.forced) or not job.forced[i]:
                node.arrivals += 1  # the helper's own dice led here
            visited += [chance, node]
        for node in visited:
            node.visit(value)

    @staticmethod
    def _expanded(node: ActionNode, expansion) -> Optional[ChanceNode]:
        """The child of `node` the helper expanded, giving `node` the helper's priors if it has none yet."""
        if expansion is None:
            return None
        keys, priors, chosen = expansion
        if not node.children:
            if [action_key(action) for action in node.actions] != keys:
                return None
            node.expand_all(priors)
        return next((child for child in node.children if action_key(child.action) == keys[chosen]), None)
