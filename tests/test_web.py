"""botbowl's web UI offers the bot and plays a game with it (Flask's test client, no network)."""
import json

import numpy as np
from botbowl.core import ActionType
from botbowl.web import api
from botbowl.web.server import app

import mcts_bot
from mcts_bot.core.search import Budget


def test_web_ui_lists_and_plays_the_bot():
    client = app.test_client()
    assert "mcts" in json.loads(client.get("/bots/").data)
    request = {"mode": "1v1", "game": {"home_player": "mcts", "away_player": "someone",
                                       "home_team_name": "Human Team 1", "away_team_name": "Human Team 1"}}
    game_id = json.loads(client.put("/game/create", data=json.dumps(request)).data)["game_id"]
    game = api.get_game(game_id)
    bot = game.home_agent
    assert isinstance(bot, mcts_bot.MCTSBot) and game.away_agent.human
    bot.budget = Budget(iterations=10)  # keep the test short; the UI's bot thinks for 1 s
    rng = np.random.RandomState(0)
    for _ in range(3000):  # the UI posts the human's actions, or CONTINUE while the game runs on
        if game.state.game_over:
            break
        action = {"action_type": "CONTINUE"}
        if game.actor is not None and game.actor.human:
            choice = rng.choice([c for c in game.state.available_actions
                                 if c.action_type not in (ActionType.PLACE_PLAYER, ActionType.UNDO)])
            position = choice.positions[rng.randint(len(choice.positions))] if choice.positions else None
            player = choice.players[rng.randint(len(choice.players))] if choice.players else None
            action = {"action_type": choice.action_type.name,
                      "position": position.to_json() if position is not None else None,
                      "player_id": player.player_id if player is not None else None}
        client.post(f"/games/{game_id}/act", data=json.dumps({"action": action}))
    assert game.state.game_over
    assert bot.totals.searches > 5 and bot.totals.errors == 0
