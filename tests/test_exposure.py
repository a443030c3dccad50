"""How exposed a carrier is: marked, reached with no dice, only with dice, or out of reach, on
arranged 11-player positions whose answer is counted by hand."""
import pytest

from conftest import arranged_position
from mcts_bot.knowledge.exposure import DICE, EXPOSURES, MARKED, NONE, OPEN, exposure, exposure_grid

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
