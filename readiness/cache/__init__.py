"""Where answers are kept, below the service: the in-process tier and Redis (with its breaker),
and the keys both use."""
