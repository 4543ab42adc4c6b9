"""C++ lexing for the spec scanner: one compiled regex that jumps from token to token.

A token is a plain tuple (fast to build and unpack on the hot path):

    (kind, text, src, pos, end, bol, hide, space, origin)

kind  "id", "num", "str", "raw", "chr", "op" (punctuator, `text` says which) or
      "bad" (an unterminated "..." / '...' literal or a stray backslash: an error only
      where it is used, since g++ tolerates them inside `#if 0`);
src   the SourceFile the token stands in (for a macro expansion: where the macro is used);
pos   offsets into `src.text`; `end` is exclusive;
bol   True when the token is the first on its line (comments count as whitespace):
      this is how `#` starts a directive;
hide  None for a token read from a file, else the frozenset of macro names it was
      expanded from (the C preprocessor's "hide set", which stops recursion);
space True when whitespace or a comment precedes the token where it was written (in a
      macro body: in the #define), which is what `#` stringizing keeps;
origin None for a token read from a file or an argument of a macro, else (macro name,
      file, offset): where the token is written in the body of the macro that produced it,
      so an error located at the use site can also say where in the #define to look.

Comments and whitespace never become tokens, so `REGISTER_OP` inside a comment or a
string literal is never seen as a registration. Line continuations (backslash-newline)
are spliced out before lexing; `SourceFile.location` maps offsets back to the line and
column of the original file.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Final, NamedTuple

from opgen.errors import Location, OpgenError

Origin = tuple[str, "SourceFile", int]
Token = tuple[str, str, "SourceFile", int, int, bool, "frozenset[str] | None", bool, "Origin | None"]

# Field indexes of a Token (Final, so type checkers know each field's type).
KIND: Final = 0
TEXT: Final = 1
SRC: Final = 2
POS: Final = 3
END: Final = 4
BOL: Final = 5
HIDE: Final = 6
SPACE: Final = 7
ORIGIN: Final = 8

_SPLICE = re.compile(r"\\\r?\n")
_NEWLINE = re.compile(r"\n")

_PUNCT = (
    r"->\*?|\.\.\.|::|<=>|<<=?|>>=?|[-+*/%^&|=!<>]=|&&|\|\||\+\+|--|##|\.\*"
    r"|[-+*/%^&|~!=<>?:;,.()\[\]{}#]"
)
_PREFIX = r"(?:u8|[uUL])?"

# Alternatives are tried in order, so the commonest tokens that nothing else can start come
# first: punctuators that begin no longer token, and identifiers whose first letter cannot
# prefix a literal (`u8"`, `R"(`, `L'`, ...); the other identifiers wait until the literals
# have failed. Each group's kind is `_KINDS[m.lastindex]` (the whitespace is no group).
_TOKEN = re.compile(
    r"(?:[ \t\n\r\f\v]+|//[^\n]*|/\*.*?\*/)*"
    r"(?:"
    r"(?P<op1>[;,()\[\]{}~?])"
    r"|(?P<id1>[^\W\duULR]\w*)"
    rf"|(?P<raw>{_PREFIX}R\"(?P<delim>[^()\\ \t\n\r\f\v\"]{{0,16}})\(.*?\)(?P=delim)\")"
    rf"|(?P<str>{_PREFIX}\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\")"
    rf"|(?P<chr>{_PREFIX}'[^'\\\n]*(?:\\.[^'\\\n]*)*')"
    rf"|(?P<badraw>{_PREFIX}R\")"
    r"|(?P<id>[^\W\d]\w*)"
    r"|(?P<num>\.?\d(?:[eEpP][+-]|[\w.'])*)"
    r"|(?P<badcomment>/\*)"
    r"|(?P<digraph>%:%:|%:|<%|%>|<:(?!:(?![:>]))|:>)"  # C++ [lex.digraph]; `<::` is `<` `::`
    rf"|(?P<op>{_PUNCT})"
    rf"|(?P<bad>{_PREFIX}[\"'][^\n]*)"
    r"|(?P<other>\S)"
    r"|(?P<eof>\Z)"
    r")",
    re.DOTALL,
)
_KINDS: tuple[str, ...] = ("", *(  # by group index; "" for group 0 and `delim`, never a token's last group
    {"op1": "op", "id1": "id", "delim": ""}.get(name, name)
    for name, _ in sorted(_TOKEN.groupindex.items(), key=lambda item: item[1])))
_BLOCK_OR_LINE_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


class SourceFile:
    """The text of one file with line continuations spliced out, and the way back to
    1-based line:column positions of the original file."""

    __slots__ = ("_cuts", "_line_starts", "_original_text", "_removed", "path", "text")

    def __init__(self, path: str, original: str):
        self.path = path
        self._line_starts: list[int] | None = None
        self._cuts: list[int] = []  # spliced-text offsets where a continuation was removed
        self._removed: list[int] = []  # characters removed up to and including that cut
        if "\\" in original and _SPLICE.search(original):
            pieces: list[str] = []
            last = 0
            removed = 0
            for m in _SPLICE.finditer(original):
                pieces.append(original[last : m.start()])
                self._cuts.append(m.start() - removed)
                removed += m.end() - m.start()
                self._removed.append(removed)
                last = m.end()
            pieces.append(original[last:])
            self.text = "".join(pieces)
        else:
            self.text = original
        self._original_text = original

    def original_offset(self, pos: int) -> int:
        if not self._cuts:
            return pos
        i = bisect.bisect_right(self._cuts, pos)
        return pos + (self._removed[i - 1] if i else 0)

    def original_slice(self, pos: int, end: int) -> str:
        """The original text of `text[pos:end]`, line continuations included (C++ keeps
        them inside raw strings)."""
        return self._original_text[self.original_offset(pos) : self.original_offset(end - 1) + 1]

    def location(self, pos: int) -> Location:
        starts = self._line_starts
        if starts is None:
            starts = self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self._original_text)]
        if self._cuts:
            pos = self.original_offset(pos)
        line = bisect.bisect_right(starts, pos)
        return Location(self.path, line, pos - starts[line - 1] + 1)

    def error(self, pos: int, message: str) -> OpgenError:
        return OpgenError(message, self.location(pos))

    def __repr__(self) -> str:
        return f"SourceFile({self.path!r})"


def token_location(tok: Token) -> Location:
    """Where `tok` stands; for a token from a macro body, its use site, which also names
    the macro and where in its #define the token is written."""
    loc = tok[SRC].location(tok[POS])
    origin = tok[ORIGIN]
    if origin is None:
        return loc
    macro, src, pos = origin
    return replace(loc, expanded_from=(macro_expansion(macro), src.location(pos)))


def macro_expansion(macro: str) -> str:
    """What wrote a token a macro expanded to, as errors' notes name it."""
    return f"expansion of macro '{macro}'"


def token_error(tok: Token, message: str) -> OpgenError:
    return OpgenError(message, token_location(tok))


# A byte that is not UTF-8, as a lone surrogate: a source file that is not UTF-8 is decoded
# with `surrogateescape` (g++ takes any bytes in comments and literals), and such a byte is an
# error only where opgen reads the token that holds it (check_decoded).
_UNDECODED = re.compile("[\udc80-\udcff]")


def has_undecoded(text: str) -> bool:
    return _UNDECODED.search(text) is not None


def check_decoded(toks: Iterable[Token]) -> None:
    """A located error at the first byte of `toks` that is not UTF-8 (see _UNDECODED)."""
    for t in toks:
        m = _UNDECODED.search(t[TEXT])
        if m is None:
            continue
        text, src = t[TEXT], t[SRC]
        try:
            text[m.start() :].encode("utf-8", "surrogateescape").decode("utf-8")
            reason = "invalid byte"  # a `##` paste joined bytes that were not UTF-8 apart
        except UnicodeDecodeError as e:
            reason = e.reason
        as_written = t[HIDE] is None and src.text.startswith(text, t[POS])  # not from a macro or a splice
        raise OpgenError(f"source file is not UTF-8 text ({reason})",
                         src.location(t[POS] + m.start()) if as_written else token_location(t),
                         hint="save the file as UTF-8; opgen ignores bytes that are not UTF-8 only in comments "
                              "and in code it does not read")


def tokenize(src: SourceFile, limit: int | None = None) -> list[Token]:
    """Every token of `src`, or with `limit` its first `limit + 1` at most (lexing stops there:
    the caller reports the excess); raises a located OpgenError for an unterminated comment or
    raw string (they swallow the rest of the file)."""
    text = src.text
    tokens: list[Token] = []
    append = tokens.append
    find = text.find
    kinds = _KINDS
    bol = True
    matches: Iterable[re.Match[str]] = _TOKEN.finditer(text)
    if limit is not None and len(text) > limit:  # each token takes at least one character
        matches = itertools.islice(matches, limit + 1)
    for m in matches:
        group: int = m.lastindex  # type: ignore[assignment]  # every alternative is a group
        kind = kinds[group]
        tstart = m.start(group)
        mstart = m.start()
        space = tstart != mstart  # whitespace or comments before the token
        if space and not bol and find("\n", mstart, tstart) >= 0:
            ws = text[mstart:tstart]
            bol = "/*" not in ws or "\n" in _BLOCK_OR_LINE_COMMENT.sub(_comment_as_space, ws)
        tend = m.end()
        if kind in _SPECIAL_KINDS:
            if kind == "eof":
                break
            if kind == "digraph":  # `%:if` is `#if`: the token is its primary spelling
                append(("op", _DIGRAPHS[text[tstart:tend]], src, tstart, tend, bol, None, space, None))
                bol = False
                continue
            kind = _special_token(src, kind, m, tstart)
        append((kind, text[tstart:tend], src, tstart, tend, bol, None, space, None))
        bol = False
    if src._cuts:
        _revert_splices_in_raw_strings(src, tokens)
    return tokens


def _revert_splices_in_raw_strings(src: SourceFile, tokens: list[Token]) -> None:
    """Give raw string literals their original text: C++ reverts line splicing inside a
    raw string (g++ too), so a backslash-newline in one stays, even in a `#define` body
    spread over several lines."""
    cuts = src._cuts
    for k, t in enumerate(tokens):
        if t[KIND] == "raw" and bisect.bisect_right(cuts, t[POS]) != bisect.bisect_left(cuts, t[END]):
            tokens[k] = (t[KIND], src.original_slice(t[POS], t[END]), *t[2:])


_SPECIAL_KINDS = frozenset({"eof", "badcomment", "badraw", "other", "digraph"})
_DIGRAPHS = {"%:%:": "##", "%:": "#", "<%": "{", "%>": "}", "<:": "[", ":>": "]"}


def _special_token(src: SourceFile, kind: str, m: re.Match[str], tstart: int) -> str:
    """Raise the error of an unterminated comment or raw string; the kind of a stray
    character: "bad" for a backslash (an error only in active code, as in g++)."""
    text = src.text
    if kind == "other":
        return "bad" if m.group(kind) == "\\" else "other"
    if kind == "badcomment":
        raise src.error(tstart, "unterminated comment: '/*' without a matching '*/'")
    if kind == "badraw":
        tend = m.end()
        delim = re.match(r"[^()\\ \t\n\r\f\v\"]{0,16}", text[tend:]).group()  # type: ignore[union-attr]
        if text[tend + len(delim) : tend + len(delim) + 1] != "(":
            raise src.error(tstart, "invalid raw string delimiter: expected R\"delim( with at most "
                            "16 characters and no spaces, parentheses or backslashes")
        raise src.error(tstart, f"unterminated raw string literal: no ){delim}\" after R\"{delim}(")
    raise AssertionError(kind)


def _comment_as_space(m: re.Match[str]) -> str:
    return "" if m.group().startswith("//") else " "


def relex(text: str, like: Token) -> list[Token]:
    """Tokens of `text` (a `##` paste or a stringized argument), located where `like` is."""
    tmp = SourceFile(like[SRC].path, text)
    return [(t[KIND], t[TEXT], like[SRC], like[POS], like[END], False, like[HIDE], t[SPACE], like[ORIGIN])
            for t in tokenize(tmp)]


_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]+)|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.DOTALL)
_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
    "\\": "\\", "'": "'", '"': '"', "?": "?",
}


_BYTE_ESCAPE = re.compile(r"\\[0-7xuU]")
_SIMPLE_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def literal_body(tok: Token) -> tuple[str, int, bool]:
    """A string literal token's body (between its quotes, or its raw string's parentheses),
    where the body starts in the token's text, and whether it has escapes to resolve (not
    in a raw string)."""
    text = tok[TEXT]
    quote = text.index('"')
    if tok[KIND] == "raw":
        paren = text.index("(", quote)
        return text[paren + 1 : len(text) - (paren - quote) - 1], paren + 1, False
    return text[quote + 1 : -1], quote + 1, True


class TextRun(NamedTuple):
    """Characters `start:end` of a string argument's text: one literal's body (up to a numeric
    escape), written in `src` from offset `pos` on, one source character each unless `escaped`,
    when its simple escapes (`\\n`, two source characters) are one character each, written where
    the backslash is (`position`). `use`, for text written elsewhere (a macro's body, a file
    constant): where it is used and what wrote it (`expansion of macro 'M'`); an error stands
    there, and its note says where the character is written."""

    start: int
    end: int
    src: SourceFile
    pos: int
    use: tuple[Location, str] | None = None
    escaped: bool = False

    def position(self, offset: int) -> int:
        """Where character `offset` (`start <= offset < end`) is written in `src`: the escapes
        are walked only here, when an error needs the place, not for every literal read."""
        n = offset - self.start
        if not self.escaped:
            return self.pos + n
        at = self.pos
        # (each character takes at most two source characters: the body ends before that bound)
        for m in _SIMPLE_ESCAPE.finditer(self.src.text, self.pos, self.pos + 2 * (self.end - self.start)):
            if n < m.start() - at:
                break
            n -= m.start() - at
            if n == 0:
                return m.start()
            n -= 1
            at = m.end()
        return at + n

    def location_of(self, offset: int) -> Location:
        """`opgen.model.WrittenRun.location_of`."""
        at = self.src.location(self.position(offset))
        if self.use is None:
            return at
        used_at, what = self.use
        return replace(used_at, expanded_from=(what, at))


def literal_runs(toks: Iterable[Token], start: int = 0) -> list[TextRun]:
    """Where the characters of adjacent literals' text (from offset `start` of the argument's
    text on) are written, as far as that is known exactly: up to a numeric escape (the bytes of
    several may make one character) or a literal whose text is not written as it reads (a `##`
    paste, `#` stringizing, a raw string holding a line splice). One run per literal."""
    runs: list[TextRun] = []
    for t in toks:
        src, pos, origin = t[SRC], t[POS], t[ORIGIN]
        use = None
        if origin is not None:
            macro, src, pos = origin
            use = (t[SRC].location(t[POS]), macro_expansion(macro))
        if not src.text.startswith(t[TEXT], pos):
            break
        body, offset, escaped = literal_body(t)
        escaped = escaped and "\\" in body
        numeric = _BYTE_ESCAPE.search(body) if escaped else None
        if numeric is not None:
            body = body[: numeric.start()]
        length = len(body) - (len(_SIMPLE_ESCAPE.findall(body)) if escaped else 0)
        runs.append(TextRun(start, start + length, src, pos + offset, use, escaped))
        start += length
        if numeric is not None:
            break
    return runs


def needs_bytes(body: str) -> bool:
    """Whether a literal body has numeric escapes (which may build UTF-8 sequences byte by
    byte, even across adjacent literals), so it must be decoded as bytes."""
    return "\\" in body and _BYTE_ESCAPE.search(body) is not None


def decode_simple_escapes(body: str, tok: Token) -> str:
    """The text of a literal body without numeric escapes (see needs_bytes)."""
    if "\\" not in body:
        return body
    try:
        return _SIMPLE_ESCAPE.sub(lambda m: _SIMPLE_ESCAPES[m.group(1)], body)
    except KeyError:
        return decode_escapes(body, tok).decode("utf-8")  # raises the located error


def _decoded(body: str, tok: Token, unit_bits: int) -> Iterator[str | int]:
    """A literal body's pieces in order, escapes resolved: text as str (characters as written,
    a simple escape's, a universal character name's) and code units given by value as int (an
    octal or hex escape; in a 32-bit literal, a `\\U` beyond Unicode, which is its own unit).
    `unit_bits` is the literal's code unit: 8 (narrow, u8), 16 (u), 32 (U, and L: wchar_t on
    Linux). Raises g++'s located errors (libcpp/charset.cc: `convert_escape`, `_cpp_valid_ucn`,
    `convert_ucn`) for an unknown escape, a numeric escape wider than a unit (g++ warns), and a
    universal character name that names a surrogate or a value beyond 0x7FFFFFFF, or one
    beyond Unicode in a literal of 8- or 16-bit units."""
    last = 0
    for m in _ESCAPE.finditer(body):
        if last < m.start():
            yield body[last : m.start()]
        last = m.end()
        octal, hexa, u4, u8, simple = m.groups()
        if octal is not None or hexa is not None:
            value = int(octal, 8) if octal is not None else int(hexa, 16)
            if value >> unit_bits:
                raise token_error(tok, f"escape sequence {m.group()} out of range")
            yield value
        elif u4 is not None or u8 is not None:
            code = int(u4 or u8, 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x7FFFFFFF:
                raise token_error(tok, f"{m.group()} is not a valid universal character")
            if code <= 0x10FFFF:
                yield chr(code)
            elif unit_bits == 32:
                yield code  # g++ -std=c++17 keeps it (C++20 mode warns)
            else:
                # g++ rejects it in u'' (no UTF-16 for it) and writes extended UTF-8 bytes in a
                # narrow literal, which no reader of opgen's text takes: an error for both
                raise token_error(tok, f"{m.group()} is not a valid universal character: "
                                  "Unicode ends at \\U0010FFFF")
        elif simple in _SIMPLE_ESCAPES:
            yield _SIMPLE_ESCAPES[simple]
        else:
            raise token_error(tok, f"unknown escape sequence '\\{simple}'")
    if last < len(body):
        yield body[last:]


def decode_escapes(body: str, tok: Token) -> bytes:
    """The bytes of a narrow literal's body (between the quotes), escapes resolved."""
    if "\\" not in body:
        return body.encode("utf-8", "surrogateescape")  # bytes that are not UTF-8 as in the file
    out = bytearray()
    for part in _decoded(body, tok, 8):
        if isinstance(part, int):
            out.append(part)
        else:
            out += part.encode("utf-8", "surrogateescape")
    return bytes(out)


def char_literal_units(tok: Token) -> list[int]:
    """The code units of a character literal token (`'ab'`, `L'\\x263a'`, `u'é'`): bytes
    for a narrow or u8 literal, UTF-16 units for u'', code points for U'' and L''."""
    text = tok[TEXT]
    quote = text.index("'")
    prefix, body = text[:quote], text[quote + 1 : -1]
    if prefix in ("", "u8"):
        return list(decode_escapes(body, tok))
    # g++ converts a wide literal's source characters from UTF-8: bytes that are not UTF-8 are
    # its error there (a narrow literal keeps them as they are)
    check_decoded([tok])
    units: list[int] = []
    for part in _decoded(body, tok, 16 if prefix == "u" else 32):
        if isinstance(part, int):
            units.append(part)
        elif prefix == "u":
            utf16 = part.encode("utf-16-le")
            units += (int.from_bytes(utf16[k : k + 2], "little") for k in range(0, len(utf16), 2))
        else:
            units += map(ord, part)
    return units


_INT_LITERAL = re.compile(
    r"(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)(?:[uU](?:ll|LL|[lLzZ])?|(?:ll|LL|[lLzZ])[uU]?)?\Z"
)


def parse_int_literal(text: str) -> int | None:
    """The value of a C++ integer literal (digit separators, suffixes), else None."""
    m = _INT_LITERAL.match(text)
    if not m:
        return None
    digits = m.group(1).replace("'", "")
    if len(digits.lstrip("0")) > 66:  # beyond 64 bits in any base (and Python's 4300-digit limit)
        return 1 << 66
    if digits[:2] in ("0x", "0X", "0b", "0B"):
        return int(digits, 0)
    return int(digits, 8) if digits[0] == "0" else int(digits)
