"""The search's private copy: botbowl's pathfinding remembered by state must change nothing but speed."""
import botbowl
import numpy as np
import pytest

import mcts_bot
from conftest import action_key, turn_position
from mcts_bot import actions
from mcts_bot.nodes import iter_action_nodes
from mcts_bot.policies import random_rollout_policy
from mcts_bot.search_copy import SearchGame, private_copy


def choices(game: botbowl.Game) -> list:
    """What botbowl offers, down to each path's squares and odds."""
    out = []
    for choice in game.state.available_actions:
        paths = tuple((tuple((s.x, s.y) for s in path.steps), round(path.prob, 9)) for path in choice.paths)
        out.append((choice.action_type, tuple(p.player_id for p in choice.players),
                    tuple((s.x, s.y) for s in choice.positions), paths, tuple(map(str, choice.block_dice))))
    return out


@pytest.mark.parametrize("board", [3, 5, 11])
def test_remembered_paths_equal_botbowls_own(board):
    """Step random actions, revert, step them again (now from the memo): the choices, the paths
    and the states reached match a copy that computes everything afresh."""
    game = private_copy(turn_position(board, seed=board), seed=0)
    fresh = private_copy(game, seed=0)
    fresh.__class__ = botbowl.Game
    rng = np.random.RandomState(board)
    start = game.get_step()
    for round_ in range(6):
        played = []
        for copy in (game, fresh):
            copy.set_seed(round_)  # the same dice in both passes: revert does not rewind them
        for _ in range(25):
            if game.state.game_over:
                break
            played.append(random_rollout_policy(game, rng))
            actions.step(game, played[-1])
            actions.step(fresh, played[-1])
        for copy in (game, fresh):
            copy.revert(start)
            copy.set_seed(round_)
        for action in played:  # again: now the copy has seen these states
            assert choices(game) == choices(fresh)
            actions.step(game, action)
            actions.step(fresh, action)
        assert choices(game) == choices(fresh)
        game.revert(start)
        fresh.revert(start)
    assert game.paths_memo_hits > 0


def test_a_search_builds_the_same_tree_with_and_without_the_memo(monkeypatch):
    game = turn_position(5, seed=2)
    with_memo = mcts_bot.search(game, iterations=120, seed=4)
    monkeypatch.setattr(SearchGame, "set_available_actions", botbowl.Game.set_available_actions)
    without = mcts_bot.search(game, iterations=120, seed=4)

    def shape(root):
        return [(node.visits, round(node.total_value, 9), [action_key(c.action) for c in node.children])
                for node in iter_action_nodes(root)]

    assert shape(with_memo) == shape(without)


def test_the_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr("mcts_bot.search_copy.MAX_REMEMBERED_PATHS", 3)
    game = private_copy(turn_position(3, seed=1), seed=0)
    rng = np.random.RandomState(1)
    for _ in range(200):
        if game.state.game_over:
            break
        actions.step(game, random_rollout_policy(game, rng))
        assert len(game.paths_memo) <= 3


def test_the_real_game_stays_a_plain_game():
    game = turn_position(3, seed=1)
    private_copy(game, seed=0)
    assert type(game) is botbowl.Game
