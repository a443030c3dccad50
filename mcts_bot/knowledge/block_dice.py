"""Block dice counted on a map of who stands where, made once per decision.

botbowl's `Game.num_block_dice_at` lists each square's neighbours afresh for every assist it
checks; the rule-based planners ask it for every blitzer, target and square they consider, and in
an 11-player game of `grod` that came to over a third of its time. `BlockDice.at` gives the same
number by the same rules (`tests/test_grod.py` compares them on every pair and square of random
positions, Guard, Horns and players who cannot assist included), for one state of the game: a
planner makes a new one for each decision.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import botbowl
from botbowl.core import Skill

from mcts_bot.knowledge.heuristics import block_dice

_AROUND = tuple((dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)


class BlockDice:
    """botbowl's block dice (without Dauntless) for the game's state when it was made."""

    def __init__(self, game: botbowl.Game):
        self._standing: Dict[Tuple[int, int], botbowl.Player] = {
            (p.position.x, p.position.y): p for team in (game.state.home_team, game.state.away_team)
            for p in team.players if p.position is not None and p.state.up}
        self._beside: Dict[Tuple[int, int, str], List[botbowl.Player]] = {}

    def at(self, attacker: botbowl.Player, defender: botbowl.Player, square: botbowl.Square,
           blitz: bool = False) -> int:
        """`Game.num_block_dice_at(attacker, defender, square, blitz)`: 3, 2 or 1 die for the attacker,
        -2 or -3 for the defender."""
        st_for, st_against = attacker.get_st(), defender.get_st()
        if blitz and attacker.has_skill(Skill.HORNS):
            st_for += 1
        return block_dice(st_for + self._assists_for(attacker, defender),
                          st_against + self._assists_against(attacker, defender, square))

    def _standing_beside(self, square: botbowl.Square, team: botbowl.Team) -> List[botbowl.Player]:
        """`team`'s players standing on the squares next to `square`."""
        key = (square.x, square.y, team.team_id)
        found = self._beside.get(key)
        if found is None:
            x, y, standing = square.x, square.y, self._standing
            found = self._beside[key] = [p for dx, dy in _AROUND if (p := standing.get((x + dx, y + dy))) is not None
                                         and p.team is team]
        return found

    def _assists_for(self, attacker: botbowl.Player, defender: botbowl.Player) -> int:
        """botbowl's `num_assists_at` for the attack: the attacker's teammates beside the defender; a
        Guard counts, another who can assist unless a player of the defender's side (not the
        defender) who can assist stands beside him."""
        count = 0
        for helper in self._standing_beside(defender.position, attacker.team):
            if helper is attacker:
                continue
            if helper.has_skill(Skill.GUARD):
                count += 1
            elif helper.can_assist():
                count += not any(mark is not defender and mark.can_assist()
                                 for mark in self._standing_beside(helper.position, defender.team))
        return count

    def _assists_against(self, attacker: botbowl.Player, defender: botbowl.Player, square: botbowl.Square) -> int:
        """botbowl's `num_assists_at` for the defence, the attacker blocking from `square`: the
        defender's teammates beside that square who can assist; a Guard counts, another unless a
        player of the attacker's side who can assist marks him from elsewhere than `square` or the
        attacker's own square (botbowl's rule: the attacker may have moved there)."""
        count = 0
        for helper in self._standing_beside(square, defender.team):
            if helper is defender or not helper.can_assist():
                continue
            if helper.has_skill(Skill.GUARD):
                count += 1
            else:
                count += not any(mark.position != square and mark.position != attacker.position and mark.can_assist()
                                 for mark in self._standing_beside(helper.position, attacker.team))
        return count
