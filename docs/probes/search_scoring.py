"""Probe: does the search take the touchdowns its carrier could run for, or pass for? (docs/learning.md,
"The evaluation's games as data")

`scoring_chances.py` asked it of the knowledge alone, playing new games; this asks it of recorded
games (`scripts/run.sh trace --record DIR`, or self-play), replayed from their seeds and moves, so
of the search's own play and of its opponent's in the same games. Each turn that begins with the
acting team's carrier standing: the chance of his safest path into the endzone this turn (with the
team re-roll), the best relay's (a pass or hand-off to a teammate who then runs in), the player
actions the turn started (`*` the carrier's own) and whether it scored, in it or soon after (by
the end of the team's second turn after it, in the same half). Tables per bot, as
`scoring_chances.py` prints them, and the relays within reach split by whether the carrier tried
one: a relay not tried costs only the touchdowns that did not come soon after anyway.

    .venv/bin/python docs/probes/search_scoring.py data/searches-11/grod-34000
"""
import argparse
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

from botbowl.core import ActionType
from botbowl.core.procedure import Turn

from mcts_bot.harness.collect import saved_games
from mcts_bot.harness.selfplay import player_of, read_game, replay_moves
from mcts_bot.knowledge.heuristics import scoring_chance
from scoring_chances import LOGGED, RELAY_FROM, RELAYS, relay_chance, relay_table, table  # the knowledge's probe

SOON = 3  # "scored soon": in the turn or by the end of the team's next two turns of the same half


def bot_names(data) -> Dict[bool, str]:
    """Which bot played home (True) and away (False): a recording bot's decisions say where it sat."""
    by_opponent, home = data["by_opponent"], data["home"]
    bot_home = bool(home[~by_opponent][0]) if (~by_opponent).any() else not bool(home[by_opponent][0])
    return {bot_home: str(data["bot"]), not bot_home: str(data["opponent"])}


def game_turns(path: Path) -> Dict[str, List[dict]]:
    """The turns of one recorded game that began with the acting team's carrier standing, by bot."""
    record = read_game(path)
    names = bot_names(record)
    turns: Dict[str, List[dict]] = defaultdict(list)
    ends: Dict[tuple, List[int]] = defaultdict(list)  # (half, team) -> its score at the end of each of its turns
    state = {"key": None, "team": None, "open": None}

    def close() -> None:
        team = state["team"]
        if team is None:
            return
        slot = state["key"][:2]
        ends[slot].append(team.state.score)
        turn = state["open"]
        if turn is not None:
            turn["scored"] = team.state.score > turn["score"]
            turn["slot"] = (slot, len(ends[slot]) - 1)
        state["team"] = state["open"] = None

    def at_move(i: int, game) -> None:
        proc = game.get_procedure()
        if isinstance(proc, Turn) and not proc.blitz and not proc.quick_snap:
            key = (game.state.half, proc.team.team_id, proc.team.state.turn)
            if key != state["key"]:
                close()
                state["key"], state["team"] = key, proc.team
                carrier = game.get_ball_carrier()
                if carrier is not None and carrier.team == proc.team and carrier.state.up:
                    relay, kind = relay_chance(game, carrier)
                    turn = {"game": path.stem, "p": scoring_chance(game, carrier), "relay": relay, "relay_kind": kind,
                            "score": proc.team.state.score, "actions": []}
                    turns[names[proc.team is game.state.home_team]].append(turn)
                    state["open"] = turn
        if state["open"] is not None:
            action_type = ActionType(int(record["move_type"][i]))
            actions = state["open"]["actions"]
            if action_type.name.startswith("START_"):
                player, carrier = player_of(game, str(record["move_player"][i])), game.get_ball_carrier()
                own = player is not None and carrier is not None and player.player_id == carrier.player_id
                actions.append(action_type.name[len("START_"):] + ("*" if own else ""))
            elif action_type in LOGGED:
                actions.append(action_type.name)

    replay_moves(record, at_move)
    close()  # the game's last turn, against its team's final score
    for found in turns.values():
        for turn in found:
            slot, index = turn.pop("slot")
            turn["scored_soon"] = ends[slot][min(index + SOON - 1, len(ends[slot]) - 1)] > turn.pop("score")
    return turns


def relay_taken_table(turns: List[dict]) -> str:
    """The turns with a relay at RELAY_FROM or more and the carrier's own run below it, by whether
    the carrier passed or handed off."""
    lines = [f"| Relay at {RELAY_FROM} or more, own run below | Turns | Expected by relay | Scored | Scored soon |",
             "|---|---:|---:|---:|---:|"]
    offered = [t for t in turns if t["p"] < RELAY_FROM <= t["relay"]]
    tried = [any(kind in t["actions"] for kind in RELAYS) for t in offered]
    for label, rows in (("relay tried", [t for t, yes in zip(offered, tried) if yes]),
                        ("not tried", [t for t, yes in zip(offered, tried) if not yes])):
        lines.append(f"| {label} | {len(rows)} | {sum(t['relay'] for t in rows):.1f} | {sum(t['scored'] for t in rows)} | "
                     f"{sum(t['scored_soon'] for t in rows)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", nargs="+", type=Path, help="folders of recorded games")
    args = parser.parse_args()
    files = saved_games(args.data)
    if not files:
        parser.error(f"no recorded games in {', '.join(map(str, args.data))}")
    turns: Dict[str, List[dict]] = defaultdict(list)
    for path in files:
        for name, found in game_turns(path).items():
            turns[name] += found
    for name, found in turns.items():
        print(f"## {name}: {len(found)} turns began with its carrier standing, in {len(files)} games\n")
        print(table(found))
        print()
        print(relay_table(found))
        print()
        print(relay_taken_table(found))
        print()


if __name__ == "__main__":
    main()
