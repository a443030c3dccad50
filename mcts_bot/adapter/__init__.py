"""The botbowl adapter: what the search needs of botbowl (the state key, the actions it considers and how
they are stepped, the search's private copy, the forward model's bookkeeping, the clocks). Nothing here
knows about trees."""
