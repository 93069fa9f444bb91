#!/usr/bin/env bash
# One CI step of checkspec, shared by the GitHub Action (action.yml) and the GitLab CI
# template (ci/gitlab-ci.yml): run a selection, keep its JSON report, JUnit and HTML page
# in one folder, write a Markdown summary (the comparison with a baseline report when one
# is given, else the run's own report) to the job summary, and fail as the run says:
#   - with CHECKSPEC_BASELINE (a JSON report of the main branch): exit 1 only on scenarios
#     that newly fail (`checkspec compare`);
#   - without: the run's own exit code (1: a scenario failed or errored).
# Input errors (2), a run that checked nothing and interruptions keep their own code
# whatever the baseline (docs/outcomes.md): a green is never made of nothing.
# Inputs (environment): CHECKSPEC_SELECTION (default .), CHECKSPEC_ARGS (more options of
# `checkspec run`, split on spaces), CHECKSPEC_BASELINE, CHECKSPEC_OUT (default
# checkspec-results), CHECKSPEC_BIN (default checkspec); GITHUB_STEP_SUMMARY when set.
set -uo pipefail

bin=${CHECKSPEC_BIN:-checkspec}
out=${CHECKSPEC_OUT:-checkspec-results}
baseline=${CHECKSPEC_BASELINE:-}
read -r -a selection <<<"${CHECKSPEC_SELECTION:-.}"
read -r -a extra <<<"${CHECKSPEC_ARGS:-}"
mkdir -p "$out"

"$bin" run "${selection[@]}" "${extra[@]}" --format json -o "$out/report.json"
ran=$?
if [ "$ran" -ne 0 ] && [ "$ran" -ne 1 ]; then
	echo "checkspec run exited $ran: no comparison (see above)" >&2
	exit "$ran"
fi
# merge gives the JUnit of the JSON report (its exit code is the run's verdict again)
"$bin" merge "$out/report.json" --format junit -o "$out/junit.xml" 2>/dev/null
[ $? -le 1 ] || exit 2
"$bin" report "$out/report.json" -o "$out/report.html" || exit 2

verdict=$ran
if [ -n "$baseline" ]; then
	"$bin" compare "$baseline" "$out/report.json" --format markdown -o "$out/summary.md"
	verdict=$?
else
	{
		echo "### checkspec run"
		echo
		echo '```'
		"$bin" merge "$out/report.json" --format text 2>&1
		echo '```'
	} >"$out/summary.md"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
echo "checkspec: report.json, junit.xml, report.html and summary.md in $out/"
exit "$verdict"
