"""The LaTeX vocabulary the expression reader knows: which commands are symbols, functions, wrappers.

Kept apart from the rewriter (:mod:`.normalize`) so the tables can be read and extended without
reading code.
"""
from __future__ import annotations

# Greek letters become symbol names; \pi stays the number pi.
GREEK = frozenset({
    'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'varepsilon', 'zeta', 'eta', 'theta', 'vartheta',
    'iota', 'kappa', 'varkappa', 'lambda', 'mu', 'nu', 'xi', 'omicron', 'varpi', 'rho', 'varrho',
    'sigma', 'varsigma', 'tau', 'upsilon', 'phi', 'varphi', 'chi', 'psi', 'omega',
    'Gamma', 'Delta', 'Theta', 'Lambda', 'Xi', 'Pi', 'Sigma', 'Upsilon', 'Phi', 'Psi', 'Omega',
    'varGamma', 'varDelta', 'varTheta', 'varLambda', 'varXi', 'varPi', 'varSigma', 'varUpsilon',
    'varPhi', 'varPsi', 'varOmega',
})


def greek_name(command: str) -> str:
    """Symbol name of a Greek command; variant forms are the same symbol (\\varepsilon is \\epsilon)."""
    if command.startswith('var') and command[3:] in GREEK:
        command = command[3:]
    return 'varpi' if command == 'pi' else command


OTHER_SYMBOLS = frozenset({'hbar', 'ell', 'aleph', 'wp', 'Re', 'Im', 'imath', 'jmath', 'mho', 'AA', 'angstrom'})
FUNCTIONS = frozenset({
    'sin', 'cos', 'tan', 'csc', 'sec', 'cot', 'arcsin', 'arccos', 'arctan', 'arccsc', 'arcsec',
    'arccot', 'sinh', 'cosh', 'tanh', 'arsinh', 'arcosh', 'artanh', 'arcsinh', 'arccosh',
    'arctanh', 'exp', 'ln', 'log', 'sqrt', 'max', 'min',
})
FUNCTION_ALIASES = {'asin': 'arcsin', 'acos': 'arccos', 'atan': 'arctan', 'asinh': 'arsinh',
                    'acosh': 'arcosh', 'atanh': 'artanh', 'tg': 'tan', 'ctg': 'cot', 'cotg': 'cot',
                    'sh': 'sinh', 'ch': 'cosh', 'th': 'tanh', 'lg': 'log10', 'coth': 'coth',
                    'sech': 'sech', 'csch': 'csch', 'arccosh': 'arcosh', 'arcsinh': 'arsinh',
                    'arctanh': 'artanh'}
#: functions written as powers/ratios of ones the parser has
FUNCTION_REWRITES = {'coth': '\\frac{1}{\\tanh{%s}}', 'sech': '\\frac{1}{\\cosh{%s}}',
                     'csch': '\\frac{1}{\\sinh{%s}}', 'log10': '\\log_{10}{%s}'}
#: spacing: dropped, but an explicit space ends a function's argument (``\\sin\\theta\\,\\frac{a}{b}``)
SPACING = frozenset({',', ';', ':', '!', ' ', 'quad', 'qquad', 'enspace', 'thinspace', 'medspace',
                     'thickspace', 'negthinspace', 'negmedspace', 'negthickspace', 'hspace'})
INVISIBLE = frozenset({'displaystyle', 'textstyle', 'scriptstyle', 'limits', 'nolimits', 'mathstrut', 'strut',
                       'nonumber', 'notag', 'hfill', 'phantom', 'vphantom', 'hphantom', 'boxed', 'fbox'})
SIZING = frozenset({'left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr', 'biggl',
                    'biggr', 'Biggl', 'Biggr', 'bigm', 'Bigm', 'middle'})
TEXT_COMMANDS = frozenset({'text', 'textrm', 'textit', 'textnormal', 'mathrm', 'operatorname', 'rm', 'mbox',
                           'textbf', 'mathsf', 'textsf', 'mathtt', 'texttt', 'mathit', 'it', 'emph'})
#: bold is a vector (``\\mathbf v_0`` = ``\\vec{v_0}``); bold digits are digits
BOLD_COMMANDS = frozenset({'mathbf', 'boldsymbol', 'bm', 'pmb', 'mathbfit', 'bf', 'boldmath'})
VECTOR_ACCENTS = frozenset({'vec', 'overrightarrow', 'overset'})
ACCENTS = {'hat': 'hat', 'widehat': 'hat', 'dot': 'dot', 'ddot': 'ddot', 'bar': 'bar', 'overline': 'bar',
           'tilde': 'tilde', 'widetilde': 'tilde', 'mathcal': 'cal', 'mathscr': 'scr', 'mathbb': 'bb',
           'mathfrak': 'frak', 'check': 'check', 'breve': 'breve', 'acute': 'acute', 'grave': 'grave',
           'underline': 'bar'}
#: coordinate directions whose unit vector is written \\hat{r} or \\mathbf{e}_r (both become e_r)
UNIT_DIRECTIONS = frozenset({'r', 'theta', 'vartheta', 'phi', 'varphi', 'rho', 'x', 'y', 'z'})
FRACTIONS = frozenset({'frac', 'dfrac', 'tfrac', 'cfrac'})
MULTIPLY = frozenset({'cdot', 'ast', 'bullet', 'centerdot'})
CROSS = frozenset({'times', 'cross'})
DELIMITERS = {'{': '(', '}': ')', 'lbrace': '(', 'rbrace': ')', 'lbrack': '[', 'rbrack': ']',
              'lvert': '|', 'rvert': '|', 'vert': '|', '|': '|', 'lVert': '|', 'rVert': '|', 'Vert': '|'}
#: constructs whose meaning the engine does not represent: refused as undecided, never approximated
UNSUPPORTED = frozenset({'int', 'iint', 'iiint', 'oint', 'sum', 'prod', 'lim', 'limsup', 'liminf', 'nabla',
                         'partial', 'over', 'choose', 'det', 'mod', 'bmod', 'pmod', 'lfloor', 'rfloor', 'lceil',
                         'rceil', 'cdots', 'ldots', 'dots', 'vdots', 'ddots', 'begin', 'end', 'hline', 'cr',
                         'dagger', 'otimes', 'oplus', 'wedge', 'forall', 'exists', 'subset', 'supset',
                         'cap', 'setminus', 'emptyset', 'varnothing', 'mid', 'parallel', 'perp', 'angle',
                         'triangle', 'square', 'star', 'circledast', 'not', 'neg', 'Box', 'Diamond', 'ket',
                         'bra', 'braket', 'expval', 'abs', 'norm', 'operatorname*', 'underbrace', 'overbrace',
                         'stackrel', 'xrightarrow', 'substack', 'sqcup', 'bigcup', 'bigcap'})
#: relation commands: the extractor splits on them; inside a value they cannot be read
RELATION_COMMANDS = frozenset({'approx', 'sim', 'leq', 'geq', 'le', 'ge', 'neq', 'ne', 'equiv', 'simeq', 'propto',
                               'lt', 'gt', 'to', 'rightarrow', 'Rightarrow', 'in', 'll', 'gg', 'cong', 'pm', 'mp',
                               'leqslant', 'geqslant', 'implies', 'mapsto', 'cup'})
