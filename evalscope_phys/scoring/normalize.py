"""LaTeX normalisation: any answer's LaTeX -> one canonical LaTeX string (pure string work).

A small tokenizer turns the answer into a token tree; a rewriter emits canonical LaTeX in which
every physics symbol (``v_0``, ``\\omega_{\\max}``, ``\\dot{x}'``) is one ``\\variable{name}`` token,
``\\left``/``\\right`` and spacing are gone, ``\\dfrac`` is ``\\frac``, ``\\times`` is ``\\cdot``, ``\\log``
is ``\\ln``, Greek variants are one letter, and the rule for ``e`` is applied (see :mod:`.latex`).
"""
from __future__ import annotations

import re
from typing import List, Optional, Tuple, Union

from .extract import command_end, despace

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
#: coordinate directions whose unit vector is written \hat{r} or \mathbf{e}_r (both become e_r)
UNIT_DIRECTIONS = {'r', 'theta', 'vartheta', 'phi', 'varphi', 'rho', 'x', 'y', 'z'}
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
            if nxt == ('ws', ' ') and self.peek() in (('chr', '_'), ('chr', "'")):
                self.take(False)  # "\theta _1": TeX ignores the space
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
            elif re.fullmatch(r'[A-Za-z]{3,}[A-Za-z\s.,;:!?-]*', text):
                self.symbol(_name(text).lower())  # a word answer: Impossible = impossible.
            else:
                self.symbol(_name(text) or 'x')
        elif name in FONT_COMMANDS:
            arg = self.take_argument()
            self.tokens[self.i:self.i] = arg  # transparent: bold E is E
        elif name in ACCENTS:
            arg = self.take_argument()
            base = _name(plain_text(arg))
            if ACCENTS[name] in ('hat', 'vec') and base == 'e':
                self.symbol('e')  # \hat{e}_r, \vec{e}_r: the unit vector e_r
            elif ACCENTS[name] == 'hat' and base in UNIT_DIRECTIONS:
                self.symbol('e_' + base)  # \hat{r}, \hat{\mathbf{r}}: the unit vector e_r
            else:
                self.symbol(ACCENTS[name] + base)
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


