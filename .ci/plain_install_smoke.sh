#!/usr/bin/env bash
# Smoke test of a plain install (no extras): every command that needs no extra runs, and a
# command that needs one says which in one line and exits 2.
#
# usage: .ci/plain_install_smoke.sh VENV
#   VENV: a virtualenv holding `pip install .` (no extras, not editable). The commands run
#   from a scratch folder outside the repository, with a fresh table cache.
set -euo pipefail
venv=$(cd "${1:?usage: plain_install_smoke.sh VENV}" && pwd)
sim="$venv/bin/yahtzee-sim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export YAHTZEE_SIM_CACHE="$work/cache" MPLBACKEND=Agg

step() { echo "--- yahtzee-sim $*"; }
fail() { echo "plain-install smoke test FAILED: $*" >&2; exit 1; }

# the package imported is the installed one, not a checkout
"$venv/bin/python" - <<'EOF'
import importlib.util, sys
import yahtzee_sim
for extra in ("gymnasium", "flask"):
    if importlib.util.find_spec(extra) is not None:
        sys.exit(f"{extra} is installed: this venv is not a plain install")
print("yahtzee_sim from", yahtzee_sim.__file__)
# the value table that ships (package data) is in the install
from yahtzee_sim.game.rules import get_rules
from yahtzee_sim.solving.shipped import shipped_values
if shipped_values(get_rules("yahtzee")) is None:
    sys.exit("the shipped yahtzee value table is missing from the install")
# and the default report's exact results
from yahtzee_sim.analysis.report.exact_cache import available
if not available("greedy", get_rules("yahtzee"), 10):
    sys.exit("the shipped exact results of the default report are missing from the install")
EOF

step simulate
"$sim" simulate --games 2000 --quiet --json >simulate.json
"$venv/bin/python" -c "import json; d = json.load(open('simulate.json')); assert d['games'] == 2000, d"

step solve
"$sim" solve

step exact
"$sim" exact --strategy greedy --quiet

step report
"$sim" report --games 2000 --out "$work/report" --quiet
test -n "$(ls -A "$work/report")" || fail "report wrote nothing"

step play  # over a pipe: stop rolling at once, then name every box until one is taken
boxes=$("$venv/bin/python" -c "from yahtzee_sim.game.rules import get_rules; print(' '.join(get_rules('yahtzee').box_names))")
for _ in $(seq 20); do
    echo all
    printf '%s\n' $boxes
done >moves.txt
"$sim" play --seed 3 --record game.jsonl <moves.txt >play.out || fail "play exited $?"
grep -q "final score" play.out || { tail -5 play.out; fail "play did not finish the game"; }
"$venv/bin/python" -c "
import json
rec = json.loads(open('game.jsonl').readline())
assert len(rec['turns']) == 13 and all('box' in t for t in rec['turns']), rec
"

step advise
"$sim" advise --dice 1,3,5,5,6 --rolls-left 2 --top 3

step "serve (needs the web extra)"
set +e
"$sim" serve --port 0 >serve.out 2>serve.err
code=$?
set -e
[ "$code" -eq 2 ] || fail "serve exited $code, expected 2"
[ "$(wc -l <serve.err)" -eq 1 ] || { cat serve.err; fail "serve printed more than one line"; }
grep -q "web" serve.err || { cat serve.err; fail "serve does not name the 'web' extra"; }
cat serve.err

echo "plain-install smoke test passed"
