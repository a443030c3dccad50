"""The chance the ball arrives: a pass or a hand-off to a teammate, read off the state with botbowl's
own modifiers (the scripted policy plans with it, the priors weigh with it)."""
from __future__ import annotations

from typing import Optional

import botbowl
from botbowl.core import Skill
from botbowl.core.table import PassDistance, Rules, WeatherType

THROWABLE = (PassDistance.QUICK_PASS, PassDistance.SHORT_PASS, PassDistance.LONG_PASS)  # not a long bomb
BLIZZARD_THROWABLE = (PassDistance.QUICK_PASS, PassDistance.SHORT_PASS)  # all botbowl offers in a blizzard


def pass_success(game: botbowl.Game, passer: botbowl.Player, receiver: botbowl.Player,
                 origin: Optional[botbowl.Square] = None) -> float:
    """The chance a pass from `origin` (default: where the passer stands) is caught by `receiver`:
    an accurate throw (botbowl's pass roll, the Pass skill or a team re-roll), no interception, the catch."""
    origin = passer.position if origin is None else origin
    distance = game.get_pass_distance(origin, receiver.position)
    if distance not in (BLIZZARD_THROWABLE if game.state.weather == WeatherType.BLIZZARD else THROWABLE):
        return 0.0
    modifiers = game.get_pass_modifiers(passer, pass_distance=distance)
    accurate = (7 - max(2, min(6, Rules.agility_table[passer.get_ag()] - modifiers))) / 6.0
    if passer.has_skill(Skill.PASS) or game.can_use_reroll(passer.team):
        accurate += (1.0 - accurate) * accurate
    intercepted = max((game.get_catch_prob(p, interception=True)
                       for p in game.get_interceptors(origin, receiver.position, game.get_opp_team(passer.team))),
                      default=0.0)
    return accurate * (1.0 - intercepted) * game.get_catch_prob(receiver, accurate=True,
                                                               allow_team_reroll=game.can_use_reroll(passer.team))


def handoff_success(game: botbowl.Game, receiver: botbowl.Player) -> float:
    """The chance `receiver` catches a hand-off (a team re-roll if there is one)."""
    return game.get_catch_prob(receiver, handoff=True, allow_team_reroll=game.can_use_reroll(receiver.team))
