"""Does the leaf value rank sibling actions as their outcomes do? Siblings replayed with the same dice.

The search's overrules of its priors are near-ties that more visits and common dice do not move: the
leaf value's judgement of sibling positions (docs/bot-bowl-board.md, "Common dice for siblings").
Issue 30's next step is a value fitted to what sibling actions lead to, paired with the same dice;
this probe makes its data and measures the shipped value on it first.

An MCTS bot (the default unless --preset) plays `grod` on 11 players (--board) at a fixed number of
iterations.
At a share of its searched decisions (--share; with --decisions within or between, a share of those
only: within a player's action, or between player actions, where one is started or the turn ended),
the root's first child (the priors' choice) and up to --siblings - 1 others, the most visited with at
least --min-visits visits, are each played on private copies of the game with the same --rollouts dice
seeds. Each replay keeps two positions from the
deciding team's view: the leaf, where the search would score the child (its player's action finished
by the preset's rollout policy, `Search.rollout` with the "action" horizon), and the start of our next
turn (the rest of ours by the default's knowledge, theirs by `grod`'s; or the half's end, or the game's).
At each: the learned value and its features (`knowledge.features`), so that a value can be fitted to
rank the leaves as the next turns rank them; and the touchdowns scored in between.

--report compares, for each sibling against the first child, three views of the gap between them:
the search's (mean values), the leaf value's (its mean over the replays) and the outcome's (the value
where our next turn starts, mean over the replays): their correlation and sign agreement, with 95%
intervals by game, between player actions and within them, and the outcome's own split-half
reliability (seeds halved), which bounds what any judgement of the leaves could reach; and the
outcome's mean gap by the search's own gap (below 0, to 0.01, to 0.02, beyond: the last is where the
default's margin lets it overrule its priors on this board). --fit asks
whether the leaf's features say more about the outcome's gap than the leaf value does: each pair's gap
predicted from the other games' pairs (folds by game), by the leaf value's gap rescaled and by it with
the features' gaps (ridge), against predicting no gap.

Each game is appended to --out as it ends (one line: its score, its searched decisions and the records
of those replayed); a rerun plays only the games not there yet. --workers plays games at once, on this
machine or with --backend ray on a Ray cluster.

    .venv/bin/python docs/probes/sibling_outcomes.py --games 8 --workers 2 --iterations 120 --share 0.2 --seed 56000 --out results/siblings.jsonl
    .venv/bin/python docs/probes/sibling_outcomes.py --report --out results/siblings.jsonl
    .venv/bin/python docs/probes/sibling_outcomes.py --fit --out results/siblings.jsonl
    .venv/bin/python docs/probes/sibling_outcomes.py --decisions within --games 24 --workers 2 --iterations 120 --share 0.25 --rollouts 8 --seed 60000 --out results/siblings-within8.jsonl
"""
import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import botbowl
import numpy as np
from botbowl.core import Action
from botbowl.core.procedure import Turn

from mcts_bot.adapter.actions import same_action, step
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.nodes import ChanceNode
from mcts_bot.core.search import SearchResult
from mcts_bot.harness import probing, training
from mcts_bot.harness.records import play_missing, read_results
from mcts_bot.knowledge.features import features
from mcts_bot.knowledge.value import learned_value
from mcts_bot.presets import GROD_MENDED_CHOICE, board_choice, get_preset

MAX_STEPS = 5_000  # more than a turn and the next take: a guard against a loop


def _turns(game: botbowl.Game) -> int:
    return game.state.home_team.state.turn + game.state.away_team.state.turn


def _score(game: botbowl.Game, team: botbowl.Team) -> int:
    return team.state.score - game.get_opp_team(team).state.score


def replay(game: botbowl.Game, action: Action, team_id: str, seed: int, preset_name: str = "default") -> dict:
    """`action` played on a private copy of `game` with dice `seed`: the leaf where the preset's search
    would score it, and where our next turn starts, each as the learned value and its features for the
    team `team_id`, with the touchdowns (ours less theirs) scored from the decision to each."""
    preset = get_preset(preset_name).for_game(game)
    copy = private_copy(game, seed)
    rng = np.random.RandomState(seed)
    ours = copy.get_team_by_id(team_id)
    before, half, turn = _score(copy, ours), copy.state.half, ours.state.turn
    step(copy, Action(action.action_type, action.position, action.player), preset.end_moves)
    # The leaf: the acting player's action finished by the rollout policy, as `Search.rollout` plays it.
    player, turns = copy.state.active_player, _turns(copy)
    steps = 0
    while (player is not None and copy.state.active_player is player and _turns(copy) == turns
           and not copy.state.game_over and steps < MAX_STEPS):
        step(copy, preset.rollout_policy(copy, rng), preset.end_moves)
        steps += 1
    leaf = {"leaf_value": learned_value(copy, ours), "leaf_features": features(copy, ours).tolist(),
            "leaf_tds": _score(copy, ours) - before}
    # The next turn of ours: the knowledge plays both teams (ours the default's, theirs `grod`'s).
    while not (ours.state.turn != turn or copy.state.half != half or copy.state.game_over):
        if steps >= MAX_STEPS:
            raise RuntimeError(f"our next turn did not come within {MAX_STEPS} steps")
        team = copy.active_team
        mine = team is not None and team.team_id == team_id
        step(copy, board_choice(copy, rng) if mine else GROD_MENDED_CHOICE(copy, rng), preset.end_moves)
        steps += 1
    return dict(leaf, next_value=learned_value(copy, ours), next_features=features(copy, ours).tolist(),
                next_tds=_score(copy, ours) - before)


def siblings(children: Sequence[ChanceNode], count: int, min_visits: int) -> List[ChanceNode]:
    """The first child (the priors' choice) and up to `count` - 1 others, the most visited with at
    least `min_visits` visits, in that order."""
    others = sorted((c for c in children[1:] if c.visits >= min_visits), key=lambda c: -c.visits)
    return [children[0]] + others[:count - 1]


class SiblingRecorder:
    """The on_decision hook: at a share of one game's searched decisions, the siblings replayed."""

    def __init__(self, key: str, share: float, count: int, min_visits: int, rollouts: int, game_seed: int,
                 preset_name: str, decisions: str = "all"):
        self.key, self.share, self.count, self.min_visits = key, share, count, min_visits
        self.kind = decisions
        # Dice seeds of one game's replays, apart from other games' and within numpy's 32 bits.
        self.rollouts, self.seed, self.preset_name = rollouts, game_seed * 100_000 % 2**31, preset_name
        self.rng = np.random.RandomState(self.seed)
        self.records: List[dict] = []
        self.decisions = 0

    def __call__(self, game: botbowl.Game, result: SearchResult, action: Action) -> None:
        root = result.root
        self.decisions += 1
        between = isinstance(game.get_procedure(), Turn)
        if self.kind != "all" and between != (self.kind == "between"):
            return
        if self.rng.random_sample() >= self.share or len(root.children) < 2 or root.children[0].prior is None:
            return
        chosen = siblings(root.children, self.count, self.min_visits)
        if len(chosen) < 2:
            return
        team_id = game.active_team.team_id
        base = self.seed + 1000 * self.decisions
        self.records.append({
            "key": self.key, "decision": self.decisions, "half": game.state.half,
            "turn": game.get_team_by_id(team_id).state.turn,
            "between_actions": between,
            "played": next((i for i, c in enumerate(chosen) if same_action(c.action, action)), None),
            "siblings": [{"kind": c.action.action_type.name, "prior": c.prior, "visits": c.visits, "q": c.value,
                          "replays": [replay(game, c.action, team_id, base + k, self.preset_name)
                                      for k in range(self.rollouts)]}
                         for c in chosen],
        })
        print(f"  {self.key}: decision {self.decisions} recorded ({len(self.records)} so far)",
              file=sys.stderr, flush=True)


@dataclass(frozen=True)
class GameSpec:
    """One game of the probe: the searching bot's preset, budget, side and seed, and what it records."""

    preset: str
    iterations: int
    side: str
    seed: int
    share: float
    siblings: int
    min_visits: int
    rollouts: int
    board: int = 11
    decisions: str = "all"

    @property
    def key(self) -> str:
        kind = "" if self.decisions == "all" else f"-{self.decisions}"
        return f"{self.board}p-{self.preset}-{self.iterations}{kind}-{self.side}-{self.seed}"


def play_game(spec: GameSpec) -> dict:
    """One game against `grod`: its score and searched decisions, and the records of those replayed."""
    recorder = SiblingRecorder(spec.key, spec.share, spec.siblings, spec.min_visits, spec.rollouts,
                               spec.seed, spec.preset, spec.decisions)
    game, ours = probing.play_searching(spec.preset, spec.iterations, spec.side, spec.seed, recorder, board=spec.board)
    return {"key": spec.key, "score": [ours.state.score, game.get_opp_team(ours).state.score],
            "decisions": recorder.decisions, "records": recorder.records}


def read_records(path: Path) -> tuple:
    """The finished games of a results file, and their replayed decisions' records."""
    games = read_results(path)
    return games, [record for game in games for record in game["records"]]


def gaps(record: dict, seeds: Optional[slice] = None) -> List[Dict[str, float]]:
    """Each sibling's gap to the first child: the search's (mean values), the leaf value's and the
    outcome's (the value where our next turn starts), the last two means over the replays (`seeds`)."""
    first, *others = record["siblings"]
    pick = seeds or slice(None)

    def mean(sibling: dict, field: str) -> float:
        return float(np.mean([r[field] for r in sibling["replays"][pick]]))

    return [{"search": other["q"] - first["q"],
             "leaf": mean(other, "leaf_value") - mean(first, "leaf_value"),
             "outcome": mean(other, "next_value") - mean(first, "next_value")} for other in others]


def _agreement(pairs: List[Dict[str, float]], judge: str, floor: float) -> float:
    """The share of pairs whose outcome gap is `floor` or more either way where `judge` has its sign."""
    clear = [p for p in pairs if abs(p["outcome"]) >= floor]
    return float(np.mean([np.sign(p[judge]) == np.sign(p["outcome"]) for p in clear])) if clear else float("nan")


def _correlation(pairs: List[Dict[str, float]], a: str, b: str) -> float:
    x, y = np.array([p[a] for p in pairs]), np.array([p[b] for p in pairs])
    if len(x) < 3 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def by_game_interval(records: List[dict], statistic, draws: int = 2000, seed: int = 0) -> tuple:
    """`statistic` of the records' pairs and its 95% bootstrap interval, whole games resampled."""
    games = sorted({r["key"] for r in records})
    pairs = {k: [p for r in records if r["key"] == k for p in gaps(r)] for k in games}
    value = statistic([p for k in games for p in pairs[k]])
    rng = np.random.RandomState(seed)
    boots = np.array([statistic([p for i in rng.randint(0, len(games), len(games)) for p in pairs[games[i]]])
                      for _ in range(draws)])
    if np.isnan(boots).all():  # no pair in any draw (an empty bin)
        return value, float("nan"), float("nan")
    low, high = np.nanpercentile(boots, [2.5, 97.5])
    return value, float(low), float(high)


def _mean_outcome(keep: Callable[[Dict[str, float]], bool]) -> Callable[[List[Dict[str, float]]], float]:
    """A statistic of pairs: the outcome's mean gap over those `keep` selects (nan if none)."""
    def statistic(pairs: List[Dict[str, float]]) -> float:
        chosen = [p["outcome"] for p in pairs if keep(p)]
        return float(np.mean(chosen)) if chosen else float("nan")
    return statistic


def report(path: Path, floor: float = 0.01) -> str:
    games, records = read_records(path)
    if not records:
        return f"{path}: no finished game with a recorded decision yet"
    rollouts = len(records[0]["siblings"][0]["replays"])
    out = [f"{len(games)} games, {sum(g['decisions'] for g in games)} searched decisions, "
           f"{len(records)} recorded, {sum(len(r['siblings']) - 1 for r in records)} sibling pairs, "
           f"{rollouts} paired replays each", "",
           f"| Pairs (sibling against the first child) | Count | Search's gap vs outcome's: correlation | "
           f"Leaf value's vs outcome's | Sign agreement where the outcome's gap is {floor} or more: search | leaf "
           f"| Outcome's split-half reliability |",
           "|---|---:|---:|---:|---:|---:|---:|"]

    def cell(subset: List[dict], statistic) -> str:
        return "{:+.2f} ({:+.2f} to {:+.2f})".format(*by_game_interval(subset, statistic))

    def reliability(subset: List[dict]) -> float:
        # The outcome's gap from the first half of the seeds against the second's, stepped up to all of them.
        halves = [slice(0, rollouts // 2), slice(rollouts // 2, None)]
        a, b = ([p["outcome"] for r in subset for p in gaps(r, half)] for half in halves)
        r = np.corrcoef(a, b)[0, 1] if len(a) >= 3 else float("nan")
        return float(2 * r / (1 + r))

    subsets = (("all", records), ("between player actions", [r for r in records if r["between_actions"]]),
               ("within them", [r for r in records if not r["between_actions"]]))
    for name, subset in subsets:
        count = sum(len(r["siblings"]) - 1 for r in subset)
        if count < 3:
            out.append(f"| {name} | {count} | | | | | |")
            continue
        out.append(f"| {name} | {count} | {cell(subset, lambda p: _correlation(p, 'search', 'outcome'))} "
                   f"| {cell(subset, lambda p: _correlation(p, 'leaf', 'outcome'))} "
                   f"| {cell(subset, lambda p: _agreement(p, 'search', floor))} "
                   f"| {cell(subset, lambda p: _agreement(p, 'leaf', floor))} | {reliability(subset):.2f} |")
    def gap_cell(subset: List[dict], keep: Callable[[Dict[str, float]], bool]) -> str:
        # The outcome's mean gap over the pairs `keep` selects, with its interval by game.
        return "{:+.4f} ({:+.4f} to {:+.4f})".format(*by_game_interval(subset, _mean_outcome(keep)))

    # How far apart the siblings are by each judge (the outcome's true spread is the part of its spread
    # that its reliability says is not the dice), and whether a judge's preference carries information:
    # the outcome's mean gap where it prefers the sibling (better than the first child if so) and where
    # it prefers the first child.
    spreads = ["", "| Pairs | Spread of the gaps (standard deviation): search's | leaf value's | outcome's "
                   "| the outcome's not from the dice |", "|---|---:|---:|---:|---:|"]
    preferences = ["", "| Pairs | Outcome's mean gap where the search prefers the sibling (pairs) | where it prefers "
                       "the first | where the leaf value prefers the sibling (pairs) | where it prefers the first |",
                   "|---|---:|---:|---:|---:|"]
    for name, subset in subsets:
        pairs = [p for r in subset for p in gaps(r)]
        if len(pairs) < 3:
            continue
        spread = {judge: float(np.std([p[judge] for p in pairs])) for judge in ("search", "leaf", "outcome")}
        true = spread["outcome"] * np.sqrt(max(reliability(subset), 0.0))
        spreads.append(f"| {name} | {spread['search']:.4f} | {spread['leaf']:.4f} | {spread['outcome']:.4f} "
                       f"| {true:.4f} |")
        cells = []
        for judge in ("search", "leaf"):
            count = sum(p[judge] > 0 for p in pairs)
            cells += [gap_cell(subset, lambda p, judge=judge: p[judge] > 0) + f" ({count})",
                      gap_cell(subset, lambda p, judge=judge: p[judge] <= 0)]
        preferences.append(f"| {name} | " + " | ".join(cells) + " |")
    out += spreads + preferences
    # What a margin on the search's gap would keep: the outcome's mean gap by how far the search's
    # mean value puts the sibling above the first child (the default asks 0.02 on this board).
    bins = [(-np.inf, 0.0), (0.0, 0.01), (0.01, 0.02), (0.02, np.inf)]
    names = ["below 0", "0 to 0.01", "0.01 to 0.02", "0.02 or more"]
    out += ["", "| Pairs | " + " | ".join(f"Outcome's mean gap where the search's gap is {n} (pairs)" for n in names)
            + " |", "|---|" + "---:|" * len(bins)]
    for name, subset in subsets:
        pairs = [p for r in subset for p in gaps(r)]
        if len(pairs) < 3:
            continue
        cells = []
        for low, high in bins:
            count = sum(low <= p["search"] < high for p in pairs)
            cells.append(gap_cell(subset, lambda p, low=low, high=high: low <= p["search"] < high) + f" ({count})")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def pair_arrays(records: List[dict]) -> tuple:
    """Each (sibling, first child) pair's means over its replays: the leaf value's gap, the leaf
    features' gap, the outcome's gap, and its game's index."""
    keys = sorted({r["key"] for r in records})
    leaf, delta, outcome, game = [], [], [], []
    for record in records:
        first, *others = record["siblings"]
        first_x = np.mean([r["leaf_features"] for r in first["replays"]], axis=0)
        for other, gap in zip(others, gaps(record)):
            leaf.append(gap["leaf"])
            delta.append(np.mean([r["leaf_features"] for r in other["replays"]], axis=0) - first_x)
            outcome.append(gap["outcome"])
            game.append(keys.index(record["key"]))
    return np.array(leaf), np.array(delta), np.array(outcome), np.array(game)


def ridge_gaps(leaf: np.ndarray, delta: np.ndarray, outcome: np.ndarray, l2: Optional[float]) -> tuple:
    """Weights of outcome gap ~ a * leaf value's gap + c . features' gap (scaled by their spread),
    a ridge penalty `l2` on c; `l2=None`: a alone (the shipped value's gaps rescaled)."""
    scale = delta.std(0) + 1e-9
    design = leaf[:, None] if l2 is None else np.hstack([leaf[:, None], delta / scale])
    penalty = np.zeros(design.shape[1])
    penalty[1:] = 0.0 if l2 is None else l2 * len(outcome)
    weights = np.linalg.solve(design.T @ design + np.diag(penalty + 1e-9), design.T @ outcome)
    return weights, scale


def predict_gaps(weights: np.ndarray, scale: np.ndarray, leaf: np.ndarray, delta: np.ndarray) -> np.ndarray:
    design = leaf[:, None] if len(weights) == 1 else np.hstack([leaf[:, None], delta / scale])
    return design @ weights


def fit_report(path: Path, folds: int = 5, l2s: Sequence[float] = (1.0, 0.1, 0.01), seed: int = 0) -> str:
    """Do the leaf features say more about a sibling's outcome than the leaf value does? Each pair's
    outcome gap predicted from other games (folds by game): by the leaf value's gap rescaled, and by it
    with the features' gaps (ridge); the mean squared error of each, less that of predicting no gap,
    with 95% bootstrap intervals by game."""
    leaf, delta, outcome, game = pair_arrays(read_records(path)[1])
    count = len(np.unique(game))
    if count < folds:
        return f"{path}: {count} games with recorded pairs, fewer than the {folds} folds"
    fold_of = np.random.RandomState(seed).permutation(count) % folds
    rows = {}
    for name, l2 in [("leaf value's gap, rescaled", None)] + [(f"with the features' gaps, L2 {l2:g}", l2)
                                                              for l2 in l2s]:
        predicted = np.zeros(len(outcome))
        for fold in range(folds):
            held = fold_of[game] == fold
            weights, scale = ridge_gaps(leaf[~held], delta[~held], outcome[~held], l2)
            predicted[held] = predict_gaps(weights, scale, leaf[held], delta[held])
        rows[name] = predicted
    errors = {name: np.bincount(game, (p - outcome) ** 2, count) for name, p in rows.items()}
    none = np.bincount(game, outcome ** 2, count)
    sizes = np.bincount(game, minlength=count).astype(float)
    out = [f"{count} games, {len(outcome)} sibling pairs, {folds} folds by game", "",
           "| Outcome's gap predicted by | Mean squared error | Less predicting no gap, 95% bootstrap by game |",
           "|---|---:|---:|",
           f"| no gap | {none.sum() / sizes.sum():.6f} | |"]
    for name, error in errors.items():
        gain, low, high = training.difference_by_game(error, none, sizes, seed=seed)
        out.append(f"| {name} | {error.sum() / sizes.sum():.6f} | {gain:+.6f} ({low:+.6f} to {high:+.6f}) |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="default")
    parser.add_argument("--board", type=int, default=11, choices=[1, 3, 5, 7, 11], help="players a side")
    parser.add_argument("--iterations", type=int, default=120)
    parser.add_argument("--games", type=int, default=2, help="games to play, home and away in turn")
    parser.add_argument("--first-game", type=int, default=0, help="the index of the first (to split a run)")
    parser.add_argument("--share", type=float, default=0.2, help="the share of searched decisions recorded")
    parser.add_argument("--siblings", type=int, default=3, help="children replayed per decision, the first included")
    parser.add_argument("--min-visits", type=int, default=4, help="visits a child other than the first needs")
    parser.add_argument("--rollouts", type=int, default=4, help="paired replays of each child (2 or more)")
    parser.add_argument("--decisions", default="all", choices=["all", "within", "between"],
                        help="the decisions recorded: all, those within a player's action, or those between them")
    parser.add_argument("--seed", type=int, default=56000)
    parser.add_argument("--workers", type=int, default=1, help="games played at once")
    parser.add_argument("--backend", default="local", choices=["local", "ray"])
    parser.add_argument("--ray-address", help="with --backend ray: a cluster's address (none: a local Ray)")
    parser.add_argument("--out", type=Path, required=True,
                        help="a JSON-lines file, one game a line; a rerun plays only the games not in it")
    parser.add_argument("--report", action="store_true", help="only print the report of --out")
    parser.add_argument("--fit", action="store_true",
                        help="only print whether the leaf features predict the outcomes' gaps beyond the leaf value")
    parser.add_argument("--folds", type=int, default=5, help="with --fit: folds by game")
    args = parser.parse_args()
    if args.report or args.fit:
        print(report(args.out) if args.report else fit_report(args.out, args.folds))
        return
    get_preset(args.preset)
    if not 0.0 < args.share <= 1.0:
        parser.error(f"--share {args.share}: a share of decisions above 0 and at most 1")
    if args.siblings < 2:
        parser.error(f"--siblings {args.siblings}: at least 2 (the first child and one other)")
    if args.rollouts < 2:
        parser.error(f"--rollouts {args.rollouts}: at least 2 (the report halves them)")
    specs = [GameSpec(args.preset, args.iterations, ("home", "away")[i % 2], args.seed + i, args.share,
                      args.siblings, args.min_visits, args.rollouts, args.board, args.decisions)
             for i in range(args.first_game, args.first_game + args.games)]
    play_missing(specs, play_game, args.out, workers=args.workers, backend=args.backend, ray_address=args.ray_address,
                 postfix=lambda games: f"{sum(len(g['records']) for g in games)} decisions replayed")
    print(report(args.out))


if __name__ == "__main__":
    main()
