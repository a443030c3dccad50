"""Blood Bowl knowledge: tackle zones, the scripted policy, priors, heuristics, features, the learned value
and its model files, and the rule-based sparring partners. Leaf modules: they read the game and know
nothing of trees."""
