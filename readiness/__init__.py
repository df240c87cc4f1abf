"""The query API, in layers that only point down (docs/ARCHITECTURE.md#layers): ``app`` wires
``pages`` and ``http`` (and ``freshness`` beside them) onto the ``service``, which answers
through the ``cache`` tiers from the pure ``domain``. Import names from their modules."""
