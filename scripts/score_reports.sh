#!/usr/bin/env bash
# Validate EvalScope report files against scripts/report_schema.json, then print one table:
# benchmark x metric, mean +- std across seeds (report files), n.
#
#   scripts/score_reports.sh [--format tsv|markdown] [--select NAME] [--schema FILE]
#                            [--min-judge-coverage X] [--plots DIR] [--ci [--ci-seed N]]
#                            [--compare-upstream] RUN_DIR...
# (--plots and --ci run $PYTHON, the active venv's python or python3 with evalscope_phys importable)
# --ci adds a seeded bootstrap 95% CI over problems to every accuracy row (from the reviews).
# --compare-upstream prints, instead of the table, ours vs upstream EvalScope per benchmark pair
# (upstream_pairs in the schema file) with the difference.
#
# RUN_DIR is a suite work dir (seed_*/reports/...) or one EvalScope output dir (reports/...);
# every reports/<model>/<dataset>.json below it is one seed. pass@k / maj@k written by
# `evalscope-phys suite run` (kmetrics/<model>/<dataset>.json) are shown beside the means. With a judge,
# judge_calls / judge_failed_calls / judge_*_tokens / judge_tokens rows are run totals, not means.
# Exit: 0 all reports valid, 1 a report violates the schema (each violation printed as
# "FILE: KEY: problem" on stderr) or a judge run is not trustworthy (any judge call failed, judge
# coverage or valid judge observations below the floor; named by benchmark and judge model),
# 2 usage error or missing tool.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCHEMA="$SCRIPT_DIR/report_schema.json"
FORMAT=tsv
SELECT=""
MIN_COVERAGE=""
PLOTS=""
CI=""
CI_SEED=0
COMPARE=""
RUN_DIRS=()

# usage [0]: --help prints to stdout and exits 0; a usage error prints to stderr and exits 2. The text names
# this script as it was called ($SCORE_REPORTS_PROG: `evalscope-phys score-reports` sets it) and the schema
# where it is: after a wheel install there is no scripts/ folder.
usage() {
  local text prog="${SCORE_REPORTS_PROG:-$0}"
  text="$(sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//')"
  text="${text//scripts\/score_reports.sh/"$prog"}"
  text="${text//scripts\/report_schema.json/"$SCHEMA"}"
  if [[ "${1:-2}" == 0 ]]; then printf '%s\n' "$text"; exit 0; fi
  printf '%s\n' "$text" >&2; exit 2
}
die() { echo "score_reports: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --format) FORMAT="${2:-}"; shift 2 ;;
    --select) SELECT="${2:-}"; shift 2 ;;
    --schema) SCHEMA="${2:-}"; shift 2 ;;
    --min-judge-coverage) MIN_COVERAGE="${2:-}"; shift 2 ;;
    --plots) PLOTS="${2:-}"; shift 2 ;;
    --ci) CI=1; shift ;;
    --ci-seed) CI_SEED="${2:-}"; shift 2 ;;
    --compare-upstream) COMPARE=1; shift ;;
    -h|--help) usage 0 ;;
    -*) die "unknown option $1" ;;
    *) RUN_DIRS+=("$1"); shift ;;
  esac
done

[[ ${#RUN_DIRS[@]} -gt 0 ]] || usage
if ! command -v jq >/dev/null 2>&1; then
  die "jq is required but not installed (Debian/Ubuntu: sudo apt-get install jq; macOS: brew install jq)"
fi
[[ "$FORMAT" == tsv || "$FORMAT" == markdown ]] || die "--format must be tsv or markdown, got '$FORMAT'"
[[ -f "$SCHEMA" ]] || die "schema file not found: $SCHEMA"
jq -e 'type == "object" and (.benchmarks | type == "object")' "$SCHEMA" >/dev/null 2>&1 \
  || die "$SCHEMA: not a valid schema (needs a .benchmarks object)"
if [[ -z "$MIN_COVERAGE" ]]; then
  MIN_COVERAGE="$(jq -r '.judge_coverage_min // 0.95' "$SCHEMA")"
fi
[[ "$MIN_COVERAGE" =~ ^[0-9]*\.?[0-9]+$ ]] || die "--min-judge-coverage must be a number, got '$MIN_COVERAGE'"
[[ "$CI_SEED" =~ ^[0-9]+$ ]] || die "--ci-seed must be a non-negative integer, got '$CI_SEED'"

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
      | "benchmark '\($r.dataset_name)', judge \(($j.judge_models // []) | map("'\(.)'") | join(", "))" as $who
      | (($j.failures // {}) | to_entries | map(.value) | add // 0) as $failed
      | ($j.total_observations // 0) as $total | ($j.valid_observations // $total) as $valid
      | ( select((($j.coverage // 0) | tonumber) < $min)
          | fail("judge_summary.coverage"; "\($who): is \($j.coverage), below the threshold \($min)") ),
        ( select($failed > 0)
          | fail("judge_summary.failures"; "\($who): \($failed) judge call(s) failed (\($j.failures | to_entries | map("\(.key) \(.value)") | join(", "))); the answers that needed the judge are unscored (judge_failed): fix the judge endpoint and rerun with --use-cache") ),
        ( select($total > 0 and ($valid / $total) < $min)
          | fail("judge_summary.valid_observations"; "\($who): \($valid) of \($total) judge observations valid (status \($j.status // "unknown")), below the threshold \($min)") ) ),
    ( [ ($r.metrics // [])[]? | select(.identity.name == "judge_failed" and .identity.aggregation == "mean"
                                       and ((.score // 0) > 0)) ][0] // empty
      | fail("metrics[judge_failed]"; "benchmark '\($r.dataset_name)', judge \((($r.judge_summary.judge_models // []) | map("'\(.)'") | join(", "))): \(.score) of the answers lost their judge verdict") )
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
    elif $i.aggregation == "g_pass_at_k" then "\($i.name) G-Pass@\($d.k)_\($d.tau)"
    elif $i.aggregation == "mg_pass_at_k" then "\($i.name) mG-Pass@\($d.k)"
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

# Appends the --ci column to the table on stdin (TSV: ci_low, ci_high; markdown: "[low, high]"); "-" for
# rows that are not accuracies. Without --ci the table passes through unchanged.
ci_column() {
  if [[ -z "$CI" ]]; then cat; return; fi
  awk -F'\t' -v fmt="$FORMAT" '
    FILENAME == ARGV[1] { low[$1 FS $2 FS $3] = $4; high[$1 FS $2 FS $3] = $5; next }
    fmt == "markdown" && FNR == 1 { print $0 " 95% CI |"; next }
    fmt == "markdown" && FNR == 2 { print $0 "---|"; next }
    fmt == "markdown" {
      split(substr($0, 3, length($0) - 4), f, " [|] "); key = f[1] FS f[2] FS f[3]
      print $0 " " ((key in low) ? "[" low[key] ", " high[key] "]" : "-") " |"; next
    }
    FNR == 1 { print $0 "\tci_low\tci_high"; next }
    { key = $1 FS $2 FS $3; print $0 "\t" ((key in low) ? low[key] "\t" high[key] : "-\t-") }' "$CI_FILE" -
}

# --ci: one "model<TAB>benchmark<TAB>metric<TAB>low<TAB>high<TAB>problems" line per accuracy row, from the reviews
CI_FILE=/dev/null
if [[ -n "$CI" ]]; then
  CI_FILE="$(mktemp)"
  trap 'rm -f "$CI_FILE"' EXIT
  py="${PYTHON:-${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}}"
  "${py:-python3}" -m evalscope_phys.suite.intervals --seed "$CI_SEED" "${RUN_DIRS[@]}" >"$CI_FILE" \
    || die "--ci: the bootstrap intervals could not be computed (message above; \$PYTHON must import evalscope_phys)"
fi

# --compare-upstream: ours vs upstream EvalScope, one row per model x pair x metric, means over seeds
if [[ -n "$COMPARE" ]]; then
  PAIRS="$(jq -r '(.upstream_pairs // {}) | to_entries[] | .key as $up | .value as $p
                  | ($p.ours_metrics // ["-"])[] as $m | [($p.ours // "-"), $m, $up, ($p.metric // "accuracy")] | @tsv' "$SCHEMA")"
  [[ -n "$PAIRS" ]] || die "$SCHEMA: no upstream_pairs to compare"
  awk -F'\t' -v fmt="$FORMAT" -v ci="$CI" '
    FILENAME == ARGV[1] { ci_of[$1 FS $2 FS $3] = "[" $4 ", " $5 "]"; next }
    FILENAME == ARGV[2] { np++; ours[np] = $1; om[np] = $2; up[np] = $3; um[np] = $4; next }
    {
      key = $1 FS $2 FS $3
      if (!($1 in seen)) { seen[$1] = 1; models[++nm] = $1 }
      if (!(key in cnt)) { lo[key] = $5; hi[key] = $5 }
      cnt[key]++; sum[key] += $4
      if ($5 < lo[key]) lo[key] = $5
      if ($5 > hi[key]) hi[key] = $5
    }
    function mean(k) { return (k in cnt) ? sprintf("%.4f", sum[k] / cnt[k]) : "-" }
    function n(k) { return (k in cnt) ? ((lo[k] == hi[k]) ? lo[k] : lo[k] "-" hi[k]) : "-" }
    function interval(k) { return (k in ci_of) ? ci_of[k] : "-" }
    END {
      if (fmt == "markdown") {
        printf "| model | ours | metric | mean | upstream | metric | mean | ours - upstream | n ours | n upstream |%s\n", ci ? " ours 95% CI | upstream 95% CI |" : ""
        printf "|---|---|---|---|---|---|---|---|---|---|%s\n", ci ? "---|---|" : ""
      } else printf "model\tours\tmetric\tmean\tupstream\tmetric\tmean\tdiff\tn_ours\tn_upstream%s\n", ci ? "\tci_ours\tci_upstream" : ""
      for (i = 1; i <= nm; i++) for (j = 1; j <= np; j++) {
        ok = models[i] FS ours[j] FS om[j]; uk = models[i] FS up[j] FS um[j]
        if (!(ok in cnt) && !(uk in cnt)) continue
        printed++
        diff = ((ok in cnt) && (uk in cnt)) ? sprintf("%+.4f", sum[ok] / cnt[ok] - sum[uk] / cnt[uk]) : "-"
        if (fmt == "markdown") {
          printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", models[i], ours[j], om[j], mean(ok), up[j], um[j], mean(uk), diff, n(ok), n(uk)
          if (ci) printf " %s | %s |", interval(ok), interval(uk)
        } else {
          printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", models[i], ours[j], om[j], mean(ok), up[j], um[j], mean(uk), diff, n(ok), n(uk)
          if (ci) printf "\t%s\t%s", interval(ok), interval(uk)
        }
        printf "\n"
      }
      if (!printed) { print "score_reports: no benchmark of upstream_pairs (" FILENAME ") in these reports" > "/dev/stderr"; exit 1 }
    }' "$CI_FILE" <(printf '%s\n' "$PAIRS") <(printf '%s\n' "$TABLE_ROWS")
  exit $?
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
  }' <<<"$TABLE_ROWS" | ci_column

if [[ -n "$PLOTS" ]]; then
  # the interpreter that has evalscope_phys: $PYTHON, else the active venv's, else python3
  py="${PYTHON:-${VIRTUAL_ENV:+$VIRTUAL_ENV/bin/python}}"
  "${py:-python3}" -m evalscope_phys.suite.plots --out "$PLOTS" "${RUN_DIRS[@]}" >&2
fi
