"""Golden judge replies: (reply text, expected label, expected reason or None when unchecked)."""

REPLIES = [
    ('{"label": "near_duplicate", "reason": "Same setup and question."}', 'near_duplicate', 'Same setup and question.'),
    ('{"label": "same_topic_neighbour", "reason": "Both about lenses; different question."}',
     'same_topic_neighbour', 'Both about lenses; different question.'),
    ('```json\n{"label": "near_duplicate", "reason": "identical"}\n```', 'near_duplicate', 'identical'),
    ('{"label": "NEAR_DUPLICATE", "reason": "case of the label does not matter"}', 'near_duplicate', None),
    ('{"label": "near_duplicate", "reason": "same $\\\\frac{1}{2} m v^{2}$ energy balance"}', 'near_duplicate',
     'same $\\frac{1}{2} m v^{2}$ energy balance'),
    ('Sure! {"label": "same_topic_neighbour", "reason": "x"} Hope that helps.', 'same_topic_neighbour', 'x'),
    ('label: near_duplicate\nreason: reworded copy', 'near_duplicate', 'reworded copy'),
    ('**Label:** same_topic_neighbour\n**Reason:** other setup', 'same_topic_neighbour', None),
    # never guessed:
    ('These look like near duplicates to me.', 'unparseable', None),
    ('{"label": "duplicate", "reason": "?"}', 'unparseable', None),
    ('{"label": "near_duplicate"} or maybe {"label": "same_topic_neighbour"}', 'unparseable', None),
    ('', 'unparseable', None),
    ('{"verdict": "near_duplicate"}', 'unparseable', None),
]

#: (reply text, the case asked, expected label): with a case, the reply must name it
CASE_REPLIES = [
    ('{"case": "c0123456789", "label": "near_duplicate", "reason": "r"}', 'c0123456789', 'near_duplicate'),
    ('case: c0123456789\nlabel: same_topic_neighbour\nreason: r', 'c0123456789', 'same_topic_neighbour'),
    ('{"label": "near_duplicate", "reason": "r"}', 'c0123456789', 'unparseable'),
    ('{"case": "c9999999999", "label": "near_duplicate", "reason": "r"}', 'c0123456789', 'unparseable'),
    ('label: near_duplicate\nreason: no case line', 'c0123456789', 'unparseable'),
]
