"""LaTeX of one value -> one canonical LaTeX string (pure string work, no evaluation).

A small tokenizer turns the value into a token tree; a rewriter emits canonical LaTeX in which every
physics symbol (``v_0``, ``\\omega_{\\max}``, ``\\dot{x}'``) is one ``\\variable{name}`` token, ``\\dfrac``
is ``\\frac``, ``\\log`` is ``\\ln``, Greek variants are one letter and the rule for ``e`` is applied.

What is kept because it carries meaning (the old normaliser threw it away):

* an explicit space (``\\,``, ``\\;``, ``\\quad``) becomes ``\\sp``: it ends a function's argument, so
  ``\\sin\\theta\\,\\frac{a}{b}`` is ``\\sin(\\theta)\\,a/b``;
* ``\\times`` stays ``\\times`` (the parser reads it as a cross product between vectors);
* vectors are their own symbols: ``\\vec{v_0}`` = ``\\mathbf v_0`` = ``vec:v_0``, ``\\hat{r}`` =
  ``\\mathbf{e}_r`` = ``vec:e_r``;
* a function value ``I(0)``, ``v(t_0)``, ``E(r)`` (a name applied to one simple argument) is one
  opaque symbol ``fn:I(0)``, never ``I`` times 0;
* a derivative written as a fraction (``\\frac{dx}{dt}``, ``\\frac{\\partial^2 f}{\\partial x^2}``) is
  one opaque symbol ``d:x/t``: the d's never cancel; an expectation ``\\langle E^2\\rangle`` is
  ``avg:...``.

What the reader cannot represent (integrals, sums, limits, ``\\nabla``, ``\\pm`` inside a value,
words inside a formula, an operator ``\\frac{d}{dt}``) raises :class:`LatexError` with
``unsupported=True``: the comparator then decides structurally or leaves the answer undecided.
Malformed text (unbalanced braces, a missing argument) raises it with ``unsupported=False``.
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple, Union

from .scan import command_end, despace
from .vocabulary import (ACCENTS, BOLD_COMMANDS, CROSS, DELIMITERS, FRACTIONS, FUNCTION_ALIASES,
                         FUNCTION_REWRITES, FUNCTIONS, GREEK, INVISIBLE, MULTIPLY, OTHER_SYMBOLS,
                         RELATION_COMMANDS, SIZING, SPACING, TEXT_COMMANDS, UNIT_DIRECTIONS, UNSUPPORTED,
                         VECTOR_ACCENTS, greek_name)

Token = Tuple[str, Union[str, list]]  # ('cmd', name) | ('chr', c) | ('num', digits) | ('grp', [..]) | ('ws', ' ')
_E_NOTATION_RE = re.compile(r'(?<![A-Za-z_\\])(\d+(?:\.\d*)?|\.\d+)[eE]([+-]?\d{1,4})(?![\d.A-Za-z])')
_ARG_WRAPPERS = set(ACCENTS) | set(VECTOR_ACCENTS) | TEXT_COMMANDS | BOLD_COMMANDS
VECTOR = 'vec:'
"""Name prefix of vector symbols."""


def is_vector_name(name: str) -> bool:
    """A vector symbol's name (``vec:v_0``)."""
    return name.startswith(VECTOR)


def is_opaque_name(name: str) -> bool:
    """An opaque symbol's name: a function value ``fn:I(0)``, a derivative ``d:x/t``, an expectation
    ``avg:..``, a cross product ``cross:..``, a norm ``norm:..`` -- values the engine cannot look inside."""
    return ':' in name and not name.startswith(VECTOR)


class LatexError(ValueError):
    """The text cannot be turned into an expression; ``reason`` is machine-readable.

    ``unsupported`` is True when the text is meaningful but outside what the engine represents
    (the answer is then undecided, not wrong); False when it is malformed. ``too_large`` marks a
    size or nesting limit (:mod:`.limits`).
    """

    def __init__(self, reason: str, detail: str = '', unsupported: bool = False, too_large: bool = False) -> None:
        super().__init__(f'{reason}: {detail}' if detail else reason)
        self.reason = reason
        self.unsupported = unsupported
        self.too_large = too_large


def _unsupported(reason: str, detail: str = '') -> LatexError:
    return LatexError(reason, detail, unsupported=True)


# --------------------------------------------------------------------------- tokenizer

def tokenize(text: str) -> List[Token]:
    """Token tree of ``text``: ``{...}`` groups nest, everything else is flat."""
    stack: List[List[Token]] = [[]]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            j = command_end(text, i)
            stack[-1].append(('cmd', text[i + 1:j]))
            i = j
        elif c == '{':
            stack.append([])
            i += 1
        elif c == '}':
            if len(stack) == 1:
                raise LatexError('unbalanced_braces')
            inner = stack.pop()
            stack[-1].append(('grp', inner))
            i += 1
        elif c.isdigit() or (c == '.' and i + 1 < n and text[i + 1].isdigit()):
            j = i
            while j < n and (text[j].isdigit() or (text[j] == '.' and j + 1 < n and text[j + 1].isdigit())):
                j += 1
            stack[-1].append(('num', text[i:j]))
            i = j
        elif c.isspace():
            while i < n and text[i].isspace():
                i += 1
            stack[-1].append(('ws', ' '))
        else:
            stack[-1].append(('chr', c))
            i += 1
    if len(stack) != 1:
        raise LatexError('unbalanced_braces')
    return stack[0]


def plain_text(tokens: List[Token]) -> str:
    """The letters and digits of a token list, commands by name (for names and text groups)."""
    out = []
    for kind, value in tokens:
        if kind == 'grp':
            out.append(plain_text(value))
        elif kind == 'cmd':
            if value in SPACING or value in SIZING or value in TEXT_COMMANDS or value in BOLD_COMMANDS \
                    or value in INVISIBLE:
                continue
            out.append(greek_name(value) if value in GREEK else value if value.isalpha() else '')
        elif kind == 'ws':
            continue
        else:
            out.append(value)
    return ''.join(out)


def _name(text: str) -> str:
    return re.sub(r'[^A-Za-z0-9]', '', text)


def _script_name(text: str) -> str:
    """A subscript's name keeps its signs: ``a_+`` and ``a_-`` (or ``a_{n+1}`` and ``a_{n-1}``) are
    different quantities, so the signs are spelt out before the rest is dropped."""
    return _name(text.replace('+', 'plus').replace('-', 'minus').replace('\u2212', 'minus'))


_VARIABLE_RE = re.compile(r'^\\variable\{([^{}]*)\}$')


# --------------------------------------------------------------------------- rewriter

class _Rewriter:
    """Emits canonical LaTeX from a token list (see the module docstring)."""

    def __init__(self, tokens: List[Token], depth: int = 0) -> None:
        if depth > 60:
            raise LatexError('too_deep', too_large=True)
        self.tokens = tokens
        self.depth = depth
        self.i = 0
        self.out: List[str] = []

    # -- token helpers
    def peek(self, skip_ws: bool = True, offset: int = 0) -> Optional[Token]:
        j = self.i
        seen = 0
        while j < len(self.tokens):
            if skip_ws and self.tokens[j][0] == 'ws':
                j += 1
                continue
            if seen == offset:
                return self.tokens[j]
            seen += 1
            j += 1
        return None

    def take(self, skip_ws: bool = True) -> Optional[Token]:
        while skip_ws and self.i < len(self.tokens) and self.tokens[self.i][0] == 'ws':
            self.i += 1
        if self.i >= len(self.tokens):
            return None
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def take_argument(self) -> List[Token]:
        """One macro argument: a group's content, or a single token (a command with its group)."""
        tok = self.take()
        if tok is None:
            raise LatexError('missing_argument')
        if tok[0] == 'grp':
            return tok[1]
        if tok[0] == 'num' and len(tok[1]) > 1 and '.' not in tok[1]:
            # \frac12 : the argument is one digit, the rest stays in the stream
            self.tokens.insert(self.i, ('num', tok[1][1:]))
            return [('num', tok[1][0])]
        if tok[0] == 'cmd' and tok[1] in _ARG_WRAPPERS:
            nxt = self.take()
            return [tok] + ([nxt] if nxt else [])
        return [tok]

    def take_parenthesised(self) -> Optional[List[Token]]:
        """The tokens inside a balanced ``( .. )`` that starts here (plain-text ``sqrt(2gh)``), or None."""
        if self.peek() != ('chr', '('):
            return None
        self.take()
        depth, inner = 1, []
        while True:
            tok = self.take(skip_ws=False)
            if tok is None:
                raise LatexError('unbalanced_parentheses')
            if tok == ('chr', '('):
                depth += 1
            elif tok == ('chr', ')'):
                depth -= 1
                if depth == 0:
                    return inner
            inner.append(tok)

    def emit(self, tokens: List[Token]) -> str:
        rw = _Rewriter(list(tokens), self.depth + 1)
        rw.run()
        return ''.join(rw.out)

    def name_of(self, tokens: List[Token]) -> str:
        """The symbol name ``tokens`` stand for (``v_0`` -> ``v_0``), or their letters."""
        try:
            canonical = re.sub(r'\s+', '', self.emit(tokens))
        except LatexError:
            canonical = ''
        m = _VARIABLE_RE.match(canonical)
        if m:
            return m.group(1)
        return _name(plain_text(tokens))

    # -- symbols
    def symbol(self, base: str) -> None:
        """Emit one symbol whose base name is ``base``, absorbing primes, subscript and a function argument."""
        name = base
        order = ''
        while True:
            nxt = self.peek(skip_ws=False)
            if nxt == ('ws', ' ') and self.peek() in (('chr', '_'), ('chr', "'")):
                self.take(False)  # "\theta _1": TeX ignores the space
                nxt = self.peek(skip_ws=False)
            if nxt == ('chr', "'"):
                self.take(False)
                name += 'prime'
            elif nxt == ('cmd', 'prime'):
                self.take(False)
                name += 'prime'
            elif nxt == ('chr', '_'):
                self.take(False)
                sub = self.take_argument()
                name += '_' + _script_name(plain_text(sub))
            elif nxt == ('chr', '^') and self._is_label_superscript():
                self.take(False)
                name += '^' + _name(plain_text(self.take_argument()))
            elif nxt == ('chr', '^') and base != 'e' and self._zero_superscript():
                self.take(False)
                self.take_argument()
                name += '^0'
            elif nxt == ('chr', '^') and self._sign_superscript():
                self.take(False)
                name += '^' + {'+': 'plus', '-': 'minus'}[plain_text(self.take_argument())]
            elif nxt == ('chr', '^') and not order and self._order_superscript():
                self.take(False)
                order = '^order' + _name(plain_text(self.take_argument()))
            elif nxt == ('chr', '^') and self._is_decoration_superscript():
                self.take(False)
                arg = plain_text(self.take_argument())
                name += 'prime' * max(1, arg.count('prime')) if 'prime' in arg else 'star'
            else:
                break
        name += order  # E^{(1)}_0 and E_0^{(1)} alike
        argument = self._function_argument_list()
        if argument is not None:
            name = 'fn:%s(%s)' % (name, argument)
        self.out.append('\\variable{%s}' % name)

    def _function_argument_list(self) -> Optional[str]:
        """``(0)``, ``(t_0)``, ``(x, y)`` right after a name: its simple arguments, consumed; else None.

        Only names, numbers and names with subscripts count: ``m(g + a)`` stays a product.
        """
        j = self.i
        tokens = self.tokens
        if j < len(tokens) and tokens[j] == ('cmd', 'left'):
            j += 1
        if j >= len(tokens) or tokens[j] != ('chr', '('):
            return None
        k = j + 1
        inner: List[Token] = []
        while k < len(tokens) and tokens[k] != ('chr', ')'):
            if tokens[k] in (('chr', '('), ('cmd', 'left')):
                return None
            inner.append(tokens[k])
            k += 1
        if k >= len(tokens):
            return None
        if inner and inner[-1] == ('cmd', 'right'):
            inner = inner[:-1]
        args: List[List[Token]] = [[]]
        for tok in inner:
            if tok == ('chr', ','):
                args.append([])
            elif tok[0] != 'ws':
                args[-1].append(tok)
        names = []
        for arg in args:
            simple = self._simple_argument(arg)
            if simple is None:
                return None
            names.append(simple)
        self.i = k + 1
        return ','.join(names)

    def _simple_argument(self, arg: List[Token]) -> Optional[str]:
        if not arg:
            return None
        if ('chr', '=') in arg:
            return self._condition_argument(arg)
        if len(arg) <= 2 and arg[-1][0] == 'num' and (len(arg) == 1 or arg[0] == ('chr', '-')):
            return ''.join(v for _, v in arg)
        head = arg[0]
        if head[0] == 'chr' and head[1].isalpha() and head[1].isascii() or \
                head[0] == 'cmd' and (head[1] in GREEK or head[1] in OTHER_SYMBOLS):
            rest = arg[1:]
            while rest and rest[0] in (('chr', "'"), ('cmd', 'prime')):
                rest = rest[1:]
            if rest and rest[0] == ('chr', '_') and len(rest) == 2:
                rest = []
            if len(rest) == 2 and rest[0] == ('chr', '^') and (rest[1] in (('chr', '+'), ('chr', '-')) or rest[1] in (
                    ('grp', [('chr', '+')]), ('grp', [('chr', '-')]))):
                rest = []  # \psi'(a^+): the value just right of a
            if not rest:
                return self.name_of(arg)
        return None

    def _condition_argument(self, arg: List[Token]) -> Optional[str]:
        """``J = 0`` in ``N(J = 0)``, ``v=1`` in ``P(v=1)``: the argument names the state or point the value
        is taken at, so the value is one opaque symbol ``fn:N(J=0)`` (never ``N`` times a comparison).
        Only ``name = number`` or ``name = name`` with one ``=``; anything else is no simple argument."""
        at = arg.index(('chr', '='))
        left, right = arg[:at], arg[at + 1:]
        if ('chr', '=') in right or not left or not right or left[0][0] == 'num':
            return None
        name = self._simple_argument(left)
        value = self._simple_argument(right)
        return None if name is None or value is None else '%s=%s' % (name, value)

    def _raised(self) -> Optional[Tuple[str, List[Token]]]:
        """What the ``^`` at the cursor raises: the kind of its argument token and its tokens (a group's
        without spacing, else the one token), or None when nothing follows."""
        j = self.i + 1
        if j >= len(self.tokens):
            return None
        kind, value = self.tokens[j]
        return kind, [t for t in value if t[0] != 'ws'] if kind == 'grp' else [self.tokens[j]]

    def _is_label_superscript(self) -> bool:
        """``E_n^{\\rm Ps}``, ``T^{\\text{lab}}``: upright letters in a superscript label the name; no
        one raises a quantity to the power of an upright word."""
        raised = self._raised()
        if raised is None:
            return False
        kind, inner = raised
        if not inner or inner[0][0] != 'cmd' or inner[0][1] not in TEXT_COMMANDS - {'mathit', 'it', 'emph'}:
            return False
        if kind == 'cmd':  # ^\text{Ps}: the group follows the command
            inner = inner + ([self.tokens[self.i + 2]] if self.i + 2 < len(self.tokens) else [])
        text = plain_text(inner)
        return bool(re.fullmatch(r'[A-Za-z]{1,12}', text))

    def _order_superscript(self) -> bool:
        """``E^{(1)}``, ``\\psi^{(0)}``, ``x^{(n)}``: one number or letter in parentheses raised over a name
        is an order (of perturbation, of a derivative, of an iteration), part of the name; nobody writes a
        power in parentheses, and reading it as one made ``E^{(1)}`` the energy itself and ``\\psi^{(0)}`` 1."""
        raised = self._raised()
        if raised is None or raised[0] != 'grp':
            return False
        inner = raised[1]
        return len(inner) == 3 and inner[0] == ('chr', '(') and inner[2] == ('chr', ')') and (
            inner[1][0] == 'num' and inner[1][1].isdigit() or inner[1][0] == 'chr' and inner[1][1].isalpha())

    def _zero_superscript(self) -> bool:
        """``\\pi^0``, ``K^{0}``, ``x^0``: a zero raised over a name labels it (a neutral particle, a
        time component); no one writes a quantity to the power zero, and reading it as 1 made
        ``\\rho^0`` equal ``\\omega^0``."""
        raised = self._raised()
        return raised is not None and raised[1] == [('num', '0')]

    def _sign_superscript(self) -> bool:
        """``e^-``, ``\\pi^{+}``, ``\\psi'(a^+)``: a lone sign raised over a name is a charge or a side
        (one-sided limit), part of the name; ``x^-1``, ``e^{-t}`` and ``a^- b`` followed by an operand are
        powers."""
        raised = self._raised()
        if raised is None:
            return False
        kind, inner = raised
        if kind == 'grp':
            return inner in ([('chr', '+')], [('chr', '-')])
        if inner[0] not in (('chr', '+'), ('chr', '-')):
            return False
        k = self.i + 2
        while k < len(self.tokens) and self.tokens[k][0] == 'ws':
            k += 1
        if k >= len(self.tokens):
            return True
        kind, value = self.tokens[k]
        if kind == 'chr' and value in ')],;=<>|+-' or kind == 'cmd' and value in _AFTER_SIGN:
            return True
        return self._charged_name_at(k)  # \pi^+\pi^-, e^+e^-: a pair of charged names, not a power

    def _charged_name_at(self, k: int) -> bool:
        """Whether a name carrying a lone sign superscript (``\\pi^-``, ``e^{+}``) starts at token ``k``."""
        kind, value = self.tokens[k]
        if not (kind == 'cmd' and value.isalpha() or kind == 'chr' and value.isalpha()):
            return False
        if k + 2 >= len(self.tokens) or self.tokens[k + 1] != ('chr', '^'):
            return False
        kind, value = self.tokens[k + 2]
        if kind == 'grp':
            return [t for t in value if t[0] != 'ws'] in ([('chr', '+')], [('chr', '-')])
        return (kind, value) in (('chr', '+'), ('chr', '-'))

    def _is_decoration_superscript(self) -> bool:
        j = self.i + 1
        if j >= len(self.tokens):
            return False
        kind, value = self.tokens[j]
        if kind == 'cmd' and value == 'prime':
            return True
        if kind == 'chr' and value == '*':
            return True
        if kind == 'grp':
            text = plain_text(value)
            return bool(text) and (text == '*' or re.fullmatch(r'(prime)+', text) is not None)
        return False

    def prescript(self) -> None:
        """``{}^3P_0``, ``{}^{14}\\text{N}``: a number raised before a letter is part of its name (a term
        symbol, an isotope), one opaque symbol ``pre3:P_0``; raised before anything else it is refused."""
        self.take(False)
        lead = _name(plain_text(self.take_argument()))
        tok = self.take(skip_ws=False)
        if tok and tok[0] == 'cmd' and tok[1] in TEXT_COMMANDS:
            base = _name(plain_text(self.take_argument()))
        elif tok and tok[0] == 'chr' and tok[1].isalpha() and tok[1].isascii():
            base = tok[1]
        else:
            raise _unsupported('prescript', lead)
        if not lead or not re.fullmatch(r'[A-Za-z]{1,3}', base or ''):
            raise _unsupported('prescript', lead)
        self.symbol('pre%s:%s' % (lead, base))

    def euler(self) -> None:
        """Emit Euler's number, raised to the following superscript if there is one."""
        nxt = self.peek(skip_ws=False)
        if nxt == ('chr', '^'):
            self.take(False)
            exponent = self.emit(self._exponent())
            self.out.append('\\exp{(%s)}' % exponent)
        else:
            self.out.append('\\exp{(1)}')

    def letter_e(self) -> None:
        nxt = self.peek(skip_ws=False)
        if nxt == ('chr', '^') and not self._sign_superscript():
            arg = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
            digits = None
            if arg and arg[0] == 'num':
                digits = arg[1]
            elif arg and arg[0] == 'grp' and len(arg[1]) == 1 and arg[1][0][0] == 'num':
                digits = arg[1][0][1]
            if digits is None or not digits.isdigit():
                self.euler()
                return
        self.symbol('e')

    def _exponent(self) -> List[Token]:
        """A superscript's tokens: a group, ``(...)`` in plain text, or one (signed) token."""
        inner = self.take_parenthesised()
        if inner is not None:
            return [('chr', '(')] + inner + [('chr', ')')]
        arg = self.take_argument()
        if arg in ([('chr', '-')], [('chr', '+')]):
            nxt = self.take_argument()
            return arg + nxt
        return arg

    # -- main loop
    def run(self) -> None:
        while self.i < len(self.tokens):
            kind, value = self.tokens[self.i]
            self.i += 1
            if kind == 'ws':
                self.out.append(' ')
            elif kind == 'num':
                self.out.append(value)
            elif kind == 'grp' and not _strip_ws(value) and self.peek(skip_ws=False) == ('chr', '^'):
                self.prescript()
            elif kind == 'grp':
                self.out.append('{' + self.emit(value) + '}')
            elif kind == 'chr':
                self.char(value)
            else:
                self.command(value)

    def char(self, c: str) -> None:
        if c.isalpha() and c.isascii():
            word = c
            while True:  # a run of letters may be a function name written without backslash
                nxt = self.peek(skip_ws=False)
                if nxt and nxt[0] == 'chr' and nxt[1].isalpha() and nxt[1].isascii():
                    word += nxt[1]
                    self.i += 1
                else:
                    break
            if word == 'pi':
                self.out.append('\\pi ')
                return
            if len(word) > 1 and (word in FUNCTIONS or word in FUNCTION_ALIASES):
                self.command(FUNCTION_ALIASES.get(word, word))
                return
            for letter in word[:-1]:  # implicit multiplication: the last letter takes the subscript
                self.out.append('\\variable{%s}' % letter)
            last = word[-1]
            if last == 'e':
                self.letter_e()
            else:
                self.symbol(last)
        elif c == '*':
            self.out.append(' \\cdot ')
        elif c == '%':
            self.out.append(' \\percent ')
        elif c == '^':
            nxt = self.peek(skip_ws=False)
            if nxt and nxt[0] == 'cmd' and nxt[1] == 'circ':
                self.take(False)
                self.out.append(' \\degree ')
            elif nxt and nxt[0] == 'grp' and plain_text(nxt[1]) in ('circ', 'degree'):
                self.take(False)
                self.out.append(' \\degree ')
            else:
                self.out.append('^{' + self.emit(self._exponent()) + '}')
        elif c == '|' and self._ket_end() is not None:
            self.ket()
        elif c == '_':
            if not self._held_derivative():
                raise _unsupported('subscript_on_expression')  # (a+b)_0, \right|_{x=0}
        elif c == '~':
            self.out.append(' \\sp ')
        elif c in '&\\#':
            raise LatexError('stray_character', c)
        else:
            self.out.append(c)

    def _held_derivative(self) -> bool:
        """``\\left(\\frac{\\partial U}{\\partial V}\\right)_T`` (at constant ``T``): one opaque derivative
        ``pd:U/V|T``, never ``pd:U/V`` (``(\\partial U/\\partial V)_S`` is another quantity); False otherwise."""
        spoken = [j for j, piece in enumerate(self.out) if piece.strip()]
        if len(spoken) < 3:
            return False
        opening, inner, closing = (self.out[j].strip() for j in spoken[-3:])
        m = _DERIVATIVE_VARIABLE_RE.fullmatch(inner)
        if opening != '(' or closing != ')' or m is None:
            return False
        held = self.name_of(self.take_argument())
        if not held or not re.fullmatch(r'[\\A-Za-z0-9_]+', held):
            raise _unsupported('subscript_on_expression')
        del self.out[spoken[-3]:]
        self.out.append('\\variable{%s|%s}' % (m.group(1), held))
        return True

    def command(self, name: str) -> None:
        if name in SPACING:
            if name == 'hspace':
                self.take_argument()
            self.out.append(' \\sp ')
        elif name in INVISIBLE:
            if name in ('phantom', 'vphantom', 'hphantom'):
                self.take_argument()
        elif name in SIZING:
            nxt = self.peek(skip_ws=False)
            if nxt == ('chr', '.'):
                self.take(False)
        elif name == 'langle':
            self.expectation()
        elif name in ('lvert', 'vert', '|') and self._ket_end() is not None:
            self.ket()
        elif name in DELIMITERS:
            self.out.append(DELIMITERS[name])
        elif name in FRACTIONS:
            self.fraction()
        elif name == 'binom':
            top = self.emit(self.take_argument())
            self.out.append('\\binom{%s}{%s}' % (top, self.emit(self.take_argument())))
        elif name == 'sqrt':
            self.square_root()
        elif name in MULTIPLY:
            self.out.append(' \\cdot ')
        elif name in CROSS:
            self.out.append(' \\times ')
        elif name == 'div':
            self.out.append(' / ')
        elif name == 'pi' and self.peek(skip_ws=False) == ('chr', '^') and self._sign_superscript():
            self.symbol('pi')  # \pi^+: the pion, not the number
        elif name == 'pi':
            self.out.append('\\pi ')
        elif name in ('infty', 'infin'):
            self.out.append('\\infty ')
        elif name == '%':
            self.out.append(' \\percent ')
        elif name in ('degree', 'circ'):
            self.out.append(' \\degree ')
        elif name == 'exp':
            self.out.append('\\exp ')
        elif name == 'log':
            if self.peek(skip_ws=False) == ('chr', '_'):
                self.take(False)
                base = self.emit(self.take_argument())
                self.out.append('\\log_{%s}' % base)
            else:
                self.out.append('\\ln ')
        elif name in FUNCTION_REWRITES:
            self.out.append(FUNCTION_REWRITES[name] % self._function_argument())
        elif name in FUNCTIONS:
            self.out.append('\\' + name + ' ')
        elif name in FUNCTION_ALIASES:
            self.command(FUNCTION_ALIASES[name])
        elif name in GREEK:
            self.symbol(greek_name(name))
        elif name in OTHER_SYMBOLS:
            self.symbol(name)
        elif name in TEXT_COMMANDS:
            self.text_group()
        elif name in BOLD_COMMANDS:
            self.bold()
        elif name in VECTOR_ACCENTS:
            if name == 'overset':
                self.take_argument()  # \overset{\rightharpoonup}{v}
            self.vector(self.take_argument())
        elif name in ACCENTS:
            self.accent(ACCENTS[name], self.take_argument())
        elif name == 'exponentialE':
            self.euler()
        elif name == 'prime':
            self.out.append("'")
        elif name in UNSUPPORTED:
            raise _unsupported('unsupported_command', '\\' + name)
        elif name in RELATION_COMMANDS:
            raise _unsupported('relation_in_value', '\\' + name)
        elif name.isalpha() and _split_command(name):
            head, tail = _split_command(name)  # \rhog is \rho g (spaces lost in copying)
            self.tokens[self.i:self.i] = [('chr', c) for c in tail]
            self.command(head)
        elif name.isalpha():
            self.symbol(name)  # an unknown word command (\aleph, \mho): a symbol of that name
        else:
            raise LatexError('unknown_control_symbol', '\\' + name)

    def text_group(self) -> None:
        """``\\text{..}``/``\\mathrm{..}`` inside a value: Euler's e, a function, a digit, an upright
        letter, a short name (``\\text{Re}``); words are prose, which a formula cannot hold."""
        arg = self.take_argument()
        text = plain_text(arg).strip()
        letter = re.fullmatch(r'\(([A-Za-z])\)', text)
        if letter:  # \text{(C)}: an option letter
            text, arg = letter.group(1), [('chr', letter.group(1))]
        if text == 'e':
            self.euler()
        elif text in FUNCTIONS or text in FUNCTION_ALIASES:
            self.command(FUNCTION_ALIASES.get(text, text))
        elif text == '':
            if any(kind not in ('ws',) for kind, _ in arg):
                raise _unsupported('text_in_expression', 'symbols in text')
        elif re.fullmatch(r'[0-9.]+', text):
            self.out.append(text)
        elif any(kind == 'ws' for kind, _ in arg) and len(text) > 1 or len(text) >= 5 \
                or not re.fullmatch(r'[A-Za-z0-9]+', text):
            raise _unsupported('text_in_expression', text[:40])
        else:
            self.symbol(text)

    def bold(self) -> None:
        arg = self.take_argument()
        text = plain_text(arg)
        if re.fullmatch(r'[0-9.]+', text):
            self.out.append(text)
        elif self._is_single_symbol(arg):
            self.vector(arg)
        else:
            self.tokens[self.i:self.i] = arg  # bold around an expression: transparent

    def _is_single_symbol(self, arg: List[Token]) -> bool:
        try:
            canonical = re.sub(r'\s+', '', self.emit(arg))
        except LatexError:
            return False
        return bool(_VARIABLE_RE.match(canonical))

    def vector(self, arg: List[Token]) -> None:
        """``\\vec{v_0}``, ``\\mathbf{v}_0``: the vector symbol ``vec:v_0``; ``\\vec{e}_r`` = ``\\hat{r}``."""
        base = self.name_of(arg)
        if base.startswith(VECTOR):
            base = base[len(VECTOR):]
        if not base or ':' in base:
            raise _unsupported('vector_of_expression')
        self.symbol(VECTOR + base)

    def accent(self, kind: str, arg: List[Token]) -> None:
        base = self.name_of(arg)
        if kind == 'hat' and base == 'e':
            self.symbol(VECTOR + 'e')  # \hat{e}_r: the unit vector e_r
        elif kind == 'hat' and base in UNIT_DIRECTIONS:
            self.symbol(VECTOR + 'e_' + base)  # \hat{r}, \hat{\mathbf{r}}: the unit vector e_r
        elif kind == 'hat' and base.startswith(VECTOR):
            self.symbol(VECTOR + 'e_' + base[len(VECTOR):] if base[len(VECTOR):] in UNIT_DIRECTIONS else base)
        else:
            self.symbol(kind + _name(base))

    def fraction(self) -> None:
        num_tokens, den_tokens = self.take_argument(), self.take_argument()
        operand = self._operand_of_operator(num_tokens, den_tokens)
        if operand is not None:  # \frac{d^2}{dx^2} f is \frac{d^2 f}{dx^2}
            num_tokens = num_tokens + [('ws', ' ')] + operand
        derivative = _derivative(num_tokens, den_tokens, self)
        if derivative:
            self.out.append('\\variable{%s}' % derivative)
            return
        self.out.append('\\frac{%s}{%s}' % (self.emit(num_tokens), self.emit(den_tokens)))

    def _operand_of_operator(self, num: List[Token], den: List[Token]) -> Optional[List[Token]]:
        """What an operator ``\\frac{d}{dx}`` applies to, taken from the stream, when that is beyond doubt:
        all that is left of the value, and it is one symbol, one function of one symbol or one bracket
        (``\\frac{\\partial^2}{\\partial\\beta^2}\\ln z``). None otherwise (``\\frac{d}{dt} x + y``,
        ``\\frac{d}{dt} x y``: which factors it acts on is for the judge)."""
        top, bottom = _differential(num), _differential(den)
        if top is None or bottom is None or _strip_ws(top[1]) or not bottom[1]:
            return None
        rest = self.tokens[self.i:]
        if not _strip_ws(rest):
            return None
        try:
            canonical = re.sub(r'\s+', '', self.emit(rest))
        except LatexError:
            return None
        if not _ONE_OPERAND_RE.fullmatch(canonical) or not _balanced(canonical):
            return None
        self.i = len(self.tokens)
        return rest

    def square_root(self) -> None:
        index = ''
        if self.peek() == ('chr', '['):
            self.take()
            inner: List[Token] = []
            while True:
                tok = self.take()
                if tok is None:
                    raise LatexError('unbalanced_brackets')
                if tok == ('chr', ']'):
                    break
                inner.append(tok)
            index = '[' + self.emit(inner) + ']'
        body = self.take_parenthesised()
        if body is None:
            body = self.take_argument()
        self.out.append('\\sqrt%s{%s}' % (index, self.emit(body)))

    def _ket_end(self) -> Optional[int]:
        """Index of the ``\\rangle`` closing a ket that opens just before ``self.i`` (``|01\\rangle``,
        ``\\lvert \\psi_0 \\rangle``), or None: a bar that another bar closes first is an absolute value."""
        for k in range(self.i, min(len(self.tokens), self.i + 40)):
            tok = self.tokens[k]
            if tok == ('cmd', 'rangle'):
                return k if k > self.i else None
            if tok in (('chr', '|'), ('cmd', 'langle'), ('cmd', 'lvert'), ('cmd', 'rvert'), ('cmd', 'vert')):
                return None
        return None

    def ket(self) -> None:
        """``|01\\rangle``: one opaque state named by its canonical content (``ket:01``), so a superposition
        is a sum of symbols; a ket right after a ket (a product state, which does not commute) is refused."""
        end = self._ket_end()
        inner = [t for t in self.tokens[self.i:end] if t not in (('cmd', 'right'), ('cmd', 'left'))]
        self.i = end + 1
        if ''.join(self.out).rstrip().endswith('}') and re.search(r'\\variable\{ket:[^{}]*\}\s*$', ''.join(self.out)):
            raise _unsupported('ket_product')
        content = re.sub(r'\s+', '', self.emit(inner)).replace('\\variable', '').replace('{', '(').replace('}', ')')
        self.out.append('\\variable{ket:%s}' % content)
        if self.peek(skip_ws=True) in (('chr', '|'), ('cmd', 'lvert')) and self._next_is_ket():
            raise _unsupported('ket_product')

    def _next_is_ket(self) -> bool:
        saved = self.i
        while self.i < len(self.tokens) and self.tokens[self.i][0] == 'ws':
            self.i += 1
        self.i += 1
        found = self._ket_end() is not None
        self.i = saved
        return found

    def expectation(self) -> None:
        """``\\langle X \\rangle`` (or a bra-ket): one opaque value named by its canonical content."""
        inner: List[Token] = []
        depth = 1
        while True:
            tok = self.take(skip_ws=False)
            if tok is None:
                raise LatexError('unbalanced_angle_brackets')
            if tok == ('cmd', 'langle'):
                depth += 1
            elif tok == ('cmd', 'rangle'):
                depth -= 1
                if depth == 0:
                    break
            inner.append(tok)
        inner = [t for t in inner if t not in (('cmd', 'right'), ('cmd', 'left'))]
        content = re.sub(r'\s+', '', self.emit([t for t in inner if t != ('chr', '|')])) if inner else ''
        content = content.replace('\\variable', '').replace('{', '(').replace('}', ')')
        bars = sum(1 for t in inner if t == ('chr', '|'))
        self.out.append('\\variable{avg:%s%s}' % ('|' * bars, content))

    def _function_argument(self) -> str:
        nxt = self.peek()
        if nxt and nxt[0] == 'cmd' and nxt[1] in SIZING and self.peek(offset=1) == ('chr', '('):
            self.take()  # \coth\left( .. \right): the sizing is layout, the parenthesis the argument
        inner = self.take_parenthesised()
        if inner is not None:
            return self.emit(inner)
        nxt = self.peek()
        if nxt and nxt[0] == 'cmd' and nxt[1] in FRACTIONS:
            self.take()  # \coth\frac{a}{b}: the fraction with both its arguments
            return self.emit([nxt, ('grp', self.take_argument()), ('grp', self.take_argument())])
        return self.emit(self.take_argument())


#: what may follow a lone sign in a superscript for the sign to end the name (``e^- \\rightarrow``, ``a^+)``)
_AFTER_SIGN = frozenset({'right', 'rangle', 'rightarrow', 'to', 'leftrightarrow', 'longrightarrow', 'quad', 'qquad',
                         ',', ';', 'rbrace', 'cdot', 'times', 'le', 'leq', 'ge', 'geq', 'neq', 'approx', 'sim'})


_DERIVATIVE_VARIABLE_RE = re.compile(r'\\variable\{((?:pd|d)\d*:[^{}|]+)\}')
#: ``\\partial S/\\partial V`` with one symbol on each side: the derivative ``\\frac{\\partial S}{\\partial V}``
_SLASH_DERIVATIVE_RE = re.compile(r'\\partial\s*((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[A-Za-z0-9]+\}|_[A-Za-z0-9])?)\s*/\s*'
                                  r'\\partial\s*((?:\\[A-Za-z]+|[A-Za-z])(?:_\{[A-Za-z0-9]+\}|_[A-Za-z0-9])?)(?![A-Za-z0-9_^])')


def _strip_ws(tokens: List[Token]) -> List[Token]:
    return [t for t in tokens if t[0] != 'ws']


def _differential(tokens: List[Token]) -> Optional[Tuple[str, List[Token]]]:
    """(kind, rest) when ``tokens`` start with a differential ``d``, ``\\mathrm{d}``, ``\\partial``, ``d^2``."""
    tokens = _strip_ws(tokens)
    if not tokens:
        return None
    head = tokens[0]
    is_d = head == ('chr', 'd') or head == ('cmd', 'partial') or \
        (head[0] == 'cmd' and head[1] in ('mathrm', 'text', 'rm', 'operatorname') and len(tokens) > 1
         and tokens[1][0] == 'grp' and plain_text(tokens[1][1]) == 'd')
    if not is_d:
        return None
    kind = 'pd' if head == ('cmd', 'partial') else 'd'
    rest = tokens[2:] if head[0] == 'cmd' and head[1] != 'partial' else tokens[1:]
    order = '1'
    if len(rest) >= 2 and rest[0] == ('chr', '^'):
        order = plain_text([rest[1]]) or '1'
        rest = rest[2:]
    return kind + ('' if order == '1' else order), rest


def _derivative(num: List[Token], den: List[Token], rewriter: _Rewriter) -> Optional[str]:
    """``\\frac{dx}{dt}`` -> ``d:x/t`` (``d2:x/t``, ``pd:f/x``); an operator ``\\frac{d}{dt}`` is refused; otherwise None."""
    top, bottom = _differential(num), _differential(den)
    if top is None or bottom is None:
        return None
    kind, quantity = top
    variables = []
    rest = bottom[1]
    if not rest:
        return None
    # the denominator may hold several differentials: dx\,dy, \partial x \partial y
    pieces: List[List[Token]] = [[]]
    for tok in rest:
        if tok in (('chr', 'd'), ('cmd', 'partial')) and pieces[-1]:
            pieces.append([])
        else:
            pieces[-1].append(tok)
    for piece in pieces:
        if piece and piece[-2:-1] == [('chr', '^')]:
            piece = piece[:-2]
        variables.append(rewriter.name_of(piece))
    if not _strip_ws(quantity):
        raise _unsupported('derivative_operator')
    name = _quantity_name(quantity, rewriter)
    if not name:
        raise _unsupported('derivative_of_expression')
    return '%s:%s/%s' % (kind, name, ','.join(variables))


_VARIABLE_TOKEN = r'\\variable\{[^{}]*\}'
#: one operand of a derivative operator (canonical text): a symbol, a function of a symbol, one bracket
_ONE_OPERAND_RE = re.compile(r'%s|\\[a-z]+(%s|\(.*\))|\(.*\)' % (_VARIABLE_TOKEN, _VARIABLE_TOKEN))


def _balanced(canonical: str) -> bool:
    """A bracket that opens the operand (after a function name) closes at its very end: ``(a)(b)`` is two."""
    start = canonical.find('(')
    if start < 0:
        return True
    depth = 0
    for k, c in enumerate(canonical[start:], start):
        depth += {'(': 1, ')': -1}.get(c, 0)
        if depth == 0:
            return k == len(canonical) - 1
    return False


def _quantity_name(quantity: List[Token], rewriter: '_Rewriter') -> str:
    """The name of what is differentiated: a symbol's own name, otherwise its canonical text with the
    operators kept, so that ``d(x+y)/dt`` and ``d(x-y)/dt`` are two derivatives, not one ``d:xy/t``."""
    try:
        canonical = re.sub(r'\s+', '', rewriter.emit(quantity))
    except LatexError:
        return rewriter.name_of(quantity)
    m = _VARIABLE_RE.match(canonical)
    if m:
        return m.group(1)
    name = re.sub(_VARIABLE_TOKEN, lambda v: v.group(0)[len('\\variable{'):-1], canonical)
    return name.replace('{', '[').replace('}', ']')


_KNOWN_COMMANDS = sorted(GREEK | OTHER_SYMBOLS | FUNCTIONS | SPACING | SIZING | TEXT_COMMANDS
                         | BOLD_COMMANDS | set(ACCENTS) | FRACTIONS | MULTIPLY
                         | {'pi', 'infty', 'sqrt', 'div', 'circ', 'degree', 'times', 'vec'},
                         key=len, reverse=True)


def _split_command(name: str) -> Optional[Tuple[str, str]]:
    """(known command, trailing letters) for an unknown command that starts with a known one."""
    for known in _KNOWN_COMMANDS:
        if known in SIZING:
            continue  # a sizing command precedes a delimiter, never letters: \leftarrow is an arrow, not \left arrow
        if len(known) > 1 and name.startswith(known) and len(name) > len(known):
            return known, name[len(known):]
    return None


_DECIMAL_COMMA_RE = re.compile(r'(\d)\{,\}(\d+)')
_THOUSANDS_RE = re.compile(r'(\d),\\!(\d{3})|(\d)\\,(\d{3})(?!\d)')


def _numbers(text: str) -> str:
    """``1{,}5`` is 1.5 (a decimal comma), ``14{,}916`` and ``12,\\!000`` are thousands."""
    text = _DECIMAL_COMMA_RE.sub(lambda m: m.group(1) + ('' if len(m.group(2)) == 3 else '.') + m.group(2), text)
    return _THOUSANDS_RE.sub(lambda m: (m.group(1) or m.group(3)) + (m.group(2) or m.group(4)), text)


_BRACKETED_NAME_RE = re.compile(r'\[ ?\\variable\{([^{}|:]*)\} ?\]')
"""One name alone in square brackets, ``[\\phi]``: brackets group nothing there, they name another quantity
(the jump of phi across a surface, its dimension), so it is one opaque ``br:`` symbol, never phi itself."""


def normalize_latex(text: str) -> str:
    """Canonical LaTeX for one value (see the module docstring); raises :class:`LatexError`."""
    text = _numbers(despace(text))
    text = _E_NOTATION_RE.sub(lambda m: '%s\\cdot 10^{%s}' % (m.group(1), m.group(2)), text)
    text = text.replace('\\{', '\\lbrace ').replace('\\}', '\\rbrace ')
    text = _SLASH_DERIVATIVE_RE.sub(r'\\frac{\\partial \1}{\\partial \2}', text)
    out = ''.join(_run(text))
    out = re.sub(r'\s+', ' ', out).strip()
    out = _BRACKETED_NAME_RE.sub(r'\\variable{br:\1}', out)
    out = re.sub(r'(\s*\\sp\s*)+', ' \\\\sp ', out).strip()
    out = re.sub(r'^(\\sp\s*|\\cdot\s*)+|(\s*\\sp|\s*\\cdot)+$', '', out).strip()
    return out


def _run(text: str) -> List[str]:
    rewriter = _Rewriter(tokenize(text))
    rewriter.run()
    return rewriter.out
