"""What every model stage shares, owned once: :mod:`.model_stage` (the skeleton: hub, dry run,
batching with overlap, personality shards, ordering, summary), :mod:`.batching` (grouping
personalities for an endpoint) and :mod:`.copies` (a stage as several processes). A stage
file declares what it asks and how it reduces; this package runs it."""
