"""Multiple-choice knowledge retention (PROMPTS.md "Multiple-choice construction and answering").

The model proposes, code verifies: a model writes one atomic item per held-out pair and one MCQ
per item; strict parsers, the IDF grounding gate and the option-role checks decide what is kept.
Answers are scored by the semantic role of the chosen option, never by its position.

Modules: ``models`` (items, options, roles), ``parsers`` (the three output contracts),
``prompts`` (messages and output constraints), ``shuffle`` (seeded per-item option order),
``scoring`` (accuracy and reward), ``asking`` (re-asks until an output parses), ``build``
(atomic item, grounding gate, MCQ, shuffle), ``answering`` (grouped prompts with their context),
``rotation`` (rotated option orders, robust metrics), ``position`` (letter bias and its baseline)
and ``controls`` (oracle and impostor contexts, kept apart from the strategies).
"""
