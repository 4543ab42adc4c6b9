"""The integer constant expressions of `#if`/`#elif`, evaluated as the C preprocessor
(GCC's libcpp) does, after `defined` and macro expansion (identifiers left over are 0):
precedence climbing over C's binary operators, unary `- + ! ~`, `?:`, the comma operator,
parentheses, integer and character literals.

Every value is an intmax_t or a uintmax_t (64 bits). An integer literal is unsigned with a
`u`/`U` suffix or when it does not fit in intmax_t (`0xFFFFFFFFFFFFFFFF`,
`9223372036854775808`); beyond 64 bits it is an error. The usual arithmetic conversions
apply: when either operand is unsigned the operation is unsigned, modulo 2**64 (`-1 > 0u`,
`0u - 1`), comparing and dividing unsigned too; a shift has its left operand's type, a
negative count shifts the other way and a count of 64 or more shifts everything out. `-` of
an unsigned value wraps; comparisons, `!`, `&&` and `||` give the signed int 1 or 0; `?:`
takes the unsigned type when either branch has it. Character literals are as on x86-64
Linux (`char` and `wchar_t` signed, `u''`/`U''` unsigned, `'ab'` an int).

Errors: division by zero (GCC's error), and where GCC only warns, signed overflow and
literals beyond 64 bits (opgen refuses to guess what was meant). Neither is reported in an
operand that is not evaluated (`0 && 1 / 0`, the branch of `?:` not taken), as in GCC.
Parentheses, unary operators and `?:` nest at most MAX_IF_NESTING deep."""

from __future__ import annotations

from typing import ClassVar

from opgen.errors import OpgenError
from opgen.limits import MAX_IF_NESTING
from opgen.spec.cpp_lexer import (
    KIND,
    TEXT,
    Token,
    char_literal_units,
    parse_int_literal,
    token_error,
    token_location,
)

_MASK = (1 << 64) - 1
_INT_MAX = (1 << 63) - 1
_INT_MIN = -(1 << 63)

# A value: (v, unsigned); v in [-2**63, 2**63) when signed, in [0, 2**64) when unsigned.
Value = tuple[int, bool]


def evaluate_if_expression(toks: list[Token], where: Token) -> int:
    """The value of the expression `toks` of the directive whose name token is `where`
    (a uintmax_t result as its non-negative value)."""
    return _IfExpr(toks, where).evaluate()[0]


def _to_signed(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v > _INT_MAX else v


class _IfExpr:
    """Integer constant expression of #if/#elif, evaluated by precedence climbing."""

    _BINARY: ClassVar[dict[str, int]] = {
        "*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, ">": 7, "<=": 7,
        ">=": 7, "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
    }

    def __init__(self, toks: list[Token], where: Token):
        self.toks = toks
        self.i = 0
        self.where = where
        self.depth = 0  # parentheses and unary operators being parsed (recursion depth)
        self.skip = 0  # > 0 in an operand that is not evaluated: no errors, as GCC's skip_eval

    def _signed(self, value: int, tok: Token) -> Value:
        """A signed result: overflow is an error (GCC warns and wraps around)."""
        if _INT_MIN <= value <= _INT_MAX:
            return value, False
        if self.skip:
            return _to_signed(value), False
        raise OpgenError("integer overflow in preprocessor expression", token_location(tok),
                         hint="g++ warns and wraps around; if modulo-2**64 arithmetic is meant, make an "
                              "operand unsigned (a `u` suffix)")

    def evaluate(self) -> Value:
        value = self._comma()
        if self.i < len(self.toks):
            t = self.toks[self.i]
            raise token_error(t, f"missing binary operator before token \"{t[TEXT]}\" in #{self.where[TEXT]}")
        return value

    def _peek(self) -> str | None:
        return self.toks[self.i][TEXT] if self.i < len(self.toks) else None

    def _comma(self) -> Value:
        """An expression with the comma operator (its value is the last operand's)."""
        value = self._expr(0)
        while self._peek() == ",":
            self.i += 1
            value = self._expr(0)
        return value

    def _expr(self, min_prec: int) -> Value:
        left = self._unary()
        while True:
            op = self._peek()
            if op == "?" and min_prec == 0:
                # Both branches recurse: `a ? b ? ... : c` and `a ? b : c ? ...` nest.
                self._enter(self.toks[self.i])
                try:
                    self.i += 1
                    taken = left[0] != 0
                    self.skip += not taken
                    then = self._comma()
                    self.skip -= not taken
                    if self._peek() != ":":
                        raise token_error(self._tok(), "'?' without following ':' in #if expression")
                    self.i += 1
                    self.skip += taken
                    other = self._expr(0)
                    self.skip -= taken
                finally:
                    self.depth -= 1
                value = then[0] if taken else other[0]
                left = (value & _MASK, True) if then[1] or other[1] else (value, False)
                continue
            prec = self._BINARY.get(op or "")
            if prec is None or prec < min_prec:
                return left
            op_tok = self.toks[self.i]
            self.i += 1
            if op == "&&" or op == "||":
                decided = (left[0] == 0) == (op == "&&")  # the right operand is not evaluated
                self.skip += decided
                right = self._expr(prec + 1)
                self.skip -= decided
                truth = bool(left[0]) and bool(right[0]) if op == "&&" else bool(left[0]) or bool(right[0])
                left = (int(truth), False)
                continue
            right = self._expr(prec + 1)
            left = self._apply(op or "", left, right, op_tok)

    def _enter(self, t: Token) -> None:
        """One more level of parentheses, unary operators or `?:` at `t`, within MAX_IF_NESTING."""
        self.depth += 1
        if self.depth > MAX_IF_NESTING:
            self.depth -= 1
            raise token_error(t, f"#{self.where[TEXT]} expression nests more than {MAX_IF_NESTING} deep "
                              "(opgen's limit)")

    def _tok(self) -> Token:
        return self.toks[self.i] if self.i < len(self.toks) else self.where

    def _apply(self, op: str, left: Value, right: Value, tok: Token) -> Value:
        a, a_unsigned = left
        b, b_unsigned = right
        if op == "<<" or op == ">>":
            return self._shift(op, a, a_unsigned, b, b_unsigned, tok)
        unsigned = a_unsigned or b_unsigned
        if unsigned:  # the usual arithmetic conversions
            a &= _MASK
            b &= _MASK
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return int({"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]), False
        if op == "/" or op == "%":
            if b == 0:
                if self.skip:
                    return left  # as GCC does, left operand's type included: `0 ? 1 / 0u : -1` is signed
                raise token_error(tok, "division by zero in #if")
            if unsigned:
                return (a // b if op == "/" else a % b), True
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C truncates toward zero
            return self._signed(quotient if op == "/" else a - b * quotient, tok)
        value = {"*": a * b, "+": a + b, "-": a - b, "&": a & b, "^": a ^ b, "|": a | b}[op]
        return (value & _MASK, True) if unsigned else self._signed(value, tok)

    def _shift(self, op: str, a: int, a_unsigned: bool, n: int, n_unsigned: bool, tok: Token) -> Value:
        """`a << n` / `a >> n` as GCC shifts: the left operand's type; a negative count
        shifts the other way; a count of 64 or more leaves 0 (or -1, `>>` of a negative)."""
        if not n_unsigned and n < 0:
            op = "<<" if op == ">>" else ">>"
            n = -n
        n = min(n, 64)
        if op == ">>":
            return a >> n, a_unsigned  # arithmetic for a signed value
        if a_unsigned:
            return (a << n) & _MASK, True
        return self._signed(a << n, tok)

    def _unary(self) -> Value:
        if self.i >= len(self.toks):
            if not self.toks:
                raise token_error(self.where, f"#{self.where[TEXT]} with no expression")
            last = self.toks[-1]  # the operator or `(` whose operand is missing
            raise OpgenError(f"expected an operand after '{last[TEXT]}' at end of #{self.where[TEXT]}",
                             token_location(last), hint=f"complete the expression after '{last[TEXT]}'")
        t = self.toks[self.i]
        self.i += 1
        text = t[TEXT]
        if text in ("-", "+", "!", "~", "("):
            self._enter(t)
            try:
                if text == "(":
                    v = self._comma()
                    if self._peek() != ")":
                        raise token_error(self._tok(), f"missing ')' in #{self.where[TEXT]} expression")
                    self.i += 1
                    return v
                value, unsigned = self._unary()
            finally:
                self.depth -= 1
            if text == "!":
                return int(value == 0), False
            if text == "+":
                return value, unsigned
            value = -value if text == "-" else ~value
            return (value & _MASK, True) if unsigned else self._signed(value, t)
        if t[KIND] == "num":
            literal = parse_int_literal(text)
            if literal is None:
                raise token_error(t, f"invalid integer \"{text}\" in #{self.where[TEXT]}")
            if literal > _MASK:
                raise token_error(t, "integer constant is too large for its type (uintmax_t, 64 bits)")
            return literal, "u" in text or "U" in text or literal > _INT_MAX
        if t[KIND] == "chr":
            return _char_value(t)
        raise token_error(t, f"token \"{text}\" is not valid in preprocessor expressions")


def _char_value(t: Token) -> Value:
    """A character literal's value in #if, as g++ -std=c++17 on x86-64 Linux: `'c'` a
    signed char, `'ab'` an int (`(a << 8) | b`, at most 4 chars kept), `u8'c'` a char,
    `L'c'` a signed 32-bit wchar_t (`L'ab'` the last), `u'c'`/`U'c'` unsigned char16_t/char32_t
    (one code unit: `u'\\U0001F600'` is an error, as in g++)."""
    text = t[TEXT]
    prefix = text[: text.index("'")]
    units = char_literal_units(t)
    if not units:
        raise token_error(t, "empty character constant")
    if len(units) > 1 and prefix in ("u8", "u", "U"):  # g++'s error; `'abcde'`, `L'ab'` only warn
        raise token_error(t, "character constant too long for its type")
    if len(units) == 1 and prefix in ("", "u8"):
        c = units[-1]
        return (c - 256 if c > 127 else c), False
    if prefix == "":
        value = 0
        for c in units:
            value = (value << 8 | c) & 0xFFFFFFFF
        return (value - (1 << 32) if value > 0x7FFFFFFF else value), False
    if prefix == "L":
        c = units[-1] & 0xFFFFFFFF
        return (c - (1 << 32) if c > 0x7FFFFFFF else c), False
    return units[-1] & (0xFFFF if prefix == "u" else 0xFFFFFFFF), True
