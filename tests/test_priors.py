"""The default's knowledge priors: a probability per action, led by the scripted choice, ordered as a coach would."""
import math

import numpy as np
import pytest
from botbowl.core import Action, ActionType

from conftest import (action_key, arranged_position, as_seen, give_ball_to_opponent, mirror_arrangements, mirror_ready,
                      turn_position)
from mcts_bot.adapter.actions import advance, legal_actions
from mcts_bot.knowledge.priors import SCRIPTED_BONUS, knowledge_priors
from mcts_bot.knowledge.scripted import scripted_action
from mcts_bot.presets import BOARD_ORDER_CHOICE, board_choice


@pytest.mark.parametrize("board,seed", [(1, 0), (3, 1), (5, 2), (11, 3)])
def test_a_probability_for_each_action(board, seed):
    game = turn_position(board, seed)
    actions = legal_actions(game)
    priors = knowledge_priors(game, actions)
    assert len(priors) == len(actions) and math.isclose(sum(priors), 1.0) and min(priors) > 0
    # Unless the state alone already ranks it first, the scripted policy's choice leads.
    chosen = action_key(scripted_action(game))
    assert action_key(actions[int(np.argmax(priors))]) == chosen
    assert knowledge_priors(game, []) == []


def nothing(game):
    """A policy choice no legal action matches: the priors without any policy's opinion."""
    return Action(ActionType.PLACE_PLAYER)


def test_the_policys_choice_gets_its_bonus():
    # Whatever the policy picks gets SCRIPTED_BONUS logits over what the state says of it.
    game = turn_position(3, seed=4)
    actions = legal_actions(game)
    with_bonus = knowledge_priors(game, actions, choose=lambda g: Action(ActionType.END_TURN))
    without = knowledge_priors(game, actions, choose=nothing)
    end = next(i for i, a in enumerate(actions) if a.action_type == ActionType.END_TURN)
    other = next(i for i, a in enumerate(actions) if i != end)
    ratio = (with_bonus[end] / with_bonus[other]) / (without[end] / without[other])
    assert ratio == pytest.approx(math.exp(SCRIPTED_BONUS))
    # On its own, END_TURN comes after every move a player could start.
    assert without[end] < min(p for a, p in zip(actions, without) if a.action_type == ActionType.START_MOVE)


def test_a_policy_failure_is_logged_once_and_the_priors_go_on(caplog):
    def broken(game):
        raise RuntimeError("no plan")

    game = turn_position(3, seed=5)
    actions = legal_actions(game)
    with caplog.at_level("DEBUG", logger="mcts_bot"):
        first = knowledge_priors(game, actions, choose=broken)
        knowledge_priors(game, actions, choose=broken)
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "no plan" in errors[0].getMessage()
    assert math.isclose(sum(first), 1.0)


@pytest.mark.parametrize("side", ["home", "away"])
def test_a_two_dice_block_before_a_minus_two_one(side):
    # Our blitzer (ST 3, roster index 0) beside one ST 3 opponent with a team-mate assisting: 2
    # dice for; our lineman (index 3) beside three opponents: -2 dice. Block starts are ranked by
    # their best block.
    game = arranged_position(3, side, ours={0: (6, 1), 1: (6, 2), 3: (8, 5)},
                             theirs={0: (5, 1), 1: (9, 4), 2: (8, 4), 3: (7, 4)}, ball=(10, 3))
    team, opp = game.active_team, game.get_opp_team(game.active_team)
    strong, weak = team.players[0], team.players[3]
    assert game.num_block_dice(strong, opp.players[0]) == 2 and game.num_block_dice(weak, opp.players[2]) == -2
    actions = legal_actions(game)
    priors = dict(zip(map(action_key, actions), knowledge_priors(game, actions, choose=nothing)))
    block = lambda player: priors[action_key(Action(ActionType.START_BLOCK, player=player))]  # noqa: E731
    assert block(strong) > block(weak)


def carrier_first(game, choose=nothing):
    """The carrier's START_MOVE and START_HANDOFF priors."""
    actions = legal_actions(game)
    priors = dict(zip(map(action_key, actions), knowledge_priors(game, actions, choose=choose)))
    carrier = game.get_ball_carrier()
    return (priors[action_key(Action(ActionType.START_MOVE, player=carrier))],
            priors[action_key(Action(ActionType.START_HANDOFF, player=carrier))])


@pytest.mark.parametrize("side", ["home", "away"])
def test_a_free_carrier_runs_rather_than_hand_the_ball_to_a_teammate_no_further_on(side):
    # Our thrower (index 1) with the ball, our lineman (index 3) beside it, nobody near: a hand-off
    # gains nothing and risks the catch.
    game = arranged_position(5, side, ours={1: (10, 5), 3: (10, 6)}, theirs={0: (1, 1)}, carrier=1)
    move, handoff = carrier_first(game)
    assert move > handoff


@pytest.mark.parametrize("side", ["home", "away"])
def test_a_marked_carrier_hands_the_ball_to_a_free_teammate_who_can_score(side):
    # Our thrower marked by two, our catcher (index 2, MA 8) beside it and free, six squares out.
    game = arranged_position(5, side, ours={1: (7, 5), 2: (6, 4)}, theirs={0: (8, 5), 1: (7, 6)}, carrier=1)
    assert game.num_tackle_zones_in(game.get_ball_carrier()) == 2
    move, handoff = carrier_first(game)
    assert handoff > move


def priors_by_key(game, choose=nothing):
    actions = legal_actions(game)
    return dict(zip(map(action_key, actions), knowledge_priors(game, actions, choose=choose)))


@pytest.mark.parametrize("side", ["home", "away"])
def test_a_blitz_with_nobody_in_reach_ranks_below_a_move(side):
    # Our blitzer (index 0, MA 7) and their only player 21 squares apart: a blitz could only move.
    game = arranged_position(11, side, ours={0: (24, 5), 1: (14, 8)}, theirs={0: (3, 5)}, ball=(14, 9))
    blitzer = game.active_team.players[0]
    priors = priors_by_key(game)
    assert priors[action_key(Action(ActionType.START_BLITZ, player=blitzer))] < \
        priors[action_key(Action(ActionType.START_MOVE, player=blitzer))]


@pytest.mark.parametrize("side", ["home", "away"])
def test_inside_a_blitz_the_block_comes_before_any_move(side):
    # Their carrier four squares from our blitzer, nobody else near: the blitz is for the block.
    game = arranged_position(5, side, ours={0: (12, 5)}, theirs={0: (8, 5), 1: (1, 1)})
    give_ball_to_opponent(game, 0)
    advance(game, Action(ActionType.START_BLITZ, player=game.active_team.players[0]))
    priors = priors_by_key(game)
    blocks = [p for key, p in priors.items() if key[0] == "BLOCK"]
    moves = [p for key, p in priors.items() if key[0] == "MOVE"]
    assert blocks and moves and max(blocks) > max(moves)


def priors_as_seen(side, ours, theirs, ball, carrier, choose=board_choice):
    """The default's 11-player priors of an arrangement at the turn's start and one step into player
    1's move, keyed by action type, player (ours by index, theirs by 100 + index) and square as
    (ahead, y)."""
    game = mirror_ready(arranged_position(11, side, ours, theirs, ball=ball, carrier=carrier))
    team = game.active_team
    index = {p.player_id: i for i, p in enumerate(team.players)}
    index.update({p.player_id: 100 + i for i, p in enumerate(game.get_opp_team(team).players)})

    def seen(action):
        return action.action_type.name, action.player and index[action.player.player_id], as_seen(game, action.position)
    levels = []
    for step in (None, Action(ActionType.START_MOVE, player=team.players[1])):
        if step is not None:
            advance(game, step)
        actions = legal_actions(game)
        levels.append(dict(zip(map(seen, actions), np.round(knowledge_priors(game, actions, choose=choose), 9))))
    return levels


def test_the_priors_are_the_same_from_both_ends():
    # An arrangement as home and mirrored as away is one problem: the priors the search expands
    # with (the Bot Bowl board's knowledge, its ties settled in the team's own frame) must agree.
    # Before the own frame, botbowl's board order (the same for both teams) settled some ties.
    differ_before = 0
    for arrangement in mirror_arrangements(3, seed=11):
        assert priors_as_seen("home", *arrangement) == priors_as_seen("away", *arrangement)
        differ_before += (priors_as_seen("home", *arrangement, choose=BOARD_ORDER_CHOICE)
                          != priors_as_seen("away", *arrangement, choose=BOARD_ORDER_CHOICE))
    assert differ_before > 0
