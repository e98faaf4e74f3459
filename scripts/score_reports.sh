#!/usr/bin/env bash
# Validate EvalScope report files against scripts/report_schema.json, then print one table:
# benchmark x metric, mean +- std across seeds (report files), n.
#
#   scripts/score_reports.sh [--format tsv|markdown] [--select NAME] [--schema FILE]
#                            [--min-judge-coverage X] [--plots DIR] RUN_DIR...
# (--plots runs $PYTHON, the active venv's python or python3 with evalscope_phys importable)
#
# RUN_DIR is a suite work dir (seed_*/reports/...) or one EvalScope output dir (reports/...);
# every reports/<model>/<dataset>.json below it is one seed. pass@k / maj@k written by
# `evalscope-phys suite run` (kmetrics/<model>/<dataset>.json) are shown beside the means. With a judge,
# judge_calls / judge_failed_calls / judge_*_tokens / judge_tokens rows are run totals, not means.
# Exit: 0 all reports valid, 1 a report violates the schema (each violation printed as
# "FILE: KEY: problem" on stderr), 2 usage error or missing tool.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCHEMA="$SCRIPT_DIR/report_schema.json"
FORMAT=tsv
SELECT=""
MIN_COVERAGE=""
PLOTS=""
RUN_DIRS=()

usage() { sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "score_reports: $*" >&2; exit 2; }

if ! command -v jq >/dev/null 2>&1; then
  die "jq is required but not installed (Debian/Ubuntu: sudo apt-get install jq; macOS: brew install jq)"
fi

while [[ $# -gt 0 ]]; do
  case "$1" in
    --format) FORMAT="${2:-}"; shift 2 ;;
    --select) SELECT="${2:-}"; shift 2 ;;
    --schema) SCHEMA="${2:-}"; shift 2 ;;
    --min-judge-coverage) MIN_COVERAGE="${2:-}"; shift 2 ;;
    --plots) PLOTS="${2:-}"; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option $1" ;;
    *) RUN_DIRS+=("$1"); shift ;;
  esac
done

[[ ${#RUN_DIRS[@]} -gt 0 ]] || usage
[[ "$FORMAT" == tsv || "$FORMAT" == markdown ]] || die "--format must be tsv or markdown, got '$FORMAT'"
[[ -f "$SCHEMA" ]] || die "schema file not found: $SCHEMA"
jq -e 'type == "object" and (.benchmarks | type == "object")' "$SCHEMA" >/dev/null 2>&1 \
  || die "$SCHEMA: not a valid schema (needs a .benchmarks object)"
if [[ -z "$MIN_COVERAGE" ]]; then
  MIN_COVERAGE="$(jq -r '.judge_coverage_min // 0.95' "$SCHEMA")"
fi
[[ "$MIN_COVERAGE" =~ ^[0-9]*\.?[0-9]+$ ]] || die "--min-judge-coverage must be a number, got '$MIN_COVERAGE'"

SELECTED='null'
if [[ -n "$SELECT" ]]; then
  SELECTED="$(jq -c --arg s "$SELECT" '.selections[$s] // empty' "$SCHEMA")"
  [[ -n "$SELECTED" ]] || die "no selection '$SELECT' in $SCHEMA (have: $(jq -r '.selections // {} | keys | join(", ")' "$SCHEMA"))"
fi

REPORTS=()
KFILES=()
for dir in "${RUN_DIRS[@]}"; do
  [[ -d "$dir" ]] || die "not a directory: $dir"
  while IFS= read -r -d '' f; do REPORTS+=("$f"); done \
    < <(find "$dir" -path '*/reports/*/*.json' -type f -print0 | sort -z)
  while IFS= read -r -d '' f; do KFILES+=("$f"); done \
    < <(find "$dir" -path '*/kmetrics/*/*.json' -type f -print0 | sort -z)
done
[[ ${#REPORTS[@]} -gt 0 ]] || { echo "score_reports: no reports/<model>/<dataset>.json under: ${RUN_DIRS[*]}" >&2; exit 1; }

# One jq program checks one report and prints "FILE: KEY: problem" lines; none means valid.
read -r -d '' CHECK <<'JQ' || true
def fail($key; $msg): "\($file): \($key): \($msg)";
. as $r
| if type != "object" then fail("(top level)"; "expected a JSON object, got \(type)")
  else
    ( $schema.required_keys[] as $k | select($r[$k] == null) | fail($k; "required key missing") ),
    ( select($r.schema_version != null and $r.schema_version != $schema.schema_version)
      | fail("schema_version"; "is \($r.schema_version), expected \($schema.schema_version)") ),
    ( select($r.dataset_name != null) | $r.dataset_name as $ds
      | if $schema.benchmarks[$ds] == null then
          fail("dataset_name"; "no expectations for benchmark '\($ds)' in the schema file")
        else
          $schema.benchmarks[$ds] as $exp
          | ( ($r.metrics // []) | if type != "array" then fail("metrics"; "expected an array") else empty end ),
            ( $exp.metrics[] as $m
              | [ ($r.metrics // [])[]? | select(.identity.name == $m and .identity.aggregation == "mean") ] as $found
              | if ($found | length) == 0 then fail("metrics[\($m)]"; "expected metric missing")
                elif (($found[0].num | type) != "number") or $found[0].num <= 0 then
                  fail("metrics[\($m)].num"; "is \($found[0].num), expected > 0")
                elif ($found[0].score | type) != "number" then
                  fail("metrics[\($m)].score"; "is \($found[0].score), expected a number")
                else empty end ),
            ( select($exp.primary != null and $r.primary_metric_identity != null
                     and $r.primary_metric_identity.name != $exp.primary)
              | fail("primary_metric_identity.name"; "is '\($r.primary_metric_identity.name)', expected '\($exp.primary)'") )
        end ),
    ( select($r.execution_summary != null) | $r.execution_summary as $e
      | ( select($e.incomplete != false) | fail("execution_summary.incomplete"; "is \($e.incomplete), expected false (the run did not finish; resume it)") ),
        ( select($e.errored != 0) | fail("execution_summary.errored"; "is \($e.errored), expected 0") ) ),
    ( select($r.judge_summary != null) | $r.judge_summary as $j
      | select((($j.judge_models // []) | length) > 0 or ($j.total_observations // 0) > 0)
      | select((($j.coverage // 0) | tonumber) < $min)
      | fail("judge_summary.coverage"; "is \($j.coverage), below the threshold \($min)") )
  end
JQ

# Rows: model, benchmark, metric label, score, num. The judge cost metrics (per-answer means in a report) become
# run totals (mean x num): judge_calls, judge_failed_calls, judge_prompt_tokens, judge_completion_tokens and
# judge_tokens (prompt + completion); their per-level breakdowns are left out.
read -r -d '' ROWS <<'JQ' || true
def metric_label: .identity as $i | ($i.dimensions // {}) as $d
  | if $i.aggregation == "mean" and ($d | length) == 0 then $i.name
    elif $i.aggregation == "pass_at_k" then "\($i.name) pass@\($d.k)"
    elif $i.aggregation == "vote_at_k" then "\($i.name) maj@\($d.k)"
    else "\($i.name) \($i.aggregation)" + ($d | to_entries | map(" \(.key)=\(.value)") | join("")) end;
def cost_names: ["judge_calls", "judge_failed_calls", "judge_prompt_tokens", "judge_completion_tokens"];
def is_cost: .identity.name as $n | cost_names | index($n) != null;
def total: (.score * .num) | round;
select($sel == null or (.dataset_name as $ds | $sel | index($ds)))
| . as $r
| [ .metrics[] | select(is_cost and .identity.aggregation == "mean" and ((.identity.dimensions // {}) | length) == 0) ]
  as $cost
| ( .metrics[] | select(is_cost | not) | [$r.model_name, $r.dataset_name, metric_label, .score, .num] | @tsv ),
  ( $cost[] | [$r.model_name, $r.dataset_name, .identity.name, total, .num] | @tsv ),
  ( [ $cost[] | select(.identity.name | endswith("_tokens")) ] as $tokens | select($tokens | length > 0)
    | [$r.model_name, $r.dataset_name, "judge_tokens", ($tokens | map(total) | add), $tokens[0].num] | @tsv )
JQ

VIOLATIONS=0
for f in "${REPORTS[@]}"; do
  if ! out="$(jq -r --arg file "$f" --argjson schema "$(cat "$SCHEMA")" --argjson min "$MIN_COVERAGE" \
              "$CHECK" "$f" 2>&1)"; then
    echo "$f: (file): not valid JSON: ${out##*: }" >&2
    VIOLATIONS=$((VIOLATIONS + 1))
    continue
  fi
  if [[ -n "$SELECTED" && "$SELECTED" != null ]]; then
    ds="$(jq -r '.dataset_name // ""' "$f")"
    jq -e --arg ds "$ds" 'index($ds) != null' <<<"$SELECTED" >/dev/null || continue
  fi
  if [[ -n "$out" ]]; then
    echo "$out" >&2
    VIOLATIONS=$((VIOLATIONS + $(wc -l <<<"$out")))
  fi
done
for f in "${KFILES[@]}"; do
  if ! jq -e '.dataset_name and .model_name and (.metrics | type == "array")' "$f" >/dev/null 2>&1; then
    echo "$f: (file): not a valid kmetrics file (needs dataset_name, model_name, metrics[])" >&2
    VIOLATIONS=$((VIOLATIONS + 1))
  fi
done
if [[ $VIOLATIONS -gt 0 ]]; then
  echo "score_reports: $VIOLATIONS violation(s) in ${#REPORTS[@]} report(s); no table printed" >&2
  exit 1
fi

TABLE_ROWS="$(jq -r --argjson sel "$SELECTED" "$ROWS" "${REPORTS[@]}" ${KFILES[@]+"${KFILES[@]}"})"
if [[ -z "$TABLE_ROWS" ]]; then
  echo "score_reports: no report of selection '$SELECT' under: ${RUN_DIRS[*]}" >&2
  exit 1
fi

# mean, sample std (n-1; "-" for one seed), seeds, n (per-seed sample count, or min-max if they differ)
awk -F'\t' -v fmt="$FORMAT" '
  {
    key = $1 FS $2 FS $3
    if (!(key in cnt)) { order[++nkeys] = key; lo[key] = $5; hi[key] = $5 }
    cnt[key]++; sum[key] += $4; sq[key] += $4 * $4; vals[key, cnt[key]] = $4
    if ($5 < lo[key]) lo[key] = $5
    if ($5 > hi[key]) hi[key] = $5
  }
  END {
    if (fmt == "markdown") {
      print "| model | benchmark | metric | mean ± std | seeds | n |"
      print "|---|---|---|---|---|---|"
    } else {
      print "model\tbenchmark\tmetric\tmean\tstd\tseeds\tn"
    }
    for (i = 1; i <= nkeys; i++) {
      key = order[i]; split(key, part, FS); k = cnt[key]; mean = sum[key] / k
      if (k > 1) { ss = 0; for (j = 1; j <= k; j++) ss += (vals[key, j] - mean) ^ 2; std = sprintf("%.4f", sqrt(ss / (k - 1))) }
      else std = "-"
      n = (lo[key] == hi[key]) ? lo[key] : lo[key] "-" hi[key]
      if (fmt == "markdown") printf "| %s | %s | %s | %.4f ± %s | %d | %s |\n", part[1], part[2], part[3], mean, std, k, n
      else printf "%s\t%s\t%s\t%.4f\t%s\t%d\t%s\n", part[1], part[2], part[3], mean, std, k, n
    }
  }' <<<"$TABLE_ROWS"

if [[ -n "$PLOTS" ]]; then
  # the interpreter that has evalscope_phys: $PYTHON, else the active venv's, else python3
  py="${PYTHON:-${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}}"
  "${py:-python3}" -m evalscope_phys.suite.plots --out "$PLOTS" "${RUN_DIRS[@]}" >&2
fi
