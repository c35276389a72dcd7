"""Game-independent search: information-set Monte Carlo tree search (``ismcts``)."""
