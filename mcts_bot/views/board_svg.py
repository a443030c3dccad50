"""The board of a game as inline SVG, and an action drawn on it: what a person looks at to see a decision.

The picture keeps botbowl's coordinates (the crowd border included, x to the right, y down), so a
square in it is the square of the same `(x, y)` in the XML tree and in botbowl. Every element
carries classes and `data-` attributes naming what it shows (`square`, `player home down`,
`ball carried`, `move-path`, ...), so a test or a style sheet can find it.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Dict, Optional, Sequence, Tuple

import botbowl
from botbowl.core import Action, ActionType
from botbowl.core.table import Tile

SQUARE = 30  # units per square in the picture
SHOWN_WIDTH = 720  # pixels the picture is shown at, as far as squares of 30 to 48 pixels allow
HOME_COLOUR = "#1f5fbf"  # botbowl's web UI draws the home team blue and the away team red
AWAY_COLOUR = "#c0392b"

TILE_CLASSES = {
    Tile.CROWD: "crowd",
    Tile.HOME_TOUCHDOWN: "endzone home-endzone", Tile.AWAY_TOUCHDOWN: "endzone away-endzone",
    Tile.HOME_WING_LEFT: "wing", Tile.HOME_WING_RIGHT: "wing", Tile.AWAY_WING_LEFT: "wing",
    Tile.AWAY_WING_RIGHT: "wing", Tile.HOME_SCRIMMAGE: "scrimmage", Tile.AWAY_SCRIMMAGE: "scrimmage",
}
# Actions aimed at a square someone else stands on (or the ball goes to): drawn as an arrow.
ARROW_TYPES = {ActionType.BLOCK, ActionType.PASS, ActionType.HANDOFF, ActionType.FOUL, ActionType.STAB,
               ActionType.HYPNOTIC_GAZE, ActionType.THROW_TEAM_MATE, ActionType.THROW_BOMB,
               ActionType.PICKUP_TEAM_MATE}

Point = Tuple[float, float]


def team_colour(game: botbowl.Game, team: Optional[botbowl.Team]) -> str:
    return HOME_COLOUR if team is not None and team == game.state.home_team else AWAY_COLOUR


def side_name(game: botbowl.Game, team: Optional[botbowl.Team]) -> str:
    return "home" if team is not None and team == game.state.home_team else "away"


def _centre(square) -> Point:
    return ((square.x + 0.5) * SQUARE, (square.y + 0.5) * SQUARE)


def sub_element(parent: ET.Element, tag: str, attrs: Optional[Dict[str, object]] = None,
                text: Optional[str] = None) -> ET.Element:
    """`ET.SubElement` taking any attribute values (made strings) and the element's text."""
    element = ET.SubElement(parent, tag, {k: str(v) for k, v in (attrs or {}).items()})
    if text is not None:
        element.text = text
    return element


def player_summary(game: botbowl.Game, player: botbowl.Player) -> str:
    """One line on a player for a tooltip: who, where, in what state, with which characteristics."""
    state = player.state
    words = ["standing" if state.up else "stunned" if state.stunned else "down"]
    if state.used:
        words.append("used")
    if player == game.get_ball_carrier():
        words.append("has the ball")
    skills = ", ".join(skill.name.replace("_", " ").title() for skill in player.get_skills())
    where = f" at ({player.position.x},{player.position.y})" if player.position is not None else ""
    return (f"#{player.nr} {player.role.name} ({side_name(game, player.team)}){where}: {', '.join(words)}; "
            f"MA {player.get_ma()} ST {player.get_st()} AG {player.get_ag()} AV {player.get_av()}"
            + (f"; {skills}" if skills else ""))


def board_svg(game: botbowl.Game) -> ET.Element:
    """The arena, both teams' players on the pitch, the ball and (hidden until switched on) tackle zones.

    The returned `<svg>` has an empty `<g class="overlays">` last, where `add_action` draws actions.
    """
    board = game.arena.board
    height, width = len(board), len(board[0])
    shown = min(max(SHOWN_WIDTH / width, SQUARE), 1.6 * SQUARE)  # pixels per square on the page
    svg = ET.Element("svg", {"id": "board", "class": "board", "viewBox": f"0 0 {width * SQUARE} {height * SQUARE}",
                             "width": f"{width * shown:.0f}", "height": f"{height * shown:.0f}", "role": "img",
                             "aria-label": f"the board, {width} by {height} squares with the crowd"})
    _defs(svg)
    squares = sub_element(svg, "g", {"class": "squares"})
    for y, row in enumerate(board):
        for x, tile in enumerate(row):
            sub_element(squares, "rect", {"class": f"square {TILE_CLASSES.get(tile, 'field')}", "data-x": x,
                                          "data-y": y, "x": x * SQUARE, "y": y * SQUARE, "width": SQUARE,
                                          "height": SQUARE})
    _lines(svg, board)
    _coordinates(svg, width, height)
    for team in (game.state.home_team, game.state.away_team):
        _tackle_zones(svg, game, team)
    active = game.state.active_player
    carrier = game.get_ball_carrier()
    players = sub_element(svg, "g", {"class": "players"})
    for player in game.get_players_on_pitch():
        _player(players, game, player, active=player == active, carrier=player == carrier)
    ball = game.get_ball_position()
    if ball is not None:
        _ball(svg, ball, carried=carrier is not None)
    sub_element(svg, "g", {"class": "overlays"})
    return svg


def _defs(svg: ET.Element) -> None:
    defs = sub_element(svg, "defs")
    for marker_id, colour in (("arrowhead", "#ffd400"), ("arrowhead-alt", "#ffffff")):
        marker = sub_element(defs, "marker", {"id": marker_id, "viewBox": "0 0 10 10", "refX": 8, "refY": 5,
                                       "markerWidth": 5, "markerHeight": 5, "orient": "auto-start-reverse"})
        sub_element(marker, "path", {"d": "M 0 0 L 10 5 L 0 10 z", "fill": colour})


def _zone(tile: Tile) -> Optional[Tuple[str, str]]:
    """(half, part) of a tile: the pitch's lines run where either changes; None for the crowd."""
    if tile == Tile.CROWD:
        return None
    half = "home" if tile.name.startswith("HOME") else "away"
    part = "endzone" if "TOUCHDOWN" in tile.name else "wing" if "WING" in tile.name else "field"
    return half, part


def _lines(svg: ET.Element, board) -> None:
    """The line of scrimmage, the wide zones' lines and the endzones' lines, drawn between squares."""
    lines = sub_element(svg, "g", {"class": "lines"})
    for y, row in enumerate(board):
        for x, tile in enumerate(row):
            zone = _zone(tile)
            if zone is None:
                continue
            if x + 1 < len(row) and _zone(row[x + 1]) not in (None, zone):
                sub_element(lines, "line", {"x1": (x + 1) * SQUARE, "y1": y * SQUARE, "x2": (x + 1) * SQUARE,
                                            "y2": (y + 1) * SQUARE})
            if y + 1 < len(board) and _zone(board[y + 1][x]) not in (None, zone):
                sub_element(lines, "line", {"x1": x * SQUARE, "y1": (y + 1) * SQUARE, "x2": (x + 1) * SQUARE,
                                            "y2": (y + 1) * SQUARE})


def _coordinates(svg: ET.Element, width: int, height: int) -> None:
    """Column numbers along the top crowd row and row numbers down the left crowd column."""
    labels = sub_element(svg, "g", {"class": "coordinates"})
    for x in range(1, width - 1):
        sub_element(labels, "text", {"x": (x + 0.5) * SQUARE, "y": 0.65 * SQUARE}, str(x))
    for y in range(1, height - 1):
        sub_element(labels, "text", {"x": 0.5 * SQUARE, "y": (y + 0.65) * SQUARE}, str(y))


def _tackle_zones(svg: ET.Element, game: botbowl.Game, team: botbowl.Team) -> None:
    """Squares in the tackle zones of `team`'s players, shaded by how many (hidden by default)."""
    counts: Dict[Tuple[int, int], int] = {}
    for player in game.get_players_on_pitch(team):
        if player.has_tackle_zone():
            for square in game.get_adjacent_squares(player.position, occupied=True):
                counts[square.x, square.y] = counts.get((square.x, square.y), 0) + 1
    side = side_name(game, team)
    group = sub_element(svg, "g", {"class": f"tackle-zones {side}", "style": "display:none"})
    for (x, y), count in sorted(counts.items()):
        sub_element(group, "rect", {"class": "tackle-zone", "x": x * SQUARE + 1, "y": y * SQUARE + 1,
                             "width": SQUARE - 2, "height": SQUARE - 2, "fill": team_colour(game, team),
                             "fill-opacity": min(0.15 * count + 0.1, 0.7)})
        sub_element(group, "text", {"class": "tackle-zone-count", "x": (x + 0.85) * SQUARE, "y": (y + 0.32) * SQUARE},
             str(count))


def _player(parent: ET.Element, game: botbowl.Game, player: botbowl.Player, *, active: bool, carrier: bool) -> None:
    state = player.state
    classes = ["player", side_name(game, player.team), "up" if state.up else "down"]
    classes += [name for name, on in (("stunned", state.stunned), ("used", state.used), ("active", active),
                                      ("carrier", carrier)) if on]
    x, y = _centre(player.position)
    group = sub_element(parent, "g", {"class": " ".join(classes), "data-x": player.position.x,
                               "data-y": player.position.y, "data-nr": player.nr})
    sub_element(group, "title", text=player_summary(game, player))
    if active:
        sub_element(group, "circle", {"class": "active-ring", "cx": x, "cy": y, "r": 0.48 * SQUARE})
    colour = team_colour(game, player.team)
    if state.up:
        sub_element(group, "circle", {"class": "token", "cx": x, "cy": y, "r": 0.38 * SQUARE, "fill": colour})
    else:  # lying down: a flattened token
        sub_element(group, "ellipse", {"class": "token", "cx": x, "cy": y, "rx": 0.42 * SQUARE, "ry": 0.24 * SQUARE,
                                "fill": colour})
    sub_element(group, "text", {"class": "nr", "x": x, "y": y + 0.15 * SQUARE}, str(player.nr))
    if state.stunned:
        sub_element(group, "text", {"class": "stunned-mark", "x": x + 0.3 * SQUARE, "y": y - 0.18 * SQUARE}, "✶")


def _ball(svg: ET.Element, square, *, carried: bool) -> None:
    x, y = _centre(square)
    if carried:  # beside the carrier's number, so both stay visible
        x, y = x + 0.28 * SQUARE, y + 0.28 * SQUARE
    group = sub_element(svg, "g", {"class": f"ball {'carried' if carried else 'loose'}", "data-x": square.x,
                            "data-y": square.y})
    sub_element(group, "title", text=f"the ball at ({square.x},{square.y}){', carried' if carried else ''}")
    sub_element(group, "ellipse", {"cx": x, "cy": y, "rx": 0.2 * SQUARE, "ry": 0.14 * SQUARE, "fill": "#8b4513",
                            "stroke": "#fff", "stroke-width": 1.5})


def acting_player(game: botbowl.Game, action: Action) -> Optional[botbowl.Player]:
    """The player who would carry out `action` in `game`: its own player (None if not in this game), else
    the active player."""
    if action.player is not None:
        return game.state.player_by_id.get(action.player.player_id)
    return game.state.active_player


def action_path(game: botbowl.Game, action: Action) -> Optional[botbowl.core.pathfinding.Path]:
    """botbowl's path to `action`'s square when its pathfinding offered one (MOVE, and BLOCK in a blitz, ...)."""
    if action.position is None:
        return None
    for choice in game.state.available_actions:
        if choice.action_type != action.action_type or not choice.paths:
            continue
        for position, path in zip(choice.positions, choice.paths):
            if position.x == action.position.x and position.y == action.position.y:
                return path
    return None


def add_action(svg: ET.Element, game: botbowl.Game, action: Action, *, element_id: str, chosen: bool,
               label: Optional[str] = None) -> Optional[str]:
    """Draw `action` on the board made by `board_svg`: a path for a move, an arrow for a block, pass,
    hand-off or foul, a ring on the player for START_* and other choices of a player, a marker on
    the target square otherwise. The chosen action is drawn in yellow and shown; an alternative is
    drawn in white and hidden (the page shows it while its row in the tree is pointed at).

    Returns a sentence saying what was drawn, or None when the action has nothing to draw (END_TURN, ...).
    """
    overlays = svg.find("g[@class='overlays']")
    attrs = {"id": element_id, "class": f"action-overlay {'chosen' if chosen else 'alternative'}",
             "data-action": action.action_type.name}
    if not chosen:
        attrs["style"] = "display:none"
    group = ET.Element("g", {k: str(v) for k, v in attrs.items()})
    player = acting_player(game, action)
    start = player.position if player is not None and player.position is not None else None
    path = action_path(game, action)
    marker = "arrowhead" if chosen else "arrowhead-alt"
    if path is not None and path.steps:
        steps = list(path.steps)
        arrow = action.action_type in ARROW_TYPES
        walked = steps[:-1] if arrow else steps
        points = ([_centre(start)] if start is not None else []) + [_centre(s) for s in walked]
        if len(points) > 1:
            sub_element(group, "polyline", {"class": "move-path", "points": _points(points)})
        for square in walked:
            cx, cy = _centre(square)
            sub_element(group, "circle", {"class": "path-step", "data-x": square.x, "data-y": square.y,
                                          "cx": cx, "cy": cy, "r": 0.12 * SQUARE})
        if arrow:
            _arrow(group, points[-1] if points else _centre(steps[-1]), _centre(steps[-1]), marker)
        else:
            _target(group, steps[-1])
        chance = f"{100 * path.prob:.0f}% to get there"
        if walked:
            _probability(group, walked[-1], path.prob)
        what = (f"a path of {_squares(len(walked))}, {chance}" if not arrow
                else f"an arrow after a path of {_squares(len(walked))}, {chance}" if walked else "an arrow")
    elif action.position is not None and start is not None and action.action_type in ARROW_TYPES | {ActionType.MOVE}:
        _arrow(group, _centre(start), _centre(action.position), marker)
        what = "an arrow"
    elif action.position is not None:
        _target(group, action.position)
        what = "its square marked"
    elif action.player is not None and start is not None:
        cx, cy = _centre(start)
        sub_element(group, "circle", {"class": "player-ring", "cx": cx, "cy": cy, "r": 0.5 * SQUARE})
        name = action.action_type.name
        sub_element(group, "text", {"class": "action-name", "x": cx, "y": cy - 0.6 * SQUARE},
                    name[len("START_"):].lower() if name.startswith("START_") else name.lower())
        what = "the player ringed"
    else:
        return None
    if label:
        sub_element(group, "title", text=label)
    overlays.append(group)
    return what


def _squares(count: int) -> str:
    return f"{count} square{'' if count == 1 else 's'}"


def _points(points: Sequence[Point]) -> str:
    return " ".join(f"{x:g},{y:g}" for x, y in points)


def _arrow(group: ET.Element, start: Point, end: Point, marker: str) -> None:
    (x1, y1), (x2, y2) = start, end
    length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
    shorten = min(0.3 * SQUARE, length / 2)  # stop at the target's edge, not its centre
    x2, y2 = x2 - (x2 - x1) * shorten / length, y2 - (y2 - y1) * shorten / length
    sub_element(group, "line", {"class": "arrow", "x1": f"{x1:g}", "y1": f"{y1:g}", "x2": f"{x2:g}", "y2": f"{y2:g}",
                         "marker-end": f"url(#{marker})"})


def _target(group: ET.Element, square) -> None:
    sub_element(group, "rect", {"class": "target", "data-x": square.x, "data-y": square.y, "x": square.x * SQUARE + 2,
                         "y": square.y * SQUARE + 2, "width": SQUARE - 4, "height": SQUARE - 4})


def _probability(group: ET.Element, square, probability: float) -> None:
    x, y = _centre(square)
    sub_element(group, "text", {"class": "probability", "x": x, "y": y - 0.55 * SQUARE}, f"{100 * probability:.0f}%")

