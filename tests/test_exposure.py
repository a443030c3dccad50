"""How exposed a carrier is: marked, reached with no dice, only with dice, or out of reach, on
arranged 11-player positions whose answer is counted by hand."""
import numpy as np
import pytest

from conftest import arranged_position
from mcts_bot.harness.games import random_position
from mcts_bot.knowledge.exposure import (DICE, EXPOSURES, GFIS, MARKED, NONE, OPEN, STAND_UP, _spread, exposure,
                                         exposure_grid, reach)
from mcts_bot.knowledge.exposure import around as exposure_around

CAGE = {1: (5, 6), 2: (7, 6), 5: (5, 8), 6: (7, 8)}  # the four corners around a carrier on (6, 7)


@pytest.mark.parametrize("ours,theirs,down,expected", [
    ({}, {0: (7, 7)}, False, "exposed_marked"),             # beside him, standing
    ({}, {0: (7, 7)}, True, "exposed_open"),                # beside him, down: stands up and blocks
    ({}, {0: (13, 7)}, False, "exposed_open"),              # a blitzer (MA 7) walks 6 squares to him
    ({}, {5: (14, 7)}, False, "exposed_dice"),              # a lineman (MA 6) needs a GFI for 7
    (CAGE, {0: (13, 7)}, False, "exposed_dice"),            # the cage: the last step leaves a tackle zone
    (CAGE, {0: (20, 7)}, False, "exposed_none"),            # 13 squares: beyond MA 7 + 2
    ({7: (9, 7)}, {0: (10, 7)}, False, "exposed_dice"),     # marked himself: leaving takes a dodge
])
@pytest.mark.parametrize("side", ["home", "away"])
def test_exposure_says_how_the_opponents_could_get_at_the_carrier(ours, theirs, down, expected, side):
    game = arranged_position(11, side, ours={0: (6, 7), **ours}, theirs=theirs, carrier=0)
    if down:
        game.get_opp_team(game.active_team).players[0].state.up = False
    assert exposure(game, game.active_team.players[0]) == expected


@pytest.mark.parametrize("blitzer,shipped,rules", [
    ((13, 7), "exposed_open", "exposed_open"),   # 6 squares to his side, the block the 7th of MA 7
    ((14, 7), "exposed_open", "exposed_dice"),   # 7 squares: the block takes a go-for-it
    ((15, 7), "exposed_dice", "exposed_dice"),   # 8 squares: two go-for-its with the block
    ((16, 7), "exposed_dice", "exposed_none"),   # 9 squares: no blitz at all (MA 7 + 2 with the block)
])
def test_the_blitzs_block_costs_a_square_by_the_rules_not_in_the_shipped_knowledge(blitzer, shipped, rules,
                                                                                   monkeypatch):
    from mcts_bot.knowledge import exposure as exposure_module
    game = arranged_position(11, "home", ours={0: (6, 7)}, theirs={0: blitzer}, carrier=0)
    carrier = game.active_team.players[0]
    assert exposure_module.BLITZ_BLOCK_COST == 0 and exposure(game, carrier) == shipped
    monkeypatch.setattr(exposure_module, "BLITZ_BLOCK_COST", 1)
    assert exposure(game, carrier) == rules


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_grid_judges_each_square_as_if_the_carrier_moved_there(side):
    # A cage around (6, 7); the carrier still stands at (10, 7), in the way of nobody once he moves.
    ours = {0: (10, 7), **CAGE}
    game = arranged_position(11, side, ours=ours, theirs={0: (13, 7)}, carrier=0)
    team = game.active_team
    grid = exposure_grid(game, team, team.players[0])
    endzone, step = game.get_opp_endzone_x(team), (1 if game.get_opp_endzone_x(team) == 1 else -1)

    def at(ahead, y):
        return EXPOSURES[grid[y, endzone + step * ahead]]

    assert at(6, 7) == "exposed_dice"  # in the cage: the blitzer must dodge in
    assert at(12, 7) == "exposed_marked"  # beside the blitzer
    assert at(10, 7) == "exposed_open"  # the carrier's own square, with him gone: the blitzer walks up
    assert at(6, 3) == "exposed_open"  # above the cage's tackle zones: a walk of 6 to (7, 4)
    assert at(22, 7) == "exposed_dice"  # 8 squares to (21, 7): MA 7 and a GFI
    assert at(24, 7) == "exposed_none"  # 10 squares: beyond MA + 2
    assert (MARKED, OPEN, DICE, NONE) == (0, 1, 2, 3)


def walked(start, steps, open_, stops):
    """One walker's squares by a plain breadth-first search: the reference for `_spread`."""
    height, width = open_.shape
    reached, frontier = {start}, [start]
    for _ in range(steps):
        following = []
        for x, y in frontier:
            if stops is not None and stops[y, x]:
                continue
            for nx in (x - 1, x, x + 1):
                for ny in (y - 1, y, y + 1):
                    if 0 <= nx < width and 0 <= ny < height and open_[ny, nx] and (nx, ny) not in reached:
                        reached.add((nx, ny))
                        following.append((nx, ny))
        frontier = following
    return reached


@pytest.mark.parametrize("seed", range(6))
def test_one_search_for_all_walkers_reaches_what_each_walk_reaches(seed):
    # Random pitches of 28 x 17 with walkers of different steps, some starting inside the stops.
    rng = np.random.RandomState(seed)
    open_ = rng.rand(17, 28) > 0.15
    open_[[0, -1], :] = open_[:, [0, -1]] = False
    stops = rng.rand(17, 28) > 0.7
    starts = [(int(rng.randint(0, 10)), (int(rng.randint(1, 27)), int(rng.randint(1, 16)))) for _ in range(11)]
    for start_stops in (None, stops):
        expected = np.zeros_like(open_)
        for steps, square in starts:
            for x, y in walked(square, steps, open_, start_stops):
                expected[y, x] = True
        assert (_spread(starts, open_, start_stops) == expected).all()


@pytest.mark.parametrize("steps", [60, 160, 260])
def test_reach_on_played_positions_matches_each_opponents_own_walk(steps):
    game = random_position(11, seed=steps, steps=steps)
    for team in (game.state.home_team, game.state.away_team):
        carrier = next(iter(game.get_players_on_pitch(team)), None)
        free, dice, marks = reach(game, team, carrier)
        board = game.state.pitch.board
        open_ = np.array([[square is None or square is carrier for square in row] for row in board], dtype=bool)
        open_[[0, -1], :] = open_[:, [0, -1]] = False
        zones = np.zeros_like(open_)
        for player in game.get_players_on_pitch(team):
            if player is not carrier and player.has_tackle_zone():
                for x, y in ((player.position.x + dx, player.position.y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)):
                    zones[y, x] = True
        want_free, want_dice = np.zeros_like(open_), np.zeros_like(open_)
        for player in game.get_players_on_pitch(game.get_opp_team(team)):
            if player.state.stunned:
                continue
            start = (player.position.x, player.position.y)
            moves = player.get_ma() - (0 if player.state.up else STAND_UP)
            for x, y in walked(start, moves, open_, zones) if moves >= 0 else ():
                want_free[y, x] = True
            for x, y in walked(start, max(moves, 0) + GFIS, open_, None):
                want_dice[y, x] = True
        assert (free == want_free).all() and (dice == want_dice).all()
        assert marks.sum() == sum(p.has_tackle_zone() and not p.state.stunned
                                  for p in game.get_players_on_pitch(game.get_opp_team(team)))


@pytest.mark.parametrize("side", ["home", "away"])
def test_reach_with_a_teammate_moved_opens_and_closes_the_way(side):
    # The cage's corners leave the blitzer 6 squares away only a last step out of a tackle zone.
    game = arranged_position(11, side, ours={0: (6, 7), **CAGE}, theirs={0: (13, 7)}, carrier=0)
    team = game.active_team
    carrier, corner = team.players[0], team.players[6]  # a corner on the blitzer's side
    stands = corner.position

    def free_at_carrier(moved=None):
        return bool(exposure_around(reach(game, team, carrier, moved=moved)[0])[carrier.position.y, carrier.position.x])

    assert not free_at_carrier()
    assert free_at_carrier(moved=(corner, None))  # taken off: that corner's way in opens
    assert not free_at_carrier(moved=(corner, stands))  # left where he stands
    assert corner.position == stands  # the game itself untouched
