"""Three-stage train/test contamination audit (word n-gram Jaccard -> embedding cosine -> LLM judge).

Stage 1 finds every (eval, pool) pair whose word 5-gram Jaccard is >= 0.4, exactly (same hits as
comparing all pairs). Stage 2 embeds both sides and keeps each eval item's top-k pool neighbours
with cosine >= 0.85. Stage 3 asks an OpenAI-compatible chat endpoint whether each stage-2 pair is a
near_duplicate or a same_topic_neighbour (prompt: evalscope_phys/audit/judge_prompt.txt).

Outputs in --out: <pool>__<eval>.pairs.jsonl (eval_id, pool_id, jaccard, cosine, stage flags, label,
reason), summary.md / summary.json (stage-1 hits, stage-2 candidates, stage-3 near-duplicates, and
the duplicate share per cosine bin), <pool>__<eval>.cosine.png, and with --write-clean
clean/<pool>.clean.<ext> without the flagged items (stage-1 hits and judged near-duplicates; all
stage-2 candidates when no judge ran). Embeddings and judge replies are cached in --cache-dir
(default <out>/cache): a re-run embeds nothing new and repeats no judge call.

--engine ray runs stages 1-2 (and --in-pool) on a Ray cluster with the same answers: the eval side is
broadcast once, workers read pool blocks from the file themselves, and an interrupted run resumes
from its finished blocks (kept in <cache-dir>/ray). Pool embeddings are cached as Parquet files in
<cache-dir>/embeddings.parquet.

Text normalisation for stage 1: Unicode NFKC, case folding, LaTeX spacing/sizing commands removed,
punctuation and symbols to spaces, whitespace collapsed.

Examples:
  audit_three_stage.py --pool train.json --eval test.jsonl --out audit/ \\
      --judge-api-url http://127.0.0.1:8000/v1 --judge-model qwen2.5-72b-instruct
  audit_three_stage.py --pool big.parquet --eval test.json --engine ray --ray-address auto --out audit/
  audit_three_stage.py --pool a.parquet --pool-fields problem,solution --in-pool --write-clean --out dedup/
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from evalscope_phys.audit.corpus import AUTO_ID_FIELDS, AUTO_TEXT_FIELDS, CorpusError
from evalscope_phys.audit.cosine import CosineConfig
from evalscope_phys.audit.embedding import DEFAULT_MODEL, EmbeddingError
from evalscope_phys.audit.judge import JudgeConfig
from evalscope_phys.audit.ngram import NgramConfig
from evalscope_phys.audit.pipeline import AuditConfig, CorpusSpec, EmbedSpec, run_audit
from evalscope_phys.audit.ray_engine import RayEngineError, RayOptions
from evalscope_phys.llm.flags import add_judge_arguments, endpoint_from_args
from evalscope_phys.llm.gate import JudgeCallsFailed


def _fields(value: str) -> tuple:
    return tuple(f.strip() for f in value.split(',') if f.strip()) if value else ()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='audit_three_stage.py', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return parser


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The audit's flags, shared by ``scripts/audit_three_stage.py`` and ``evalscope-phys audit``."""
    p.description, p.formatter_class = __doc__, argparse.RawDescriptionHelpFormatter
    io = p.add_argument_group('inputs and outputs')
    io.add_argument('--pool', action='append', required=True, type=Path, metavar='FILE',
                    help='training pool (.json list, .jsonl or .parquet); repeat for several pools')
    io.add_argument('--eval', action='append', default=[], type=Path, metavar='FILE',
                    help='eval set (same formats); repeat for several. Every pool is audited against every eval set')
    io.add_argument('--in-pool', action='store_true',
                    help='audit each pool against itself (deduplication); --eval is not used')
    io.add_argument('--pool-fields', default='', metavar='F1,F2',
                    help=f'pool text field(s), joined by a blank line, e.g. problem,solution '
                         f'(default: first present of {", ".join(AUTO_TEXT_FIELDS)}); list values are joined')
    io.add_argument('--eval-fields', default='', metavar='F1,F2', help='eval text field(s) (default as for pools)')
    io.add_argument('--pool-id-field', default=None, metavar='F',
                    help=f'field holding a unique id (default: first unique of {", ".join(AUTO_ID_FIELDS)}, '
                         'else the row number)')
    io.add_argument('--eval-id-field', default=None, metavar='F', help='as --pool-id-field, for eval sets')
    io.add_argument('--out', type=Path, default=Path('audit_out'), help='output directory (default audit_out)')
    io.add_argument('--cache-dir', type=Path, default=None, help='embedding/judge caches (default <out>/cache)')
    io.add_argument('--write-clean', action='store_true', help='write each pool without its flagged items')

    eng = p.add_argument_group('engine: where stages 1-2 run (same answers either way)')
    eng.add_argument('--engine', choices=('local', 'ray'), default='local',
                     help='local: this process (default); ray: a Ray cluster, for pools of millions of items '
                          '(needs pip install "evalscope-phys[ray]")')
    eng.add_argument('--ray-address', default=None, metavar='ADDR',
                     help='a running Ray cluster (e.g. auto or ray://host:10001); default: start a local one')
    eng.add_argument('--ray-workers', type=int, default=None, metavar='N',
                     help='Ray actors per pass, one CPU each (default: every CPU of the cluster)')
    eng.add_argument('--ray-block-rows', type=int, default=RayOptions().block_rows, metavar='N',
                     help=f'pool rows per block: unit of work, worker memory and resumption '
                          f'(default {RayOptions().block_rows})')
    eng.add_argument('--ray-chunk-rows', type=int, default=RayOptions().chunk_rows, metavar='N',
                     help=f'--in-pool: pool rows broadcast per pass as the eval side (default {RayOptions().chunk_rows})')
    eng.add_argument('--ray-object-store-mb', type=int, default=RayOptions().object_store_mb, metavar='MB',
                     help=f'object store of a local cluster (default {RayOptions().object_store_mb})')

    s1 = p.add_argument_group('stage 1: word n-gram Jaccard (exact)')
    s1.add_argument('--ngram', type=int, default=5, help='words per n-gram (default 5)')
    s1.add_argument('--jaccard-threshold', type=float, default=0.4, help='hit when Jaccard >= this (default 0.4)')

    s2 = p.add_argument_group('stage 2: embedding cosine')
    s2.add_argument('--no-embed', action='store_true', help='stop after stage 1 (no stage 2 or 3)')
    s2.add_argument('--embed-model', default=DEFAULT_MODEL,
                    help=f'sentence-transformers model name or local directory (default {DEFAULT_MODEL}, '
                         'shipped offline; mxbai-embed-large-v1 is the model the 0.85 threshold was set for), '
                         'or the model name sent to --embed-url; hashed-words[-DIM] is a model-free, deterministic '
                         'word/word-pair hashing embedder (word overlap only: for tests, CI and dry runs)')
    s2.add_argument('--embed-url', default=None, metavar='URL',
                    help='OpenAI-compatible base URL (…/v1); its /embeddings is used instead of a local model')
    s2.add_argument('--embed-api-key-env', default='OPENAI_API_KEY', metavar='VAR',
                    help='environment variable holding the embedding endpoint key (default OPENAI_API_KEY)')
    s2.add_argument('--embed-batch-size', type=int, default=64)
    s2.add_argument('--cos-threshold', type=float, default=0.85, help='candidate when cosine >= this (default 0.85)')
    s2.add_argument('--top-k', type=int, default=5, help='neighbours kept per eval item (default 5)')
    s2.add_argument('--block-elements', type=int, default=CosineConfig().block_elements,
                    help='floats per block product; bounds search memory (default 2^25 = 128 MiB)')

    add_judge_arguments(p, JudgeConfig(base_url='', model=''), title='stage 3: LLM judge (runs only with --judge-api-url)',
                        optional=('concurrency', 'retries', 'backoff', 'timeout', 'prompt'), old=('--judge-url',),
                        key_env='OPENAI_API_KEY')


def config_from_args(args: argparse.Namespace) -> AuditConfig:
    if args.in_pool and args.eval:
        raise ValueError('--in-pool audits pools against themselves; drop --eval or --in-pool')
    if args.judge_api_url and not args.judge_model:
        raise ValueError('--judge-api-url needs --judge-model')
    if args.judge_api_url and args.no_embed:
        raise ValueError('the judge labels stage-2 candidates; it cannot run with --no-embed')
    pools = tuple(CorpusSpec(p, _fields(args.pool_fields), args.pool_id_field) for p in args.pool)
    evals = tuple(CorpusSpec(p, _fields(args.eval_fields), args.eval_id_field) for p in args.eval)
    embed = None if args.no_embed else EmbedSpec(
        model=args.embed_model, url=args.embed_url, batch_size=args.embed_batch_size,
        api_key=os.environ.get(args.embed_api_key_env) if args.embed_url else None)
    judge = None
    if args.judge_api_url:
        judge = endpoint_from_args(args, JudgeConfig)
    return AuditConfig(pools=pools, evals=evals, out_dir=args.out, in_pool=args.in_pool,
                       ngram=NgramConfig(args.ngram, args.jaccard_threshold),
                       cosine=CosineConfig(args.cos_threshold, args.top_k, args.block_elements),
                       embed=embed, judge=judge, cache_dir=args.cache_dir, write_clean=args.write_clean,
                       engine=args.engine,
                       ray=RayOptions(address=args.ray_address, workers=args.ray_workers, block_rows=args.ray_block_rows,
                                      chunk_rows=args.ray_chunk_rows, object_store_mb=args.ray_object_store_mb))


def main(argv=None) -> int:
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    try:
        run_audit(config_from_args(args))
    except JudgeCallsFailed as exc:
        print(f'audit_three_stage: error: {exc}', file=sys.stderr)
        return 1
    except (CorpusError, EmbeddingError, RayEngineError, ValueError, OSError) as exc:
        print(f'audit_three_stage: error: {exc}', file=sys.stderr)
        return 2
    return 0

