"""Leaf heuristics and action priors: ranges, symmetry between the teams, and the orderings they must give."""
import numpy as np
import pytest
from botbowl.core import ActionType

from conftest import action_key, advance_until, arranged_position, turn_position
from mcts_bot.adapter import actions
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.knowledge.heuristics import game_result, material_heuristic, progress_heuristic, threat_heuristic
from mcts_bot.knowledge.priors import action_priors, prior_order


def carrier_position(board, seed):
    """A copy of a position where the team to act holds the ball in its turn."""
    rng = np.random.RandomState(seed)
    game = private_copy(turn_position(board, seed), seed=0)

    def our_carrier(g):
        carrier = g.get_ball_carrier()
        return (carrier is not None and carrier.team == g.active_team and g.state.current_team == g.active_team
                and type(g.get_procedure()).__name__ == "Turn" and not g.state.game_over)
    return advance_until(game, our_carrier, rng, max_steps=5000)


@pytest.mark.parametrize("heuristic", [material_heuristic, progress_heuristic])
@pytest.mark.parametrize("board,seed", [(1, 0), (3, 1), (11, 2)])
def test_range_and_symmetry(heuristic, board, seed):
    game = turn_position(board, seed)
    home, away = game.state.home_team, game.state.away_team
    for _ in range(30):
        h, a = heuristic(game, home), heuristic(game, away)
        assert 0.0 <= h <= 1.0 and 0.0 <= a <= 1.0
        if heuristic is progress_heuristic:
            assert h + a == pytest.approx(1.0)
            assert 0.02 <= h <= 0.98  # not finished: strictly between a loss and a win
        actions.step(game, actions.legal_actions(game)[0])
        if game.state.game_over:
            break


def test_finished_game_is_worth_its_result():
    game = turn_position(1, seed=3)
    home, away = game.state.home_team, game.state.away_team
    game.state.game_over = True
    home.state.score, away.state.score = 2, 1
    assert progress_heuristic(game, home) == game_result(game, home) == 1.0
    assert progress_heuristic(game, away) == 0.0
    away.state.score = 2
    assert progress_heuristic(game, home) == 0.5


@pytest.mark.parametrize("board", [3, 11])
def test_ball_forward_is_better_and_a_touchdown_is_best(board):
    game = carrier_position(board, seed=4)
    team = game.active_team
    carrier = game.get_ball_carrier()
    endzone = game.get_opp_endzone_x(team)
    step = 1 if endzone > carrier.position.x else -1
    # Everyone else off the pitch, so that only the carrier's progress differs between the squares.
    for player in game.get_players_on_pitch():
        if player is not carrier:
            game.pitch_to_reserves(player)
    values = [progress_heuristic(game, team)]
    for x in range(carrier.position.x + step, endzone + step, step):
        game.move(carrier, game.get_square(x, carrier.position.y))
        values.append(progress_heuristic(game, team))
    assert values == sorted(values) and values[-1] > values[0]
    del values[-1]  # the endzone square itself: botbowl would score the touchdown there
    team.state.score += 1
    scored = progress_heuristic(game, team)
    team.state.score -= 1
    assert scored > max(values)


@pytest.mark.parametrize("board", [3, 11])
def test_priors_move_the_carrier_forward_first(board):
    game = carrier_position(board, seed=5)
    team = game.active_team
    carrier = game.get_ball_carrier()
    actions.step(game, next(a for a in actions.legal_actions(game)
                            if a.action_type == ActionType.START_MOVE and a.player == carrier))
    ordered = prior_order(game, actions.legal_actions(game), np.random.RandomState(0))
    first_move = next(a for a in ordered if a.action_type == ActionType.MOVE)
    before = game.get_distance_to_endzone(carrier)
    after = abs(game.get_opp_endzone_x(team) - first_move.position.x)
    assert after < before
    priors = action_priors(game, ordered)
    assert priors == sorted(priors, reverse=True)


def test_prior_order_breaks_ties_at_random():
    game = turn_position(3, seed=6)
    legal = actions.legal_actions(game)
    orders = {tuple(action_key(a) for a in prior_order(game, legal, np.random.RandomState(s))) for s in range(6)}
    assert len(orders) > 1
    assert all(sorted(order) == sorted(action_key(a) for a in legal) for order in orders)


def seed_heuristic(game, team):
    """The seed's formula, written out again from ../shared/seeds/000_* for comparison."""
    opp = game.get_opp_team(team)

    def side(t):
        down = [p for p in game.get_players_on_pitch(t, up=False)]
        stunned = len([p for p in down if p.state.stunned])
        carrier = game.get_ball_carrier()
        has_ball = 1 if carrier is not None and carrier.team == t else 0
        return (t.state.score / 10 + has_ball / 20 - (len(game.get_casualties(t)) + len(game.get_dungeon(t))) / 30
                - len(game.get_knocked_out(t)) / 50 - stunned / 100 - (len(down) - stunned) / 200)
    return 0.5 + side(team) - side(opp)


@pytest.mark.parametrize("board,seed", [(3, 7), (11, 8)])
def test_material_heuristic_is_the_seeds(board, seed):
    game = turn_position(board, seed)
    rng = np.random.RandomState(seed)
    for _ in range(200):
        if game.state.game_over:
            break
        for team in game.state.teams:
            expected = min(1.0, max(0.0, seed_heuristic(game, team)))
            assert material_heuristic(game, team) == pytest.approx(expected)
        actions.step(game, actions.legal_actions(game)[rng.randint(len(actions.legal_actions(game)))])


def _danger_by_botbowls_queries(game, carrier) -> float:
    """carrier_danger as first written, asking botbowl for every adjacency: the reference."""
    from mcts_bot.knowledge.heuristics import _KNOCK_DOWN, block_dice
    team, opp = carrier.team, game.get_opp_team(carrier.team)
    where = carrier.position
    movers = [p for p in opp.players if p.position is not None and not p.state.stunned]
    adjacent = [p for p in movers if p.state.up and p.position.distance(where) == 1]
    safe = 1.0
    for blocker in adjacent:
        guards = len(game.get_adjacent_players(where, team=team, down=False))
        safe *= 1.0 - _KNOCK_DOWN[block_dice(blocker.get_st() + len(adjacent) - 1, carrier.get_st() + guards)]
    best_blitz = 0.0
    for square in game.get_adjacent_squares(where, occupied=False):
        guards = len(game.get_adjacent_players(square, team=team, down=False)) - 1
        for blitzer in movers:
            if blitzer in adjacent:
                continue
            reach = blitzer.get_ma() + 2 - (0 if blitzer.state.up else 3)
            if blitzer.position.distance(square) <= reach:
                dice = block_dice(blitzer.get_st() + len(adjacent), carrier.get_st() + guards)
                best_blitz = max(best_blitz, _KNOCK_DOWN[dice] * 0.7 ** guards)
    return 1.0 - safe * (1.0 - best_blitz)


@pytest.mark.parametrize("board", [3, 5, 11])
def test_carrier_danger_equals_botbowls_adjacency(board):
    from mcts_bot.core.policies import random_rollout_policy
    from mcts_bot.knowledge.heuristics import carrier_danger
    game = private_copy(turn_position(board, seed=20 + board), seed=0)
    rng = np.random.RandomState(board)
    checked = 0
    for _ in range(600):
        if game.state.game_over:
            break
        carrier = game.get_ball_carrier()
        if carrier is not None:
            assert carrier_danger(game, carrier) == pytest.approx(_danger_by_botbowls_queries(game, carrier), abs=1e-12)
            checked += 1
        actions.step(game, random_rollout_policy(game, rng))
    assert checked > 20


@pytest.mark.parametrize("board,seed", [(1, 0), (3, 1), (5, 2), (11, 3)])
def test_threat_heuristic_is_a_probability_both_teams_agree_on(board, seed):
    game = turn_position(board, seed)
    home, away = game.state.home_team, game.state.away_team
    for _ in range(25):
        h, a = threat_heuristic(game, home), threat_heuristic(game, away)
        assert 0.0 < h < 1.0 and h + a == pytest.approx(1.0)
        actions.step(game, actions.legal_actions(game)[0])
        if game.state.game_over:
            break


def test_threat_heuristic_a_lead_counts_more_as_the_game_runs_out():
    game = arranged_position(3, "home", ours={0: (8, 2)}, theirs={0: (8, 4)}, ball=(6, 3))
    team = game.active_team
    level = threat_heuristic(game, team)
    team.state.score += 1
    early = threat_heuristic(game, team)
    team.state.turn = game.config.rounds  # the last turn of the first half
    game.state.half = 2
    late = threat_heuristic(game, team)
    assert level < early < late
    game.state.game_over = True
    assert threat_heuristic(game, team) == game_result(game, team) == 1.0


@pytest.mark.parametrize("side", ["home", "away"])
def test_threat_heuristic_a_caged_carrier_is_safer_than_a_surrounded_one(side):
    # Our carrier six squares out on the big board; three team-mates around it and the opponents out of blitz range,
    # or three opponents beside it.
    caged = arranged_position(11, side, ours={0: (6, 7), 1: (7, 6), 2: (7, 8), 3: (5, 7)},
                              theirs={0: (20, 5), 1: (20, 7), 2: (20, 9)}, carrier=0)
    marked = arranged_position(11, side, ours={0: (6, 7), 1: (20, 5), 2: (20, 7), 3: (20, 9)},
                               theirs={0: (7, 6), 1: (7, 8), 2: (5, 7)}, carrier=0)
    # The heuristic reads the board as if our turn ended now: the opponents move next.
    values = [threat_heuristic(game, game.active_team) for game in (caged, marked)]
    assert values[0] > values[1] + 0.1


def test_threat_heuristic_players_lost_cost():
    game = arranged_position(5, "home", ours={0: (8, 2), 1: (8, 4)}, theirs={0: (12, 2), 1: (12, 4)}, ball=(10, 3))
    team = game.active_team
    full = threat_heuristic(game, team)
    game.pitch_to_casualties(team.players[1])
    assert threat_heuristic(game, team) < full
