"""Three-stage train/test contamination audit: n-gram Jaccard -> embedding cosine -> LLM judge.

``run_audit(AuditConfig(...))`` runs everything; each stage is usable alone (see the modules).
"""
from .corpus import Corpus, CorpusError, load_corpus, normalise
from .cosine import CosineConfig, top_k_cosine
from .judge import JudgeConfig, judge_pairs, parse_reply
from .ngram import NgramConfig, jaccard_candidates
from .pipeline import AuditConfig, CorpusSpec, EmbedSpec, run_audit

__all__ = ['AuditConfig', 'CorpusSpec', 'EmbedSpec', 'run_audit', 'Corpus', 'CorpusError', 'load_corpus',
           'normalise', 'NgramConfig', 'jaccard_candidates', 'CosineConfig', 'top_k_cosine', 'JudgeConfig',
           'judge_pairs', 'parse_reply']
