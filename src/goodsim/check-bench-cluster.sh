#!/bin/sh
# make bench-cluster's short version, in make check: a generated day at
# 1,000 nodes with and without slurm-elastic; fails when a target is
# missed (bench_cluster --check: rigid jobs' wait, utilization while a
# group is below its max, Jain's index over equal groups).
exec ./bench_cluster --nodes 1000 --hours 24 --check
