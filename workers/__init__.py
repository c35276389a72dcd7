"""RQ job functions (bot turns, final scoring) and the worker process that runs them."""
