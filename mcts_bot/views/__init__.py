"""Views of a finished search: the tree as XML, the board as SVG, a decision as an HTML page."""
