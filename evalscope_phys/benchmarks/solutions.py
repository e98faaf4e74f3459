"""References given as worked solutions: the final answer the solution states, or why there is none.

PhysUniBench's open-ended answers and PhysOlym-A's `solution`/`gold` are full derivations; the
engine scores a reply against the final answer the derivation states. When it states none the
engine can read, the sample goes to the judge with the whole solution as reference, or stays
unscored without a judge: never a silent 0.
"""
from __future__ import annotations

from typing import Optional

from evalscope_phys.scoring.read.words import is_prose
from evalscope_phys.scoring import Verdict, extract_final_answer
from evalscope_phys.scoring.read.scan import boxed_contents

#: where an extracted reference answer can come from; 'whole'/'none' mean no final answer was found
ANSWER_SOURCES = ('boxed', 'final_answer_line', 'display', 'inline')
#: engine reason given to samples whose reference solution states no extractable answer
NO_REFERENCE_ANSWER = 'unparseable_reference'


def reference_final_answer(solution: str) -> Optional[str]:
    """The final answer a worked solution states, or None when the engine finds none it can read."""
    found = extract_final_answer(solution or '')
    if found.source == 'boxes':  # intermediate results boxed on the way: the last box is the final answer
        found = extract_final_answer('\\boxed{%s}' % boxed_contents(solution)[-1])
    if found.empty or found.source not in ANSWER_SOURCES or is_prose(found.text):
        return None
    return found.text


def no_reference_verdict(prediction: str) -> Verdict:
    """The unscored verdict of a reply whose reference solution states no readable final answer."""
    # the reply is not read here: reading untrusted text belongs under the engine's deadline
    return Verdict.unscored(NO_REFERENCE_ANSWER, 'the reference solution states no final answer the engine can read')
