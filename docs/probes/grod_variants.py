"""`grod` with one idea changed, as bots of one's own for `--bots FILE.py:CLASS` (docs/bot-bowl-board.md).

Each variant patches `mcts_bot.knowledge.grod` only while it decides and restores it after, so an
opponent playing the shipped `grod` in the same process is not affected (or, as `ExposureCageGrod`,
is `GrodBot` with an option of its own). They are probes, measured against the shipped bot with no
search; one was kept, `ExposureCageGrod`, as the default's knowledge on 11 players (`exposure=True`),
which since settles its ties in its own frame (`OwnFrameGrod`, `own_frame=True`):

    scripts/run.sh trace --bots docs/probes/grod_variants.py:WeightsGrod grod --board 11 --games 100 --seed 500
    GROD_WEIGHTS="TURNOVER_BASE=3" ...   # the module weights WeightsGrod sets, comma-separated NAME=VALUE
"""
import os
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Dict, Iterator, List, Optional, Tuple

import botbowl
import numpy as np
from botbowl.core import Action, ActionType

from mcts_bot.harness.trace import guards
from mcts_bot.knowledge import exposure, grod
from mcts_bot.knowledge.grod import Board, GrodBot, Plan
from mcts_bot.knowledge.heuristics import block_dice


@contextmanager
def patched(values: Dict[str, object], module=grod) -> Iterator[None]:
    """`module`'s attributes (`grod`'s unless said) set to `values` for the duration."""
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


class Patched:
    """A bot mix-in: its `act` decides with `self.patch` in place of the shipped module attributes."""
    patch: Dict[str, object] = {}

    def act(self, game: botbowl.Game) -> Action:
        with patched(self.patch):
            return super().act(game)


class PatchedGrod(Patched, GrodBot):
    """`grod` deciding with `self.patch` in place of the shipped module attributes."""


def weights_from_env(text: Optional[str]) -> Dict[str, object]:
    """`NAME=VALUE,...` as grod's weights; a clear error for an unknown name or a bad number."""
    weights: Dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, _, value = item.partition("=")
        weights[name] = value
    try:
        return grod.check_weights(weights)
    except ValueError as exc:
        raise ValueError(f"GROD_WEIGHTS: {exc}") from None


class WeightsGrod(PatchedGrod):
    """`grod` with the weights of $GROD_WEIGHTS (e.g. TURNOVER_BASE=3,CAGE_PACE=6)."""

    def __init__(self, name: str = "grod-weights", seed: Optional[int] = None):
        super().__init__(name, seed)
        self.patch = weights_from_env(os.environ.get("GROD_WEIGHTS"))


# -- blocks that open the carrier's lane
LANE_VALUE = 4.0  # knocking down an opponent in the carrier's way, at one square ahead (less further out)
_knockdown_value = grod.knockdown_value


def lane_knockdown_value(board: Board, defender: botbowl.Player) -> float:
    """The shipped value, plus LANE_VALUE for an opponent standing in our carrier's way: ahead of
    him within his reach, in a lane that widens by a square every two squares out."""
    value = _knockdown_value(board, defender)
    carrier = board.our_carrier
    if carrier is None or board.final_turn:
        return value
    c, d = carrier.position, defender.position
    if c.distance(d) <= 1:
        return value  # marking him: FREES_CARRIER counts it already
    ahead = (d.x - c.x) * board.forward
    reach = carrier.get_ma() + 1
    if 1 <= ahead <= reach and abs(d.y - c.y) <= 1 + ahead // 2:
        value += LANE_VALUE * (1.0 - (ahead - 1) / (reach + 1))
    return value


class LaneGrod(PatchedGrod):
    """`grod` whose blocks also count the way they open for its carrier."""
    patch = {"knockdown_value": lane_knockdown_value}

    def __init__(self, name: str = "grod-lane", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- safe actions before risky ones
RISKY = 0.02  # a plan at least this likely to turn the ball over waits
SAFE_FIRST_MIN = 1.0  # for a safe plan worth at least this much
_best_plan = grod.best_plan


def safe_first_best_plan(plans) -> Optional[Plan]:
    """The shipped choice, unless it is risky and a safe plan worth SAFE_FIRST_MIN is left: then that."""
    best = _best_plan(plans)
    if best is None or best.p_turnover <= RISKY:
        return best
    safe = [p for p in plans if not p.deferred and p.p_turnover <= RISKY and p.score >= SAFE_FIRST_MIN]
    return max(safe, key=lambda p: p.score) if safe else best


class SafeFirstGrod(PatchedGrod):
    """`grod` that plays every safe action worth playing before a risky one (the carrier still last)."""
    patch = {"best_plan": safe_first_best_plan}

    def __init__(self, name: str = "grod-safe-first", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- breaking their cage
CAGE_BREAK_VALUE = 4.0  # knocking down a guard of their carrier: his cage opens for the blitz to come


def cage_break_knockdown_value(board: Board, defender: botbowl.Player) -> float:
    """The shipped value, plus CAGE_BREAK_VALUE for an opponent beside their carrier: with a guard
    down the carrier loses an assist and a tackle zone around him, so a blitz reaches him more
    easily, this turn (blocks first, the blitz after) or the next."""
    value = _knockdown_value(board, defender)
    carrier = board.their_carrier
    if carrier is None or defender is carrier or board.final_turn:
        return value
    if defender.position.distance(carrier.position) == 1:
        value += CAGE_BREAK_VALUE
    return value


class CageBreakGrod(PatchedGrod):
    """`grod` whose blocks also count the guards of their carrier they knock down."""
    patch = {"knockdown_value": cage_break_knockdown_value}

    def __init__(self, name: str = "grod-cage-break", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- a cage judged by its corners
CORNER_SUPPORT = 1.5  # a teammate diagonal to the carrier: a cage corner, its tackle zones close two ways in
EDGE_SUPPORT = 0.5  # one beside him: a body in the way, but the squares around it stay open


class CornerBoard(Board):
    """`grod`'s board whose ball map counts a teammate at a corner of the carrier's square for more
    than one beside it (the shipped `support` counts both as 1 of the four a full cage needs)."""

    def support(self) -> np.ndarray:
        support = np.zeros((self.height, self.width), dtype=np.float64)
        for p in self.ours:
            if p is self.our_carrier or not p.state.up:
                continue
            dx, dy = np.abs(self.xs - p.position.x), np.abs(self.ys - p.position.y)
            support += CORNER_SUPPORT * ((dx == 1) & (dy == 1)) + EDGE_SUPPORT * ((dx + dy) == 1)
            distance = np.maximum(dx, dy)
            if not p.state.used:
                support += grod.POTENTIAL_SUPPORT * ((distance > 1) & (distance <= p.get_ma()))
        return support


class CornerCageGrod(PatchedGrod):
    """`grod` whose carrier judges a square's safety by the cage corners around it."""
    patch = {"Board": CornerBoard}

    def __init__(self, name: str = "grod-corner-cage", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- the carrier's safety judged by what the blitz can reach: `GrodBot(exposure=True)`, the default's
# knowledge on the Bot Bowl board since commit 4b015f2 (docs/bot-bowl-board.md); its two parts apart
class ExposureGrod(PatchedGrod):
    """`grod` whose carrier judges a square's safety by what the opponents' blitz can reach
    (`grod.LOSE_BY_EXPOSURE`), without the teammates closing the ways in."""
    patch = {"CLOSE_VALUE": 0.0}

    def __init__(self, name: str = "grod-exposure", seed: Optional[int] = None):
        super().__init__(name, seed)
        self.exposure = True


class ExposureCageGrod(GrodBot):
    """ExposureGrod whose teammates also put tackle zones on the blitz's open ways into the cage
    (`grod.CLOSE_VALUE`) and whose thin cages are priced as such (`grod.LOSE_BY_EXPOSURE_THIN`, since
    commit eeeaedf; `UnguardedExposureGrod` without it): `GrodBot(exposure=True)`."""

    def __init__(self, name: str = "grod-exposure-cage", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True)


# -- the turn's one blitz kept for their carrier
_price = grod.price


def reserve_blitz_price(plans, board: Board, opportunity=None) -> None:
    """The shipped prices, with every blitz on another opponent scored less by what the best blitz on
    their carrier is worth (its gain less its turnover chance at the base cost, when above 0): a turn
    has one blitz, and one spent elsewhere is the carrier's blitz forgone."""
    _price(plans, board, opportunity)
    carrier = board.their_carrier
    if carrier is None:
        return
    on_carrier = [p.steps[-1][1] == carrier.position for p in plans]
    forgone = max((p.gain - p.p_turnover * grod.TURNOVER_BASE for p, c in zip(plans, on_carrier)
                   if c and p.start == ActionType.START_BLITZ), default=0.0)
    if forgone > 0:
        for plan, c in zip(plans, on_carrier):
            if plan.start == ActionType.START_BLITZ and not c:
                plan.score -= forgone


class ReserveBlitzGrod(PatchedGrod):
    """`grod` that spends the turn's blitz elsewhere only if that beats blitzing their carrier."""
    patch = {"price": reserve_blitz_price}

    def __init__(self, name: str = "grod-reserve-blitz", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- the default's knowledge before the guards entered the exposure price
class UnguardedExposureGrod(PatchedGrod):
    """`grod` with `exposure=True` as it was before its carrier's guards entered the price (stop 54's
    default): a square with fewer than two guards priced as a guarded one. The shipped price
    (LOSE_BY_EXPOSURE_THIN) scored 54% (47-60%) against this in 200 games, seed 1100."""
    patch = {"LOSE_BY_EXPOSURE_THIN": grod.LOSE_BY_EXPOSURE}

    def __init__(self, name: str = "grod-unguarded-exposure", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True)


# -- a teammate's turnover priced by what it strands the carrier with: tried, not kept (stop 56)
STRANDED_SHARE = 1.0  # the share of the ball's loss a stranding turnover is charged


def stranded_cost(board: Board) -> float:
    """What a teammate's turnover now costs our carrier's ball (with `exposure`): his square priced with
    only the guards beside him now, against the shipped price, which counts those who could still come."""
    carrier = board.our_carrier
    if not board.exposure or carrier is None or not carrier.state.up or board.final_turn:
        return 0.0
    x, y = carrier.position.x, carrier.position.y
    kind = exposure.exposure_grid(board.game, board.team, carrier, board.reached())[y, x]
    lose_now = min(grod.lose_by_exposure(kind, guards(board.game, carrier)) + board.sideline_lose()[y, x],
                   grod.MAX_LOSE)
    lose = board.ball_map()[y][x]
    return STRANDED_SHARE * max(0.0, lose_now - lose) * (board.worth(carrier, carrier.position) + grod.LOOSE_BALL_COST)


def strands(plan: Plan, board: Board, guards_pay: bool) -> bool:
    """Whether the plan's turnover would leave our carrier without the guards who could still come: a
    teammate's plan (with `guards_pay` false, not a move to the carrier's side: that guard is coming)."""
    carrier = board.our_carrier
    if carrier is None or plan.player is carrier:
        return False
    square = plan.steps[-1][1]
    guard = plan.start == ActionType.START_MOVE and square is not None and square.distance(carrier.position) == 1
    return guards_pay or not guard


def stranded_price(plans, board: Board, opportunity=None, guards_pay: bool = False) -> None:
    """The shipped prices, with each stranding plan's turnover also charged `stranded_cost`."""
    _price(plans, board, opportunity)
    cost = stranded_cost(board)
    if cost > 0:
        for plan in plans:
            if strands(plan, board, guards_pay):
                plan.score -= plan.p_turnover * cost


class StrandedExposureGrod(PatchedGrod):
    """`grod` with `exposure=True` whose teammates' turnovers also cost what they strand the carrier with
    (a guard's move to his side aside). 50% (44-57%) against `ExposureCageGrod`, 200 games, seed 1100."""
    patch = {"price": stranded_price}

    def __init__(self, name: str = "grod-stranded-exposure", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True)


class StrandedAllExposureGrod(PatchedGrod):
    """As `StrandedExposureGrod`, the guards' moves charged too. 48% (42-55%), the same games."""
    patch = {"price": partial(stranded_price, guards_pay=True)}

    def __init__(self, name: str = "grod-stranded-all-exposure", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True)


# -- other formations for the default's knowledge
class SpreadKickGrod(PatchedGrod):
    """`grod` with `exposure=True` that kicks off from the spread formation (the zone where it is not offered)."""
    patch = {"FORMATIONS_KICK": (ActionType.SETUP_FORMATION_SPREAD, ActionType.SETUP_FORMATION_ZONE)}

    def __init__(self, name: str = "grod-spread-kick", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True)


class LineReceiveGrod(PatchedGrod):
    """`grod` with `exposure=True` that receives in the line formation (the wedge where it is not offered)."""
    patch = {"FORMATIONS_RECEIVE": (ActionType.SETUP_FORMATION_LINE, ActionType.SETUP_FORMATION_WEDGE)}

    def __init__(self, name: str = "grod-line-receive", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True)


# -- ties settled in the team's own frame: the same arrangement played alike as home and as away
class OwnFrameGrod(GrodBot):
    """The default's knowledge (`exposure=True`) with its ties settled in its own frame (`Board`'s
    `own_frame`): a tied blitz square, hand-off square, move or push chosen the same way as home and
    as away."""

    def __init__(self, name: str = "grod-own-frame", seed: Optional[int] = None):
        super().__init__(name, seed, exposure=True, own_frame=True)


class BlitzCostGrod(OwnFrameGrod):
    """The default's knowledge with the blitz's block costing its square of movement in the carrier's
    exposure, as the rules have it (`exposure.BLITZ_BLOCK_COST = 1`; shipped: 0): an opponent who
    walks MA squares to the carrier's side reaches him only with a go-for-it, one MA + 2 away not at all."""

    def __init__(self, name: str = "grod-blitz-cost", seed: Optional[int] = None):
        super().__init__(name, seed)

    def act(self, game: botbowl.Game) -> Action:
        with patched({"BLITZ_BLOCK_COST": 1}, exposure):
            return super().act(game)


class PatchedOwnFrameGrod(Patched, OwnFrameGrod):
    """The default's knowledge deciding with `self.patch` in place of the shipped module attributes."""


class RerollPathsGrod(PatchedOwnFrameGrod):
    """The default's knowledge pricing its players' paths (moves, pick-ups, runs to score) with the
    team re-roll while it has one (`grod.PATHS_WITH_REROLL`), as it prices passes and hand-offs
    already: botbowl offers the re-roll on a failed dodge, go-for-it or pick-up, and `grod` takes it."""
    patch = {"PATHS_WITH_REROLL": True}

    def __init__(self, name: str = "grod-reroll-paths", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- their cage opened before the blitz: blocks on its guards and markers beside their carrier priced by
#    the attack on him they improve
def attack_dice(game: botbowl.Game, attacker: botbowl.Player, square: botbowl.Square, defender: botbowl.Player,
                blitz: bool, down: Optional[botbowl.Player] = None,
                moved: Optional[Dict[botbowl.Player, botbowl.Square]] = None) -> int:
    """The dice of `attacker` blocking `defender` from `square`, as botbowl's `num_block_dice_at`
    counts them, with `down` (an opponent) on the ground and the teammates in `moved` on their squares."""
    def at(p: botbowl.Player) -> botbowl.Square:
        return moved.get(p, p.position) if moved else p.position

    def stands(p: botbowl.Player) -> bool:
        return p is not down and p.can_assist()

    ours = [p for p in attacker.team.players if p.position is not None and p is not attacker and stands(p)]
    theirs = [p for p in game.get_opp_team(attacker.team).players
              if p.position is not None and p is not defender and stands(p)]
    against = sum(1 for o in theirs if o.position.distance(square) == 1
                  and (o.has_skill(botbowl.Skill.GUARD) or not any(at(u).distance(o.position) == 1 for u in ours)))
    assists = sum(1 for u in ours if at(u).distance(defender.position) == 1
                  and (u.has_skill(botbowl.Skill.GUARD) or not any(o.position.distance(at(u)) == 1 for o in theirs)))
    horns = 1 if blitz and attacker.has_skill(botbowl.Skill.HORNS) else 0
    return block_dice(attacker.get_st() + horns + assists, defender.get_st() + against)


@dataclass(frozen=True)
class Attack:
    """A block or blitz on their carrier: who, from which square, and its chance to get there (its path
    and go-for-it, read back from the plan's priced gain)."""

    player: botbowl.Player
    square: botbowl.Square
    blitz: bool
    p_move: float


def _block_square(plan: Plan) -> botbowl.Square:
    """Where a block or blitz plan's player stands when he blocks: his last step's square, or where he is."""
    return plan.steps[-2][1] if len(plan.steps) > 1 else plan.player.position


def attack(board: Board, plan: Plan, carrier: botbowl.Player) -> Attack:
    square = _block_square(plan)
    blitz = plan.start == ActionType.START_BLITZ
    gain, _ = grod.block_gain(board, plan.player, carrier, square,
                              attack_dice(board.game, plan.player, square, carrier, blitz))
    p_move = min(1.0, max(0.0, plan.gain / gain)) if blitz and gain > 0 else 1.0
    return Attack(plan.player, square, blitz, p_move)


def _attack_value(board: Board, a: Attack, carrier: botbowl.Player, down=None, moved=None) -> float:
    """The attack valued at the base turnover cost, as things stand or with `down` on the ground or the
    teammates in `moved` on their squares."""
    if moved and (a.player in moved or a.square in moved.values()):
        return 0.0
    gain, p_att = grod.block_gain(board, a.player, carrier, a.square,
                                  attack_dice(board.game, a.player, a.square, carrier, a.blitz, down, moved))
    return max(0.0, a.p_move * gain - ((1.0 - a.p_move) + a.p_move * p_att) * grod.TURNOVER_BASE)


def open_cage_price(plans, board: Board, opportunity=None, pairs: bool = False) -> None:
    """The shipped prices, plus, for a block or blitz on a guard of their carrier (an opponent beside
    him), its chance to knock him down times what that adds to our best attack on the carrier this
    turn by another player (after a blitz, a block), and for a move beside the carrier its chance to
    arrive times what that adds (his guards in its tackle zone give no assists); with `pairs`, or
    with one more teammate moved beside him as well (a cage of four needs two markers)."""
    _price(plans, board, opportunity)
    carrier = board.their_carrier
    if carrier is None or board.final_turn:
        return
    attacks = [attack(board, p, carrier) for p in plans if p.steps and p.steps[-1][0] == ActionType.BLOCK
               and p.steps[-1][1] == carrier.position]
    if not attacks:
        return
    now = max(_attack_value(board, a, carrier) for a in attacks)
    beside = _moves_beside(board, plans, carrier) if pairs else {}
    game = board.game
    for plan in plans:
        if not plan.steps or plan.player is board.our_carrier:
            continue
        kind, square = plan.steps[-1]
        others = [a for a in attacks if a.player is not plan.player]
        if kind == ActionType.BLOCK and plan.start in (ActionType.START_BLOCK, ActionType.START_BLITZ):
            guard = game.get_player_at(square)
            if guard is None or guard is carrier or guard.position.distance(carrier.position) != 1:
                continue
            if plan.start == ActionType.START_BLITZ:
                others = [a for a in others if not a.blitz]
            after = max((_attack_value(board, a, carrier, down=guard) for a in others), default=0.0)
            if after > now:
                dice = game.num_block_dice_at(plan.player, guard, _block_square(plan),
                                              blitz=plan.start == ActionType.START_BLITZ)
                stumble_knocks = not guard.has_skill(botbowl.Skill.DODGE) or plan.player.has_skill(botbowl.Skill.TACKLE)
                _, p_down = grod.block_odds(dice, plan.player.has_skill(botbowl.Skill.BLOCK),
                                            guard.has_skill(botbowl.Skill.BLOCK), stumble_knocks, False)
                plan.score += p_down * (after - now)
        elif kind == ActionType.MOVE and plan.start == ActionType.START_MOVE \
                and square.distance(carrier.position) == 1:
            after = max((_attack_value(board, a, carrier, moved={plan.player: square}) for a in others), default=0.0)
            if pairs:
                after = max(after, _paired_marks(board, beside, attacks, carrier, plan.player, square))
            if after > now:
                plan.score += (1.0 - plan.p_turnover) * (after - now)


def _moves_beside(board: Board, plans, carrier: botbowl.Player) \
        -> Dict[botbowl.Square, List[Tuple[float, botbowl.Player]]]:
    """Each square beside the carrier that a teammate's move reaches: (chance to arrive, who), in plan order."""
    beside: Dict[botbowl.Square, List[Tuple[float, botbowl.Player]]] = {}
    for plan in plans:
        kind, there = plan.steps[-1] if plan.steps else (None, None)
        if plan.start == ActionType.START_MOVE and kind == ActionType.MOVE and plan.player is not board.our_carrier \
                and there.distance(carrier.position) == 1:
            beside.setdefault(there, []).append((1.0 - plan.p_turnover, plan.player))
    return beside


def _paired_marks(board: Board, beside, attacks, carrier: botbowl.Player, player: botbowl.Player,
                  square: botbowl.Square) -> float:
    """The best attack on the carrier once `player` stands on `square` and one more teammate has moved
    beside the carrier too (the safest move there of each square, from `_moves_beside`), discounted by
    that move's risk."""
    best = 0.0
    for there, moves in beside.items():
        others = [move for move in moves if move[1] is not player]
        if there == square or not others:
            continue
        p, mate = max(others, key=lambda move: move[0])
        moved = {player: square, mate: there}
        best = max([best] + [p * _attack_value(board, a, carrier, moved=moved) for a in attacks])
    return best


class OpenCageGrod(PatchedOwnFrameGrod):
    """The default's knowledge whose blocks on their carrier's guards, and moves beside him, count
    the attack on him they open."""
    patch = {"price": open_cage_price}

    def __init__(self, name: str = "grod-open-cage", seed: Optional[int] = None):
        super().__init__(name, seed)


class OpenCagePairGrod(PatchedOwnFrameGrod):
    """`OpenCageGrod` whose moves beside their carrier also count the attack they open with a second
    marker."""
    patch = {"price": partial(open_cage_price, pairs=True)}

    def __init__(self, name: str = "grod-open-cage-pair", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- blocks before moves: where 400-iteration searches overrule the default's knowledge most
#    (docs/learning.md, "Where the deep searches overrule the priors, and sharper targets")
BLOCK_FIRST_RISK = 0.12  # a block or blitz at most this likely to turn the ball over (two dice for, or better)


def blocks_first_best_plan(plans) -> Optional[Plan]:
    """The shipped choice, unless it starts a plain move while a block or blitz worth playing and at
    most BLOCK_FIRST_RISK likely to turn the ball over is left: then the best of those."""
    best = _best_plan(plans)
    if best is None or best.deferred or best.start is not ActionType.START_MOVE:
        return best
    blocks = [p for p in plans if not p.deferred and p.start in (ActionType.START_BLOCK, ActionType.START_BLITZ)
              and p.score >= grod.MIN_SCORE and p.p_turnover <= BLOCK_FIRST_RISK]
    return max(blocks, key=lambda p: p.score) if blocks else best


class BlocksFirstGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) that throws its safe blocks and blitz before its moves."""
    patch = {"best_plan": blocks_first_best_plan}

    def __init__(self, name: str = "grod-blocks-first", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- the kick-off: where the ball is kicked, and kicking or receiving first
class OwnFrameWeightsGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) with the weights of $GROD_WEIGHTS (as `WeightsGrod`),
    e.g. KICK_DEPTH_FRACTION=0.3: the kick aimed 8 squares from their endzone instead of 4."""

    def __init__(self, name: str = "grod-own-frame-weights", seed: Optional[int] = None):
        super().__init__(name, seed)
        self.patch = weights_from_env(os.environ.get("GROD_WEIGHTS"))


class KickFirstGrod(OwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) that kicks off first when it wins the coin toss, so that
    it receives at the start of the second half: the drive nothing comes after."""

    def __init__(self, name: str = "grod-kick-first", seed: Optional[int] = None):
        super().__init__(name, seed)

    def decide(self, game: botbowl.Game) -> Action:
        if isinstance(game.get_procedure(), grod.CoinTossKickReceive):
            return Action(ActionType.KICK)
        return super().decide(game)


# -- the ball back at any risk when the game runs out
DESPERATE_TURNS = 3  # the last turns of the second half (this one among them) ...
DESPERATE_TURNOVER = 0.25  # ... in which a turnover costs this share of its price, while their carrier holds a
# ball we need: the game's score level or behind


def desperate(board: Board) -> bool:
    """Their carrier holds the ball, we are not ahead, and few turns of the game are left to us."""
    return (board.game.state.half == 2 and board.their_carrier is not None
            and board.team.state.score <= board.opp.state.score and board.turns_left < DESPERATE_TURNS)


def desperate_price(plans, board: Board, opportunity=None) -> None:
    """The shipped prices, but in a desperate turn (`desperate`) a turnover costs DESPERATE_TURNOVER of
    its price: with the game running out, a turn kept safe is a draw or a loss kept."""
    _price(plans, board, opportunity)
    if not desperate(board):
        return
    opportunity = grod.opportunities(plans) if opportunity is None else opportunity
    for plan in plans:
        plan.score += (1.0 - DESPERATE_TURNOVER) * plan.p_turnover * grod.turnover_cost(opportunity, plan.player, board)


class DesperateGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) that risks its turns for the ball when the game runs
    out on a draw or a loss and their carrier holds it (`desperate_price`)."""
    patch = {"price": desperate_price}

    def __init__(self, name: str = "grod-desperate", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- the carrier's cover counted only from teammates who can come without a dodge
class FreeSupportBoard(Board):
    """`grod`'s board whose unused teammates count as support still to come (`POTENTIAL_SUPPORT`) only
    when no opponent marks them: one in a tackle zone must dodge to come, and mostly stays."""

    def _could_come(self, beyond: int) -> np.ndarray:
        potential = np.zeros((self.height, self.width), dtype=np.float64)
        for p in self.ours:
            if p is not self.our_carrier and p.state.up and not p.state.used \
                    and self.opp_tz_at[p.position.y][p.position.x] == 0:
                distance = self.cheb(p.position)
                potential += grod.POTENTIAL_SUPPORT * ((distance > beyond) & (distance <= p.get_ma()))
        return potential


class FreeSupportGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) whose carrier counts on cover only from teammates free
    to come (`FreeSupportBoard`)."""
    patch = {"Board": FreeSupportBoard}

    def __init__(self, name: str = "grod-free-support", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- a carrier who has acted kept closed: a teammate's move that opens the way to him pays for it
def opened_by(board: Board, mover: botbowl.Player, square: Optional[botbowl.Square]) -> bool:
    """Whether our carrier, now reachable by the opponents only with dice or not at all, would be
    reachable with no dice once `mover` left his square for `square` (None: off the pitch)."""
    carrier = board.our_carrier
    walks = exposure.reach(board.game, board.team, carrier, moved=(mover, square))[0]
    return bool(exposure.around(walks)[carrier.position.y, carrier.position.x] > 0)


def keep_closed_price(plans, board: Board, opportunity=None) -> None:
    """The shipped prices, but once our carrier has acted and stands where no opponent reaches him with
    no dice, a teammate's move or blitz that would open a way to him costs what the ball loses by it:
    the open square's chance to lose the ball (`lose_by_exposure`) less today's, times the ball's worth
    there and the loose ball's cost. The carrier's guards already count in his price; the players who
    close the ways in from further off did not."""
    _price(plans, board, opportunity)
    carrier = board.our_carrier
    if carrier is None or not carrier.state.used or not board.exposure:
        return
    x, y = carrier.position.x, carrier.position.y
    if exposure.exposure_grid(board.game, board.team, carrier, board.reached())[y, x] < exposure.DICE:
        return
    now = board.ball_map()[y][x]
    opened = grod.lose_by_exposure(exposure.OPEN, board.support()[y, x])
    cost = max(0.0, opened - now) * (board.worth(carrier, carrier.position) + grod.LOOSE_BALL_COST)
    leaving: Dict[str, bool] = {}  # a player off the pitch is the most his leaving can open
    for plan in plans:
        player = plan.player
        moves = [square for kind, square in plan.steps if kind == ActionType.MOVE]
        if player is carrier or not moves:
            continue
        pid = player.player_id
        if pid not in leaving:
            leaving[pid] = opened_by(board, player, None)
        if leaving[pid] and opened_by(board, player, moves[-1]):
            plan.score -= cost


class KeepClosedGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) whose teammates do not open the way to a carrier who has
    acted without paying for it (`keep_closed_price`)."""
    patch = {"price": keep_closed_price}

    def __init__(self, name: str = "grod-keep-closed", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- a teammate of our carrier moved with dice only once the carrier has acted (or never)
_move_plans = grod._move_plans


def dry_move_plans(board: Board, player: botbowl.Player, pmap: list, until_carrier_acted: bool = True) -> List[Plan]:
    """The shipped moves, less a positional move that needs dice (a dodge or a go-for-it) while our
    carrier holds the ball (with `until_carrier_acted`, only until he has acted): its turnover leaves
    him where he stands, unmoved and unguarded. Pick-ups and stand-ups are kept."""
    plans = _move_plans(board, player, pmap)
    carrier = board.our_carrier
    if carrier is None or (until_carrier_acted and carrier.state.used):
        return plans
    return [p for p in plans if p.label != "move" or p.p_turnover <= 1.0 - grod.SAFE]


class DryBeforeCarrierGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) whose carrier's teammates make no positional move with
    dice before the carrier has acted (`dry_move_plans`)."""
    patch = {"_move_plans": dry_move_plans}

    def __init__(self, name: str = "grod-dry-before-carrier", seed: Optional[int] = None):
        super().__init__(name, seed)


class DryOffenceGrod(PatchedOwnFrameGrod):
    """As `DryBeforeCarrierGrod`, but no positional move with dice while we hold the ball at all."""
    patch = {"_move_plans": partial(dry_move_plans, until_carrier_acted=False)}

    def __init__(self, name: str = "grod-dry-offence", seed: Optional[int] = None):
        super().__init__(name, seed)


class LaneOwnFrameGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) whose blocks also count the way they open for its carrier
    (`lane_knockdown_value`, as `LaneGrod` on the shipped `grod`)."""
    patch = {"knockdown_value": lane_knockdown_value}

    def __init__(self, name: str = "grod-lane-own-frame", seed: Optional[int] = None):
        super().__init__(name, seed)


# -- the relay: a pass or hand-off priced against the carrier standing still, as his own moves are
def relay_plans(plans_of, board: Board, carrier: botbowl.Player, keep: float) -> List[Plan]:
    """`plans_of` (the shipped `_handoff_plans` or `_pass_plans`), each plan marked with what its gain
    leaves out against the carrier's moves: the shipped gain counts the ball against `keep` (his square
    plus his best move's gain), his moves against his square alone, so a relay worth more than his best
    move could still lose to it on score. The gain itself (which receivers wait for the ball) is unchanged."""
    plans = plans_of(board, carrier, keep)
    offset = keep - board.ball_value(carrier, carrier.position)
    for plan in plans:
        plan.offset = offset
    return plans


def relay_price(plans: List[Plan], board: Board, opportunity=None) -> None:
    """The shipped prices, each relay's score on the carrier's moves' footing (`relay_plans`)."""
    _price(plans, board, opportunity)
    for plan in plans:
        plan.score += getattr(plan, "offset", 0.0)


class RelayGrod(PatchedOwnFrameGrod):
    """The default's knowledge (`OwnFrameGrod`) with its passes and hand-offs scored on the footing of
    its carrier's moves (`relay_plans`)."""
    patch = {"_handoff_plans": partial(relay_plans, grod._handoff_plans),
             "_pass_plans": partial(relay_plans, grod._pass_plans), "price": relay_price}

    def __init__(self, name: str = "grod-relay", seed: Optional[int] = None):
        super().__init__(name, seed)
