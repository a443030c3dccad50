"""Fault injection: whatever fails inside a search, act() returns a legal action and the game goes on."""
import gc
import logging

import botbowl
import numpy as np
import pytest
from botbowl.ai.bots.random_bot import RandomBot

import mcts_bot
from conftest import action_key, allowed_by_botbowl, game_snapshot, turn_position
from mcts_bot.adapter.actions import legal_actions
from mcts_bot.core import search as search_module
from mcts_bot.core.policies import random_rollout_policy
from mcts_bot.harness.games import make_game
from mcts_bot.harness.matches import CheckedAgent
from mcts_bot.knowledge.heuristics import material_heuristic


class Boom(RuntimeError):
    pass


def raising(message):
    def plugin(*args, **kwargs):
        raise Boom(message)
    return plugin


def every_nth_call_raises(function, n, message):
    calls = {"n": 0}

    def plugin(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] % n == 0:
            raise Boom(message)
        return function(*args, **kwargs)
    return plugin


def play_full_game(bot, board=1, seed=0):
    checker = CheckedAgent(bot)
    game = make_game(board, checker, RandomBot("random", seed=seed), seed=seed)
    game.init()
    assert game.state.game_over
    assert checker.illegal == 0 and checker.decisions > 5
    return checker


@pytest.mark.parametrize("plugins", [
    {"heuristic": raising("heuristic down")},
    {"tree_policy": raising("tree policy down")},
    {"rollouts": True, "rollout_policy": raising("rollout policy down")},
    {"rollouts": True, "rollout_policy": every_nth_call_raises(random_rollout_policy, 7, "mid-rollout")},
    {"heuristic": lambda game, team: float("nan")},
    {"final_policy": raising("final policy down")},
], ids=["heuristic", "tree-policy", "rollout-policy", "mid-rollout", "nan-heuristic", "final-policy"])
def test_failing_plugin_never_stops_the_game(plugins, caplog):
    bot = mcts_bot.MCTSBot(seconds=None, iterations=15, seed=1, **plugins)
    with caplog.at_level(logging.ERROR, logger="mcts_bot"):
        play_full_game(bot)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors, "the failure must be logged"
    # logged once, with its traceback, however many decisions hit it
    assert len({r.getMessage() for r in errors}) == len(errors)
    assert all(r.exc_info for r in errors)
    assert bot.totals.errors > 0 or bot.totals.safe_actions > 0


def test_failing_revert_never_stops_the_game(monkeypatch):
    # The real game never reverts; only the search's copies do. Every 5th revert fails.
    revert = botbowl.Game.revert
    monkeypatch.setattr(botbowl.Game, "revert", every_nth_call_raises(revert, 5, "revert down"))
    bot = mcts_bot.MCTSBot(seconds=None, iterations=15, seed=2)
    play_full_game(bot)
    assert bot.totals.errors > 0


def test_failing_copy_never_stops_the_game(monkeypatch):
    monkeypatch.setattr(search_module, "private_copy", raising("copy down"))
    bot = mcts_bot.MCTSBot(seconds=None, iterations=15, seed=3)
    play_full_game(bot)
    assert bot.totals.searches == 0 and bot.totals.safe_actions > 5


def test_mid_rollout_failure_leaves_the_real_game_alone():
    game = turn_position(3, seed=4)
    before = game_snapshot(game)
    # Fails after some rollouts have rolled dice, in the middle of one.
    policy = every_nth_call_raises(random_rollout_policy, 40, "mid-rollout")
    result = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=100), rng=np.random.RandomState(0),
                                 preset=mcts_bot.configure("default", rollouts=True, rollout_policy=policy))
    assert "mid-rollout" in (result.stats.error or "")  # the failure did happen, inside a rollout
    assert game_snapshot(game) == before


def test_a_refused_playout_action_ends_that_playout_not_the_search(caplog):
    # A rollout policy with a blind spot (here every 5th action one botbowl refuses mid-turn): each
    # such playout is scored where it stands, the search plays all its iterations, the refusal is logged.
    from botbowl.core import Action, ActionType

    calls = {"n": 0}

    def blind_policy(game, rng):
        calls["n"] += 1
        return Action(ActionType.END_SETUP) if calls["n"] % 5 == 0 else random_rollout_policy(game, rng)

    game = turn_position(3, seed=4)
    before = game_snapshot(game)
    with caplog.at_level(logging.ERROR, logger="mcts_bot"):
        result = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=40), rng=np.random.RandomState(0),
                                     preset=mcts_bot.configure("default", rollouts=True, rollout_policy=blind_policy))
    assert calls["n"] >= 5, "the policy must have been asked for a refused action"
    assert result.stats.error is None and result.stats.iterations == 40
    assert any("refused a playout's action" in r.getMessage() for r in caplog.records)
    assert game_snapshot(game) == before


def test_a_failure_in_the_first_iteration_is_reported_not_raised():
    # The root's children exist, none has been stepped into: the search reports the error it met
    # (not a failure of its own statistics on an empty tree).
    game = turn_position(3, seed=4)
    result = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=10), rng=np.random.RandomState(0),
                                 preset=mcts_bot.configure("default", tree_policy=raising("tree policy down")))
    assert result.root.children and not any(child.outcomes for child in result.root.children)
    assert "tree policy down" in (result.stats.error or "") and result.stats.iterations == 0
    assert (result.stats.depth_min, result.stats.depth_max, result.stats.depth_mean) == (0, 0, 0.0)


def test_next_decision_starts_clean():
    failing = {"on": True}

    def heuristic(game, team):
        if failing["on"]:
            raise Boom("only the first decision")
        return material_heuristic(game, team)

    game = turn_position(3, seed=5)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=30, seed=0, heuristic=heuristic, preset="vanilla")
    bot.new_game(game, game.active_team)
    first = bot.act(game)
    assert allowed_by_botbowl(game, first)
    assert bot.last_stats is None or bot.last_stats.error is not None
    failing["on"] = False
    bot.act(game)
    assert bot.last_stats.error is None and bot.last_stats.iterations == 30


def test_previous_tree_is_released():
    # No reference cycles in the tree: once the agent lets go of a root, its nodes are gone.
    def live_nodes():
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, (mcts_bot.ActionNode, mcts_bot.ChanceNode)))

    game = turn_position(3, seed=6)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=200, seed=0)
    bot.new_game(game, game.active_team)
    baseline = live_nodes()
    for _ in range(3):
        bot.act(game)
        assert live_nodes() - baseline == bot.last_stats.nodes
    bot.end_game(game)
    assert live_nodes() == baseline


def test_series_does_not_leak_between_games():
    # One bot plays two games in a row: after each game its totals count that game's decisions only.
    bot = mcts_bot.MCTSBot(seconds=None, iterations=10, seed=7)
    for seed in range(2):
        checker = CheckedAgent(bot)
        game = make_game(1, checker, RandomBot("random", seed=seed), seed=seed)
        game.init()
        assert game.state.game_over
        assert bot.last_root is None and bot._last_action is None
        assert bot.totals.decisions == checker.decisions > 0


def test_a_stale_node_costs_one_iteration_not_the_search():
    # Two states sharing a node (a collision) leave it with actions that do not fit the state the
    # search reaches it in: that iteration is dropped, the node rebuilt, and the search goes on.
    game = turn_position(3, seed=8)
    other = turn_position(3, seed=9)
    legal = legal_actions(game)
    foreign = [a for a in legal_actions(other) if action_key(a) not in set(map(action_key, legal))]
    assert foreign, "the two positions must differ in what they allow"
    preset = mcts_bot.configure("default")
    root = mcts_bot.ActionNode(key=0, actions=foreign[:3], is_opponent=False, terminal=False)
    result = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=40), preset=preset,
                                 rng=np.random.RandomState(0), root=root)
    assert result.stats.error is None
    assert result.stats.skipped >= 1 and result.stats.iterations + result.stats.skipped == 40
    assert sorted(map(action_key, root.actions)) == sorted(map(action_key, legal))  # rebuilt for this state
    assert all(allowed_by_botbowl(game, child.action) for child in root.children)


def test_without_time_the_bot_plays_on_rather_than_ending_its_turn(monkeypatch):
    # No time to search (or no search at all): the scripted policy's move, not END_TURN.
    from botbowl.core import ActionType

    from mcts_bot import agent as agent_module
    from mcts_bot.knowledge.scripted import scripted_action
    game = turn_position(3, seed=10)
    expected = scripted_action(game, np.random.RandomState(0))
    assert expected.action_type != ActionType.END_TURN, "pick a position where the scripted policy has a move"
    monkeypatch.setattr(agent_module.timing, "time_for_decision", lambda game, team: 0.0)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=50, seed=0)
    bot.new_game(game, game.active_team)
    action = bot.act(game)
    assert action.action_type == expected.action_type and bot.totals.safe_actions == 1
    assert bot.totals.searches == 0
    monkeypatch.undo()
    monkeypatch.setattr(search_module, "private_copy", raising("copy down"))
    bot = mcts_bot.MCTSBot(seconds=None, iterations=50, seed=0)
    bot.new_game(game, game.active_team)
    assert bot.act(game).action_type == expected.action_type


def test_tree_reuse_survives_forced_decisions():
    # A decision made without a search (a follow-up such as END_PLAYER_TURN after a move, or a single
    # legal action) follows the tree, so the next search still starts from the subtree it reached.
    # Two games: in one game, no reached state may happen to be in the earlier tree (seed 11 alone: none).
    after_forced = []
    for seed in (11, 12):
        searches = []
        bot = mcts_bot.MCTSBot(seconds=None, iterations=60, seed=seed,
                               on_decision=lambda game, result, action: searches.append(
                                   (bot.totals.decisions, result.root.visits > result.stats.iterations)))
        play_full_game(bot, board=3, seed=seed)
        after_forced += [reused for (n, reused), (m, _) in zip(searches[1:], searches) if n - m > 1]
        assert bot.totals.reused_trees > 0
    assert len(after_forced) > 20, "the games must have searches that follow a forced decision"
    assert sum(after_forced) > 0, "no search after a forced decision went on from the earlier tree"


class MoveFollowUpWatch(botbowl.Agent):
    """Wraps an MCTSBot: at each search that comes right after a searched MOVE and the
    END_PLAYER_TURN that follows it, whether the move's edge holds the state reached, and whether
    the search went on from it."""

    def __init__(self, bot):
        super().__init__(bot.name)
        self.bot = bot
        self.edge = None  # the searched MOVE's edge, while its follow-up is still to come or just played
        self.followed = False
        self.cases = []

    def new_game(self, game, team):
        self.bot.new_game(game, team)

    def end_game(self, game):
        self.bot.end_game(game)

    def act(self, game):
        from botbowl.core import ActionType

        from mcts_bot.adapter.hashing import game_state_hash
        in_tree = self.followed and game_state_hash(game) in self.edge.outcomes
        searches, reused = self.bot.totals.searches, self.bot.totals.reused_trees
        action = self.bot.act(game)
        searched = self.bot.totals.searches > searches
        if searched and self.followed:
            self.cases.append((in_tree, self.bot.totals.reused_trees > reused))
        if searched:
            chosen = self.bot.last_choice
            self.edge = chosen if chosen is not None and chosen.action.action_type == ActionType.MOVE else None
            self.followed = False
        elif self.edge is not None and not self.followed and action.action_type == ActionType.END_PLAYER_TURN:
            self.followed = True
        else:
            self.edge, self.followed = None, False
        return action


def test_tree_reuse_goes_on_after_a_moves_follow_up():
    # With end_moves a MOVE's edge takes its END_PLAYER_TURN too, so its outcomes are the states after
    # both: the search after the follow-up starts from the edge's outcome whenever the tree has it
    # (the agent once looked the state up one decision early, after the MOVE alone, and lost the tree
    # after every searched move).
    watch = MoveFollowUpWatch(mcts_bot.MCTSBot(seconds=None, iterations=60, seed=12))
    play_full_game(watch, board=3, seed=12)
    in_tree = [reused for found, reused in watch.cases if found]
    assert len(in_tree) >= 5, f"the game must reach states the move's edge holds: {watch.cases}"
    assert all(in_tree), f"a search after a move's follow-up did not go on from the tree: {watch.cases}"
