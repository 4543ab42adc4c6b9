"""The integer constant expressions of `#if`/`#elif`, evaluated as the C preprocessor
does (after `defined` and macro expansion; identifiers left over are 0): precedence
climbing over C's binary operators, unary `- + ! ~`, `?:`, parentheses, integer and
character literals; division truncates toward zero. Values are exact but must stay
within 64 bits ([-2**63, 2**64), `opgen.limits`), like C's intmax_t/uintmax_t: anything
beyond, and shift counts outside [0, 64), are located errors (no wrap-around or unsigned
promotion); parentheses, unary operators and `?:` nest at most MAX_IF_NESTING deep."""

from __future__ import annotations

from typing import ClassVar

from opgen.errors import OpgenError
from opgen.limits import IF_MAX, IF_MIN, MAX_IF_NESTING
from opgen.spec.cpp_lexer import (
    KIND,
    TEXT,
    Token,
    decode_escapes,
    parse_int_literal,
    token_error,
    token_location,
)


def evaluate_if_expression(toks: list[Token], where: Token) -> int:
    """The value of the expression `toks` of the directive whose name token is `where`."""
    return _IfExpr(toks, where).evaluate()


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

    def _checked(self, value: int, tok: Token) -> int:
        if not IF_MIN <= value <= IF_MAX:
            raise token_error(tok, f"integer overflow in #{self.where[TEXT]} expression (values must fit in 64 bits)")
        return value

    def evaluate(self) -> int:
        value = self._expr(0)
        if self.i < len(self.toks):
            t = self.toks[self.i]
            raise token_error(t, f"missing binary operator before token \"{t[TEXT]}\" in #{self.where[TEXT]}")
        return value

    def _peek(self) -> str | None:
        return self.toks[self.i][TEXT] if self.i < len(self.toks) else None

    def _expr(self, min_prec: int) -> int:
        left = self._unary()
        while True:
            op = self._peek()
            if op == "?" and min_prec == 0:
                # Both branches recurse: `a ? b ? ... : c` and `a ? b : c ? ...` nest.
                self._enter(self.toks[self.i])
                try:
                    self.i += 1
                    then = self._expr(0)
                    if self._peek() != ":":
                        raise token_error(self._tok(), "'?' without following ':' in #if expression")
                    self.i += 1
                    other = self._expr(0)
                finally:
                    self.depth -= 1
                left = then if left else other
                continue
            prec = self._BINARY.get(op or "")
            if prec is None or prec < min_prec:
                return left
            op_tok = self.toks[self.i]
            self.i += 1
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

    def _apply(self, op: str, a: int, b: int, tok: Token) -> int:
        if op in ("/", "%") and b == 0:
            raise token_error(tok, "division by zero in #if")
        if op in ("<<", ">>") and not 0 <= b < 64:
            raise token_error(tok, f"shift count {b} in #{self.where[TEXT]} is outside [0, 64)")
        if op in ("/", "%"):  # C truncates toward zero
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return quotient if op == "/" else a - b * quotient
        return self._checked({
            "*": lambda: a * b, "+": lambda: a + b, "-": lambda: a - b, "<<": lambda: a << b,
            ">>": lambda: a >> b, "<": lambda: int(a < b), ">": lambda: int(a > b),
            "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "==": lambda: int(a == b),
            "!=": lambda: int(a != b), "&": lambda: a & b, "^": lambda: a ^ b, "|": lambda: a | b,
            "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
        }[op](), tok)

    def _unary(self) -> int:
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
                    v = self._expr(0)
                    if self._peek() != ")":
                        raise token_error(self._tok(), f"missing ')' in #{self.where[TEXT]} expression")
                    self.i += 1
                    return v
                v = self._unary()
                return self._checked({"-": -v, "+": v, "!": int(not v), "~": ~v}[text], t)
            finally:
                self.depth -= 1
        if t[KIND] == "num":
            value = parse_int_literal(text)
            if value is None:
                raise token_error(t, f"invalid integer \"{text}\" in #{self.where[TEXT]}")
            return self._checked(value, t)
        if t[KIND] == "chr":
            decoded = decode_escapes(text[text.index("'") + 1 : -1], t)
            return decoded[0] if decoded else 0
        raise token_error(t, f"token \"{text}\" is not valid in preprocessor expressions")

