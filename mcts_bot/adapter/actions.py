"""Which actions the search considers, and the one rule for stepping them.

botbowl offers actions as `ActionChoice`s (a type with lists of players and/or positions). The tree
needs concrete `Action`s: one per (type, player), per (type, position), or the bare type.

Left out of the tree:
- `PLACE_PLAYER`: hand placement of single players; the formation actions (`SETUP_*`) cover set-up.
- `END_SETUP`: it follows a formation action at once (see `step`), so it is never a choice of its own.
- `UNDO`: botbowl offers it only to human agents, never to a bot.
- with `prune_dominated` (a preset switch), actions another one offered does better or as well: a
  `START_BLITZ` of a player no standing opponent is within reach of (its moves left, the rushes and
  the block's square), when `START_MOVE` is offered to the same player. Such a blitz can only move,
  as the move does, and it spends the turn's one blitz.
- with `prune_openings` (a preset switch, for states below the search's root), what ends a blitz,
  pass, hand-off or foul at its first step without its block, throw, hand-off or foul: its
  `END_PLAYER_TURN`, and (with `end_moves`, where a move ends the player's action) each `MOVE` but
  the one onto the loose ball. The action then ends having done what the player's `START_MOVE`,
  offered in the same state as its start, does, and spends the turn's one action of its kind. At
  the root the action is already declared in the real game, and ending it or moving is a choice
  like any other.
"""
from __future__ import annotations

from typing import List, Optional

import botbowl
from botbowl.core import Action, ActionType, PlayerActionType
from botbowl.core.table import BBDieResult

EXCLUDED_TYPES = frozenset({ActionType.PLACE_PLAYER, ActionType.END_SETUP, ActionType.UNDO})
FORMATION_TYPES = frozenset(t for t in ActionType if t.name.startswith("SETUP_FORMATION_"))


def is_formation(action: Action) -> bool:
    """True for the built-in formation actions (`SETUP_FORMATION_*`)."""
    return action.action_type in FORMATION_TYPES


def legal_actions(game: botbowl.Game, prune_dominated: bool = False, prune_openings: bool = False,
                  end_moves: bool = False) -> List[Action]:
    """The concrete actions the search may choose in the game's current state, in botbowl's order
    (without the dominated ones, see the module doc, when `prune_dominated` and `prune_openings`;
    `end_moves` is `follow_up`'s switch)."""
    actions = []
    for choice in game.get_available_actions():
        if choice.action_type in EXCLUDED_TYPES:
            continue
        if choice.players:
            actions.extend(Action(choice.action_type, player=player) for player in choice.players)
        elif choice.positions:
            actions.extend(Action(choice.action_type, position=position) for position in choice.positions)
        else:
            actions.append(Action(choice.action_type))
    if prune_dominated:
        idle = idle_blitzes(game, actions)
        if idle:
            actions = [a for a in actions if not (a.action_type == ActionType.START_BLITZ and a.player in idle)]
    if prune_openings:
        actions = unspent_opening(game, actions, end_moves)
    return actions


# The player actions a team may take once a turn.
_ONCE_A_TURN = frozenset({PlayerActionType.BLITZ, PlayerActionType.PASS, PlayerActionType.HANDOFF,
                          PlayerActionType.FOUL})


def unspent_opening(game: botbowl.Game, actions: List[Action], end_moves: bool) -> List[Action]:
    """`actions` less, at the first step of a once-a-turn action (the player has neither moved nor
    blocked), those that end it having done nothing of its kind: `END_PLAYER_TURN`, and with
    `end_moves` every `MOVE` but the one onto the loose ball (in a blitz, hand-off or foul a move
    ends the action unless it picks the ball up, see `follow_up`; a pass goes on after a move).
    All of `actions` when nothing else would be left, or elsewhere."""
    player = game.state.active_player
    kind = game.state.player_action_type
    if kind not in _ONCE_A_TURN or player is None or player.state.moves or player.state.has_blocked:
        return actions
    ball = game.get_ball()
    loose = ball.position if ball is not None and ball.on_ground and not ball.is_carried else None
    moves_end = end_moves and kind in _ENDED_BY_A_MOVE
    kept = [a for a in actions if a.action_type != ActionType.END_PLAYER_TURN and not (
        moves_end and a.action_type == ActionType.MOVE and a.position != loose)]
    return kept or actions


def idle_blitzes(game: botbowl.Game, actions: List[Action]) -> List[botbowl.Player]:
    """The players among `actions`' `START_BLITZ`es who could not block anyone in a blitz, while
    `actions` offer them `START_MOVE`: no standing opponent is within their moves left and rushes
    plus one square (the Chebyshev distance is the fewest squares a path can take, so none is missed)."""
    movers = [a.player for a in actions if a.action_type == ActionType.START_MOVE and a.player is not None]
    blitzers = [a.player for a in actions if a.action_type == ActionType.START_BLITZ and a.player in movers]
    if not blitzers or game.active_team is None:
        return []
    opponents = [p.position for p in game.get_players_on_pitch(game.get_opp_team(game.active_team), up=True)]
    return [player for player in blitzers if player.position is not None
            and not any(player.position.distance(square) <= player.num_moves_left(include_gfi=True) + 1
                        for square in opponents)]


def follow_up(game: botbowl.Game, action: Action, end_moves: bool = False,
              carried_before: bool = False) -> Optional[Action]:
    """The action that follows `action` at once, if any; the single home of these rules (the
    search, the rollouts and the agent's play all ask here):

    - `END_SETUP` after a formation, once botbowl accepts the set-up;
    - with `end_moves`, `END_PLAYER_TURN` after a MOVE, so that a move is one decision, not two.
      With pathfinding a MOVE walks the whole path, and a block, hand-off or foul at the end of a
      path is an action of its own (BLOCK, HANDOFF, FOUL), so moving again only wanders. Not after
      a pick-up (`carried_before`: whether the player held the ball before the MOVE; a player who
      now holds it and did not picked it up, and may run on with it), and not in a pass action
      (the thrower moves, then throws).
    """
    if game.state.game_over:
        return None
    if is_formation(action):
        if not any(choice.action_type == ActionType.END_SETUP for choice in game.state.available_actions):
            return None
        team = game.active_team
        if team is None or not game.is_setup_legal(team):
            return None
        return Action(ActionType.END_SETUP)
    if end_moves and action.action_type == ActionType.MOVE and game.state.player_action_type in _ENDED_BY_A_MOVE:
        player = game.state.active_player
        if player is None or player.position is None or (player == game.get_ball_carrier() and not carried_before):
            return None
        if any(choice.action_type == ActionType.END_PLAYER_TURN for choice in game.state.available_actions):
            return Action(ActionType.END_PLAYER_TURN)
    return None


_ENDED_BY_A_MOVE = frozenset({PlayerActionType.MOVE, PlayerActionType.BLITZ, PlayerActionType.HANDOFF,
                              PlayerActionType.FOUL})


def holds_ball(game: botbowl.Game) -> bool:
    """Whether the active player (the one whose action goes on) holds the ball."""
    player = game.state.active_player
    return player is not None and player == game.get_ball_carrier()


def localize(game: botbowl.Game, action: Action) -> Action:
    """Point `action` (in place) at `game`'s own player and square objects, as `Game.step` does:
    a tree's actions may come from another copy of the game (tree reuse)."""
    if action.player is not None:
        action.player = game.get_player(action.player.player_id)
    if action.position is not None:
        action.position = game.get_square(action.position.x, action.position.y)
    return action


def advance(game: botbowl.Game, action: Action) -> None:
    """Apply `action`, then run botbowl's procedures until someone must choose or the game is over.

    This is `Game.step` in fast mode, except that it never asks the game's agents for actions: the
    search's copy keeps bot (non-human) agents, because botbowl offers bots and humans different
    choices (a human gets UNDO, and a block re-roll together with the block dice; a bot does not),
    and the search must see the choices the real game offers the bot.
    """
    game.action = localize(game, action)
    while not game._one_step(game.action) and not game.state.game_over:
        game.action = None  # the procedure continues without input


def step(game: botbowl.Game, action: Action, end_moves: bool = False) -> None:
    """Advance `game` by `action`, then by its follow-up if it has one (see `follow_up`)."""
    carried_before = end_moves and holds_ball(game)
    advance(game, action)
    then = follow_up(game, action, end_moves, carried_before)
    if then is not None:
        advance(game, then)


def is_available(game: botbowl.Game, action: Action) -> bool:
    """Whether botbowl would accept `action` now (same test as botbowl's own `_is_action_allowed`)."""
    for choice in game.state.available_actions:
        if choice.action_type != action.action_type:
            continue
        if choice.players and len(choice.players) > 1 and action.player not in choice.players:
            return False
        if choice.positions and action.position not in choice.positions:
            # botbowl fills in the position from the player when only a player was given
            if not (action.position is None and action.player is not None and not choice.players
                    and action.player.position in choice.positions):
                return False
        return True
    return False


def same_action(a: Action, b: Action) -> bool:
    """Equal type, player (by id) and square (by coordinates)."""
    if a.action_type != b.action_type:
        return False
    if (a.player is None) != (b.player is None) or (a.player is not None and a.player.player_id != b.player.player_id):
        return False
    if (a.position is None) != (b.position is None):
        return False
    return a.position is None or (a.position.x == b.position.x and a.position.y == b.position.y)


def block_dice(game: botbowl.Game, action: Action) -> Optional[int]:
    """The dice of the block `action` (a `BLOCK` at a square) would make, as botbowl counts them
    (negative: the defender chooses): what botbowl offers with it (a blitz's path ends beside the
    defender), else those of the active player standing beside him; None for no such block."""
    for choice in game.state.available_actions:
        if choice.action_type == action.action_type and choice.block_dice:
            for square, dice in zip(choice.positions, choice.block_dice):
                if square == action.position:
                    return dice
    attacker = game.state.active_player
    defender = game.get_player_at(action.position) if action.position is not None else None
    if attacker is None or attacker.position is None or defender is None \
            or attacker.position.distance(defender.position) != 1:
        return None
    return game.num_block_dice(attacker, defender)


# The block die each of botbowl's die choices selects.
SELECT_DIE = {
    ActionType.SELECT_ATTACKER_DOWN: BBDieResult.ATTACKER_DOWN, ActionType.SELECT_BOTH_DOWN: BBDieResult.BOTH_DOWN,
    ActionType.SELECT_PUSH: BBDieResult.PUSH, ActionType.SELECT_DEFENDER_STUMBLES: BBDieResult.DEFENDER_STUMBLES,
    ActionType.SELECT_DEFENDER_DOWN: BBDieResult.DEFENDER_DOWN,
}

# The order botbowl itself uses when a clock runs out: what ends the turn or the decision soonest.
_SAFE_ORDER = (ActionType.END_TURN, ActionType.END_PLAYER_TURN, ActionType.SELECT_NONE, ActionType.HEADS,
               ActionType.KICK, ActionType.SELECT_DEFENDER_DOWN, ActionType.SELECT_DEFENDER_STUMBLES,
               ActionType.SELECT_PUSH, ActionType.SELECT_BOTH_DOWN, ActionType.SELECT_ATTACKER_DOWN,
               ActionType.DONT_USE_REROLL, ActionType.DONT_USE_APOTHECARY)


def safe_action(game: botbowl.Game) -> Action:
    """A legal action that needs no search, for when searching is impossible or failed.

    A formation during set-up (followed by END_SETUP), else an action that ends the turn or the
    decision soonest, else the first legal action. Raises only if botbowl offers no action at all.
    """
    choices = [c for c in game.state.available_actions
               if c.action_type not in (ActionType.PLACE_PLAYER, ActionType.UNDO)]
    types = {c.action_type for c in choices}
    if ActionType.END_SETUP in types and game.active_team is not None and game.is_setup_legal(game.active_team):
        return Action(ActionType.END_SETUP)
    for formation in sorted(types & FORMATION_TYPES, key=lambda t: t.value):
        return Action(formation)
    for action_type in _SAFE_ORDER:
        if action_type in types:
            return Action(action_type)
    for choice in choices or game.state.available_actions:
        player = choice.players[0] if choice.players else None
        position = choice.positions[0] if choice.positions else None
        return Action(choice.action_type, position=position, player=player)
    raise ValueError("botbowl offers no action in this state")
