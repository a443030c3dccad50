"""What the knowledge forbids the search: blocks `grod.worth_blocking` would not make, left out of the
actions a node offers (and a player's block with them, when he has no other), on the Bot Bowl board."""
import numpy as np
import pytest
from botbowl.core import Action, ActionType

import mcts_bot
from conftest import action_key, arranged_position
from mcts_bot.adapter import actions
from mcts_bot.core.search import Budget
from mcts_bot.knowledge.grod import worth_blocking
from mcts_bot.knowledge.pruning import without_unworthy_blocks

WORTHY = "default"  # measured as `default-worthy-blocks`


def _one_die_block(board_size: int = 3, why: str = "other"):
    """Our lineman (index 3) beside theirs at one die, his only block; another of ours stands beside the
    defender, marked (so no assist), holding the ball when `why` is "freeing"; their lineman holds it
    for "carrier"; both teams play the half's last turn for "last_turn"; else the ball is nowhere near,
    in turn 1."""
    game = arranged_position(board_size, "home", ours={3: (6, 3), 0: (8, 4)}, theirs={3: (7, 3), 2: (9, 5)},
                             carrier=0 if why == "freeing" else None)
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    attacker, defender = team.players[3], opponent.players[3]
    if why == "carrier":
        ball = game.get_ball()
        ball.move_to(defender.position)
        ball.is_carried, ball.on_ground = True, True
    if why == "last_turn":
        team.state.turn = opponent.state.turn = game.config.rounds
    game.set_available_actions()
    assert game.num_block_dice(attacker, defender) == 1
    return game, attacker, defender


def _keys(action_list):
    return {action_key(a) for a in action_list}


def test_an_unworthy_block_and_the_start_of_a_block_that_could_make_no_other_are_left_out():
    game, attacker, defender = _one_die_block()
    offered = actions.legal_actions(game)
    kept = without_unworthy_blocks(game, offered)
    start = Action(ActionType.START_BLOCK, player=attacker)
    assert action_key(start) in _keys(offered) - _keys(kept)
    assert _keys(offered) - _keys(kept) == {action_key(start)}  # his move, and the others' actions, stay
    actions.advance(game, start)
    block = Action(ActionType.BLOCK, position=defender.position)
    offered = actions.legal_actions(game)
    kept = without_unworthy_blocks(game, offered)
    assert _keys(offered) - _keys(kept) == {action_key(block)}
    assert kept  # the block declared in the real game can still end
    assert without_unworthy_blocks(game, [block]) == [block]  # nothing else: all of them


@pytest.mark.parametrize("why", ["carrier", "freeing", "last_turn"])
def test_a_one_die_block_worth_it_is_kept(why):
    game, attacker, defender = _one_die_block(why=why)
    offered = actions.legal_actions(game)
    assert _keys(without_unworthy_blocks(game, offered)) == _keys(offered)
    actions.advance(game, Action(ActionType.START_BLOCK, player=attacker))
    offered = actions.legal_actions(game)
    assert action_key(Action(ActionType.BLOCK, position=defender.position)) in \
        _keys(without_unworthy_blocks(game, offered))


def test_freeing_the_carrier_is_worth_one_die_not_dice_against():
    game, attacker, defender = _one_die_block(why="freeing")
    assert worth_blocking(game, attacker, defender, 1)
    assert not worth_blocking(game, attacker, defender, -2)
    assert worth_blocking(game, attacker, defender, 2)


@pytest.mark.parametrize("board_size,pruned", [(11, True), (3, False)])
def test_the_preset_filters_on_the_bot_bowl_board_only(board_size, pruned):
    game, attacker, _ = _one_die_block(board_size)
    start = action_key(Action(ActionType.START_BLOCK, player=attacker))
    assert start in _keys(mcts_bot.get_preset("default-all-blocks").legal_actions(game))
    assert (start not in _keys(mcts_bot.get_preset(WORTHY).legal_actions(game))) == pruned
    assert mcts_bot.get_preset("default-worthy-blocks").action_filter == mcts_bot.get_preset(WORTHY).action_filter


def test_the_search_never_offers_the_unworthy_block_and_plays_on():
    game, attacker, _ = _one_die_block(11)
    result = mcts_bot.run_search(game, budget=Budget(iterations=30), preset=mcts_bot.get_preset(WORTHY),
                                 rng=np.random.RandomState(3))
    start = action_key(Action(ActionType.START_BLOCK, player=attacker))
    assert start not in _keys(result.root.actions) and result.root.visits >= 30
    bot = mcts_bot.MCTSBot("mcts", seconds=None, iterations=30, seed=3, preset=WORTHY)
    bot.new_game(game, game.active_team)
    action = bot.act(game)
    assert actions.is_available(game, action) and action_key(action) != start
    assert bot.totals.errors == 0
