"""JSON Schema → llama.cpp GBNF, with bounded strings that stay flat.

llama-cpp-python's converter (``llama_cpp.llama_grammar.SchemaConverter``) writes
``maxLength: n`` as ``n`` nested optional groups, which is slow to build and deep enough to
crash the grammar engine for a few hundred characters. llama.cpp's own grammar syntax has a
repetition operator (``char{m,n}``), so bounded strings are emitted with it instead; everything
else (``enum``, ``anyOf``, tuples via ``prefixItems``, item counts) is the library's own
conversion. A bounded string is what makes a small model's output terminate: without it, one
field can loop until the token budget runs out and the JSON is cut mid-string.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

# One character inside a JSON string: no raw control characters (strict JSON rejects them; the
# library's rule lets a raw newline through), escapes as JSON defines them.
_JSON_CHAR = (r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] '
              r'[0-9a-fA-F] [0-9a-fA-F])')


@lru_cache(maxsize=1)
def _converter_class() -> type:
    from llama_cpp.llama_grammar import RESERVED_NAMES, SchemaConverter

    class BoundedStringConverter(SchemaConverter):  # type: ignore[misc, valid-type]
        def visit(self, schema: dict[str, Any], name: str) -> str:
            plain = (schema.get("type") == "string"
                     and not {"enum", "const", "pattern", "format"} & set(schema))
            if not plain:
                return str(super().visit(schema, name))
            rule_name = name + "-" if name in RESERVED_NAMES else name or "root"
            char = self._add_rule("json-char", _JSON_CHAR)
            low = int(schema.get("minLength", 0))
            high = schema.get("maxLength")
            repeat = "*" if (low, high) == (0, None) else \
                f"{{{low},{'' if high is None else int(high)}}}"
            return str(self._add_rule(rule_name, f'"\\"" {char}{repeat} "\\"" space'))

    return BoundedStringConverter


def gbnf_from_schema(schema: dict[str, Any]) -> str:
    """The GBNF grammar accepting exactly the JSON documents ``schema`` describes."""
    converter = _converter_class()(prop_order={}, allow_fetch=False, dotall=False,
                                   raw_pattern=False)
    resolved = converter.resolve_refs(json.loads(json.dumps(schema)), "schema")
    converter.visit(resolved, "")
    return str(converter.format_grammar())
