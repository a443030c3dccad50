"""The HTML view of a decision: a self-contained page whose board, drawn action and tree agree with the game
and the search (checked on the page's element tree and its text; tests/test_browser.py looks at it in Chromium)."""
import re
from types import SimpleNamespace

import numpy as np
import pytest
from botbowl.core import Action, ActionType

import mcts_bot
from conftest import longest_move, move_position, turn_position
from mcts_bot import ActionNode, ChanceNode, DecisionPages
from mcts_bot.core.nodes import iter_action_nodes
from mcts_bot.core.policies import most_visited
from mcts_bot.harness.games import make_game, random_position
from mcts_bot.views.board_svg import action_path
from mcts_bot.views.decision_page import decision_element, decision_html

# A resource fetched from the network: a script, style sheet, image or font by URL, or any http(s) address.
REMOTE = re.compile(r"https?://|\b(?:src|href)\s*=\s*[\"']?\s*//|@import|url\(\s*[\"']?(?!#)", re.IGNORECASE)


def with_class(element, tag, name):
    return [e for e in element.iter(tag) if name in (e.get("class") or "").split()]


def assert_self_contained(page):
    assert page.startswith("<!DOCTYPE html>")
    assert not REMOTE.search(page), REMOTE.search(page)
    assert "<link" not in page and "<img" not in page and " src=" not in page


@pytest.mark.parametrize("board_size", [1, 3, 5, 7, 11])
def test_board_shows_every_square_player_and_the_ball(board_size):
    game = random_position(board_size, seed=1, steps=40)
    result = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=20), preset=mcts_bot.configure("default"),
                                 rng=np.random.RandomState(0))
    page = decision_element(game, result.root, stats=result.stats)
    assert_self_contained(decision_html(game, result.root, stats=result.stats))
    squares = with_class(page, "rect", "square")
    assert len(squares) == len(game.arena.board) * len(game.arena.board[0])
    assert {(int(s.get("data-x")), int(s.get("data-y"))) for s in squares} == {
        (x, y) for y in range(len(game.arena.board)) for x in range(len(game.arena.board[0]))}
    players = with_class(page, "g", "player")
    on_pitch = game.get_players_on_pitch()
    assert sorted((int(p.get("data-x")), int(p.get("data-y"))) for p in players) == sorted(
        (p.position.x, p.position.y) for p in on_pitch)
    assert sum("home" in p.get("class").split() for p in players) == len(
        game.get_players_on_pitch(game.state.home_team))
    assert sum("down" in p.get("class").split() for p in players) == sum(not p.state.up for p in on_pitch)
    ball = game.get_ball_position()
    balls = with_class(page, "g", "ball")
    assert [(int(b.get("data-x")), int(b.get("data-y"))) for b in balls] == ([(ball.x, ball.y)] if ball else [])


def test_chosen_move_is_drawn_as_its_path():
    game = move_position()
    root = mcts_bot.search(game, iterations=200, seed=0)
    chosen = longest_move(game, root)
    assert len(action_path(game, chosen.action).steps) > 1, "the search tried no move of more than one square here"
    page = decision_element(game, root, action=chosen.action)
    overlay = page.find(".//g[@id='chosen']")
    assert overlay.get("class") == "action-overlay chosen" and overlay.get("data-action") == "MOVE"
    steps = [(s.x, s.y) for s in action_path(game, chosen.action).steps]
    drawn = [(int(c.get("data-x")), int(c.get("data-y"))) for c in with_class(overlay, "circle", "path-step")]
    assert drawn == steps and steps[-1] == (chosen.action.position.x, chosen.action.position.y)
    assert len(with_class(overlay, "polyline", "move-path")) == 1
    row = [d for d in with_class(page, "details", "chance") if "chosen" in d.get("class").split()]
    assert len(row) == 1 and int(row[0].get("data-visits")) == chosen.visits
    # every other root action drawable on the board has a hidden drawing, named by its row in the tree
    for summary in page.iter("summary"):
        name = summary.get("data-overlay")
        if name and name != "chosen":
            assert page.find(f".//g[@id='{name}']").get("style") == "display:none"


@pytest.mark.parametrize("action_type,shape", [(ActionType.BLOCK, "arrow"), (ActionType.START_MOVE, "player-ring"),
                                               (ActionType.PLACE_BALL, "target")])
def test_other_actions_are_drawn(action_type, shape):
    game = move_position()
    player = game.state.active_player
    root = mcts_bot.search(game, iterations=20, seed=0)
    square = game.get_square(player.position.x + 1, player.position.y)
    action = (Action(action_type, player=player) if action_type == ActionType.START_MOVE
              else Action(action_type, position=square))
    overlay = decision_element(game, root, action=action).find(".//g[@id='chosen']")
    assert overlay is not None and with_class(overlay, None, shape)
    if action_type == ActionType.PLACE_BALL:  # no player: only the square is marked
        assert (overlay.find("rect").get("data-x"), overlay.find("rect").get("data-y")) == (str(square.x),
                                                                                             str(square.y))
    assert decision_element(game, root, action=Action(ActionType.END_TURN)).find(".//g[@id='chosen']") is None


def test_tree_is_best_first_and_complete_to_its_depth():
    game = turn_position(3, seed=6)
    root = mcts_bot.search(game, iterations=250, seed=0)
    page = decision_element(game, root, max_depth=None)
    tree = page.find(".//section[@id='tree']/ul")
    top = [li.find("details") for li in tree]
    assert [int(d.get("data-visits")) for d in top] == sorted((c.visits for c in root.children), reverse=True)
    assert "chosen" in top[0].get("class") and int(top[0].get("data-visits")) == most_visited(root).visits
    nodes = list(iter_action_nodes(root))
    assert len(with_class(page, "details", "chance")) == sum(len(n.children) for n in nodes)
    several = sum(len(c.outcomes) for n in nodes for c in n.children if len(c.outcomes) > 1)
    assert len(with_class(page, "details", "outcome")) == several

    shallow = decision_element(game, root, max_depth=1)
    assert len(with_class(shallow, "details", "chance")) == len(root.children)
    assert with_class(shallow, "li", "more"), "the page says there is more below the depth shown"
    assert not with_class(decision_element(game, root, max_depth=0), "details", "chance")
    with pytest.raises(ValueError):
        decision_element(game, root, max_depth=-1)


class PriorChanceNode(ChanceNode):
    """A ChanceNode with the `prior` the search is getting (read with getattr by the view)."""

    __slots__ = ("prior",)


def test_priors_shown_and_names_escaped():
    game = turn_position(1, seed=0)
    evil = SimpleNamespace(nr=7, player_id="x", role=SimpleNamespace(name="Orc <script>alert(1)</script> & co"))
    root = ActionNode(key=0, actions=[Action(ActionType.START_MOVE, player=evil), Action(ActionType.END_TURN)],
                      is_opponent=False, terminal=False)
    for action, prior, visits in ((root.actions[0], 0.75, 3), (root.actions[1], None, 1)):
        child = PriorChanceNode(action, False) if prior is not None else ChanceNode(action, False)
        if prior is not None:
            child.prior = prior
        child.visits, child.total_value = visits, 0.5 * visits
        root.children.append(child)
    root.visits, root.total_value = 4, 2.0
    page = decision_html(game, root, action=Action(ActionType.END_TURN))
    assert_self_contained(page)
    assert page.count("prior 0.750") == 1 and page.count("prior ") == 1
    assert "<script>alert" not in page and "Orc &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in page


def test_decision_pages_write_one_page_per_search_and_an_index(tmp_path):
    pages = DecisionPages(tmp_path / "pages")
    bot = mcts_bot.MCTSBot("mcts", seconds=None, iterations=10, seed=0, on_decision=pages)
    game = make_game(1, bot, mcts_bot.MCTSBot("opponent", seconds=None, iterations=5, seed=1), seed=0)
    game.init()
    assert game.state.game_over and bot.totals.errors == 0
    files = sorted(p.name for p in (tmp_path / "pages").glob("decision-*.html"))
    assert len(files) == bot.totals.searches == len(pages.entries) > 10
    assert files[0] == "decision-0001.html" and files[-1] == f"decision-{len(files):04d}.html"
    index = (tmp_path / "pages" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'href="(decision-\d+\.html)"', index) == files
    assert_self_contained(index)
    for name in (files[0], files[-1]):
        page = (tmp_path / "pages" / name).read_text(encoding="utf-8")
        assert_self_contained(page)
        assert 'href="index.html"' in page and "chosen" in page
