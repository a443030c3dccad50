"""The scripted policy (the sparring partner, and the knowledge the default search plays with: its
prior's first choice and its completions) plays what a coach expects, in hand-arranged positions,
as home and as away: score when the way is free, pick up a loose ball, no -2 dice blocks when
something safer is on offer, no END_TURN while a free touchdown or pick-up is there.

These test the knowledge, not the search (a search that ignored its values would pass them too,
playing its prior's first choice): `test_tactics.py` has positions only a search gets right."""
import pytest
from botbowl.core import ActionType
from botbowl.core.table import WeatherType

import mcts_bot
from conftest import arranged_position, give_ball_to_opponent, play_out_turn
from mcts_bot.knowledge import scripted

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


@pytest.mark.parametrize("side", SIDES)
def test_passes_over_a_screen_to_a_receiver_who_then_scores(side):
    # Our thrower (Pass skill) holds the ball behind a screen of five opponents across the whole width;
    # our catcher (Catch, MA 8) stands free seven squares from the endzone: a short pass, then its run.
    screen = {index: (10, y) for index, y in enumerate([2, 5, 8, 11, 14])}
    game = arranged_position(11, side, ours={2: (13, 8), 3: (7, 8)}, theirs=screen, carrier=2)
    game.state.weather = WeatherType.NICE  # in pouring rain (the away seed's) the catch is too hard to try
    team = game.active_team
    thrower, receiver = team.players[2], team.players[3]
    target = receiver.position
    chosen = play_out_turn(game, bot())
    assert [a.player for a in chosen if a.action_type == ActionType.START_PASS] == [thrower]
    assert any(a.action_type == ActionType.PASS and a.position == target for a in chosen)
    # it caught the ball and scored, or a roll failed it
    assert team.state.score == 1 or game.get_ball_carrier() is not receiver


@pytest.mark.parametrize("side", SIDES)
def test_no_pass_when_the_carrier_runs_in_itself(side):
    # The same catcher free ahead, but nobody between our carrier and the endzone: it runs.
    game = arranged_position(11, side, ours={2: (6, 8), 3: (3, 4)}, theirs={0: (20, 2), 1: (20, 14)}, carrier=2)
    chosen = play_out_turn(game, bot())
    assert not [a for a in chosen if a.action_type == ActionType.START_PASS]


def values_at(game, player, squares):
    board = scripted.Board(game, game.active_team, ())
    return [scripted.square_value(board, player, game.get_square(*xy)) for xy in squares]


def pitch_square(game, ahead, y):
    """(x, y) of the square `ahead` squares from the acting team's target endzone, as arranged_position counts."""
    endzone = game.get_opp_endzone_x(game.active_team)
    return (endzone + (1 if endzone == 1 else -1) * ahead, y)


@pytest.mark.parametrize("side", SIDES)
def test_on_defence_a_free_receiver_is_marked_and_one_player_stays_deep(side):
    # Their carrier 12 squares from our endzone (ahead 14 of ours), their receiver 4 squares nearer to
    # it and unmarked; our lineman (index 5) and a second one (index 6) free to place.
    game = arranged_position(11, side, ours={5: (10, 3), 6: (9, 14)}, theirs={0: (14, 8), 3: (18, 3)})
    carrier = give_ball_to_opponent(game, 0)
    lineman, other = game.active_team.players[5], game.active_team.players[6]
    beside = pitch_square(game, 17, 3)
    unmarked, = values_at(game, lineman, [beside])
    game.move(other, game.get_square(*pitch_square(game, 19, 4)))  # now the other one marks the receiver
    assert unmarked - values_at(game, lineman, [beside])[0] == pytest.approx(scripted.MARK_RECEIVER)
    # The deep safety: worth SAFETY while nobody else is there.
    deep = pitch_square(game, 21, carrier.position.y)
    alone = values_at(game, lineman, [deep])[0]
    game.move(other, game.get_square(*pitch_square(game, 22, 12)))
    assert alone - values_at(game, lineman, [deep])[0] == pytest.approx(scripted.SAFETY)


@pytest.mark.parametrize("side", SIDES)
def test_on_offence_a_catcher_goes_free_ahead_of_the_carrier(side):
    # Our thrower holds the ball 12 squares out; a square 5 ahead of it, free: a receiver's spot for
    # our catcher (index 3), not for a lineman (index 5).
    game = arranged_position(11, side, ours={2: (12, 8), 3: (12, 4), 5: (12, 12)}, theirs={0: (20, 2)}, carrier=2)
    team = game.active_team
    spot = pitch_square(game, 7, 6)
    catcher, = values_at(game, team.players[3], [spot])
    lineman, = values_at(game, team.players[5], [spot])
    assert catcher - lineman == pytest.approx(scripted.RECEIVER + scripted.RECEIVER_IN_RANGE)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("row", [1, 2])
def test_the_carrier_advances_off_the_sideline(side, row):
    # Our free carrier on the touchline (row 1) or a square in, teammates near, the opponents far:
    # it advances to a square at least two in from the touchline, where one push cannot trap it.
    game = arranged_position(11, side, ours={2: (16, row), 5: (14, 3), 6: (14, 6), 7: (13, 2)},
                             theirs={0: (3, 8), 1: (3, 12)}, carrier=2)
    carrier = game.active_team.players[2]
    board = scripted.Board(game, game.active_team, [ActionType.START_MOVE])
    plan = scripted._rule_advance_carrier(board, [carrier])
    assert plan is not None and plan.target.y >= 3
    assert board.to_endzone(plan.target) < board.to_endzone(carrier.position)
