"""A learned policy: each legal action scored from its features, trained on the search's own choices.

AlphaZero's step beyond a learned value (issue 30): the root's visit counts of many searches are a
better policy than the prior the search started from, so a model fitted to them makes a better
prior for the next searches. The model here is a softmax over one score per action,

    p(a | s) = softmax_a(w . action_features(s, a))   (plus, optionally, a hidden layer: `PolicyModel`),

whose features start with today's knowledge priors (`knowledge_logits` and the rule-based policy's
choice) and add what a coach reads about the action itself: its kind, the path's risk, the ground it
gains, the tackle zones it ends in, the block dice, whether it ends beside our carrier (a guard) or
theirs (a mark, or a block on him), or on the loose ball; and, for a player action's start on the Bot
Bowl board, `grod`'s price of that player's best plan of that kind (`plan_*`), of which the priors
read only the best. `PolicyModel.initial()` sets w so that it is
exactly `knowledge_priors`; training moves w away from there only as far as the data asks (an L2
pull toward the initial weights). A `PolicyModel` is a `Priors` callable: `configure(priors=model)`.

The `policy_choice` feature marks a rule-based policy's choice: the one the search plans with, which
differs with the board (the default's `presets.board_choice`: `grod`'s on 11 players, the scripted
policy's below). A model's `choose` says which; it is not part of the file, so whoever searches or
plays with a model sets it (`with_choice`), as the harness does from the preset it searches with.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import botbowl
import numpy as np
from botbowl.core import Action, ActionType
from botbowl.core.procedure import Turn

from mcts_bot.adapter.boards import on_bot_bowl_board
from mcts_bot.knowledge.features import NUM_FEATURES, features
from mcts_bot.knowledge.grod import START_TYPES, turn_start
from mcts_bot.knowledge.priors import SCRIPTED_BONUS, knowledge_board, knowledge_logits, offered_paths_and_dice
from mcts_bot.knowledge.scripted import scripted_action

KINDS: Dict[ActionType, str] = {
    ActionType.START_MOVE: "start_move", ActionType.START_BLOCK: "start_block",
    ActionType.START_BLITZ: "start_blitz", ActionType.START_PASS: "start_pass",
    ActionType.START_HANDOFF: "start_handoff", ActionType.START_FOUL: "start_foul",
    ActionType.END_PLAYER_TURN: "end_player_turn", ActionType.END_TURN: "end_turn",
    ActionType.MOVE: "move", ActionType.BLOCK: "block", ActionType.PASS: "give_ball",
    ActionType.HANDOFF: "give_ball", ActionType.FOUL: "foul",
    # The decisions between player actions: a deep search disagrees with the priors on them as often
    # as on moves (docs/learning.md), and each kind has its own bias to learn.
    ActionType.SELECT_ATTACKER_DOWN: "die_attacker_down", ActionType.SELECT_BOTH_DOWN: "die_both_down",
    ActionType.SELECT_PUSH: "die_push", ActionType.SELECT_DEFENDER_STUMBLES: "die_defender_stumbles",
    ActionType.SELECT_DEFENDER_DOWN: "die_defender_down",
    ActionType.USE_REROLL: "use_reroll", ActionType.DONT_USE_REROLL: "dont_use_reroll",
    ActionType.USE_SKILL: "use_skill", ActionType.DONT_USE_SKILL: "dont_use_skill",
    ActionType.PUSH: "push", ActionType.FOLLOW_UP: "follow_up", ActionType.PLACE_BALL: "place_ball",
    ActionType.SETUP_FORMATION_WEDGE: "setup_wedge", ActionType.SETUP_FORMATION_LINE: "setup_line",
    ActionType.SETUP_FORMATION_ZONE: "setup_zone", ActionType.SETUP_FORMATION_SPREAD: "setup_spread",
    ActionType.HEADS: "coin", ActionType.TAILS: "coin", ActionType.KICK: "kick", ActionType.RECEIVE: "receive",
}
_KIND_NAMES = sorted(set(KINDS.values())) + ["other"]
ACTION_FEATURE_NAMES: List[str] = (
    ["knowledge_logit", "policy_choice", "path_failure", "carrier", "endzone_gain", "target_tackle_zones",
     "in_tackle_zone", "block_dice", "beside_our_carrier", "beside_their_carrier", "onto_ball",
     "plan_score", "plan_turnover", "plan_none"]
    + [f"kind_{name}" for name in _KIND_NAMES])
NUM_ACTION_FEATURES = len(ACTION_FEATURE_NAMES)
_INDEX = {name: i for i, name in enumerate(ACTION_FEATURE_NAMES)}


_KIND_COLUMN: Dict[ActionType, int] = {t: _INDEX["kind_" + kind] for t, kind in KINDS.items()}
_OTHER_COLUMN = _INDEX["kind_other"]
_BLOCKS = (ActionType.BLOCK, ActionType.STAB)
_FACT_COLUMNS = [_INDEX[name] for name in ("carrier", "in_tackle_zone", "path_failure", "endzone_gain",
                                           "target_tackle_zones", "block_dice", "beside_our_carrier",
                                           "beside_their_carrier", "onto_ball")]
PLAN_COLUMNS = [_INDEX[name] for name in ("plan_score", "plan_turnover", "plan_none")]  # 0 off the Bot Bowl board
PLAN_SCALE = 10.0  # grod's plan scores (a touchdown is 100) through tanh(score / this): most fall within +-20
_STARTS = frozenset(START_TYPES)


def _plan_facts(game: botbowl.Game, actions: Sequence[Action]) -> Optional[Tuple[List[int], List[tuple]]]:
    """For each START_* action of a turn's decision between player actions on the Bot Bowl board, what
    `grod` (the default's knowledge there: mended, exposure, own frame) prices the player's best plan
    of that kind at: (rows, (tanh(score / PLAN_SCALE), its turnover chance, 0)), or (0, 0, 1) when it
    has none; None when no action starts one, or on a smaller board (whose choice is the scripted
    policy's: pricing every plan there would cost what the choice does not). The priors carry `grod`'s
    first choice alone: a deep search often plays another plan first (a block before a move), and
    which depends on how close their prices are."""
    rows = [i for i, a in enumerate(actions) if a.action_type in _STARTS and a.player is not None]
    team = game.active_team
    if not rows or team is None or not on_bot_bowl_board(game) or not isinstance(game.get_procedure(), Turn):
        return None
    prices = turn_start(game, team, mended=True, exposure=True, own_frame=True).prices
    facts = []
    for i in rows:
        price = prices.get((actions[i].player.player_id, actions[i].action_type))
        facts.append((0.0, 0.0, 1.0) if price is None else (math.tanh(price[0] / PLAN_SCALE), price[1], 0.0))
    return rows, facts


def action_features(game: botbowl.Game, actions: Sequence[Action], choose=scripted_action) -> np.ndarray:
    """One row of `ACTION_FEATURE_NAMES` per action of the state `game` is in, from the acting team's view."""
    x = np.zeros((len(actions), NUM_ACTION_FEATURES))
    if not actions:
        return x
    board = knowledge_board(game)
    paths, dice = offered_paths_and_dice(game)
    logits, chosen = knowledge_logits(game, list(actions), choose, board, paths)
    x[:, _INDEX["knowledge_logit"]] = logits
    if chosen is not None:
        x[chosen, _INDEX["policy_choice"]] = 1.0
    team = game.active_team
    active = game.state.active_player
    ours = board.our_carrier if board is not None and board.our_carrier is not None \
        and board.our_carrier.position is not None else None
    theirs = board.their_carrier if board is not None and board.their_carrier is not None \
        and board.their_carrier.position is not None else None
    # A state's actions share few types and players (a move's every square, one player): each is
    # looked up once. This runs at every node the search expands, as often as the priors.
    kinds = []
    last_type, column = None, _OTHER_COLUMN
    players: Dict[int, Optional[tuple]] = {}
    facts_rows, fact_index = [], []  # one row of _FACT_COLUMNS per action of one of the team's players
    for row, action in enumerate(actions):
        action_type = action.action_type
        if action_type is not last_type:
            last_type, column = action_type, _KIND_COLUMN.get(action_type, _OTHER_COLUMN)
        kinds.append(column)
        player = action.player if action.player is not None else active
        if board is None or player is None:
            continue
        facts = players.get(id(player), False)
        if facts is False:
            facts = None
            if player.position is not None and player.team == team:
                facts = (float(player is board.our_carrier), min(board.tackle_zones.at(player.position), 4) / 4.0,
                         board.to_endzone(player.position), max(1, player.get_ma()))
            players[id(player)] = facts
        if facts is None:
            continue
        fact_index.append(row)
        target = action.position
        if target is None:
            facts_rows.append((facts[0], facts[1], 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
            continue
        key = (action_type, target.x, target.y)
        path = paths.get(key)
        failure = 1.0 - (path.prob if path is not None else 1.0)
        if action_type is ActionType.MOVE:
            facts_rows.append((facts[0], facts[1], failure, (facts[2] - board.to_endzone(target)) / facts[3],
                               min(board.tackle_zones.at(target), 4) / 4.0, 0.0,
                               float(ours is not None and ours is not player and ours.position.distance(target) == 1),
                               float(theirs is not None and theirs.position.distance(target) == 1),
                               float(board.ball is not None and board.ball == target)))
        elif action_type in _BLOCKS:
            count = dice.get(key, path.block_dice if path is not None else None)
            facts_rows.append((facts[0], facts[1], failure, 0.0, 0.0,
                               0.0 if count is None else max(-3, min(3, count)) / 3.0, 0.0,
                               float(theirs is not None and theirs.position == target), 0.0))
        else:
            facts_rows.append((facts[0], facts[1], failure, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    x[np.arange(len(actions)), kinds] = 1.0
    if facts_rows:
        x[np.ix_(fact_index, _FACT_COLUMNS)] = facts_rows
    plans = _plan_facts(game, actions)
    if plans is not None:
        x[np.ix_(plans[0], PLAN_COLUMNS)] = plans[1]
    return x


def softmax_by_state(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Softmax of `scores` within each state's slice `offsets[i]:offsets[i + 1]`."""
    starts = offsets[:-1]
    top = np.maximum.reduceat(scores, starts)
    sizes = np.diff(offsets)
    e = np.exp(scores - np.repeat(top, sizes))
    return e / np.repeat(np.add.reduceat(e, starts), sizes)


def rows_of(states: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each decision's state features repeated on the rows of its actions."""
    return np.repeat(states, np.diff(offsets), axis=0)


@dataclass
class PolicyModel:
    """p(a | s) = softmax over the state's actions of score(action_features(s, a)), where the score is
    linear, `weights . x`, plus, with a hidden layer (U, c, v), `v . relu(U [x, s] + c)`: the same facts
    combined (a move beside our carrier when it is the carrier's own, say), and with context (U as
    wide as the action and the state features, `knowledge.features`) combined with the state (the
    score, the time left, whose ball). With v = 0 it is the linear model, so a fit with a hidden
    layer starts from generation 0 too."""

    weights: np.ndarray
    info: Dict[str, str] = field(default_factory=dict)  # how it was trained: data, generation, scores
    # The rule-based choice `policy_choice` marks (see the module doc); not saved with the weights.
    choose: Callable[[botbowl.Game], Action] = field(default=scripted_action, compare=False)
    hidden: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default=None, compare=False)  # (U, c, v)

    def __post_init__(self) -> None:
        self.weights = np.asarray(self.weights, dtype=float)
        if self.weights.shape != (NUM_ACTION_FEATURES,):
            raise ValueError(f"a policy needs {NUM_ACTION_FEATURES} weights ({', '.join(ACTION_FEATURE_NAMES)}), "
                             f"got shape {self.weights.shape}: train it again on data of this version")
        if self.hidden is not None:
            u, c, v = (np.asarray(part, dtype=float) for part in self.hidden)
            widths = (NUM_ACTION_FEATURES, NUM_ACTION_FEATURES + NUM_FEATURES)
            if u.ndim != 2 or u.shape[1] not in widths or c.shape != (len(u),) or v.shape != (len(u),):
                raise ValueError(f"a hidden layer is (U, c, v) of shapes (H, {' or '.join(map(str, widths))}), (H,), "
                                 f"(H,): got {u.shape}, {c.shape}, {v.shape}")
            self.hidden = (u, c, v)

    @property
    def context(self) -> bool:
        """Whether its hidden layer reads the state's features too."""
        return self.hidden is not None and self.hidden[0].shape[1] > NUM_ACTION_FEATURES

    @classmethod
    def initial(cls) -> "PolicyModel":
        """The model that plays today's `knowledge_priors`: generation 0."""
        weights = np.zeros(NUM_ACTION_FEATURES)
        weights[_INDEX["knowledge_logit"]] = 1.0
        weights[_INDEX["policy_choice"]] = SCRIPTED_BONUS
        return cls(weights, {"generation": "0", "trained_on": "nothing: the knowledge priors"})

    def with_choice(self, choose: Callable[[botbowl.Game], Action]) -> "PolicyModel":
        """This model reading `choose`'s choice as its `policy_choice` feature."""
        return dataclasses.replace(self, choose=choose)

    def scores(self, x: np.ndarray, state_rows: Optional[np.ndarray] = None) -> np.ndarray:
        """Each action's score (a row of `x`; `state_rows`: its state's features, for a model with
        context), before the softmax."""
        scores = x @ self.weights
        if self.hidden is not None:
            u, c, v = self.hidden
            if self.context:
                if state_rows is None:
                    raise ValueError("this policy reads the state's features too: give them (state_rows)")
                x = np.hstack([x, state_rows])
            scores = scores + np.maximum(x @ u.T + c, 0.0) @ v
        return scores

    def probabilities(self, x: np.ndarray, offsets: Optional[np.ndarray] = None,
                      states: Optional[np.ndarray] = None) -> np.ndarray:
        """The policy over each state's actions (rows of `x`; one state unless `offsets` are given;
        `states`: one row of state features per state, for a model with context)."""
        offsets = np.array([0, len(x)]) if offsets is None else offsets
        state_rows = rows_of(np.atleast_2d(states), offsets) if states is not None else None
        return softmax_by_state(self.scores(x, state_rows), offsets)

    def __call__(self, game: botbowl.Game, actions: List[Action]) -> List[float]:
        """The `Priors` signature: a probability per action."""
        if not actions:
            return []
        x = action_features(game, actions, self.choose)
        state_rows = None
        if self.context:
            team = game.active_team
            state = features(game, team) if team is not None else np.zeros(NUM_FEATURES)
            state_rows = np.broadcast_to(state, (len(x), NUM_FEATURES))
        scores = self.scores(x, state_rows)
        e = np.exp(scores - scores.max())  # one state: a plain softmax, cheaper than softmax_by_state's
        return (e / e.sum()).tolist()

    def save(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        hidden = dict(zip(("hidden_in", "hidden_bias", "hidden_out"), self.hidden)) if self.hidden is not None else {}
        np.savez(path, weights=self.weights, names=np.array(ACTION_FEATURE_NAMES), **hidden,
                 info_keys=np.array(list(self.info)), info_values=np.array(list(self.info.values())))

    @classmethod
    def load(cls, path: Path) -> "PolicyModel":
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no policy model at {path}: train one with scripts/run.sh train_policy")
        with np.load(path) as data:
            names = [str(n) for n in data["names"]]
            if names != ACTION_FEATURE_NAMES:
                raise ValueError(f"{path} was trained on other action features ({len(names)}): train it again")
            info = dict(zip((str(k) for k in data["info_keys"]), (str(v) for v in data["info_values"])))
            hidden = tuple(data[k] for k in ("hidden_in", "hidden_bias", "hidden_out")) \
                if "hidden_in" in data.files else None
            return cls(data["weights"], info, hidden=hidden)


def cross_entropy(model: PolicyModel, x: np.ndarray, target: np.ndarray, offsets: np.ndarray,
                  states: Optional[np.ndarray] = None) -> float:
    """Mean over states of -sum_a target(a) log p(a): the search's distribution against the model's."""
    p = model.probabilities(x, offsets, states)
    return float(-np.sum(target * np.log(np.maximum(p, 1e-12))) / (len(offsets) - 1))


def top_choice_agreement(model: PolicyModel, x: np.ndarray, target: np.ndarray, offsets: np.ndarray,
                         states: Optional[np.ndarray] = None) -> float:
    """The share of states where the model's likeliest action is the target's likeliest (the first of
    equals in both): what matters when the search plays its priors' first choice unless overruled."""
    scores = model.scores(x, rows_of(states, offsets) if states is not None else None)
    agree = [np.argmax(scores[a:b]) == np.argmax(target[a:b]) for a, b in zip(offsets[:-1], offsets[1:])]
    return float(np.mean(agree)) if agree else float("nan")


def fit_policy(x: np.ndarray, target: np.ndarray, offsets: np.ndarray, start: Optional[PolicyModel] = None,
               l2: float = 0.01, steps: int = 300, learning_rate: Optional[float] = None, hidden: int = 0,
               states: Optional[np.ndarray] = None, seed: int = 0) -> Tuple[PolicyModel, List[float]]:
    """Fit the model to the targets by cross-entropy (full-batch Adam), its linear weights pulled
    toward `start`'s (default: the knowledge priors) by `l2`, a hidden layer of `hidden` units (if
    any, drawn from `seed` with v = 0, so the fit starts at `start`) toward 0; with `states` (one row
    of state features per decision) the hidden layer reads them too. Adam's step is `learning_rate`
    (default 0.05, 0.01 with a hidden layer: larger steps leave its units dead). Returns the model and
    the loss before each step."""
    start = start or PolicyModel.initial()
    learning_rate = learning_rate or (0.01 if hidden else 0.05)
    decisions = len(offsets) - 1
    if decisions < 1 or len(x) != offsets[-1] or target.shape != (len(x),):
        raise ValueError("fit_policy needs rows of x and targets for each state's actions, and offsets that slice them")
    if states is not None and (not hidden or states.shape != (decisions, NUM_FEATURES)):
        raise ValueError(f"states are read by a hidden layer: give hidden units and one row of {NUM_FEATURES} "
                         f"state features per decision")
    inputs = np.hstack([x, rows_of(states, offsets)]) if states is not None else x
    w0 = start.weights.copy()
    params = {"w": w0.copy()}
    if hidden:
        rng = np.random.RandomState(seed)
        params.update(u=rng.normal(0.0, 1.0 / np.sqrt(inputs.shape[1]), (hidden, inputs.shape[1])),
                      c=np.zeros(hidden), v=np.zeros(hidden))
    moments = {name: (np.zeros_like(p), np.zeros_like(p)) for name, p in params.items()}
    losses = []
    for step in range(1, steps + 1):
        scores = x @ params["w"]
        if hidden:
            pre = inputs @ params["u"].T + params["c"]
            h = np.maximum(pre, 0.0)
            scores = scores + h @ params["v"]
        p = softmax_by_state(scores, offsets)
        penalty = np.sum((params["w"] - w0) ** 2) + sum(np.sum(params[k] ** 2) for k in ("u", "v") if k in params)
        losses.append(float(-np.sum(target * np.log(np.maximum(p, 1e-12))) / decisions + l2 * penalty))
        # The mean cross-entropy's gradient by each action's score: (p - target) per state, averaged.
        g = (p - target) / decisions
        grads = {"w": g @ x + 2 * l2 * (params["w"] - w0)}
        if hidden:
            back = (g[:, None] * (pre > 0)) * params["v"]  # by each unit's input, per action
            grads.update(v=g @ h + 2 * l2 * params["v"], u=back.T @ inputs + 2 * l2 * params["u"],
                         c=back.sum(axis=0))
        for name, grad in grads.items():
            m, v = moments[name]
            m, v = 0.9 * m + 0.1 * grad, 0.999 * v + 0.001 * grad ** 2
            moments[name] = (m, v)
            params[name] = params[name] - learning_rate * (m / (1 - 0.9 ** step)) / (
                np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    layer = (params["u"], params["c"], params["v"]) if hidden else None
    return PolicyModel(params["w"], dict(start.info), start.choose, hidden=layer), losses
