#!/bin/bash
# The Grafana dashboard (contribs/grafana/slurm-elastic.json) against a
# real Prometheus (Debian's, on a port and in a data directory of the
# test's own, started and stopped by pid) scraping elasticd as
# etc/prometheus.yml.example does, while a PyTorch job under elastic-run
# starts at min, grows into idle nodes and trains: its launcher reports
# its account (POST /v1/groups/JOB/account), and every query of every
# panel, run through Prometheus's HTTP API, returns data.  At the end the
# job's base carries its ratios in AdminComment, which sacct shows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
. "$(dirname "$0")/pytorch.sh"
ed_setup

DASH=$ELASTIC_SRCDIR/contribs/grafana/slurm-elastic.json
command -v prometheus >/dev/null || bail "prometheus is missing (Debian's prometheus package)"
# The panels' queries, one a line, Grafana's variables as a range query
# of the last minutes would have them.
exprs=$("$PYTHON" - "$DASH" <<'EOS'
import json, sys
d = json.load(open(sys.argv[1]))
subst = {"$__rate_interval": "5m", "$__range": "10m", "$job_id": ".*"}
def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))
for p in panels(d["panels"]):
    for t in p.get("targets", []):
        e = t["expr"]
        for k, v in subst.items():
            e = e.replace(k, v)
        print(e)
EOS
) || bail "$DASH: not a dashboard"
nexprs=$(wc -l <<<"$exprs")
plan $((10 + nexprs))

pytorch_setup
SAMPLES=2048 BATCH=64 EVERY=10
EPOCHS=600
out=$W/out
# The launcher's account every 2 s (elastic-run(1)): Prometheus sees
# the figures move within the test's minutes.
export ELASTIC_ACCOUNT_INTERVAL=2

ok "elasticd starts" ed_start

# --- Prometheus ------------------------------------------------------------
PROM_PORT=$((MC_PORT_BASE + 58))
PROM=http://127.0.0.1:$PROM_PORT
P=$ED_TMP/prometheus
mkdir -p "$P/data"
cat >"$P/prometheus.yml" <<EOS
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: elasticd
    metrics_path: /metrics
    static_configs:
      - targets: ["$ED_SERVER"]
EOS
prometheus --config.file="$P/prometheus.yml" --storage.tsdb.path="$P/data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn </dev/null >"$P/log" 2>&1 &
PROM_PID=$!
prom_stop() {
	kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	[ "$_t_failed" = 0 ] || { diag "prometheus's log:"; tail -n 20 "$P/log" | sed 's/^/#   /'; }
	return 0
}
at_exit prom_stop
# prom_query EXPR: Prometheus's answer to an instant query.
prom_query() { curl -fsS -m 5 -G --data-urlencode "query=$1" "$PROM/api/v1/query" 2>/dev/null; }
# prom_data EXPR: the query succeeds with at least one finite value.
prom_data() {
	prom_query "$1" | "$PYTHON" -c '
import json, math, sys
d = json.load(sys.stdin)
r = d["data"]["result"] if d.get("status") == "success" else []
vals = [float(s["value"][1]) for s in r] if d["data"]["resultType"] == "vector" else []
sys.exit(0 if any(math.isfinite(v) for v in vals) else 1)' 2>/dev/null
}
ok "Prometheus scrapes elasticd" wait_until 60 prom_data 'up{job="elasticd"} == 1'

# --- a job that grows ----------------------------------------------------------
fill=$(filler preempt 3)
ok "3 of the 4 preemptible nodes are busy" wait_until 30 job_running "$fill"
t_phase=$(now)
base=$(submit_ddp 1 60)
like "a min=1 max=4 PyTorch job is accepted" "$base" '^[0-9]+$'
phase 1 "it starts at min: 1 rank"
t_phase=$(now)
scancel "$fill"
phase 4 "the nodes go idle: it grows to 4 ranks"

# Until the launcher reports its account (elastic-run(1), ACCOUNT), the
# test does, as the job's owner: the same reports, figures made up.
if ! grep -q ELASTIC_ACCOUNT_INTERVAL "$RUN"; then
	diag "$RUN reports no account: the test reports for it"
	report_for_launcher() {
		local t0 t wall held tr seq=0 a
		t0=$(date +%s%3N)
		while :; do
			t=$(date +%s%3N) wall=$((t - t0 + 1000))
			held=$((4 * wall)) tr=$((4 * wall * 8 / 10))
			a="v=1&t=$t&wall_ms=$wall&train_wall_ms=$((wall * 9 / 10))&held_nms=$held&training_nms=$tr"
			a+="&waiting_nms=$((held - tr - 2000))&resize_restart_nms=2000&resize_inplace_nms=0&resize_swap_nms=0"
			a+="&detect_nms=0&redo_nms=0&checkpoint_nms=0&outside_nms=0&at=4:$tr&steps=$((wall / 50))&redone=0"
			a+="&world=4&held=4&phase=training"
			[ "$seq" != 0 ] || a+="&event=growth"
			[ "$seq" != 1 ] || a+="&resize=growth:restart:3500:1"
			[ ! -e "$ED_TMP/final" ] || a+="&final=1"
			api POST "/v1/groups/$base/account?$a" "$TEST_USER" >/dev/null
			[ ! -e "$ED_TMP/final" ] || break
			seq=$((seq + 1))
			nap 2
		done
	}
	report_for_launcher &
	REPORTER=$!
fi

resized() { api_get "/v1/groups/$base/account" "$TEST_USER" | jq_py '[e for e in d["events"] if e.get("path")] or None' | grep -q .; }
ok "its account shows a resize that ended (its kind, path and seconds)" wait_until 90 resized
api_get "/v1/groups/$base/account" "$TEST_USER" | jq_py '"account: held %s s, training %s s, goodput %s, ettr %s, events %s" % (d["node_seconds"]["held"], d["node_seconds"]["training"], d["goodput"], d["ettr"], ["%s %s %s" % (e["kind"], e.get("path", ""), e.get("seconds", "")) for e in d["events"]])' | sed 's/^/# /'
ok "Prometheus has the resize in elasticd_resize_seconds" wait_until 30 prom_data 'sum(elasticd_resize_seconds_count) > 0'

# --- every panel's query ----------------------------------------------------------
while IFS= read -r e; do
	ok "the panel's query returns data: $e" wait_until 60 prom_data "$e" ||
		diag "$(prom_query "$e" | head -c 600)"
done <<<"$exprs"

# --- the end: sacct ---------------------------------------------------------------
if [ -n "${REPORTER:-}" ]; then
	touch "$ED_TMP/final"
	wait "$REPORTER"
fi
finish_soon
ok "the training ends" wait_until 180 job_gone_or_done "$base"
sacct_noted() { sacct -n -X -j "$base" -o AdminComment%300 2>/dev/null | grep -qE ' \| goodput=[01]\.[0-9]{3} ettr=[01]\.[0-9]{3} held_s=[0-9]+'; }
ok "sacct -o AdminComment shows its goodput and ETTR" wait_until 60 sacct_noted
diag "sacct: $(sacct -n -X -j "$base" -o AdminComment%300 2>&1 | sed 's/  */ /g')"
done_testing
