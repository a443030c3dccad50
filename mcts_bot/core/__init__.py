"""The search core: tree nodes, the policies that choose in them, `Preset` (the pluggable parts as data)
and the search loop. Blood Bowl knowledge reaches it only through a preset's fields."""
