"""LaTeX normalisation and LaTeX -> SymPy, without ever evaluating text as Python.

The pipeline is: a small tokenizer turns the answer into a token tree; a rewriter emits a canonical
LaTeX string in which every physics symbol (``v_0``, ``\\omega_{\\max}``, ``\\dot{x}'``) has become
one ``\\variable{name}`` token, so the ANTLR grammar of ``latex2sympy2_extended`` only sees operators,
numbers, functions and opaque symbols. The grammar is tried on that string first, then on two
fallbacks (see :func:`to_sympy`); a failure is a recorded reason, never an exception to the caller.

**The rule for ``e``.** Physics answers use ``e`` for the elementary charge far more often than for
Euler's number, so:

* ``\\exp``, an upright e (``\\mathrm{e}``, ``\\text{e}``, ``\\rm e``, ``\\operatorname{e}``) and
  a bare ``e`` raised to anything other than a plain positive integer (``e^{-t/\\tau}``,
  ``e^{i\\omega t}``, ``e^{-1}``, ``e^x``) are Euler's number;
* every other ``e`` (``e``, ``2e``, ``e^2``, ``\\frac{e^3}{m}``, ``m_e``) is the symbol ``e``;
* ``1.5e-3`` (a digit, ``e``, a signed integer, no spaces) is scientific notation.

``\\gamma``/``\\Gamma`` and ``I`` are plain symbols (never Euler–Mascheroni or the imaginary unit),
``\\log`` without a base is the natural logarithm, and symbol case is kept (``R`` is not ``r``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple, Union

import sympy

from .canonical_parser import Unsupported, parse_canonical, symbol
from .extract import despace

# Greek letters become symbol names; \pi stays the number pi.
GREEK = {
    'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'varepsilon', 'zeta', 'eta', 'theta', 'vartheta',
    'iota', 'kappa', 'varkappa', 'lambda', 'mu', 'nu', 'xi', 'omicron', 'varpi', 'rho', 'varrho',
    'sigma', 'varsigma', 'tau', 'upsilon', 'phi', 'varphi', 'chi', 'psi', 'omega',
    'Gamma', 'Delta', 'Theta', 'Lambda', 'Xi', 'Pi', 'Sigma', 'Upsilon', 'Phi', 'Psi', 'Omega',
    'varGamma', 'varDelta', 'varTheta', 'varLambda', 'varXi', 'varPi', 'varSigma', 'varUpsilon',
    'varPhi', 'varPsi', 'varOmega',
}


def greek_name(command: str) -> str:
    """Symbol name of a Greek command; variant forms are the same symbol (\\varepsilon is \\epsilon)."""
    if command.startswith('var') and command[3:] in GREEK:
        command = command[3:]
    return 'varpi' if command == 'pi' else command

OTHER_SYMBOLS = {'hbar', 'ell', 'nabla', 'partial', 'aleph', 'wp', 'Re', 'Im', 'imath', 'jmath',
                 'mho', 'AA', 'angstrom'}
FUNCTIONS = {
    'sin', 'cos', 'tan', 'csc', 'sec', 'cot', 'arcsin', 'arccos', 'arctan', 'arccsc', 'arcsec',
    'arccot', 'sinh', 'cosh', 'tanh', 'arsinh', 'arcosh', 'artanh', 'arcsinh', 'arccosh',
    'arctanh', 'exp', 'ln', 'log', 'sqrt', 'max', 'min',
}
FUNCTION_ALIASES = {'asin': 'arcsin', 'acos': 'arccos', 'atan': 'arctan', 'asinh': 'arsinh',
                    'acosh': 'arcosh', 'atanh': 'artanh', 'tg': 'tan', 'ctg': 'cot', 'cotg': 'cot',
                    'sh': 'sinh', 'ch': 'cosh', 'th': 'tanh', 'lg': 'log10', 'coth': 'coth',
                    'sech': 'sech', 'csch': 'csch', 'erf': 'erf', 'sinc': 'sinc', 'sgn': 'sign'}
# Functions the grammar lacks, written as powers/ratios of ones it has.
FUNCTION_REWRITES = {'coth': r'\frac{1}{\tanh{%s}}', 'sech': r'\frac{1}{\cosh{%s}}',
                     'csch': r'\frac{1}{\sinh{%s}}', 'log10': r'\log_{10}{%s}'}
SPACING = {',', ';', ':', '!', ' ', 'quad', 'qquad', 'displaystyle', 'textstyle', 'scriptstyle',
           'limits', 'nolimits', 'enspace', 'thinspace', 'medspace', 'thickspace', 'negthinspace',
           'negmedspace', 'negthickspace', 'hspace', 'mathstrut', 'strut', 'nonumber', 'notag',
           'hfill', 'phantom', 'vphantom', 'hphantom'}
SIZING = {'left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr', 'biggl',
          'biggr', 'Biggl', 'Biggr', 'bigm', 'Bigm', 'middle'}
TEXT_COMMANDS = {'text', 'textrm', 'textit', 'textnormal', 'mathrm', 'operatorname', 'rm', 'mbox',
                 'textbf', 'mathsf', 'textsf', 'mathtt', 'texttt', 'mathit', 'it'}
FONT_COMMANDS = {'mathbf', 'boldsymbol', 'bm', 'pmb', 'mathbfit', 'bf', 'boldmath'}
ACCENTS = {'vec': 'vec', 'overrightarrow': 'vec', 'hat': 'hat', 'widehat': 'hat', 'dot': 'dot',
           'ddot': 'ddot', 'bar': 'bar', 'overline': 'bar', 'tilde': 'tilde', 'widetilde': 'tilde',
           'mathcal': 'cal', 'mathscr': 'scr', 'mathbb': 'bb', 'mathfrak': 'frak', 'check': 'check',
           'breve': 'breve', 'acute': 'acute', 'grave': 'grave', 'underline': 'bar'}
_ARG_WRAPPERS = set(ACCENTS) | TEXT_COMMANDS | FONT_COMMANDS
FRACTIONS = {'frac', 'dfrac', 'tfrac', 'cfrac'}
MULTIPLY = {'cdot', 'times', 'ast', 'cross', 'bullet', 'centerdot'}
DELIMITER_CMDS = {'{': '(', '}': ')', 'lbrace': '(', 'rbrace': ')', 'langle': '(', 'rangle': ')',
                  'lbrack': '[', 'rbrack': ']', 'lvert': '|', 'rvert': '|', 'vert': '|', '|': '|',
                  'lfloor': r'\lfloor ', 'rfloor': r'\rfloor ', 'lceil': r'\lceil ',
                  'rceil': r'\rceil '}
UNICODE = {
    '√': r'\sqrt', 'π': r'\pi ', '×': r'\times ', '·': r'\cdot ', '⋅': r'\cdot ', '−': '-',
    '–': '-', '∞': r'\infty ', '²': '^{2}', '³': '^{3}', '¹': '^{1}', '⁴': '^{4}', '⁻': '^{-}',
    '½': r'\frac{1}{2}', '∼': r'\sim ', '≈': r'\approx ', '≤': r'\leq ', '≥': r'\geq ',
    '≠': r'\neq ', '±': r'\pm ', '∓': r'\mp ', 'ℏ': r'\hbar ', 'ħ': r'\hbar ', '°': r'^{\circ}', '′': "'",
    '\u2003': ' ', '\u2002': ' ', '\u2009': ' ', '\u00a0': ' ', '\u202f': ' ',
    'α': r'\alpha ', 'β': r'\beta ', 'γ': r'\gamma ', 'δ': r'\delta ', 'ε': r'\varepsilon ',
    'ϵ': r'\varepsilon ', 'ζ': r'\zeta ', 'η': r'\eta ', 'θ': r'\theta ', 'ι': r'\iota ',
    'κ': r'\kappa ', 'λ': r'\lambda ', 'μ': r'\mu ', 'ν': r'\nu ', 'ξ': r'\xi ', 'ρ': r'\rho ',
    'σ': r'\sigma ', 'τ': r'\tau ', 'υ': r'\upsilon ', 'φ': r'\phi ', 'ϕ': r'\phi ', 'χ': r'\chi ',
    'ψ': r'\psi ', 'ω': r'\omega ', 'Γ': r'\Gamma ', 'Δ': r'\Delta ', 'Θ': r'\Theta ',
    'Λ': r'\Lambda ', 'Ξ': r'\Xi ', 'Π': r'\Pi ', 'Σ': r'\Sigma ', 'Φ': r'\Phi ', 'Ψ': r'\Psi ',
    'Ω': r'\Omega ',
}
_UNICODE_RE = re.compile('|'.join(re.escape(k) for k in UNICODE))
_E_NOTATION_RE = re.compile(r'(?<![A-Za-z_\\])(\d+(?:\.\d*)?|\.\d+)[eE]([+-]?\d{1,4})(?![\d.A-Za-z])')

Token = Tuple[str, Union[str, list]]  # ('cmd', name) | ('chr', c) | ('num', digits) | ('grp', [..]) | ('ws', ' ')


class LatexError(ValueError):
    """The text cannot be turned into an expression; ``reason`` is machine-readable."""

    def __init__(self, reason: str, detail: str = '') -> None:
        super().__init__(f'{reason}: {detail}' if detail else reason)
        self.reason = reason


# --------------------------------------------------------------------------- tokenizer

def tokenize(text: str) -> List[Token]:
    """Token tree of ``text``: ``{...}`` groups nest, everything else is flat."""
    stack: List[List[Token]] = [[]]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '\\':
            j = i + 1
            while j < n and text[j].isalpha():
                j += 1
            if j == i + 1:  # control symbol: \, \{ \\ ...
                j = min(i + 2, n)
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
            while j < n and (text[j].isdigit() or text[j] == '.'):
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
            if value in SPACING or value in SIZING or value in TEXT_COMMANDS or value in FONT_COMMANDS:
                continue
            out.append(greek_name(value) if value in GREEK else value if value.isalpha() else '')
        elif kind == 'ws':
            continue
        else:
            out.append(value)
    return ''.join(out)


def _name(text: str) -> str:
    return re.sub(r'[^A-Za-z0-9]', '', text)


# --------------------------------------------------------------------------- rewriter

class _Rewriter:
    """Emits canonical LaTeX from a token list (see the module docstring)."""

    def __init__(self, tokens: List[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.out: List[str] = []

    # -- token helpers
    def peek(self, skip_ws: bool = True) -> Optional[Token]:
        j = self.i
        while skip_ws and j < len(self.tokens) and self.tokens[j][0] == 'ws':
            j += 1
        return self.tokens[j] if j < len(self.tokens) else None

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

    @staticmethod
    def emit_tokens(tokens: List[Token]) -> str:
        rw = _Rewriter(list(tokens))
        rw.run()
        return ''.join(rw.out)

    # -- symbols
    def symbol(self, base: str) -> None:
        """Emit one symbol whose base name is ``base``, absorbing its primes and subscript."""
        name = base
        while True:
            nxt = self.peek(skip_ws=False)
            if nxt == ('chr', "'"):
                self.take(False)
                name += 'prime'
            elif nxt == ('chr', '_'):
                self.take(False)
                sub = self.take_argument()
                name += '_' + _name(plain_text(sub))
            elif nxt == ('chr', '^') and self._is_decoration_superscript():
                self.take(False)
                arg = plain_text(self.take_argument())
                name += 'prime' * max(1, arg.count('prime')) if 'prime' in arg else 'star'
            else:
                break
        self.out.append(r'\variable{%s}' % name)

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
            return bool(text) and (set(text.replace('prime', '')) <= {''} or text == '*'
                                   or re.fullmatch(r'(prime)+', text) is not None)
        return False

    def euler(self) -> None:
        """Emit Euler's number, raised to the following superscript if there is one."""
        nxt = self.peek(skip_ws=False)
        if nxt == ('chr', '^'):
            self.take(False)
            exponent = self.emit_tokens(self.take_argument())
            self.out.append(r'\exp{(%s)}' % exponent)
        else:
            self.out.append(r'\exp{(1)}')

    def letter_e(self) -> None:
        nxt = self.peek(skip_ws=False)
        if nxt == ('chr', '^'):
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

    # -- main loop
    def run(self) -> None:
        while self.i < len(self.tokens):
            kind, value = self.tokens[self.i]
            self.i += 1
            if kind == 'ws':
                self.out.append(' ')
            elif kind == 'num':
                self.out.append(value)
            elif kind == 'grp':
                self.out.append('{' + self.emit_tokens(value) + '}')
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
            if len(word) > 1 and (word in FUNCTIONS or word in FUNCTION_ALIASES):
                self.command(FUNCTION_ALIASES.get(word, word))
                return
            # implicit multiplication: each letter is its own symbol; the last takes the subscript
            for letter in word[:-1]:
                self.out.append(r'\variable{%s}' % letter)
            last = word[-1]
            if last == 'e':
                self.letter_e()
            else:
                self.symbol(last)
        elif c == '*':
            self.out.append(r' \cdot ')
        elif c == '%':
            self.out.append(r' \cdot \frac{1}{100}')
        elif c == '^':
            nxt = self.peek(skip_ws=False)
            if nxt and nxt[0] == 'cmd' and nxt[1] == 'circ':
                self.take(False)
                self.out.append(r' \cdot \frac{\pi}{180}')
            elif nxt and nxt[0] == 'grp' and plain_text(nxt[1]) in ('circ', 'degree'):
                self.take(False)
                self.out.append(r' \cdot \frac{\pi}{180}')
            else:
                arg = self.take_argument()
                self.out.append('^{' + self.emit_tokens(arg) + '}')
        elif c == '_':
            # a subscript on something that is not a symbol (e.g. a closing parenthesis): dropped
            self.take_argument()
        elif c == '~':
            self.out.append(' ')
        elif c == "'":
            self.out.append("'")
        else:
            self.out.append(c)

    def command(self, name: str) -> None:
        if name in SPACING:
            if name in ('hspace', 'phantom', 'vphantom', 'hphantom'):
                self.take_argument()
            self.out.append(' ')
        elif name in SIZING:
            nxt = self.peek(skip_ws=False)
            if nxt == ('chr', '.'):
                self.take(False)
        elif name in DELIMITER_CMDS:
            self.out.append(DELIMITER_CMDS[name])
        elif name in FRACTIONS:
            num = self.emit_tokens(self.take_argument())
            den = self.emit_tokens(self.take_argument())
            self.out.append(r'\frac{%s}{%s}' % (num, den))
        elif name == 'sqrt':
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
                index = '[' + self.emit_tokens(inner) + ']'
            body = self.emit_tokens(self.take_argument())
            self.out.append(r'\sqrt%s{%s}' % (index, body))
        elif name in MULTIPLY:
            self.out.append(r' \cdot ')
        elif name in ('div',):
            self.out.append(' / ')
        elif name == 'pm':
            self.out.append(' + ')
        elif name == 'mp':
            self.out.append(' - ')
        elif name == 'pi':
            self.out.append(r'\pi ')
        elif name in ('infty', 'infin'):
            self.out.append(r'\infty ')
        elif name == '%':
            self.out.append(r' \cdot \frac{1}{100}')
        elif name in ('degree', 'circ'):
            self.out.append(r' \cdot \frac{\pi}{180}')
        elif name == 'exp':
            self.out.append(r'\exp ')
        elif name == 'log':
            if self.peek(skip_ws=False) == ('chr', '_'):
                self.take(False)
                base = self.emit_tokens(self.take_argument())
                self.out.append(r'\log_{%s}' % base)
            else:
                self.out.append(r'\ln ')
        elif name in FUNCTION_REWRITES:
            arg = self._function_argument()
            self.out.append(FUNCTION_REWRITES[name] % arg)
        elif name in FUNCTIONS:
            self.out.append('\\' + name + ' ')
        elif name in FUNCTION_ALIASES:
            self.command(FUNCTION_ALIASES[name])
        elif name in GREEK:
            self.symbol(greek_name(name))
        elif name in OTHER_SYMBOLS:
            self.symbol(name)
        elif name in TEXT_COMMANDS:
            arg = self.take_argument()
            text = plain_text(arg).strip()
            if text in ('e',):
                self.euler()
            elif text in FUNCTIONS or text in FUNCTION_ALIASES:
                self.command(FUNCTION_ALIASES.get(text, text))
            elif text == '':
                pass
            elif re.fullmatch(r'[0-9.]+', text):
                self.out.append(text)
            else:
                self.symbol(_name(text) or 'x')
        elif name in FONT_COMMANDS:
            arg = self.take_argument()
            self.tokens[self.i:self.i] = arg  # transparent: bold E is E
        elif name in ACCENTS:
            arg = self.take_argument()
            self.symbol(ACCENTS[name] + _name(plain_text(arg)))
        elif name in ('begin', 'end'):
            env = plain_text(self.take_argument())
            if name == 'begin' and env == 'array' and self.peek(skip_ws=False) and self.peek(skip_ws=False)[0] == 'grp':
                self.take(False)  # the column spec
            self.out.append('\\%s{%s}' % (name, env))
        elif name in ('exponentialE',):
            self.euler()
        elif name == 'boxed' or name == 'fbox':
            pass  # its group follows and is emitted as a plain group
        elif name in ('cdots', 'ldots', 'dots'):
            self.out.append(r'\cdots')
        elif name == 'prime':
            self.out.append("'")
        elif name.isalpha() and _split_command(name):
            head, tail = _split_command(name)  # \rhog is \rho g (spaces lost in copying)
            self.tokens[self.i:self.i] = [('chr', c) for c in tail]
            self.command(head)
        elif name.isalpha():
            # an unknown word command (\aleph, \mho): a symbol of that name
            if name in ('begin', 'end', 'int', 'sum', 'prod', 'lim', 'iint', 'oint', 'matrix',
                        'over', 'choose', 'binom', 'det', 'mod', 'to', 'rightarrow', 'in',
                        'approx', 'sim', 'leq', 'geq', 'le', 'ge', 'neq', 'equiv', 'simeq',
                        'propto', 'lt', 'gt', 'hline', 'cr', 'dagger'):
                self.out.append('\\' + name + ' ')
            else:
                self.symbol(name)
        else:
            self.out.append('\\' + name)

    def _function_argument(self) -> str:
        nxt = self.peek()
        if nxt == ('chr', '('):
            depth, parts = 0, []
            while True:
                tok = self.take()
                if tok is None:
                    raise LatexError('unbalanced_parentheses')
                parts.append(tok)
                if tok == ('chr', '('):
                    depth += 1
                elif tok == ('chr', ')'):
                    depth -= 1
                    if depth == 0:
                        break
            return self.emit_tokens(parts)
        return self.emit_tokens(self.take_argument())


_KNOWN_COMMANDS = sorted(GREEK | OTHER_SYMBOLS | FUNCTIONS | SPACING | SIZING | TEXT_COMMANDS
                         | FONT_COMMANDS | set(ACCENTS) | FRACTIONS | MULTIPLY
                         | {'pi', 'infty', 'sqrt', 'pm', 'mp', 'div', 'circ', 'degree'},
                         key=len, reverse=True)


def _split_command(name: str) -> Optional[Tuple[str, str]]:
    """(known command, trailing letters) for an unknown command that starts with a known one."""
    for known in _KNOWN_COMMANDS:
        if len(known) > 1 and name.startswith(known) and len(name) > len(known):
            return known, name[len(known):]
    return None


def normalize_latex(text: str) -> str:
    """Canonical LaTeX for ``text`` (see the module docstring); raises :class:`LatexError`."""
    text = despace(_UNICODE_RE.sub(lambda m: UNICODE[m.group(0)], text))
    text = _E_NOTATION_RE.sub(lambda m: r'%s\cdot 10^{%s}' % (m.group(1), m.group(2)), text)
    text = text.replace(r'\{', r'\lbrace ').replace(r'\}', r'\rbrace ')
    out = _Rewriter.emit_tokens(tokenize(text))
    out = re.sub(r'\s+', ' ', out).strip()
    out = re.sub(r'(\\cdot\s*)+$', '', out).strip()
    out = re.sub(r'^(\s*\\cdot)+', '', out).strip()
    return out


# --------------------------------------------------------------------------- SymPy

_GRAMMAR_CONFIG = None


def _configs():
    global _GRAMMAR_CONFIG
    if _GRAMMAR_CONFIG is None:
        from latex2sympy2_extended.latex2sympy2 import ConversionConfig, NormalizationConfig
        _GRAMMAR_CONFIG = (
            NormalizationConfig(basic_latex=False, units=False, malformed_operators=False,
                                nits=False, boxed='none', equations=False),
            ConversionConfig(interpret_as_mixed_fractions=False,
                             interpret_simple_eq_as_assignment=False,
                             interpret_contains_as_eq=True, lowercase_symbols=False),
        )
    return _GRAMMAR_CONFIG


def _grammar(text: str) -> sympy.Basic:
    from latex2sympy2_extended import latex2sympy
    normalization, conversion = _configs()
    return latex2sympy(text, normalization_config=normalization, conversion_config=conversion)


def _strip_relations(text: str) -> str:
    """Right-hand side of the last top-level relation (``a = b = c`` -> ``c``)."""
    from .extract import right_hand_side
    return right_hand_side(text)


def to_sympy(text: str) -> sympy.Basic:
    """SymPy expression for one answer's LaTeX; raises :class:`LatexError` with a reason.

    Fallback chain: our canonical-subset parser (fast, :mod:`.canonical_parser`); the
    ``latex2sympy2_extended`` grammar on the canonical string; the grammar again with symbol names
    replaced by short aliases (a name it rejects must not sink the whole answer).
    """
    if not text or not text.strip():
        raise LatexError('empty')
    canonical = normalize_latex(_strip_relations(text))
    if not canonical:
        raise LatexError('empty')
    try:
        return clean_expression(parse_canonical(canonical))
    except Unsupported:
        pass
    errors = []
    for candidate in (canonical, _alias_names(canonical)):
        try:
            return clean_expression(_grammar(candidate))
        except LatexError:
            raise
        except RecursionError:
            raise LatexError('too_deep')
        except Exception as exc:  # the grammar raises bare Exception on syntax errors
            errors.append(str(exc).splitlines()[0][:80] if str(exc) else type(exc).__name__)
    raise LatexError('latex_parse_failure', errors[0] if errors else '')


_ALIAS_RE = re.compile(r'\\variable\{([^{}]*)\}')


def _alias_names(text: str) -> str:
    names = {}

    def alias(match: 're.Match[str]') -> str:
        name = match.group(1)
        names.setdefault(name, 'v%dx' % len(names))
        return r'\variable{%s}' % names[name]
    return _ALIAS_RE.sub(alias, text)


def clean_expression(expr) -> sympy.Basic:
    """Bring a grammar result into the form the rest of the engine expects.

    Relations keep their right-hand side, matrices and sets become an undefined function of their
    entries (so trees and comparisons treat them as ordered tuples), ``log(x, E)`` is ``log(x)``.
    """
    if isinstance(expr, sympy.core.relational.Relational):
        expr = expr.rhs
    if isinstance(expr, (list, tuple)):
        expr = sympy.Tuple(*expr)
    if isinstance(expr, sympy.MatrixBase):
        rows, cols = expr.shape
        return sympy.Function('Matrix%dx%d' % (rows, cols))(*[clean_expression(x) for x in expr])
    if isinstance(expr, (sympy.Tuple, sympy.FiniteSet)):
        return sympy.Function('Tuple')(*[clean_expression(x) for x in expr.args])
    if not isinstance(expr, sympy.Basic):
        raise LatexError('unsupported_expression', type(expr).__name__)
    if isinstance(expr, sympy.logic.boolalg.Boolean) and not isinstance(expr, sympy.Expr):
        raise LatexError('unsupported_expression', type(expr).__name__)
    replacements = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Symbol) and not node.is_positive:
            replacements[node] = symbol(node.name)
        if isinstance(node, sympy.log) and len(node.args) == 2 and node.args[1] == sympy.E:
            replacements[node] = sympy.log(node.args[0])
        elif node is sympy.EulerGamma:
            replacements[node] = symbol('gamma')
        elif node is sympy.I:
            replacements[node] = symbol('I')
    if replacements:
        expr = expr.xreplace(replacements)
    if not isinstance(expr, sympy.Expr):
        raise LatexError('unsupported_expression', type(expr).__name__)
    return expr


@dataclass(frozen=True)
class ParsedAnswer:
    """One side's expression, or why there is none."""

    expr: Optional[sympy.Expr]
    reason: str = 'ok'
