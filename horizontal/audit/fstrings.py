"""Python 3.12's f-strings (PEP 701) respelled for an older parser, on the same lines.

Since 3.12 an f-string's replacement field may hold the f-string's own quote
(``f"{row["name"]}"``), a backslash (``f"{'\\n'.join(lines)}"``), a comment, or a line
break in a single-quoted f-string. Python 3.11 rejects the whole file, and the audit
would read nothing of it. Each such f-string is rewritten: a nested literal in the
outer quote takes the other quote, one that cannot (or holds a backslash) becomes an
empty string (``None`` where no quote is free), a comment is dropped, space after a
conversion or a format spec moves before it, and a single-quoted f-string that spans
lines becomes triple-quoted. Line breaks are kept, so every node keeps its line;
literal text and the names the fields read are kept, which is what the rules read.

Only a file the running parser rejects is respelled; the scanner is character by
character, so it is not run on every file.
"""

from __future__ import annotations

import re

__all__ = ["respell_fstrings"]

STRING_START = re.compile(r"""(?i:[rbuf]{0,2})('''|\"\"\"|'|")""")
IDENTIFIER_CHARS = re.compile(r"\w")
OTHER_QUOTE = {"'": '"', '"': "'"}
PREFIXES = frozenset({"r", "u", "b", "f", "br", "rb", "fr", "rf"})
TRAILING_SPACE = re.compile(r"\s*(?=\})")
CLOSING = {"(": ")", "[": "]", "{": "}"}


class _Unreadable(Exception):
    """A string this scanner cannot follow: the file is left as it is."""


def respell_fstrings(text: str) -> str:
    """``text`` with every f-string an older parser rejects respelled (or ``text``
    itself when one cannot be followed)."""
    try:
        return _Scanner(text).source()
    except (_Unreadable, RecursionError):  # RecursionError: f-strings nested past reason
        return text


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text

    def source(self) -> str:
        text, i = self.text, 0
        out: list[str] = []
        while i < len(text):
            char = text[i]
            if char == "#":
                end = text.find("\n", i)
                end = len(text) if end == -1 else end
                out.append(text[i:end])
                i = end
                continue
            start = self._string_start(i) if char.isalpha() or char in "'\"" else None
            if start is not None:
                i, literal = self._literal(start, forbidden=None)
                out.append(literal)
                continue
            out.append(char)
            i += 1
        return "".join(out)

    def _string_start(self, i: int) -> re.Match[str] | None:
        match = STRING_START.match(self.text, i)
        if match is None:
            return None
        prefix = self.text[i : match.start(1)].lower()
        if prefix and (prefix not in PREFIXES or (i and IDENTIFIER_CHARS.match(self.text[i - 1]))):
            return None  # ``buffer"`` or ``elif"``: no prefix, and not where a string starts
        return match

    def _literal(self, match: re.Match[str], forbidden: str | None) -> tuple[int, str]:
        """The string at ``match``, as an older parser accepts it: inside a field, where
        ``forbidden`` holds the quotes that would end an enclosing f-string (None: not in
        a field)."""
        prefix = self.text[match.start() : match.start(1)]
        quote = match.group(1)
        if "f" in prefix.lower():
            raw = "r" in prefix.lower()
            end, body, multiline = self._fstring_body(match.end(), quote, forbidden or "", raw)
            if multiline and len(quote) == 1:
                quote *= 3
        else:
            end, body = self._plain_body(match.end(), quote)
        if forbidden is None:
            return end, f"{prefix}{quote}{body}{quote}"
        # Inside a replacement field: no backslash, and not the enclosing quote.
        if "\\" in body:
            return end, self._placeholder(body, forbidden)
        if quote[0] in forbidden:
            other = OTHER_QUOTE[quote[0]]
            if other in forbidden or other in body or len(quote) == 3:
                return end, self._placeholder(body, forbidden)
            quote = other
        if any(q in body for q in forbidden):
            return end, self._placeholder(body, forbidden)  # ``f'"{name}"'`` in ``f"…"``
        return end, f"{prefix}{quote}{body}{quote}"

    @staticmethod
    def _placeholder(body: str, forbidden: str) -> str:
        """An empty string in a quote no enclosing f-string uses (a string still, beside
        others it is joined to), else `` None ``; the literal's line breaks kept."""
        free = next((q for q in ("'", '"') if q not in forbidden), None)
        empty = f"{free}{free}" if free else " None "
        breaks = body.count("\n")
        return f"({empty}{chr(10) * breaks})" if breaks else empty

    def _plain_body(self, i: int, quote: str) -> tuple[int, str]:
        text = self.text
        start = i
        while i < len(text):
            if text[i] == "\\":
                i += 2  # an escape; in a raw string it still keeps the quote
                continue
            if text.startswith(quote, i):
                return i + len(quote), text[start:i]
            if text[i] == "\n" and len(quote) == 1:
                raise _Unreadable
            i += 1
        raise _Unreadable

    def _fstring_body(self, i: int, quote: str, forbidden: str, raw: bool) -> tuple[int, str, bool]:
        text, multiline = self.text, False
        parts: list[str] = []
        while i < len(text):
            if text.startswith(quote, i):
                return i + len(quote), "".join(parts), multiline
            char = text[i]
            if char == "\\" and text[i + 1 : i + 2] in ("{", "}"):
                parts.append(char)  # a backslash never escapes a brace: ``rf"\{{"``
                i += 1
            elif char == "\\" and not raw and text.startswith("N{", i + 1):
                end = text.find("}", i)  # ``\N{BULLET}``: a name, not a field
                if end == -1:
                    raise _Unreadable
                parts.append(text[i : end + 1])
                i = end + 1
            elif char == "\\" or text.startswith(("{{", "}}"), i):
                parts.append(text[i : i + 2])  # an escape, or a brace written twice
                i += 2
            elif char == "{":
                # A triple quote is ended only by three: one quote inside it is fine.
                inner = forbidden + quote if len(quote) == 1 else forbidden
                i, field = self._field(i + 1, quote, inner)
                multiline = multiline or "\n" in field
                parts.append("{" + field + "}")
            elif char == "\n" and len(quote) == 1:
                raise _Unreadable  # a literal part cannot break a line, in any version
            else:
                parts.append(char)
                i += 1
        raise _Unreadable

    def _field(self, i: int, quote: str, forbidden: str) -> tuple[int, str]:
        """A replacement field from after its ``{`` to after its ``}``; ``forbidden``:
        the quotes of the f-strings around it."""
        text, depth = self.text, 0
        parts: list[str] = []
        while i < len(text):
            char = text[i]
            start = self._string_start(i) if char.isalpha() or char in "'\"" else None
            if start is not None:
                i, literal = self._literal(start, forbidden)
                parts.append(literal)
                continue
            if char == "#":
                end = text.find("\n", i)
                i = len(text) if end == -1 else end  # a comment: dropped, its line kept
                continue
            if char in CLOSING:
                depth += 1
            elif char in ")]":
                depth -= 1
            elif char == "}":
                if depth == 0:
                    return i + 1, "".join(parts)
                depth -= 1
            elif depth == 0 and char == "!" and text[i + 1 : i + 2] != "=":
                # A conversion, ``!r``; space after it (``!r\n}``) goes before the ``!``,
                # where an older parser takes it.
                after = i + 2
                while after < len(text) and text[after] in " \t\r\n":
                    after += 1
                parts += [text[i + 2 : after], text[i : i + 2]]
                i = after
                continue
            elif depth == 0 and char == ":":
                end, spec, trailing = self._format_spec(i + 1, quote, forbidden)
                return end, "".join(parts) + trailing + ":" + spec
            parts.append(char)
            i += 1
        raise _Unreadable

    def _format_spec(self, i: int, quote: str, forbidden: str) -> tuple[int, str, str]:
        """A format spec (literal text with fields of its own) up to after the field's
        closing ``}``, and the space before that ``}`` that breaks the line (moved before
        the ``:``, where an older parser takes it)."""
        text = self.text
        parts: list[str] = []
        while i < len(text):
            char = text[i]
            if char == "}":
                return i + 1, "".join(parts), ""
            if char == "\n":
                trailing = TRAILING_SPACE.match(text, i)
                if trailing is None:
                    raise _Unreadable
                return trailing.end() + 1, "".join(parts), text[i : trailing.end()]
            if char == "{":
                i, field = self._field(i + 1, quote, forbidden)
                parts.append("{" + field + "}")
                continue
            if text.startswith(quote, i):
                raise _Unreadable
            parts.append(char)
            i += 1
        raise _Unreadable
