"""The data layer: the input schema and its strict loader, the chronological split, the
prepared artifacts and how stages read them back, artifact records and atomic JSON I/O."""
