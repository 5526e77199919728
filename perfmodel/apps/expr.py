"""A small, safe expression language for application models in TOML files.

Model files are data: their formulas are parsed here, by our own tokenizer and precedence
parser, into a tiny tree of :class:`Num`, :class:`Name`, :class:`Unary`, :class:`Binary` and
:class:`Call` nodes.  Nothing in a file is ever evaluated by Python (no ``eval``, ``exec``,
``sympify`` or ``parse_expr``): only numbers, the names the caller allows, ``+ - * / ^ **``,
parentheses and whitelisted functions exist.  Attribute access, indexing, strings, lambdas,
comprehensions and dunder names cannot even be written.  Limits keep hostile text cheap:
the text's length, the nesting depth, the size of numbers and of literal exponents.

The tree becomes a SymPy expression (:func:`to_sympy`) only after it has been checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perfmodel.errors import InputError

if TYPE_CHECKING:
    import sympy

MAX_LENGTH = 2000
MAX_DEPTH = 60
MAX_TREE_DEPTH = 100
"""The deepest a formula's tree may be as written: a chain ``a + b + … + z`` of more terms
nests one level per operator, and SymPy and Python's own compiler recurse on each level."""
MAX_EXPONENT = 64.0
MAX_NUMBER = 1e300

FUNCTIONS: dict[str, tuple[int, int]] = {
    "log": (1, 1), "log2": (1, 1), "log10": (1, 1), "exp": (1, 1), "sqrt": (1, 1),
    "ceil": (1, 1), "floor": (1, 1), "abs": (1, 1), "min": (2, 8), "max": (2, 8),
}
"""Mathematical functions every expression may call, with their (fewest, most) arguments."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Unary:
    op: str
    arg: Node


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Node, ...]


Node = Num | Name | Unary | Binary | Call

_TOKEN = re.compile(r"""
    (?P<space>[ \t]+)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\*\*|[-+*/^(),])
""", re.VERBOSE)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    col: int


def _excerpt(text: str, col: int, width: int = 60) -> str:
    """The formula as quoted in an error: whole when short, else ``width`` characters around
    column ``col`` (1-based) with ``…`` where it is cut."""
    if len(text) <= width:
        return repr(text)
    start = max(0, min(col - 1 - width // 2, len(text) - width))
    cut = text[start:start + width]
    return ("…" if start else "") + repr(cut) + ("…" if start + width < len(text) else "")


class _Parser:
    def __init__(self, text: str, names: frozenset[str], functions: Mapping[str, tuple[int, int]],
                 where: str) -> None:
        self.text, self.names, self.functions, self.where = text, names, functions, where
        self.toks = self._tokens()
        self.i = 0
        self.depths: dict[int, int] = {}   # id(node) -> the depth of its tree
        self.kept: list[Node] = []        # every node measured, so no id is reused

    def deep(self, node: Node, col: int) -> Node:
        """``node``, refused when its tree is deeper than :data:`MAX_TREE_DEPTH`: measured as
        it is built, so no deeper tree ever exists to be walked."""
        below = [self.depths.get(id(k), 1) for k in _children(node)]
        depth = 1 + max(below, default=0)
        if depth > MAX_TREE_DEPTH:
            raise self.fail(f"more than {MAX_TREE_DEPTH} operations nest here", col,
                            "split the formula into [define] names or shorter sums")
        self.depths[id(node)] = depth
        self.kept.append(node)
        return node

    def fail(self, what: str, col: int, fix: str) -> InputError:
        return InputError(f"{self.where}: {what} at column {col} of {_excerpt(self.text, col)}",
                          fix=fix)

    def _tokens(self) -> list[_Tok]:
        out: list[_Tok] = []
        pos = 0
        while pos < len(self.text):
            m = _TOKEN.match(self.text, pos)
            if m is None:
                ch = self.text[pos]
                hint = {".": "attribute access is not part of the language",
                        "[": "indexing is not part of the language",
                        "'": "text is not part of the language",
                        '"': "text is not part of the language"}.get(ch, "")
                raise self.fail(f"{ch!r} is not allowed", pos + 1,
                                hint or "use numbers, names, + - * / ^, parentheses and "
                                        f"functions ({', '.join(self.functions)})")
            kind = m.lastgroup or ""
            if kind != "space":
                out.append(_Tok(kind, m.group(), pos + 1))
            pos = m.end()
        out.append(_Tok("end", "", len(self.text) + 1))
        return out

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def take(self, text: str) -> bool:
        if self.tok.kind == "op" and self.tok.text == text:
            self.i += 1
            return True
        return False

    def expression(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}", self.tok.col,
                            "split the formula into named terms")
        return self.chain("+-", self.term, depth)

    def term(self, depth: int) -> Node:
        return self.chain("*/", self.unary, depth)

    def chain(self, ops: str, operand: Callable[[int], Node], depth: int) -> Node:
        """``operand (op operand)*`` for the left-associative operators ``ops``."""
        node = operand(depth)
        while self.tok.kind == "op" and self.tok.text in ops:
            op, col = self.tok.text, self.tok.col
            self.i += 1
            node = self.deep(Binary(op, node, operand(depth)), col)
        return node

    def unary(self, depth: int) -> Node:
        if self.tok.kind == "op" and self.tok.text in "+-":
            op = self.tok.text
            self.i += 1
            if depth > MAX_DEPTH:
                raise self.fail("too many signs in a row", self.tok.col, "simplify it")
            col = self.tok.col
            arg = self.unary(depth + 1)
            return arg if op == "+" else self.deep(Unary("-", arg), col)
        return self.power(depth)

    def power(self, depth: int) -> Node:
        base = self.atom(depth)
        if self.take("^") or self.take("**"):
            col = self.tok.col
            exponent = self.unary(depth + 1)   # right-associative: 2^3^2 = 2^(3^2)
            power = _constant(exponent)
            if power is not None and not abs(power) <= MAX_EXPONENT:
                raise self.fail(f"the exponent {power:g} is too large", col,
                                f"constant exponents are at most {MAX_EXPONENT:g} in size")
            node = self.deep(Binary("^", base, exponent), col)
            value = _constant(node)
            if value is not None and math.isnan(value):
                raise self.fail("a constant power is not a real number", col,
                                "a negative number has no real fractional power")
            if value is not None and not abs(value) <= MAX_NUMBER:
                raise self.fail("a constant power is too large", col,
                                f"constants are at most {MAX_NUMBER:g}")
            return node
        return base

    def atom(self, depth: int) -> Node:
        tok = self.tok
        if tok.kind == "num":
            self.i += 1
            value = float(tok.text)
            if not math.isfinite(value) or value > MAX_NUMBER:
                raise self.fail(f"the number {tok.text} is too large", tok.col,
                                f"numbers are at most {MAX_NUMBER:g}")
            return Num(value)
        if tok.kind == "name":
            self.i += 1
            if tok.text.startswith("__"):
                raise self.fail(f"the name {tok.text!r} is not allowed", tok.col,
                                "names starting with __ are refused")
            if self.take("("):
                return self.call(tok, depth)
            if tok.text in self.functions:
                raise self.fail(f"{tok.text} is a function", tok.col, f"write {tok.text}(...)")
            if tok.text not in self.names:
                known = ", ".join(sorted(self.names)) or "none"
                raise self.fail(f"unknown name {tok.text!r}", tok.col, f"known names: {known}")
            return Name(tok.text)
        if self.take("("):
            node = self.expression(depth + 1)
            if not self.take(")"):
                raise self.fail("missing ')'", self.tok.col, "close every parenthesis")
            return node
        what = "the formula ends too early" if tok.kind == "end" else f"unexpected {tok.text!r}"
        raise self.fail(what, tok.col, "write a number, a name or a parenthesis here")

    def call(self, tok: _Tok, depth: int) -> Node:
        arity = self.functions.get(tok.text)
        if arity is None:
            raise self.fail(f"unknown function {tok.text!r}", tok.col,
                            f"functions: {', '.join(sorted(self.functions))}")
        args: list[Node] = []
        if not self.take(")"):
            args.append(self.expression(depth + 1))
            while self.take(","):
                args.append(self.expression(depth + 1))
            if not self.take(")"):
                raise self.fail("missing ')'", self.tok.col, "close the call's parenthesis")
        lo, hi = arity
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise self.fail(f"{tok.text} takes {want} argument{'s' if hi > 1 else ''}, not "
                            f"{len(args)}", tok.col, "check the call")
        return self.deep(Call(tok.text, tuple(args)), tok.col)


_FLOAT_FUNCTIONS: dict[str, Any] = {
    "log": math.log, "log2": math.log2, "log10": math.log10, "exp": math.exp,
    "sqrt": math.sqrt, "ceil": math.ceil, "floor": math.floor, "abs": abs, "min": min,
    "max": max,
}


def _constant(node: Node) -> float | None:
    """The value of a subtree without names (in floats, overflow as inf), or None: how the
    parser keeps constant towers such as 2^(2^(2^10)) from ever reaching exact arithmetic."""
    try:
        if isinstance(node, Num):
            return node.value
        if isinstance(node, Unary):
            v = _constant(node.arg)
            return None if v is None else -v
        if isinstance(node, Binary):
            a, b = _constant(node.left), _constant(node.right)
            if a is None or b is None:
                return None
            if node.op == "+":
                return a + b
            if node.op == "-":
                return a - b
            if node.op == "*":
                return a * b
            if node.op == "/":
                return a / b if b else math.inf
            if a == 0 and b < 0:
                return math.inf
            if a < 0 and b != int(b):
                return math.nan   # a real power of a negative number does not exist
            return float(a ** b)
        if isinstance(node, Call) and node.name in _FLOAT_FUNCTIONS:
            args = [_constant(x) for x in node.args]
            if any(x is None for x in args):
                return None
            return float(_FLOAT_FUNCTIONS[node.name](*args))
    except (OverflowError, ValueError):
        return math.inf
    return None


def parse(text: object, names: frozenset[str] | set[str], *,
          functions: Mapping[str, tuple[int, int]] | None = None,
          where: str = "expression") -> Node:
    """Parse ``text`` into a checked tree, or raise :class:`~perfmodel.errors.InputError`.

    names : the variables the formula may use
    functions : callable names with their (fewest, most) arguments, beside :data:`FUNCTIONS`
    where : how errors name the formula (``"terms.compute"``)

    >>> parse("a + 2*b^2", {"a", "b"})
    Binary(op='+', left=Name(name='a'), right=Binary(op='*', left=Num(value=2.0), \
right=Binary(op='^', left=Name(name='b'), right=Num(value=2.0))))
    """
    if not isinstance(text, str):
        raise InputError(f"{where} is not text", fix='write the formula in quotes: "a + b"')
    if len(text) > MAX_LENGTH:
        raise InputError(f"{where} is {len(text)} characters long",
                         fix=f"formulas are at most {MAX_LENGTH} characters; split into terms")
    if not text.strip():
        raise InputError(f"{where} is empty", fix='write a formula, e.g. "a + b"')
    p = _Parser(text, frozenset(names), {**FUNCTIONS, **(functions or {})}, where)
    node = p.expression(0)
    if p.tok.kind != "end":
        raise p.fail(f"unexpected {p.tok.text!r}", p.tok.col, "an operator is missing before it")
    bad = bad_constant(node)
    if bad is not None:
        raise InputError(f"{where}: a constant part of {text!r} is {bad}",
                         fix=f"constants must be finite real numbers of at most {MAX_NUMBER:g} "
                             "(no division by 0, log of 0 or root of a negative number)")
    return node


def bad_constant(node: Node) -> str | None:
    """What is wrong with the first constant subtree that is not a finite real number of at
    most :data:`MAX_NUMBER`, or None: the check :func:`parse` makes, and the model makes again
    on formulas with their definitions written out."""
    value = _constant(node)
    if value is not None:
        if math.isnan(value):
            return "not a real number"
        if not abs(value) <= MAX_NUMBER:
            return "infinite or too large"
        return None
    for child in _children(node):
        bad = bad_constant(child)
        if bad is not None:
            return bad
    return None


def names_in(node: Node) -> set[str]:
    """Every variable the tree uses."""
    if isinstance(node, Name):
        return {node.name}
    if isinstance(node, Unary):
        return names_in(node.arg)
    if isinstance(node, Binary):
        return names_in(node.left) | names_in(node.right)
    if isinstance(node, Call):
        return set().union(*(names_in(a) for a in node.args)) if node.args else set()
    return set()


def substitute(node: Node, mapping: Mapping[str, Node]) -> Node:
    """The tree with every name in ``mapping`` replaced by its tree (shared, not copied)."""
    if isinstance(node, Name):
        return mapping.get(node.name, node)
    if isinstance(node, Unary):
        return Unary(node.op, substitute(node.arg, mapping))
    if isinstance(node, Binary):
        return Binary(node.op, substitute(node.left, mapping), substitute(node.right, mapping))
    if isinstance(node, Call):
        return Call(node.name, tuple(substitute(a, mapping) for a in node.args))
    return node


def tree_shape(node: Node) -> tuple[int, int]:
    """The tree's size, nodes counted with repetition (shared subtrees once per use), and its
    depth: what walking it would cost.  Iterative, in time proportional to the distinct nodes,
    so a tree too deep or too large to walk is measured without walking it."""
    memo: dict[int, tuple[int, int]] = {}
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in memo:
            continue
        kids = _children(n)
        if done:
            sizes = [memo[id(k)] for k in kids]
            memo[id(n)] = (1 + sum(s for s, _ in sizes), 1 + max((d for _, d in sizes),
                                                                 default=0))
        else:
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
    return memo[id(node)]


def _children(n: Node) -> tuple[Node, ...]:
    return ((n.arg,) if isinstance(n, Unary) else (n.left, n.right) if isinstance(n, Binary)
            else n.args if isinstance(n, Call) else ())


def calls_in(node: Node) -> set[str]:
    """Every function the tree calls."""
    if isinstance(node, Call):
        return {node.name}.union(*(calls_in(a) for a in node.args))
    if isinstance(node, Unary):
        return calls_in(node.arg)
    if isinstance(node, Binary):
        return calls_in(node.left) | calls_in(node.right)
    return set()


def to_sympy(node: Node, symbols: Mapping[str, Any],
             functions: Mapping[str, Any] | None = None) -> sympy.Expr:
    """The SymPy expression of a checked tree: ``symbols`` maps names to SymPy symbols (or
    expressions), ``functions`` maps the caller's function names to SymPy functions.

    Built with SymPy's automatic evaluation off, so the expression is the formula as written:
    no simplification runs (a short formula can otherwise make SymPy expand for minutes).
    """
    import sympy

    builtin: dict[str, Any] = {
        "log": sympy.log, "exp": sympy.exp, "sqrt": sympy.sqrt, "ceil": sympy.ceiling,
        "floor": sympy.floor, "abs": sympy.Abs, "min": sympy.Min, "max": sympy.Max,
        "log2": lambda x: sympy.log(x) / sympy.log(2),
        "log10": lambda x: sympy.log(x) / sympy.log(10),
    }
    table = {**builtin, **(functions or {})}

    def walk(n: Node) -> Any:
        if isinstance(n, Num):
            v = n.value
            return sympy.Integer(int(v)) if v.is_integer() and abs(v) < 1e15 else sympy.Float(v)
        if isinstance(n, Name):
            return symbols[n.name]
        if isinstance(n, Unary):
            return -walk(n.arg)
        if isinstance(n, Binary):
            a, b = walk(n.left), walk(n.right)
            if n.op == "+":
                return a + b
            if n.op == "-":
                return a - b
            if n.op == "*":
                return a * b
            if n.op == "/":
                return a / b
            return a ** b
        return table[n.name](*(walk(a) for a in n.args))

    with sympy.evaluate(False):
        result: sympy.Expr = walk(node)
    return result
