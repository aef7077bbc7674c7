"""Simulated answers: the response-generation prompt and the guard that keeps held-out text
out of it."""
