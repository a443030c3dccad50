"""What a person sees in a real browser (headless Chromium): the decision view, and botbowl's web UI
playing the bot. Skipped where no Chromium is installed (`.ci/run` installs it)."""
import sys
from pathlib import Path

import pytest

pytest.importorskip("selenium", reason="selenium is missing: install the test extra (pip install -e .[test])")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

import mcts_bot  # noqa: E402
from conftest import longest_move, move_position  # noqa: E402
from mcts_bot.harness import browser  # noqa: E402
from mcts_bot.views.board_svg import action_path  # noqa: E402
from mcts_bot.views.decision_page import decision_html

pytestmark = pytest.mark.skipif(browser.find_chromium() is None,
                                reason=f"no headless Chromium and chromedriver: {browser.INSTALL_HINT}")

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture
def chromium():
    with browser.chromium(width=1300, height=1100) as driver:
        yield driver


@pytest.fixture
def web_ui(tmp_path):
    """scripts/web.py on a free port of 127.0.0.1, its bots and games seeded, stopped after the test."""
    port = browser.free_port()
    log = tmp_path / "web.log"
    command = [sys.executable, str(SCRIPTS / "web.py"), "--port", str(port), "--iterations", "20", "--seed", "0"]
    with browser.running_server(command, f"http://127.0.0.1:{port}/", log=log) as url:
        yield url, log


def visible(driver, css):
    return [e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]


def test_decision_page_shows_board_move_and_tree(chromium, tmp_path):
    game = move_position()
    root = mcts_bot.search(game, iterations=200, seed=0)
    move = longest_move(game, root)
    page = tmp_path / "decision.html"
    page.write_text(decision_html(game, root, action=move.action), encoding="utf-8")
    chromium.get(page.as_uri())

    board = chromium.find_element(By.ID, "board")
    assert board.is_displayed() and board.size["width"] > 400
    width, height = len(game.arena.board[0]), len(game.arena.board)
    assert len(visible(chromium, "#board rect.square")) == width * height
    players = visible(chromium, "#board g.player")
    assert len(players) == len(game.get_players_on_pitch()) and all(p.size["width"] > 10 for p in players)
    numbers = visible(chromium, "#board g.player text.nr")
    assert sorted(n.text for n in numbers) == sorted(str(p.nr) for p in game.get_players_on_pitch())

    # the move: its path on the board, square by square, and its row marked in the tree
    assert visible(chromium, "#chosen .move-path")
    steps = action_path(game, move.action).steps
    assert len(visible(chromium, "#chosen .path-step")) == len(steps) > 1
    row = chromium.find_element(By.CSS_SELECTOR, "#tree details.chosen > summary")
    assert row.is_displayed() and f"MOVE ({move.action.position.x},{move.action.position.y})" in row.text
    assert f"{move.visits} visits" in row.text

    # pointing at another action of the root draws it on the board, until the pointer leaves
    other = chromium.find_element(By.CSS_SELECTOR, "#tree summary[data-overlay^='alt-']")
    drawing = chromium.find_element(By.ID, other.get_attribute("data-overlay"))
    assert not drawing.is_displayed()
    ActionChains(chromium).move_to_element(other).perform()
    assert drawing.is_displayed()
    ActionChains(chromium).move_to_element(chromium.find_element(By.TAG_NAME, "h1")).perform()
    assert not drawing.is_displayed()

    # expanding a node shows its children, which were hidden
    node = next(d for d in chromium.find_elements(By.CSS_SELECTOR, "#tree > ul > li > details")
                if "empty" not in d.get_attribute("class"))
    children = node.find_elements(By.CSS_SELECTOR, ":scope > ul > li")
    assert children and not any(c.is_displayed() for c in children)
    node.find_element(By.TAG_NAME, "summary").click()
    assert all(c.is_displayed() for c in children)

    # the tackle zones appear when asked for
    chromium.find_element(By.CSS_SELECTOR, "input[data-show='.tackle-zones.home']").click()
    assert visible(chromium, ".tackle-zones.home rect")

    shot = tmp_path / "decision-view.png"
    assert chromium.save_screenshot(str(shot)) and shot.stat().st_size > 10_000


def test_web_ui_plays_the_bot(chromium, web_ui, tmp_path):
    url, server_log = web_ui
    ui = browser.WebUI(chromium, url)
    ui.create_game(mode="3v3", bot="mcts")
    assert "mcts" in chromium.find_element(By.CSS_SELECTOR, ".scoreboard").text
    turns = ui.play(end_turns=3)
    assert len(turns) == 4, "the human ended three turns and the fourth came"

    # between two of the human's turns the bot played one: its turn counter went on, its players acted
    # (the log shows it, in the away team's colour) and moved on the board (the human only ended turns)
    # (not between every two: after a touchdown, a Quick Snap kick-off gives the human a turn of its own)
    bot_turns = [turn.bot_turn for turn in turns]
    assert None not in bot_turns and bot_turns == sorted(bot_turns) and bot_turns[-1] - bot_turns[0] >= 2, bot_turns
    assert any(side == "away" and ("turn is over" in text or "starts a" in text)
               for turn in turns for side, text in turn.log)
    assert len({turn.bot_pieces for turn in turns}) > 1
    assert "Traceback" not in server_log.read_text(errors="replace")

    shot = tmp_path / "web-ui.png"
    assert chromium.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
