"""The search's private copy: remembered paths, set-ups and neighbours, and skipped hashes must change nothing but speed."""
import functools

import botbowl
import numpy as np
import pytest
from botbowl.core import Action
from botbowl.core.model import D6, Formation

import mcts_bot
from conftest import fixed_dice, setup_position, tree_data, turn_position
from mcts_bot.adapter import actions
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.adapter.search_copy import SearchGame, private_copy
from mcts_bot.core.policies import random_rollout_policy
from mcts_bot.core.search import Search
from mcts_bot.harness.games import random_position


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

    assert tree_data(with_memo) == tree_data(without)


def _neighbours(get_adjacent_squares, *args):
    """The squares as plain data, or the error (botbowl's get_player_at fails off the board)."""
    try:
        return [(s.x, s.y, s.out_of_bounds) for s in get_adjacent_squares(*args)]
    except IndexError as error:
        return type(error)


@pytest.mark.parametrize("board", [3, 11])
def test_remembered_neighbours_equal_botbowls_own(board):
    """Every square of the pitch and the crowd's edge, every way of asking, as players move."""
    game = private_copy(turn_position(board, seed=board), seed=0)
    rng = np.random.RandomState(board)
    asked = 0
    for _ in range(4):
        for x in range(-1, game.arena.width + 1):
            for y in range(-1, game.arena.height + 1):
                square = botbowl.Square(x, y)
                for diagonal in (True, False):
                    for out in (True, False):
                        for occupied in (True, False):
                            args = (square, diagonal, out, occupied)
                            assert _neighbours(game.get_adjacent_squares, *args) == \
                                _neighbours(functools.partial(botbowl.Game.get_adjacent_squares, game), *args)
                            asked += 1
        for _ in range(15):  # players move: the occupied squares change
            if not game.state.game_over:
                actions.step(game, random_rollout_policy(game, rng))
    assert asked > 1000 and game.neighbours


def test_a_search_builds_the_same_tree_with_and_without_the_neighbours(monkeypatch):
    game = turn_position(11, seed=3)
    remembered = mcts_bot.search(game, iterations=60, seed=5)
    monkeypatch.setattr(SearchGame, "remember_neighbours", False)
    without = mcts_bot.search(game, iterations=60, seed=5)
    assert tree_data(remembered) == tree_data(without)


@pytest.mark.parametrize("board", [3, 5, 11])
def test_remembered_setups_equal_botbowls_own(board):
    """Every formation at a kick-off, stepped twice (the second time from the memo), places the
    same players on the same squares as in a copy that asks botbowl each time."""
    real = setup_position(board, seed=board)
    game = private_copy(real, seed=0)
    fresh = private_copy(real, seed=0)
    fresh.__class__ = botbowl.Game
    assert type(real.config.defensive_formations[0]) is Formation  # the real game's stay botbowl's
    team = game.active_team
    formations = [Action(c.action_type) for c in game.state.available_actions
                  if actions.is_formation(Action(c.action_type))]
    assert formations
    start = game.get_step()
    for _ in range(2):
        for formation in formations:
            placed = []
            for copy in (game, fresh):
                actions.step(copy, formation)
                placed.append(sorted((p.player_id, p.position.x, p.position.y)
                                     for p in copy.get_players_on_pitch(copy.state.team_by_id[team.team_id])))
                copy.revert(start)
            assert placed[0] == placed[1]
    assert len(game.formations_memo) == len(formations)
    assert [(s.x, s.y) for s in game.get_team_side(team)] == [(s.x, s.y) for s in fresh.get_team_side(team)]


def test_a_search_through_a_kick_off_builds_the_same_tree_with_and_without_the_setup_memo(monkeypatch):
    game = random_position(5, seed=3, steps=120)  # a block whose tree reaches the next kick-off
    with_memo = mcts_bot.search(game, iterations=150, seed=4)
    monkeypatch.setattr(SearchGame, "remember_setups", False)
    without = mcts_bot.search(game, iterations=150, seed=4)

    assert tree_data(with_memo) == tree_data(without)


def test_the_memo_stays_bounded(monkeypatch):
    monkeypatch.setattr("mcts_bot.adapter.search_copy.MAX_REMEMBERED_PATHS", 3)
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


def test_a_step_that_threw_no_dice_always_ends_in_the_same_state():
    game = private_copy(turn_position(5, seed=6), seed=0)
    rng = np.random.RandomState(6)
    kinds = set()
    for number in range(150):
        if game.state.game_over:
            break
        action = random_rollout_policy(game, rng)
        before, step = game.dice_thrown(), game.get_step()
        actions.step(game, action)
        threw = game.dice_thrown() != before
        kinds.add(threw)
        if not threw:  # other dice, same state
            reached = game_state_hash(game)
            game.revert(step)
            game.set_seed(1000 + number)
            again = game.dice_thrown()
            actions.step(game, action)
            assert game_state_hash(game) == reached and game.dice_thrown() == again
    assert kinds == {True, False}


def test_fixed_dice_count_as_thrown():
    """Test set-ups fix dice before a step; a step that takes one from the queue threw dice."""
    game = private_copy(turn_position(3, seed=1), seed=0)
    with fixed_dice(d6=(4, 5)):
        before = game.dice_thrown()
        assert D6(game.rng).get_value() == 4
        assert game.dice_thrown() != before and game.rng.draws == before[0]


def test_a_search_builds_the_same_tree_without_hashing_dice_free_steps(monkeypatch):
    hashed = []
    monkeypatch.setattr("mcts_bot.core.search.game_state_hash", lambda game: hashed.append(1) or game_state_hash(game))
    trees = {}
    for skip in (True, False):
        monkeypatch.setattr(Search, "skip_dice_free_hash", skip)
        hashed.clear()
        trees[skip] = (tree_data(mcts_bot.search(turn_position(5, seed=3), iterations=120, seed=2)), len(hashed))
    assert trees[True][0] == trees[False][0]
    assert trees[True][1] < 0.8 * trees[False][1]  # and most steps skipped the hash
