#!/bin/bash
# What etc/prometheus.yml.example scrapes, on this cluster (its ctl for
# the example's, its ports for 6830 and 6817): elasticd's /metrics, and
# from Slurm 25.11 slurmctld's own OpenMetrics endpoints beside it
# (MetricsType=metrics/openmetrics, slurm.conf.example's commented line,
# which the cluster sets from that release), each with the figures a
# running group moves (its jobs running, its nodes allocated, its unit in
# the preemptible partition).  Before 25.11 slurmctld speaks no HTTP: the
# example's slurmctld jobs are for 25.11 and later, as it says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/elasticd.sh"
ed_setup

EXAMPLE=$ELASTIC_SRCDIR/etc/prometheus.yml.example
# The example's scrape jobs: "NAME PATH PORT", one a line.
jobs=$(awk '/job_name:/ { n = $3 } /metrics_path:/ { p = $2 }
	/targets:/ { match($0, /:[0-9]+"/); print n, p, substr($0, RSTART + 1, RLENGTH - 2) }' "$EXAMPLE")
njobs=$(wc -l <<<"$jobs")
plan $((4 + njobs))

# The cluster's own reading of the release (slurm_at_least).
# shellcheck source=testsuite/minicluster/configs.sh
. "$ELASTIC_SRCDIR/testsuite/minicluster/configs.sh"
slurm_at_least 25 11 && at_least_25_11=1 || at_least_25_11=0
read -r major minor <<<"$SLURM_RELEASE"
is "the example scrapes elasticd and four slurmctld endpoints" \
	"$(awk '{ print $1 }' <<<"$jobs" | tr '\n' ' ')" \
	"elasticd slurmctld-jobs slurmctld-nodes slurmctld-partitions slurmctld-scheduler "
ctld_port=$(scontrol show config | sed -n 's/^SlurmctldPort *= *\([0-9]*\).*/\1/p')
host=${ED_SERVER%:*}

ok "elasticd starts" ed_start
base=$(submit_group "$TEST_USER" --elastic-min=1 --elastic-max=2 --elastic-scale-delay=1)
ok "a group of min 1, max 2 runs at 2 nodes" gwait 60 "$base" 'world == 2'

# What each of slurmctld's endpoints shows of the group (its base and
# unit running, its 2 nodes allocated, the unit in preempt; the
# scheduler's cycles, which may be none yet: jobs start at submission).
declare -A want=(
	[slurmctld-jobs]='slurm_jobs_running 2'
	[slurmctld-nodes]='slurm_nodes_alloc 2'
	[slurmctld-partitions]='slurm_partition_jobs_running\{partition="preempt"\} 1'
	[slurmctld-scheduler]='slurm_schedule_cycle_cnt [0-9]')
# scrape PORT PATH: the endpoint's text (curl fails on an HTTP error).
scrape() { curl -fsS -m 5 "http://$host:$1$2" 2>&1; }
while read -r name path port; do
	case $port in
	6830) port=$ED_PORT ;;
	6817) port=$ctld_port ;;
	esac
	case $name in
	elasticd)
		like "$name: $path shows the group's nodes" "$(scrape "$port" "$path")" \
			'elasticd_nodes\{kind="preemptible"\} 1'
		;;
	*)
		if [ "$at_least_25_11" = 1 ]; then
			like "$name ($major.$minor): $path shows ${want[$name]}" \
				"$(scrape "$port" "$path")" "${want[$name]}"
		else
			ok "$name ($major.$minor, before 25.11): slurmctld serves no $path" \
				bash -c "! curl -fsS -m 5 -o /dev/null 'http://$host:$port$path' 2>/dev/null"
		fi
		;;
	esac
done <<<"$jobs"
scancel "$base"
ok "elasticd stops on SIGTERM" ed_stop
done_testing
