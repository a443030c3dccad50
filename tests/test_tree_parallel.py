"""Tree parallelism: helpers play iterations of the agent's one tree (`mcts_bot.tree_parallel`)."""
import pickle

import numpy as np
import pytest

import mcts_bot
from conftest import turn_position, visits_consistent
from mcts_bot import tree_parallel
from mcts_bot.harness.matches import GameSpec
from mcts_bot.mcts import _Search
from mcts_bot.nodes import iter_action_nodes
from mcts_bot.presets import configure
from mcts_bot.search_copy import private_copy


def test_helper_playouts_follow_the_tree_and_reproduce_its_dice():
    # In one process: the agent's tree (dice seeded step by step), and a helper's copy of the
    # same state, as a helper process would unpickle it.
    game = turn_position(5, seed=1)
    team, preset = game.active_team, configure("default")
    own = private_copy(game, seed=5)
    snapshot = pickle.dumps(own)
    helpers = tree_parallel.TreeHelpers([], np.random.RandomState(3))  # no processes: nothing dispatched
    result = mcts_bot.run_search(own, budget=mcts_bot.Budget(iterations=120), preset=preset,
                                 rng=np.random.RandomState(1), team=team, copy=False, helpers=helpers)
    root = result.root
    assert result.stats.iterations == 120 and helpers.completed == 0
    copy = pickle.loads(snapshot)
    copy.set_seed(99)
    helper = _Search(copy, team.team_id, preset, np.random.RandomState(2), deadline=None)
    helpers.bind(_Search(own, team.team_id, preset, np.random.RandomState(4), deadline=None), root)
    forced = expanded = 0
    for number in range(40):
        steps, path, end, expand = helpers.prescribe()
        job = tree_parallel._Job(None, path, [step[3] is not None for step in steps], end)
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


def test_a_tree_parallel_search_keeps_its_budget_and_its_statistics():
    game = turn_position(3, seed=2)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=80, seed=3, workers=2, parallel="tree")
    bot.new_game(game, game.active_team)
    try:
        action = bot.act(game)
        stats = bot.last_stats
        assert mcts_bot.actions.is_available(game, action)
        assert stats.merged_iterations > 0 and stats.iterations + stats.merged_iterations + stats.skipped == 80
        assert bot.last_root.visits == stats.iterations + stats.merged_iterations
        assert visits_consistent(bot.last_root) and bot.totals.errors == 0
    finally:
        bot.end_game(game)
    assert not any(process.is_alive() for process, _ in bot.workers._helpers)


def test_tree_parallelism_needs_priors():
    with pytest.raises(ValueError, match="priors"):
        mcts_bot.MCTSBot(preset="vanilla", workers=2, parallel="tree")
    with pytest.raises(ValueError, match="parallel must be one of"):
        mcts_bot.MCTSBot(workers=2, parallel="leaf")
    with pytest.raises(ValueError, match="priors"):  # an evaluation says so before playing, not in a crash record
        GameSpec(board=1, side="home", rollouts=True, seed=0, preset="vanilla", iterations=10, search_workers=2,
                 parallel="tree")
