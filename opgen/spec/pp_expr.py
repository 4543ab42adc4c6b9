"""The integer constant expressions of `#if`/`#elif`, evaluated as the C preprocessor
does (after `defined` and macro expansion; identifiers left over are 0): precedence
climbing over C's binary operators, unary `- + ! ~`, `?:`, parentheses, integer and
character literals; division truncates toward zero. Arithmetic is unbounded (no
intmax_t wrap-around or unsigned promotion)."""

from __future__ import annotations

from typing import ClassVar

from opgen.spec.cpp_lexer import (
    KIND,
    TEXT,
    Token,
    decode_escapes,
    parse_int_literal,
    token_error,
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
                self.i += 1
                then = self._expr(0)
                if self._peek() != ":":
                    raise token_error(self._tok(), "'?' without following ':' in #if expression")
                self.i += 1
                other = self._expr(0)
                left = then if left else other
                continue
            prec = self._BINARY.get(op or "")
            if prec is None or prec < min_prec:
                return left
            op_tok = self.toks[self.i]
            self.i += 1
            right = self._expr(prec + 1)
            left = self._apply(op or "", left, right, op_tok)

    def _tok(self) -> Token:
        return self.toks[self.i] if self.i < len(self.toks) else self.where

    def _apply(self, op: str, a: int, b: int, tok: Token) -> int:
        if op in ("/", "%") and b == 0:
            raise token_error(tok, "division by zero in #if")
        if op in ("/", "%"):  # C truncates toward zero
            quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return quotient if op == "/" else a - b * quotient
        return {
            "*": lambda: a * b, "+": lambda: a + b, "-": lambda: a - b, "<<": lambda: a << b,
            ">>": lambda: a >> b, "<": lambda: int(a < b), ">": lambda: int(a > b),
            "<=": lambda: int(a <= b), ">=": lambda: int(a >= b), "==": lambda: int(a == b),
            "!=": lambda: int(a != b), "&": lambda: a & b, "^": lambda: a ^ b, "|": lambda: a | b,
            "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
        }[op]()

    def _unary(self) -> int:
        if self.i >= len(self.toks):
            raise token_error(self.where, f"#{self.where[TEXT]} with no expression" if not self.toks
                              else f"operator expected an operand at end of #{self.where[TEXT]}")
        t = self.toks[self.i]
        self.i += 1
        text = t[TEXT]
        if text in ("-", "+", "!", "~"):
            v = self._unary()
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}[text]
        if text == "(":
            v = self._expr(0)
            if self._peek() != ")":
                raise token_error(self._tok(), f"missing ')' in #{self.where[TEXT]} expression")
            self.i += 1
            return v
        if t[KIND] == "num":
            value = parse_int_literal(text)
            if value is None:
                raise token_error(t, f"invalid integer \"{text}\" in #{self.where[TEXT]}")
            return value
        if t[KIND] == "chr":
            decoded = decode_escapes(text[text.index("'") + 1 : -1], t)
            return decoded[0] if decoded else 0
        raise token_error(t, f"token \"{text}\" is not valid in preprocessor expressions")

