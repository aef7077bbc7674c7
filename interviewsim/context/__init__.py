"""What a simulated answer may be grounded in: the seven context strategies and the text
embeddings behind retrieval."""
