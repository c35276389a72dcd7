"""The names of Kings and Castles' events and phases (their fields: the package docstring)."""

from __future__ import annotations

# Events, in the order they first occur.
ENEMIES_PLACED = "EnemiesPlaced"  # set-up (KC-2 step 2)
COUNTERS_DRAWN = "CountersDrawn"  # army forming, bonus, refill (KC-4)
BAG_REFILLED = "BagRefilled"  # the destroyed counters back into the empty bag (KC-4, v2)
CROWN_PLACED = "CrownPlaced"
ROUEN_OCCUPIED = "RouenOccupied"
TERRITORY_CAPTURED = "TerritoryCaptured"
ATTACKS_ENDED = "AttacksEnded"
CASTLE_PLACED = "CastlePlaced"
CASTLES_ENDED = "CastlesEnded"
TAX_COLLECTED = "TaxCollected"
TAX_DECLINED = "TaxDeclined"
TURN_ENDED = "TurnEnded"
FINAL_TAX_COLLECTED = "FinalTaxCollected"

# Phases, in the order they occur.
SETUP = "setup"  # before the enemy placement (set-up event)
FORMING = "forming"  # each colour forms its army (KC-2 step 4): draw
CROWNS = "crowns"  # crown placement (KC-2 step 5): place_crown
BONUS = "bonus"  # the King draws the square's bonus (KC-3 step 1): draw
OCCUPY = "occupy_rouen"  # square 1 only: occupy_rouen (KC-2 step 6)
ATTACKS = "attacks"  # attack ... end_attacks (KC-5)
CASTLES = "castles"  # place_castle ... end_castles (KC-7)
TAX = "tax"  # tax / no_tax (KC-8)
REFILL = "refill"  # refill to 10 (KC-3 step 5)
TURN_END = "turn_end"  # transient: the crown is about to be turned
FINAL = "final"  # transient: final taxation is due
OVER = "over"
