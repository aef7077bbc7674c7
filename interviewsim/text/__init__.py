"""Model-free text measures shared across packages: the lexical tokenizer, IDF-weighted
coverage and the token estimate."""
