"""The scripted policy (the sparring partner, and the knowledge the default search plays with: its
prior's first choice and its completions) plays what a coach expects, in hand-arranged positions,
as home and as away: score when the way is free, pick up a loose ball, no -2 dice blocks when
something safer is on offer, no END_TURN while a free touchdown or pick-up is there.

These test the knowledge, not the search (a search that ignored its values would pass them too,
playing its prior's first choice): `test_tactics.py` has positions only a search gets right."""
import pytest
from botbowl.core import ActionType

import mcts_bot
from conftest import arranged_position, play_out_turn

SIDES = ["home", "away"]


def bot(seed=0):
    return mcts_bot.ScriptedBot(seed=seed)


def free_touchdown(side):
    # 3-player board: our carrier three squares from the endzone, the opponents far behind it.
    return arranged_position(3, side, ours={0: (3, 2), 1: (6, 4)}, theirs={0: (10, 1), 1: (10, 5)}, carrier=0)


def free_ball(side):
    # A loose ball beside our free player; the opponents far away.
    return arranged_position(3, side, ours={0: (6, 3), 1: (7, 1)}, theirs={0: (11, 1), 1: (11, 5)}, ball=(5, 3))


@pytest.mark.parametrize("side", SIDES)
def test_carrier_with_a_safe_path_scores(side):
    game = free_touchdown(side)
    team = game.active_team
    before = team.state.score
    play_out_turn(game, bot())
    assert team.state.score == before + 1


@pytest.mark.parametrize("side", SIDES)
def test_loose_ball_next_to_a_free_player_is_picked_up(side):
    game = free_ball(side)
    team = game.active_team
    ball = game.get_ball_position()
    chosen = play_out_turn(game, bot())
    assert any(a.action_type == ActionType.MOVE and a.position == ball for a in chosen), "nobody went for the ball"
    carrier = game.get_ball_carrier()
    # it holds the ball, or ran on and scored with it, or the dice failed it even with a re-roll
    assert (carrier is not None and carrier.team == team) or team.state.score == 1 or \
        any(a.action_type == ActionType.USE_REROLL for a in chosen), "the pick-up failed without the re-roll"


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("seed", [0, 1])
def test_no_minus_two_dice_block_when_safer_actions_exist(side, seed):
    # Our lineman (ST 3, roster index 3) stands among three ST 3 opponents: any block it throws is
    # at -2 dice. Our other players are free to move: there is plenty to do that risks nothing.
    game = arranged_position(3, side, ours={3: (6, 3), 0: (9, 1), 1: (9, 5)},
                             theirs={0: (5, 3), 1: (5, 2), 3: (5, 4)}, ball=(10, 3), seed=seed)
    lineman = game.active_team.players[3]
    blocks = []

    class Watch(mcts_bot.ScriptedBot):
        def act(self, g):
            action = super().act(g)
            if action.action_type == ActionType.BLOCK:
                blocks.append(g.num_block_dice(g.state.active_player, g.get_player_at(action.position)))
            return action

    play_out_turn(game, Watch(seed=seed))
    assert game.num_block_dice(lineman, game.get_opp_team(lineman.team).players[0]) == -2  # the setting holds
    assert all(dice > -2 for dice in blocks), f"blocks thrown at {blocks} dice"


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("arrange", [free_touchdown, free_ball])
def test_no_end_turn_while_a_free_score_or_pick_up_exists(side, arrange):
    game = arrange(side)
    team = game.active_team
    carrier_before = game.get_ball_carrier()
    chosen = play_out_turn(game, bot(seed=1))
    if ActionType.END_TURN in [a.action_type for a in chosen]:
        # only once the touchdown or the pick-up was tried
        first_end = [a.action_type for a in chosen].index(ActionType.END_TURN)
        tried = [a for a in chosen[:first_end] if a.action_type == ActionType.MOVE]
        assert tried, "ended the turn without trying the free touchdown or pick-up"
    if carrier_before is not None:
        assert team.state.score >= 1


def test_scripted_setup_ends_when_nobody_can_be_placed():
    # On the 1-player board a knocked-out player leaves nobody to set up: the formation would
    # change nothing and the scripted bot played it forever (found by the data collection).
    import numpy as np

    from conftest import setup_position
    from mcts_bot.knowledge.scripted import scripted_action
    game = setup_position(1, seed=3)
    team = game.active_team
    dugout = game.get_dugout(team)
    for player in list(game.get_players_on_pitch(team)):
        game.pitch_to_kod(player)
    for player in list(dugout.reserves):
        dugout.reserves.remove(player)
        dugout.kod.append(player)
    assert not game.get_players_on_pitch(team) and not game.get_reserves(team)
    assert scripted_action(game, np.random.RandomState(0)).action_type == ActionType.END_SETUP
