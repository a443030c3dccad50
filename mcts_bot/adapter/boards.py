"""Which board a botbowl game is played on: the knowledge and the presets differ on the Bot Bowl board."""
from __future__ import annotations

import botbowl

BOT_BOWL_PLAYERS = 11  # players a side on the board Bot Bowl is played on


def on_bot_bowl_board(game: botbowl.Game, players: int = BOT_BOWL_PLAYERS) -> bool:
    """Whether `game` is played with `players` a side or more (by default the Bot Bowl board)."""
    return game.config.pitch_max >= players
