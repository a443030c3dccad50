"""Actions the knowledge forbids the search: an action filter (`Preset.action_filter`) takes a state's
legal actions and returns those the search may choose among.

`without_unworthy_blocks` holds the search to `grod.worth_blocking`: no block at one die or dice
against unless it is on their carrier, frees our carrier (one die on a player beside him), or comes
in the half's last turn. The knowledge alone never makes such a block; the search made them (5 in
10 games against `grod` at 1 s; its one-die blocks knocked its blocker down 29% of the time against
the knowledge's 18%: docs/bot-bowl-board.md).
"""
from __future__ import annotations

from typing import List

import botbowl
from botbowl.core import Action, ActionType

from mcts_bot.adapter.actions import block_dice
from mcts_bot.knowledge.grod import worth_blocking


def all_actions(game: botbowl.Game, actions: List[Action]) -> List[Action]:
    """No filter: every legal action."""
    return actions


def without_unworthy_blocks(game: botbowl.Game, actions: List[Action]) -> List[Action]:
    """`actions` less the blocks `worth_blocking` forbids: each such `BLOCK`, and the `START_BLOCK` of
    a player who could make no other. All of `actions` when nothing else would be left."""
    attacker = game.state.active_player
    kept = []
    for action in actions:
        if action.action_type == ActionType.BLOCK and attacker is not None:
            defender = game.get_player_at(action.position) if action.position is not None else None
            dice = block_dice(game, action)
            if defender is not None and dice is not None and not worth_blocking(game, attacker, defender, dice):
                continue
        elif action.action_type == ActionType.START_BLOCK and action.player is not None \
                and action.player.position is not None and not _can_block_worthily(game, action.player):
            continue
        kept.append(action)
    return kept or actions


def _can_block_worthily(game: botbowl.Game, player: botbowl.Player) -> bool:
    opponents = game.get_adjacent_players(player.position, team=game.get_opp_team(player.team), down=False)
    return not opponents or any(worth_blocking(game, player, defender, game.num_block_dice(player, defender))
                                for defender in opponents)
