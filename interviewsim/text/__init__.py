"""Model-free text measures shared across packages: the lexical tokenizer and IDF-weighted
coverage (MCQ gate, claims, prep), the token estimate, spoken-style markers (filler and hedge
rates), and the sentence-level reading of what a turn asks or reports (discourse)."""
