"""Model-free text measures shared across packages: the lexical tokenizer and IDF-weighted
coverage (MCQ gate, claims, prep), the token estimate, and spoken-style markers (filler and
hedge rates)."""
