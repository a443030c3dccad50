"""Tree parallelism: helpers play iterations of the agent's one tree (`mcts_bot.parallel.tree`)."""
import multiprocessing
import os
import pickle
import threading
import time

import numpy as np
import pytest

import mcts_bot
from conftest import allowed_by_botbowl, turn_position, visits_consistent
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core import search as search_module
from mcts_bot.core.nodes import iter_action_nodes
from mcts_bot.core.search import Search
from mcts_bot.harness.games import random_position
from mcts_bot.harness.matches import GameSpec
from mcts_bot.knowledge.priors import knowledge_priors
from mcts_bot.parallel import tree as tree_parallel
from mcts_bot.presets import configure


def tree_and_helper(game, preset, iterations: int):
    """In one process: the agent's tree of `iterations` (dice seeded step by step), bound to
    `TreeHelpers` with no processes, and a helper's search on a copy of the same state, as a helper
    process would unpickle it. Returns (the search's result, the helpers, the helper's search, the pickled state)."""
    team = game.active_team
    own = private_copy(game, seed=5)
    snapshot = pickle.dumps(own)
    helpers = tree_parallel.TreeHelpers([], np.random.RandomState(3))  # no processes: nothing dispatched
    result = mcts_bot.run_search(own, budget=mcts_bot.Budget(iterations=iterations), preset=preset,
                                 rng=np.random.RandomState(1), team=team, copy=False, helpers=helpers)
    copy = pickle.loads(snapshot)
    copy.set_seed(99)
    helper = Search(copy, team.team_id, preset, np.random.RandomState(2), deadline=None)
    helpers.bind(Search(own, team.team_id, preset, np.random.RandomState(4), deadline=None), result.root)
    return result, helpers, helper, snapshot


def test_helper_playouts_follow_the_tree_and_reproduce_its_dice():
    game = turn_position(5, seed=1)
    result, helpers, helper, snapshot = tree_and_helper(game, configure("default"), iterations=120)
    root, copy = result.root, helper.game
    assert result.stats.iterations == 120 and helpers.completed == 0
    forced = expanded = 0
    for number in range(40):
        steps, path, end, expand = helpers.prescribe()
        job = tree_parallel._Job(None, path, [step[3] is not None for step in steps], end, expand)
        playout = tree_parallel.play(helper, steps, expand)
        assert playout is not None
        hashes, seeds = playout[0], playout[1]
        assert len(seeds) == len(hashes)
        for (key, expected, single, seed), state in zip(steps, hashes):
            if seed is not None:  # the tree's dice: the same outcome, always
                assert state == expected
                forced += 1
        nodes_before = sum(1 for _ in iter_action_nodes(root))
        helpers._apply(job, playout)
        expanded += playout[2] is not None
        assert root.visits == 121 + number
        assert sum(1 for _ in iter_action_nodes(root)) <= nodes_before + 1
    assert forced > 0 and expanded > 0
    assert visits_consistent(root)
    assert copy.get_step() == pickle.loads(snapshot).get_step()  # the helper's copy is back at the root


class _Connection:
    """Takes the prescriptions `TreeHelpers.dispatch` sends, for a helper played in this process."""

    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(message)


def test_a_node_is_expanded_once_while_a_helper_expands_it():
    game = turn_position(5, seed=1)
    team, preset = game.active_team, configure("default")
    own = private_copy(game, seed=5)
    snapshot = pickle.dumps(own)
    conn = _Connection()
    helpers = tree_parallel.TreeHelpers([conn], np.random.RandomState(3))
    result = mcts_bot.run_search(own, budget=mcts_bot.Budget(iterations=30), preset=preset,
                                 rng=np.random.RandomState(1), team=team, copy=False,
                                 helpers=tree_parallel.TreeHelpers([], np.random.RandomState(3)))
    root = result.root
    search = Search(own, team.team_id, preset, np.random.RandomState(4), deadline=None)
    search.seed_steps, search.expanding = True, helpers.expanding
    helpers.bind(search, root)
    helpers.dispatch(room=1)
    (job_id, job), = helpers.jobs.items()
    end = job.end
    assert job.expand and helpers.expanding == {end} and not end.children
    # While the result is out, neither a prescription nor the agent's own iteration expands `end`:
    # both stop there, as at a leaf.
    reached, visits = 0, end.visits
    for _ in range(20):
        steps, path, stop, expand = helpers.prescribe()
        reached += stop is end
        assert stop is not end or not expand
        search.iterate(root)
    assert not end.children and end.visits > visits and reached > 0
    # The helper's result expands it, and frees it.
    copy = pickle.loads(snapshot)
    copy.set_seed(99)
    _, _, steps, expand, deadline = conn.sent[0]
    assert deadline is None  # an iteration budget
    playout = tree_parallel.play(Search(copy, team.team_id, preset, np.random.RandomState(2), deadline=None),
                                 steps, expand)
    helpers.jobs.pop(job_id)
    helpers._unvisit(job)
    helpers._apply(job, playout)
    assert end.children and not helpers.expanding
    assert visits_consistent(root)


def test_a_helper_past_the_deadline_expands_nothing_and_skips_the_work_queued():
    # The agent waits for the results still out once the deadline has passed: a helper then
    # finishes the iteration under way without expanding a node, and answers the next at once.
    game = turn_position(3, seed=2)
    team, preset = game.active_team, configure("default")
    own = private_copy(game, seed=5)
    ours, theirs = multiprocessing.Pipe()
    helper = threading.Thread(target=tree_parallel.serve, args=(theirs, preset, 1, os.getppid()))
    helper.start()
    try:
        ours.send(("state", pickle.dumps(own), team.team_id))
        passed = time.perf_counter() - 1.0
        ours.send(("play", 0, [], True, None))
        ours.send(("play", 1, [], True, passed))
        assert ours.recv()[0:2] == ("done", 0) and ours.recv() == ("expired", 1, None)
    finally:
        ours.send(None)
        helper.join(timeout=60)
    search = Search(own, team.team_id, preset, np.random.RandomState(2), deadline=None)
    hashes, _, expansion, _, value = tree_parallel.play(search, [], True, deadline=passed)
    assert expansion is None and hashes == [] and 0.0 <= value <= 1.0
    assert tree_parallel.play(search, [], True)[2] is not None  # no deadline: the node is expanded


def test_a_tree_parallel_search_keeps_its_budget_and_its_statistics():
    game = turn_position(3, seed=2)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=80, seed=3, workers=2, parallel="tree")
    bot.new_game(game, game.active_team)
    try:
        action = bot.act(game)
        stats = bot.last_stats
        assert allowed_by_botbowl(game, action)
        assert stats.merged_iterations > 0 and stats.iterations + stats.merged_iterations + stats.skipped == 80
        assert bot.last_root.visits == stats.iterations + stats.merged_iterations
        assert visits_consistent(bot.last_root) and bot.totals.errors == 0
    finally:
        bot.end_game(game)
    assert not any(process.is_alive() for process, _ in bot.workers._helpers)


_play = tree_parallel.play
LATE_SECONDS = 1.0  # longer than the slack below, so that waiting for it would fail the test
_decisions_answered = set()  # (in each forked helper) the deadlines it has answered once


def play_late_after_the_first(search, prescription, expand, deadline=None):
    """A helper's iteration (helpers are forked with the patch): its first in a decision at once,
    every later one only `LATE_SECONDS` after the deadline. The agent hands each helper two at the
    start, so one result is in and one still out at every deadline however loaded the machine (a
    hold only near the deadline once saw no work asked for in it: the agent stops handing out work
    two of its own iterations before the deadline, and under the suite's load those are slow)."""
    if deadline is not None and deadline in _decisions_answered:
        time.sleep(max(0.0, deadline - time.perf_counter()) + LATE_SECONDS)
    _decisions_answered.add(deadline)
    return _play(search, prescription, expand, deadline)


def test_a_result_still_out_at_the_deadline_is_let_go_without_an_error(monkeypatch):
    # A helper has an iteration under way at every deadline: the decision lets it go (and ends in
    # time), the next throws its answer away, and the helper stays and keeps helping.
    monkeypatch.setattr(tree_parallel, "play", play_late_after_the_first)
    out_at_the_end = []
    abandon = tree_parallel.TreeHelpers.abandon

    def counting_abandon(self):
        out_at_the_end.append(len(self.jobs))
        abandon(self)

    monkeypatch.setattr(tree_parallel.TreeHelpers, "abandon", counting_abandon)
    game = turn_position(3, seed=4)
    seconds = 2.0  # the helper, late by LATE_SECONDS, still has time to help in the next decision
    bot = mcts_bot.MCTSBot(seconds=seconds, seed=0, workers=2, parallel="tree")
    bot.new_game(game, game.active_team)
    try:
        helper = bot.workers._helpers[0][0]
        for _ in range(2):
            start = time.perf_counter()
            bot.act(game)
            # Slack for a loaded machine (under the suite's load a decision once ended 0.5 s late)
            assert time.perf_counter() - start < seconds + 0.8
            assert out_at_the_end[-1] >= 1  # a result was still out, and was let go
            assert bot.last_stats.merged_iterations >= 1 and bot.last_stats.error is None
            assert visits_consistent(bot.last_root)
        assert bot.totals.errors == 0 and bot.workers._helpers[0][0] is helper and helper.is_alive()
    finally:
        bot.end_game(game)


def test_tree_parallelism_needs_priors():
    with pytest.raises(ValueError, match="priors"):
        mcts_bot.MCTSBot(preset="vanilla", workers=2, parallel="tree")
    with pytest.raises(ValueError, match="parallel must be one of"):
        mcts_bot.MCTSBot(workers=2, parallel="leaf")
    with pytest.raises(ValueError, match="priors"):  # an evaluation says so before playing, not in a crash record
        GameSpec(board=1, side="home", rollouts=True, seed=0, preset="vanilla", iterations=10, search_workers=2,
                 parallel="tree")


@pytest.mark.parametrize("turn_tree", [False, True])
def test_with_a_turn_tree_a_helper_expands_only_in_the_turn_decided(turn_tree):
    # The helpers keep to `Preset.turn_tree` as the agent does: a node past the end of the turn is a
    # leaf, so no priors are worked out there (without it, this tree reaches the next turn).
    turns = []

    def recording(game, actions):
        turns.append(search_module._turns(game))
        return knowledge_priors(game, actions)

    game = random_position(3, seed=2, steps=80)
    preset = configure("default", turn_tree=turn_tree, priors=recording)
    result, helpers, helper, _ = tree_and_helper(game, preset, iterations=60)
    root = result.root
    turns.clear()  # from here on, only the helper's expansions
    for _ in range(150):
        steps, path, end, expand = helpers.prescribe()
        playout = tree_parallel.play(helper, steps, expand)
        helpers._apply(tree_parallel._Job(None, path, [s[3] is not None for s in steps], end, expand), playout)
    assert turns
    assert (set(turns) == {search_module._turns(game)}) == turn_tree
    assert visits_consistent(root)
