"""The game-state hash: equal for equal states, different where the search must not merge states."""
from copy import deepcopy

from botbowl.core import Action, ActionType, D6

from conftest import turn_position
from mcts_bot import actions, game_state_hash
from mcts_bot.harness.games import random_position
from mcts_bot.mcts import private_copy


def test_equal_for_equal_states():
    # Two separately built games (different uuids) with the same seed and moves reach equal states.
    a = random_position(3, seed=5, steps=60)
    b = random_position(3, seed=5, steps=60)
    assert game_state_hash(a) == game_state_hash(b)
    assert game_state_hash(deepcopy(a)) == game_state_hash(a)


def test_equal_after_step_and_revert():
    game = private_copy(turn_position(3, seed=1), seed=0)
    before = game_state_hash(game)
    root = game.get_step()
    actions.step(game, actions.legal_actions(game)[0])
    assert game_state_hash(game) != before
    game.revert(root)
    assert game_state_hash(game) == before


def test_different_after_a_move():
    game = private_copy(turn_position(5, seed=2), seed=0)
    before = game_state_hash(game)
    move = next(a for a in actions.legal_actions(game) if a.action_type == ActionType.START_MOVE)
    actions.step(game, move)
    after_start = game_state_hash(game)
    target = next(a for a in actions.legal_actions(game) if a.action_type == ActionType.MOVE)
    actions.step(game, target)
    assert len({before, after_start, game_state_hash(game)}) == 3


def _risky_move(game):
    """A START_MOVE player and a MOVE target whose path needs dice (dodge or going for it)."""
    root = game.get_step()
    for start in actions.legal_actions(game):
        if start.action_type != ActionType.START_MOVE:
            continue
        actions.step(game, start)
        for choice in game.state.available_actions:
            if choice.action_type == ActionType.MOVE:
                for path in choice.paths:
                    if path.rolls and any(path.rolls):
                        target = Action(ActionType.MOVE, position=path.get_last_step())
                        game.revert(root)
                        return start, target
        game.revert(root)
    return None


def test_different_after_a_dice_outcome():
    # Same state, same action, dice forced to all-6 or all-1: two outcomes, two hashes.
    # In a first turn on the 11-player board, leaving the line of scrimmage needs a dodge.
    game = next(g for g in (private_copy(turn_position(11, seed=seed), seed=0) for seed in range(10))
                if _risky_move(g) is not None)
    start, target = _risky_move(game)
    root = game.get_step()
    hashes = []
    try:
        for value in (6, 1):
            D6.FixedRolls.clear()
            for _ in range(12):
                D6.fix(value)
            actions.step(game, start)
            actions.step(game, target)
            hashes.append(game_state_hash(game))
            game.revert(root)
    finally:
        D6.FixedRolls.clear()
    assert hashes[0] != hashes[1]


def test_squares_whose_botbowl_hashes_collide_hash_differently():
    # botbowl's Square.__hash__ is 7x + 13y: (14, 1) and (1, 8) collide. Ours must not merge them.
    game = private_copy(turn_position(11, seed=3), seed=0)
    a, b = game.get_square(14, 1), game.get_square(1, 8)
    assert hash(a) == hash(b)
    assert game.get_player_at(a) is None and game.get_player_at(b) is None
    player = game.get_players_on_pitch(game.active_team)[0]
    root = game.get_step()
    game.move(player, a)
    at_a = game_state_hash(game)
    game.revert(root)
    game.move(player, b)
    at_b = game_state_hash(game)
    game.revert(root)
    assert at_a != at_b


def test_same_in_every_process():
    # Built from integers only, so Python's per-process string hash salt cannot change it.
    import subprocess
    import sys
    code = ("import mcts_bot; from mcts_bot.harness.games import random_position; "
            "print(mcts_bot.game_state_hash(random_position(3, seed=5, steps=60)))")
    values = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={"PYTHONHASHSEED": str(salt), "PATH": ""}).stdout.strip() for salt in (1, 2)}
    assert len(values) == 1 and values != {""}
