"""Typed configuration, the bottom floor of the library: the experiment's params (the contents
of ``params.yaml``), the paper's overrides, and the model/provider settings they are made of.
Every package may import it; it imports none of them (only :mod:`interviewsim.errors`)."""
