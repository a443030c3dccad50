"""The one-pass tackle-zone map answers as botbowl's own count does."""
import pytest

from mcts_bot.harness.games import random_position
from mcts_bot.knowledge.tackle_zones import TackleZones


@pytest.mark.parametrize("board", [1, 3, 5, 11])
def test_tackle_zones_equal_botbowls_count_on_every_square(board):
    zoned = 0
    for steps in (40, 80, 120, 160, 200):  # states of a random game, with players up, down and stunned
        game = random_position(board, seed=board, steps=steps)
        for team in (game.state.home_team, game.state.away_team):
            player = team.players[0]
            zones = TackleZones(game, team)
            for y in range(game.arena.height):
                for x in range(game.arena.width):
                    square = game.get_square(x, y)
                    assert zones.at(square) == game.num_tackle_zones_at(player, square), (steps, x, y)
                    zoned += zones.at(square) > 0
    assert zoned > 0
