"""Planning each decision's time from the clocks the game actually runs.

In competition mode botbowl gives the team whose turn it is a primary clock for the whole turn
(`time_limits.turn`, 120 s in Bot Bowl), and a team deciding in the opponent's turn a secondary
clock for that decision (`time_limits.secondary`). When a clock runs out, botbowl forces actions
that end the turn. botbowl keeps the clock running while it processes our actions, so a share of
the clock is held back for that.
"""
from __future__ import annotations

from typing import Optional

import botbowl
from botbowl.core.procedure import Setup

DECISIONS_PER_PLAYER = 3  # start an action, choose a target, possibly a follow-up choice
RESERVE_SHARE = 0.1  # of the clock's full length, kept for botbowl's own processing
RESERVE_SECONDS = 0.5
SECONDARY_SHARE = 0.5  # of what is left on a secondary clock
SECONDARY_RESERVE_SECONDS = 0.1


def expected_decisions_left(game: botbowl.Game, team: botbowl.Team) -> int:
    """A generous guess at how many more decisions the team's clock must cover, this one included."""
    if isinstance(game.get_procedure(), Setup):
        return 2  # a formation, then END_SETUP
    unused = sum(1 for p in team.players if p.position is not None and not p.state.used)
    return DECISIONS_PER_PLAYER * unused + 2


def time_for_decision(game: botbowl.Game, team: botbowl.Team) -> Optional[float]:
    """Seconds this decision may take by the game's clocks, or None when no clock limits it."""
    if not game.config.competition_mode:
        return None
    clock = game.get_clock(team)
    if clock is None:
        return None
    left = clock.get_seconds_left()
    if not clock.is_primary:
        return max(0.0, SECONDARY_SHARE * left - SECONDARY_RESERVE_SECONDS)
    reserve = RESERVE_SHARE * clock.seconds + RESERVE_SECONDS
    return max(0.0, (left - reserve) / expected_decisions_left(game, team))
