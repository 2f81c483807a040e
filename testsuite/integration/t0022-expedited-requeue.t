#!/bin/bash
# ExpeditedRequeue=yes (elastic.conf(5)): job_submit gives bases Slurm's
# --requeue=expedite exactly where slurmctld takes it (Slurm 25.11 and
# later with SlurmctldParameters=enable_expedited_requeue, which the
# cluster sets on such a release); elsewhere bases are submitted without
# it, never refused.  Without the key no base has it.
. "$(dirname "$0")/lib.sh"
require_cluster

plan 5

conf=$MC_DIR/etc/elastic.conf
cp "$conf" "$conf.orig"
jobs=""
at_exit 'mv -f "$conf.orig" "$conf"; [ -z "$jobs" ] || scancel $jobs 2>/dev/null; true'
expedited() { if scontrol show job "$1" | grep -q 'ExpeditedRequeue=Yes'; then echo yes; else echo no; fi; }
enabled=no
scontrol show config | grep -E '^SlurmctldParameters' | grep -q 'enable_expedited_requeue' && enabled=yes
diag "slurmctld takes --requeue=expedite: $enabled ($(sinfo -V))"
base() { sbatch --parsable --hold --elastic-min=1 --elastic-max=2 -o /dev/null --wrap true 2>&1; }

j=$(base)
like "without ExpeditedRequeue, a base is accepted" "$j" '^[0-9]+$'
jobs="$jobs $j"
is "... without --requeue=expedite" "$(expedited "$j")" no

echo "ExpeditedRequeue=yes" >>"$conf"
j=$(base)
like "with ExpeditedRequeue=yes, a base is accepted" "$j" '^[0-9]+$'
jobs="$jobs $j"
is "... with --requeue=expedite exactly where slurmctld takes it ($enabled)" "$(expedited "$j")" "$enabled"
like "... and Requeue=1 either way" "$(scontrol show job "$j")" 'Requeue=1'

done_testing
