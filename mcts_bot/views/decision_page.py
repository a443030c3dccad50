"""A decision as one self-contained HTML page: the board, the chosen action drawn on it, and the search tree.

The XML of `render.to_xml` is for reading and diffing; this page is for looking: where the players
and the ball stand, which actions the search tried, how often and what each was worth. The page
needs no network (inline CSS, SVG and a few lines of JavaScript, system fonts) and is built with
ElementTree, so every name from the game is escaped.

The tree is a list of nested `<details>`: each action tried (a ChanceNode) with its visits, its
share of its parent's visits, its mean value for the searching team, its prior when the search
has one, and its random outcomes (ActionNodes), best first as in the XML. Pointing at one of the
root's actions draws it on the board beside the chosen one.

`DecisionPages(folder)` is an `on_decision` hook for `MCTSBot` writing one page per decision and
an index.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple, Union

import botbowl
from botbowl.core import Action

from mcts_bot.core.nodes import ActionNode, ChanceNode, describe_action
from mcts_bot.core.policies import most_visited
from mcts_bot.core.search import SearchResult, SearchStats
from mcts_bot.views import board_svg
from mcts_bot.views.board_svg import sub_element as _sub
from mcts_bot.views.tree_xml import best_first_key

DEFAULT_MAX_DEPTH = 3

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 16px 24px; color: #222;
       background: #fafafa; }
h1 { font-size: 1.35em; margin: 0 0 6px; } h2 { font-size: 1.1em; margin: 18px 0 6px; }
nav a { margin-right: 12px; }
.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 8px 0; font-size: 0.92em; }
.facts dt { color: #666; } .facts dd { margin: 0; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 50%; vertical-align: -0.05em;
          margin-right: 3px; }
.swatch.home { background: #1f5fbf; } .swatch.away { background: #c0392b; }
.board-panel { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
svg.board { border-radius: 4px; max-width: 100%; height: auto; }
.square { stroke: #2e6b2e; stroke-width: 0.6; fill: #4f9a4f; }
.square.wing { fill: #4a924a; }
.square.endzone { fill: #3a7d3a; } .square.crowd { fill: #6b6b6b; stroke: #6b6b6b; }
.lines line { stroke: #f4f4f4; stroke-width: 1.6; }
.coordinates text { font-size: 10px; fill: #e6e6e6; text-anchor: middle; }
.player .token { stroke: #fff; stroke-width: 1.5; }
.player.used { opacity: 0.5; }
.player .nr { font-size: 12px; font-weight: bold; fill: #fff; text-anchor: middle; pointer-events: none; }
.player .active-ring { fill: none; stroke: #ffd400; stroke-width: 2.5; }
.stunned-mark { font-size: 12px; fill: #ffd400; }
.tackle-zone-count { font-size: 8px; fill: #fff; text-anchor: middle; }
.action-overlay .move-path { fill: none; stroke-width: 3; stroke-linejoin: round; stroke-dasharray: 5 3; }
.action-overlay .arrow { stroke-width: 3.5; }
.action-overlay .path-step { stroke: #222; stroke-width: 0.8; }
.action-overlay .target, .action-overlay .player-ring { fill: none; stroke-width: 3; }
.action-overlay .probability, .action-overlay .action-name { font-size: 11px; font-weight: bold; text-anchor: middle;
                                                             paint-order: stroke; stroke: #222; stroke-width: 3px; }
.chosen .move-path, .chosen .arrow, .chosen .target, .chosen .player-ring { stroke: #ffd400; }
.chosen .path-step, .chosen .probability, .chosen .action-name { fill: #ffd400; }
.alternative .move-path, .alternative .arrow, .alternative .target, .alternative .player-ring { stroke: #fff; }
.alternative .path-step, .alternative .probability, .alternative .action-name { fill: #fff; }
.legend { font-size: 0.88em; line-height: 1.6; max-width: 34em; }
.legend label { display: block; }
.chosen-text { background: #fff7c2; padding: 2px 6px; border-radius: 3px; }
#tree { font-size: 0.9em; }
#tree ul { list-style: none; margin: 0; padding-left: 22px; border-left: 1px dotted #bbb; }
#tree > ul { padding-left: 0; border-left: none; }
#tree li { margin: 1px 0; }
#tree summary { cursor: pointer; padding: 1px 4px; border-radius: 3px; white-space: nowrap; }
#tree summary:hover { background: #e8eef8; }
#tree details.empty > summary { list-style: none; cursor: default; }
#tree details.empty > summary::-webkit-details-marker { display: none; }
#tree details.empty > summary::before { content: "\\2022  "; color: #aaa; }
#tree .chosen > summary { background: #fff7c2; }
.bar { display: inline-block; width: 70px; height: 9px; background: #e3e3e3; vertical-align: middle;
       margin-right: 6px; border-radius: 2px; overflow: hidden; }
.bar .fill { display: block; height: 100%; background: #5b8def; }
.opponent .bar .fill { background: #e0796b; }
.label { font-family: ui-monospace, "DejaVu Sans Mono", monospace; margin-right: 8px; }
.stat { color: #444; margin-right: 10px; }
.value { font-variant-numeric: tabular-nums; }
.badge { font-size: 0.8em; background: #ffd400; border-radius: 3px; padding: 0 4px; margin-right: 6px; }
.then, .more { color: #777; font-style: italic; }
.terminal { color: #8a2be2; }
table.index { border-collapse: collapse; font-size: 0.9em; }
table.index th, table.index td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: left; }
table.index td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""

SCRIPT = """
(function () {
  function show(id, on) { var g = document.getElementById(id); if (g) { g.style.display = on ? 'inline' : 'none'; } }
  document.querySelectorAll('[data-overlay]').forEach(function (row) {
    row.addEventListener('mouseenter', function () { show(row.dataset.overlay, true); });
    row.addEventListener('mouseleave', function () { show(row.dataset.overlay, false); });
  });
  document.querySelectorAll('input[data-show]').forEach(function (box) {
    box.addEventListener('change', function () {
      document.querySelectorAll(box.dataset.show).forEach(function (g) {
        g.style.display = box.checked ? 'inline' : 'none';
      });
    });
  });
  function openAll(open) {
    document.querySelectorAll('#tree details:not(.empty)').forEach(function (d) { d.open = open; });
  }
  document.getElementById('expand-all').addEventListener('click', function () { openAll(true); });
  document.getElementById('collapse-all').addEventListener('click', function () { openAll(false); });
})();
"""


def _same_action(a: Action, b: Action) -> bool:
    """The same choice, also across game copies (players by id, squares by coordinates)."""
    if a is b:
        return True
    return (a.action_type == b.action_type
            and (a.player.player_id if a.player is not None else None)
            == (b.player.player_id if b.player is not None else None)
            and (None if a.position is None else (a.position.x, a.position.y))
            == (None if b.position is None else (b.position.x, b.position.y)))


def _describe(game: botbowl.Game, action: Action) -> str:
    """`describe_action`, plus who acts when the action names only a square (MOVE (4,2) by #3 Lineman)."""
    text = describe_action(action)
    if action.player is None and action.position is not None:
        player = board_svg.acting_player(game, action)
        if player is not None:
            text += f" by #{player.nr} {player.role.name}"
    return text


class _TreeWriter:
    """Writes the tree as nested lists; each node gets an id (`n1`, `n2`, ...), so `page.html#n12` links to it."""

    def __init__(self, game: botbowl.Game, searching_team: botbowl.Team, chosen: Optional[ChanceNode],
                 max_depth: Optional[int]):
        self.game = game
        self.chosen = chosen
        self.max_depth = max_depth
        opponent = game.get_opp_team(searching_team)
        self.sides = {False: board_svg.side_name(game, searching_team), True: board_svg.side_name(game, opponent)}
        self.count = 0

    def _id(self) -> str:
        self.count += 1
        return f"n{self.count}"

    def children(self, parent: ET.Element, node: ActionNode, depth: int, overlays: Sequence[str] = ()) -> None:
        """`node`'s actions tried, best first, into the list `parent`; `overlays` names their board drawings."""
        if self.max_depth is not None and depth >= self.max_depth:
            if node.children:
                _sub(parent, "li", {"class": "more"},
                     f"{len(node.children)} action{'s' if len(node.children) != 1 else ''} tried below "
                     f"(deeper than the depth shown, {self.max_depth})")
            return
        overlay_of = dict(zip((id(c) for c in node.children), overlays))
        for child in sorted(node.children, key=best_first_key):
            self.chance(_sub(parent, "li"), child, node.visits, depth, overlay_of.get(id(child)))

    def chance(self, item: ET.Element, node: ChanceNode, parent_visits: int, depth: int,
               overlay: Optional[str]) -> None:
        outcomes = sorted(node.outcomes.values(), key=lambda n: -n.visits)
        below = ET.Element("ul", {"class": "children"})
        if len(outcomes) == 1:
            self.then(below, outcomes[0])
            self.children(below, outcomes[0], depth + 1)
        else:
            for i, outcome in enumerate(outcomes, 1):
                self.outcome(_sub(below, "li"), outcome, i, len(outcomes), node.visits, depth + 1)
        classes = ["node", "chance", "opponent" if node.is_opponent else "own"]
        if node is self.chosen:
            classes.append("chosen")
        if not len(below):
            classes.append("empty")
        details = _sub(item, "details", {"class": " ".join(classes), "id": self._id(),
                                         "data-visits": node.visits, "data-action": node.action.action_type.name})
        summary = _sub(details, "summary", {"data-overlay": overlay} if overlay else None)
        self._bar(summary, node.visits, parent_visits)
        if node is self.chosen:
            _sub(summary, "span", {"class": "badge"}, "chosen")
        self._side(summary, node.is_opponent)
        _sub(summary, "span", {"class": "label"}, _describe(self.game, node.action) if depth == 0
             else describe_action(node.action))
        self._stats(summary, node.visits, parent_visits, node.value)
        prior = getattr(node, "prior", None)
        if prior is not None:
            _sub(summary, "span", {"class": "stat prior"}, f"prior {prior:.3f}")
        if len(outcomes) > 1:
            _sub(summary, "span", {"class": "stat outcomes"}, f"{len(outcomes)} outcomes")
        if len(below):
            details.append(below)

    def then(self, parent: ET.Element, node: ActionNode) -> None:
        """The one outcome of an action, folded into it: who chooses next, or that the game ended."""
        _sub(parent, "li", {"class": "then"}, "then " + self._state(node))

    def outcome(self, item: ET.Element, node: ActionNode, index: int, total: int, parent_visits: int,
                depth: int) -> None:
        below = ET.Element("ul", {"class": "children"})
        self.children(below, node, depth)
        classes = ["node", "outcome", "opponent" if node.is_opponent else "own"] + ([] if len(below) else ["empty"])
        details = _sub(item, "details", {"class": " ".join(classes), "id": self._id(), "data-visits": node.visits})
        summary = _sub(details, "summary")
        self._bar(summary, node.visits, parent_visits)
        _sub(summary, "span", {"class": "label"}, f"outcome {index} of {total}")
        _sub(summary, "span", {"class": "stat"}, self._state(node))
        if len(below):
            details.append(below)

    def _state(self, node: ActionNode) -> str:
        share = f"{node.visits} visits, value {node.value:.3f}"
        if node.terminal:
            return f"the game is over ({share})"
        if not node.actions:
            return f"nothing to choose ({share})"
        return (f"{self.sides[node.is_opponent]} chooses: {share}, "
                f"{len(node.children)} of {len(node.actions)} actions tried")

    def _bar(self, summary: ET.Element, visits: int, parent_visits: int) -> None:
        share = visits / parent_visits if parent_visits else 0.0
        bar = _sub(summary, "span", {"class": "bar", "title": f"{100 * share:.0f}% of the visits"})
        _sub(bar, "span", {"class": "fill", "style": f"width:{100 * share:.1f}%"})

    def _side(self, summary: ET.Element, is_opponent: bool) -> None:
        side = self.sides[is_opponent]
        _sub(summary, "span", {"class": f"swatch {side}", "title": f"{side} chooses"})

    def _stats(self, summary: ET.Element, visits: int, parent_visits: int, value: float) -> None:
        share = f" ({100 * visits / parent_visits:.0f}%)" if parent_visits else ""
        _sub(summary, "span", {"class": "stat visits"}, f"{visits} visits{share}")
        _sub(summary, "span", {"class": "stat value"}, f"value {value:.3f}")


def _facts(parent: ET.Element, rows: Sequence[Tuple[str, Union[str, ET.Element]]]) -> None:
    facts = _sub(parent, "dl", {"class": "facts"})
    for name, value in rows:
        _sub(facts, "dt", text=name)
        cell = _sub(facts, "dd")
        if isinstance(value, ET.Element):
            cell.append(value)
        else:
            cell.text = value


def _team_text(game: botbowl.Game, team: Optional[botbowl.Team]) -> ET.Element:
    span = ET.Element("span")
    if team is None:
        span.text = "nobody"
        return span
    side = board_svg.side_name(game, team)
    _sub(span, "span", {"class": f"swatch {side}"})
    _sub(span, "span", text=f"{side} ({team.name})")
    return span


def decision_html(game: botbowl.Game, root: ActionNode, *, action: Optional[Action] = None,
                  stats: Optional[SearchStats] = None, max_depth: Optional[int] = DEFAULT_MAX_DEPTH,
                  title: Optional[str] = None, links: Sequence[Tuple[str, str]] = ()) -> str:
    """The page for one decision as an HTML document (see `decision_element` for the arguments)."""
    return _document(decision_element(game, root, action=action, stats=stats, max_depth=max_depth, title=title,
                                      links=links))


def _document(html: ET.Element) -> str:
    return "<!DOCTYPE html>\n" + ET.tostring(html, encoding="unicode", method="html") + "\n"


def decision_element(game: botbowl.Game, root: ActionNode, *, action: Optional[Action] = None,
                     stats: Optional[SearchStats] = None, max_depth: Optional[int] = DEFAULT_MAX_DEPTH,
                     title: Optional[str] = None, links: Sequence[Tuple[str, str]] = ()) -> ET.Element:
    """The page for one decision as an `<html>` element: `game` as it stands at the decision, `root` the
    search's tree.

    Args:
        action: the action chosen (default: the root's most visited child's); drawn on the board.
        stats: the search's statistics, shown in the header when given.
        max_depth: decisions (ActionNode levels) below the root shown in the tree, as in `to_xml`;
            None shows the whole tree.
        title: the page's title (default: "Decision: <action>").
        links: (text, href) pairs shown at the top, e.g. to an index or the previous decision.
    """
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be None or at least 0, got {max_depth}")
    if action is None and root.children:
        action = most_visited(root).action
    chosen = next((c for c in root.children if action is not None and _same_action(c.action, action)), None)
    searching_team = game.active_team
    if searching_team is None:
        raise ValueError("nobody is to act in this game state: pass the game as it stood at the decision")
    if root.is_opponent:
        searching_team = game.get_opp_team(searching_team)
    heading = title or (f"Decision: {_describe(game, action)}" if action is not None else "Decision")

    html = ET.Element("html", {"lang": "en"})
    head = _sub(html, "head")
    _sub(head, "meta", {"charset": "utf-8"})
    _sub(head, "title", text=heading)
    _sub(head, "style", text=STYLE)
    body = _sub(html, "body")
    if links:
        nav = _sub(body, "nav")
        for text, href in links:
            _sub(nav, "a", {"href": href}, text)
    _sub(body, "h1", text=heading)

    svg = board_svg.board_svg(game)
    overlays = []  # the board drawing of each root child, in the order of `root.children`; the chosen one last
    for i, child in enumerate(root.children):
        if child is chosen:
            overlays.append("chosen")
            continue
        element_id = f"alt-{i + 1}"
        drawn_alt = board_svg.add_action(svg, game, child.action, element_id=element_id, chosen=False,
                                         label=_describe(game, child.action))
        overlays.append(element_id if drawn_alt else "")
    drawn = None
    if action is not None:
        drawn = board_svg.add_action(svg, game, action, element_id="chosen", chosen=True,
                                     label=f"chosen: {_describe(game, action)}")

    state = game.state
    rows: List[Tuple[str, Union[str, ET.Element]]] = [
        ("Board", f"{game.config.pitch_max} players a side, arena {len(game.arena.board[0])} x "
                  f"{len(game.arena.board)} squares with the crowd"),
        ("Half, turns", f"half {state.half}; turn {state.home_team.state.turn} (home), "
                        f"{state.away_team.state.turn} (away)"),
        ("Score", f"home {state.home_team.state.score} - {state.away_team.state.score} away"),
        ("To act", _team_text(game, game.active_team)),
        ("Procedure", type(game.get_procedure()).__name__ if state.stack.items else "none"),
        ("Weather", state.weather.name.replace("_", " ").lower()),
    ]
    if stats is not None:
        rows.append(("Search", str(stats)))
    rows.append(("Root", f"{root.visits} visits, value {root.value:.3f} for "
                         f"{board_svg.side_name(game, searching_team)}, "
                         f"{len(root.children)} of {len(root.actions)} actions tried"))
    if chosen is not None:
        share = f" ({100 * chosen.visits / root.visits:.0f}% of the visits)" if root.visits else ""
        rows.append(("Chosen", f"{chosen.visits} visits{share}, value {chosen.value:.3f}"
                               + (f"; on the board: {drawn}" if drawn else "; nothing to draw on the board")))
    _facts(body, rows)

    panel = _sub(body, "div", {"class": "board-panel"})
    panel.append(svg)
    _legend(panel)

    tree_section = _sub(body, "section", {"id": "tree"})
    _sub(tree_section, "h2", text="Search tree")
    controls = _sub(tree_section, "p")
    _sub(controls, "button", {"id": "expand-all", "type": "button"}, "Expand all")
    _sub(controls, "button", {"id": "collapse-all", "type": "button"}, "Collapse all")
    _sub(controls, "span", {"class": "stat"},
         f" Best first (most visited, then best for the side choosing); values are means for "
         f"{board_svg.side_name(game, searching_team)}, in [0, 1]; "
         f"{'the whole tree' if max_depth is None else f'{max_depth} decision levels'} shown.")
    top = _sub(tree_section, "ul", {"class": "children"})
    _TreeWriter(game, searching_team, chosen, max_depth).children(top, root, 0, overlays)

    _sub(body, "script", text=SCRIPT)
    return html


def _legend(panel: ET.Element) -> None:
    legend = _sub(panel, "div", {"class": "legend"})
    paragraph = _sub(legend, "p")
    for side, text in (("home", "home players, "), ("away", "away players.")):
        _sub(paragraph, "span", {"class": f"swatch {side}"})
        _sub(paragraph, "span", text=text)
    _sub(legend, "p", text="A flattened token lies down, ✶ is stunned, a faded one has acted this turn; the "
                           "yellow ring is the active player, the brown oval the ball. Point at a player for "
                           "its characteristics.")
    _sub(legend, "p", text="Yellow: the chosen action (a path with its chance of success for a move, an arrow for "
                           "a block, pass, hand-off or foul, a ring for the player starting an action). Point at "
                           "one of the root's actions in the tree to draw it in white.")
    for side in ("home", "away"):
        label = _sub(legend, "label")
        _sub(label, "input", {"type": "checkbox", "data-show": f".tackle-zones.{side}"})
        _sub(label, "span", text=f" {side} tackle zones")


@dataclass
class PageEntry:
    """One decision in the index."""

    file: str
    where: str
    team: str
    action: str
    visits: int
    value: float
    iterations: int


class DecisionPages:
    """An `MCTSBot(on_decision=...)` hook writing `decision-0001.html`, ... and an `index.html` into `folder`.

    One page per search: decisions with a single legal action are played without one. The index is
    rewritten after every page, so it is complete whenever the game stops. Writing a page takes the
    bot's own time (it happens before `act` returns): a tool for looking, not for timed play.
    """

    def __init__(self, folder: Union[str, Path], *, max_depth: Optional[int] = 2):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.max_depth = max_depth
        self.entries: List[PageEntry] = []

    def __call__(self, game: botbowl.Game, result: SearchResult, action: Action) -> None:
        number = len(self.entries) + 1
        name = f"decision-{number:04d}.html"
        links = [("index", "index.html")] + ([("previous", self.entries[-1].file)] if self.entries else [])
        page = decision_html(game, result.root, action=action, stats=result.stats, max_depth=self.max_depth,
                             title=f"Decision {number}: {_describe(game, action)}", links=links)
        (self.folder / name).write_text(page, encoding="utf-8")
        chosen = next((c for c in result.root.children if _same_action(c.action, action)), None)
        state = game.state
        turn = game.active_team.state.turn if game.active_team is not None else 0
        self.entries.append(PageEntry(
            file=name, where=f"half {state.half}, turn {turn}", team=board_svg.side_name(game, game.active_team),
            action=_describe(game, action), visits=chosen.visits if chosen is not None else 0,
            value=chosen.value if chosen is not None else 0.5, iterations=result.stats.iterations))
        (self.folder / "index.html").write_text(index_html(self.entries), encoding="utf-8")


def index_html(entries: Sequence[PageEntry], title: str = "Decisions") -> str:
    """A table of the decisions with a link to each page."""
    html = ET.Element("html", {"lang": "en"})
    head = _sub(html, "head")
    _sub(head, "meta", {"charset": "utf-8"})
    _sub(head, "title", text=title)
    _sub(head, "style", text=STYLE)
    body = _sub(html, "body")
    _sub(body, "h1", text=title)
    table = _sub(body, "table", {"class": "index"})
    header = _sub(_sub(table, "thead"), "tr")
    for name in ("#", "when", "team", "chosen", "visits", "value", "iterations"):
        _sub(header, "th", text=name)
    rows = _sub(table, "tbody")
    for number, entry in enumerate(entries, 1):
        row = _sub(rows, "tr")
        _sub(row, "td", {"class": "num"}, str(number))
        _sub(row, "td", text=entry.where)
        team = _sub(row, "td")
        _sub(team, "span", {"class": f"swatch {entry.team}"})
        _sub(team, "span", text=entry.team)
        _sub(_sub(row, "td"), "a", {"href": entry.file}, entry.action)
        _sub(row, "td", {"class": "num"}, str(entry.visits))
        _sub(row, "td", {"class": "num"}, f"{entry.value:.3f}")
        _sub(row, "td", {"class": "num"}, str(entry.iterations))
    return _document(html)
