"""The names of Lancaster's events and phases (their fields: the package docstring).

Phase names end in ``_PHASE``: several (``COUNTIES``, ``LAWS``, ``CONFLICTS``) name component
data in ``data``.
"""

from __future__ import annotations

# Events.
CASTLE_FINISHED = "CastleFinished"
CASTLE_PASSED = "CastlePassed"
CASTLE_REWARD_TAKEN = "CastleRewardTaken"
CONFLICT_RESOLVED = "ConflictResolved"
COUNTY_REWARDED = "CountyRewarded"
FAVOUR_TAKEN = "FavourTaken"
GAME_SET_UP = "GameSetUp"
KNIGHT_PLACED_IN_CASTLE = "KnightPlacedInCastle"
KNIGHT_PLACED_IN_CONFLICT = "KnightPlacedInConflict"
KNIGHT_PLACED_IN_COUNTY = "KnightPlacedInCounty"
KNIGHT_RANSOMED = "KnightRansomed"
LAW_OPENED = "LawOpened"
LAW_PASSED = "LawPassed"
LAW_TOOK_EFFECT = "LawTookEffect"
LAW_USED = "LawUsed"
PRISONERS_LOST = "PrisonersLost"
ROUND_ENDED = "RoundEnded"
ROUND_STARTED = "RoundStarted"
START_EXTENSION_BUILT = "StartExtensionBuilt"
START_PLAYER_CHOSEN = "StartPlayerChosen"
VOTE_COMMITTED = "VoteCommitted"
VOTES_REVEALED = "VotesRevealed"

# Phases, in the order they occur (``next_round`` is transient: the next round's deals are due).
SETUP_PHASE = "setup"
START_PHASE = "start"
PLACEMENT_PHASE = "placement"
VOTE_PHASE = "vote"
LAWS_PHASE = "laws"
COUNTIES_PHASE = "counties"
CASTLE_PHASE = "castle"
CONFLICTS_PHASE = "conflicts"
NEXT_ROUND_PHASE = "next_round"
OVER_PHASE = "over"
