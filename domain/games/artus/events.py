"""The names of Artus's events and phases (their fields: the package docstring)."""

from __future__ import annotations

# Events.
GAME_STARTED = "GameStarted"  # the deal (set-up)
KNIGHT_PLACED = "KnightPlaced"
CARD_PLAYED = "CardPlayed"
CARD_DRAWN = "CardDrawn"

# Phases, in the order they occur.
SETUP = "setup"
PLACEMENT = "placement"
PLAY = "play"
DRAW = "draw"
OVER = "over"
