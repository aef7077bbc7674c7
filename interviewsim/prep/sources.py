"""Reading a user's files as they have them: text in any common encoding, never a traceback.

A posting or an evidence file arrives as whatever the user saved: UTF-8 (with or without a byte
order mark), UTF-16 from a Windows editor, Windows-1252 from an older one, or not text at all (a
PDF, a Word file, a screenshot). Text is decoded and the encoding named; a binary document is
refused with the one thing to do about it, because guessing its text would put words in the
posting that it does not say.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from interviewsim.errors import InputError, Problem

_BINARY_SIGNATURES = (
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a Word/OpenDocument (zip) file"),
    (b"\xd0\xcf\x11\xe0", "a legacy Word/Office document"),
    (b"{\\rtf", "an RTF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_CONTROL = frozenset(chr(c) for c in range(32)) - {"\t", "\n", "\r", "\f"}


def _refuse(path: Path, message: str) -> InputError:
    return InputError([Problem(str(path), "", message)])


def _binary_kind(data: bytes) -> str | None:
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "a WebP image"
    return next((kind for signature, kind in _BINARY_SIGNATURES if data.startswith(signature)),
                None)


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 saved without a byte order mark: ASCII text shows as every other byte zero."""
    if len(data) < 4 or len(data) % 2:
        return None
    even, odd = data[0::2].count(0), data[1::2].count(0)
    half = len(data) // 2
    if odd > 0.3 * half and even == 0:
        return "utf-16-le"
    if even > 0.3 * half and odd == 0:
        return "utf-16-be"
    return None


def decode_text(data: bytes) -> tuple[str, str]:
    """The text and the encoding it was read in; ValueError names what it is instead."""
    kind = _binary_kind(data)
    if kind:
        raise ValueError(f"this is {kind}, not text: convert it to text first "
                         "(save or export it as .txt or .md)")
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), None)
    encoding = encoding or _utf16_without_bom(data)
    candidates = [encoding] if encoding else ["utf-8", "cp1252"]
    for name in candidates:
        try:
            text = data.decode(name)
        except UnicodeDecodeError:
            continue
        if not any(ch in _CONTROL for ch in text):
            return text.replace("\r\n", "\n").replace("\r", "\n"), name
    raise ValueError("not readable as text (tried " + ", ".join(candidates) + "): convert it "
                     "to text first, or save it as UTF-8")


def read_text_file(path: str | Path) -> tuple[str, str]:
    """A user's text file, decoded; an InputError (one line) when it cannot be."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _refuse(path, f"cannot read: {exc.strerror}") from None
    try:
        text, encoding = decode_text(data)
    except ValueError as exc:
        raise _refuse(path, str(exc)) from None
    if not text.strip():
        raise _refuse(path, "the file is empty")
    return text, encoding
