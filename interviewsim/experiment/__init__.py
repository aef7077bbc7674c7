"""The experiment as configured: the typed contents of params.yaml and what running it costs
(the call plan)."""
