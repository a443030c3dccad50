"""Why the default's carrier ends its turn open to a blitz with no dice: a count, no search (docs/bot-bowl-board.md).

The default's knowledge on 11 players (`OwnFrameGrod`, or with `--bot free-support` the
`FreeSupportGrod` variant) plays `scripted` or `grod`. At each of its turn ends chosen with END_TURN
(a turn a turnover cut short is another story, counted by the trace) with its own carrier on the pitch,
the carrier's exposure there (knowledge/exposure.py) is counted, and where he is marked or open, how:

- "stood": he never acted this turn; his squares are looked at now, from where he stands;
- "acted": he did; his squares are those he could reach when his action began;
- "picked the ball up": he came to hold it within his action; his squares are those he could still
  reach then, with the moves he had left;
- "came to hold the ball after his action" (a catch, say): not looked at further.

A square counts if botbowl's safest path there needs no dice (success >= 0.999) and it is no
touchdown; the best of them is reachable by the opponents only with dice or not at all ("safe"),
and it may lose no ground toward the endzone or only by giving some. For a carrier who acted, also
his exposure when his action ended: already open, or safe then and opened by a teammate's action
after his (which kind, and whether by a guard beside him). And whether one teammate left unused at
the end could have closed him by a move with no dice to a square within two of him.

    .venv/bin/python docs/probes/open_carrier.py --games 50 --opponents scripted grod --out results/open-carrier.jsonl

With `--out`, each game's counts are written as it ends (a JSON line naming its bot, opponent, side
and number); the same command run again plays only the games the file does not hold, and totals all.
"""
import argparse
import json
import sys
from collections import Counter
from multiprocessing import Pool
from pathlib import Path
from typing import Dict, Optional, Tuple

import botbowl
import botbowl.core.pathfinding as pf
from botbowl.core import Action, ActionType
from botbowl.core.procedure import Turn

sys.path.insert(0, str(Path(__file__).parent))
import mcts_bot  # noqa: E402,F401 - registers the bots
from grod_variants import FreeSupportGrod, OwnFrameGrod, opened_by  # noqa: E402
from mcts_bot.harness.bots import make_bot  # noqa: E402
from mcts_bot.harness.games import make_game  # noqa: E402
from mcts_bot.harness.trace import game_seed  # noqa: E402
from mcts_bot.knowledge import exposure  # noqa: E402
from mcts_bot.knowledge.grod import Board  # noqa: E402

STARTS = {ActionType.START_MOVE, ActionType.START_BLOCK, ActionType.START_BLITZ, ActionType.START_PASS,
          ActionType.START_HANDOFF, ActionType.START_FOUL}
SAFE = 0.999
EXPOSED = ("exposed_marked", "exposed_open")


def options(game: botbowl.Game, carrier: botbowl.Player) -> Tuple[int, int, int]:
    """(the safest exposure among the carrier's squares reachable with no dice, the safest among those
    losing no ground, the ground to the endzone where he stands); EXPOSURES' index, higher is safer."""
    grid = exposure.exposure_grid(game, carrier.team, carrier)
    endzone = game.get_opp_endzone_x(carrier.team)
    here = abs(endzone - carrier.position.x)
    squares = [carrier.position] + [path.get_last_step() for path in pf.get_all_paths(game, carrier)
                                    if path.prob >= SAFE]
    best = keep = -1
    for square in squares:
        if square.x == endzone:
            continue
        kind = int(grid[square.y][square.x])
        best = max(best, kind)
        if abs(endzone - square.x) <= here:
            keep = max(keep, kind)
    return best, keep, here


def verdict(kind: str, found: Tuple[int, int, int]) -> str:
    """What the carrier's squares reachable with no dice offered (`options`) against where he ended."""
    best, keep, _ = found
    ended = exposure.EXPOSURES.index(kind)
    if keep > ended and keep >= exposure.DICE:
        return "safe square, no ground lost"
    if best > ended and best >= exposure.DICE:
        return "safe square, ground given"
    return "no safe square"


def could_close(game: botbowl.Game, carrier: botbowl.Player) -> bool:
    """Whether one unused standing teammate of the carrier, moving now with no dice to a square within
    two of him (his tackle zone then on a square beside the carrier; farther off he could still cut a
    walk, which is not tried), would leave the carrier reachable by the opponents only with dice."""
    board = Board(game, carrier.team)
    if exposure.exposure(game, carrier) == "exposed_marked":
        return False  # a move of ours does not unmark him
    for mate in board.ours:
        if mate is carrier or not mate.state.up or mate.state.used:
            continue
        for path in pf.get_all_paths(game, mate):
            square = path.get_last_step()
            if path.prob >= SAFE and square.distance(carrier.position) <= 2 and not opened_by(board, mate, square):
                return True
    return False


def unused(team: botbowl.Team, carrier: botbowl.Player) -> int:
    """The team's standing players on the pitch, the carrier aside, who have not acted this turn."""
    return sum(1 for p in team.players if p is not carrier and p.position is not None and p.state.up
               and not p.state.used)


class CarrierWatch(OwnFrameGrod):
    """The default's knowledge, counting its carrier's turn ends (the module doc). A variant of it is
    counted by a subclass of both (`FreeSupportWatch`): its `act` runs inside this one's."""

    def __init__(self, name: str = "carrier-watch", seed: Optional[int] = None):
        super().__init__(name, seed)
        self.counts: Counter = Counter()
        # (turn, carrier id): how he came to act, his options then, teammates unused, his exposure once
        # his action ended, the teammate's action that opened him after it
        self._watch: Optional[dict] = None
        self._last_start = ""

    def act(self, game: botbowl.Game) -> Action:
        action = super().act(game)
        try:
            self._look(game, action)
        except Exception as exc:  # noqa: BLE001 - a probe must not change the game
            self.counts[f"error {type(exc).__name__}"] += 1
        return action

    def _look(self, game: botbowl.Game, action: Action) -> None:
        proc = game.get_current_turn_proc()  # inside a player's action too
        if proc is None or proc.team != self.team or proc.blitz or proc.quick_snap:
            return
        carrier = game.get_ball_carrier()
        if carrier is None or carrier.team != self.team or carrier.position is None:
            return
        key = (game.state.half, self.team.state.turn, carrier.player_id)
        watch = self._watch if self._watch is not None and self._watch["key"] == key else None
        active = game.state.active_player
        starts = action.action_type in STARTS and action.player is not None \
            and action.player.player_id == carrier.player_id
        if starts or (watch is None and active is not None and active.player_id == carrier.player_id):
            # his action starts, or he came to hold the ball within it (a pick-up, mostly)
            watch = self._watch = dict(key=key, how="acted" if starts else "picked the ball up",
                                       options=options(game, carrier), unused=unused(self.team, carrier),
                                       after=None, opener=None)
        elif watch is not None and carrier.state.used and (active is None or active.player_id != carrier.player_id):
            kind = exposure.exposure(game, carrier)
            if watch["after"] is None:
                watch["after"] = kind
            elif watch["after"] not in EXPOSED and kind in EXPOSED and watch["opener"] is None:
                watch["opener"] = self._last_start
        if action.action_type in STARTS and action.player is not None and action.player.position is not None:
            beside = action.player.position.distance(carrier.position) == 1
            self._last_start = f"{action.action_type.name} by {'a guard beside him' if beside else 'another'}"
        if action.action_type == ActionType.END_TURN and isinstance(game.get_procedure(), Turn):
            self._turn_end(game, carrier, watch)

    def _turn_end(self, game: botbowl.Game, carrier: botbowl.Player, watch: Optional[dict]) -> None:
        kind = exposure.exposure(game, carrier)
        self.counts[f"end {kind}"] += 1
        if kind not in EXPOSED:
            return
        if not carrier.state.used:
            self.counts[f"{kind} stood: {verdict(kind, options(game, carrier))}"] += 1
        elif watch is not None:
            still = "no teammate" if watch["unused"] == 0 else "teammates"
            self.counts[f"{kind} {watch['how']} ({still} still to act): {verdict(kind, watch['options'])}"] += 1
            if watch["after"] in EXPOSED or watch["after"] is None:
                self.counts[f"{kind} {watch['how']}: already so when his action ended"] += 1
            else:
                self.counts[f"{kind} {watch['how']}: safe when his action ended, opened by "
                            f"{watch['opener']}"] += 1
        else:
            self.counts[f"{kind}: came to hold the ball after his action"] += 1
        if unused(self.team, carrier):
            self.counts[f"{kind}, teammates unused at the end: one could have closed him with no dice: "
                        f"{could_close(game, carrier)}"] += 1


class FreeSupportWatch(CarrierWatch, FreeSupportGrod):
    """`FreeSupportGrod`, counted."""


WATCHES = {"default": CarrierWatch, "free-support": FreeSupportWatch}


def play(job: Tuple[str, str, str, int]) -> Tuple[Tuple[str, str, str, int], Dict[str, int]]:
    """One game of `job` (bot, opponent, side, number): the job and its counts."""
    bot, opponent, side, number = job
    seed = game_seed(2600, 11, side, number)
    watch = WATCHES[bot](seed=seed + 1)
    other = make_bot(opponent, seed=seed + 2)
    home, away = (watch, other) if side == "home" else (other, watch)
    game = make_game(11, home, away, seed=seed, game_id=f"open-carrier-{opponent}-{side}-{number}")
    game.init()
    ours = game.state.home_team if side == "home" else game.state.away_team
    theirs = game.get_opp_team(ours)
    counts = Counter(watch.counts)
    counts["games"] += 1
    counts["points"] += 2 if ours.state.score > theirs.state.score else 1 if ours.state.score == theirs.state.score else 0
    counts["touchdowns for"] += ours.state.score
    counts["touchdowns against"] += theirs.state.score
    return job, dict(counts)


def done_games(out: Optional[str]) -> Dict[Tuple[str, str, str, int], Dict[str, int]]:
    """The games `out` already holds, by job; a clear error for a line that is not one of ours."""
    done: Dict[Tuple[str, str, str, int], Dict[str, int]] = {}
    if out is None or not Path(out).exists():
        return done
    for number, line in enumerate(Path(out).read_text().splitlines(), 1):
        try:
            record = json.loads(line)
            done[tuple(record["job"])] = record["counts"]
        except (ValueError, KeyError, TypeError):
            raise SystemExit(f"{out}, line {number}: not a game of this probe; give another --out or move the file")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games a side against each opponent (default 50)")
    parser.add_argument("--opponents", nargs="+", default=["scripted", "grod"])
    parser.add_argument("--bot", choices=sorted(WATCHES), default="default",
                        help="the knowledge counted: the default's, or a variant (default: default)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", help="a JSON-lines file: each game's counts as it ends; run again to resume")
    args = parser.parse_args()
    done = done_games(args.out)
    for opponent in args.opponents:
        jobs = [(args.bot, opponent, side, n) for n in range(args.games) for side in ("home", "away")]
        total: Counter = Counter()
        for job in jobs:
            total.update(done.get(job, {}))
        todo = [job for job in jobs if job not in done]
        with Pool(args.processes) as pool:
            for i, (job, counts) in enumerate(pool.imap_unordered(play, todo), 1):
                total.update(counts)
                if args.out is not None:
                    with open(args.out, "a") as f:
                        f.write(json.dumps({"job": list(job), "counts": counts}) + "\n")
                print(f"\r{opponent}: {len(jobs) - len(todo) + i}/{len(jobs)} games", end="", file=sys.stderr,
                      flush=True)
        print(file=sys.stderr)
        games = total.pop("games")
        print(f"## against {opponent}: {games} games, score {total.pop('points') / (2 * games):.0%}, touchdowns "
              f"{total.pop('touchdowns for')}-{total.pop('touchdowns against')}")
        ends = sum(v for k, v in total.items() if k.startswith("end "))
        for key in sorted(total):
            print(f"- {key}: {total[key]} ({total[key] / max(ends, 1):.0%} of {ends} turn ends with the ball)")


if __name__ == "__main__":
    main()
