"""What keeps the served answers and snapshot fresh, driving the service from above: the
warm-up that fills Redis before a release (``warm``), the re-warm after Redis lost it
(``rewarm``) and the live swap to a new snapshot (``watch``)."""
