"""Probe: the turns that begin with the opponents' carrier in reach, and what the knowledge does in them
(docs/bot-bowl-board.md, "Their carrier in reach: the blitz counted, and the cage opened first").

Plays the default's 11-player knowledge with no search (`GrodBot(exposure=True, own_frame=True)`)
against a sparring partner and logs each of its turns that begins with the opponents' carrier standing
and reachable by one of ours with no dice, or marked: the best block or blitz on him the knowledge priced
at the turn's start (its dice, gain, turnover chance and score) and the plan it played first; whether he
was blocked in the turn, whose ball it was at the turn's end, and where the turn's blitz went.
One JSON line per such turn, the file rewritten as each game ends:

    .venv/bin/python docs/probes/carrier_blitz.py --opponent scripted --seed 13000 --games 50 --side home \\
        --out results/carrier-blitz-home.jsonl

Game i (from 0) is seeded `seed + i`; the opponent `seed + i + 1`.
"""
from collections import Counter
from typing import List, Optional

import botbowl
from botbowl.core import ActionType

from mcts_bot.harness.probing import TurnLog, play_logged, run_turn_probe
from mcts_bot.knowledge import exposure, grod
from mcts_bot.knowledge.grod import Board


def _plan(plan: Optional[grod.Plan]) -> Optional[dict]:
    if plan is None:
        return None
    return {"start": plan.start.name, "label": plan.label, "gain": round(plan.gain, 2),
            "p_turnover": round(plan.p_turnover, 3), "score": round(plan.score, 2),
            "target": None if not plan.steps else [plan.steps[-1][1].x, plan.steps[-1][1].y]}


class CarrierBlitzLog(TurnLog):
    """The default's knowledge, logging the turns that begin with the opponents' carrier in reach."""

    def open_turn(self, game, turn) -> Optional[dict]:
        carrier = game.get_ball_carrier()
        if carrier is None or carrier.team == self.team or not carrier.state.up:
            return None
        kind = exposure.exposure(game, carrier)
        if kind not in ("exposed_marked", "exposed_open"):
            return None
        board = Board(game, self.team, exposure=True, own_frame=True)
        plans, _ = grod.candidate_plans(board)
        on_carrier = [p for p in plans if p.steps and p.steps[-1][1] == carrier.position
                      and p.start in (ActionType.START_BLITZ, ActionType.START_BLOCK)]
        return {"game": game.game_id, "turn": turn, "exposure": kind, "carrier": carrier.player_id,
                "carrier_x_to_go": abs(carrier.position.x - board.own_endzone_x),
                "guards": sum(1 for p in game.get_adjacent_players(carrier.position, team=carrier.team)
                              if p.state.up),
                "turns_left": board.turns_left,
                "best_on_carrier": _plan(max(on_carrier, key=lambda p: p.score, default=None)),
                "on_carrier_blitzers": len({p.player.player_id for p in on_carrier}),
                "first_plan": _plan(grod.best_plan(plans)), "actions": [], "blocked_carrier": False,
                "blitz_used_on": None}

    def record(self, game, action) -> None:
        if action.action_type == ActionType.START_BLITZ:
            self.open["blitz_used_on"] = "pending"
        if action.action_type == ActionType.BLOCK and action.position is not None:
            target = game.get_player_at(action.position)
            on_carrier = target is not None and target.player_id == self.open["carrier"]
            self.open["blocked_carrier"] |= on_carrier
            if game.state.player_action_type == botbowl.PlayerActionType.BLITZ:
                self.open["blitz_used_on"] = "carrier" if on_carrier else "other"
        if action.action_type.name.startswith("START_") or action.action_type in (ActionType.BLOCK,
                                                                                  ActionType.END_TURN):
            self.open["actions"].append(action.action_type.name)

    def close_turn(self, game, record) -> None:
        carrier = game.get_ball_carrier()
        record["still_their_ball"] = carrier is not None and carrier.team != self.team
        record["our_ball"] = carrier is not None and carrier.team == self.team
        if record["blitz_used_on"] == "pending":
            record["blitz_used_on"] = "no block"


def play(opponent: str, side: str, seed: int, games: int, out: Optional[str]) -> List[dict]:
    return play_logged(lambda turns, i: CarrierBlitzLog(turns, seed=seed + i), opponent, 11, lambda i: side,
                       seed, games, out)


def main() -> None:
    turns = run_turn_probe(__doc__, play)
    print(f"{len(turns)} turns; carrier blocked in {sum(t['blocked_carrier'] for t in turns)}; "
          f"by exposure: {dict(Counter(t['exposure'] for t in turns))}")


if __name__ == "__main__":
    main()
