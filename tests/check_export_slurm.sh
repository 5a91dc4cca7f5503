#!/usr/bin/env bash
# `vp-catalog export --format slurm-gres` read by Slurm itself: `slurmd -G`
# prints the GRES configuration it parsed from slurm.conf and gres.conf, and
# must list the node's 8 GPUs with the Links= the file gives, in order.
#   check_export_slurm.sh VP_ANALYZE VP_CATALOG FIXTURES_DIR
# Exit 77 (skipped) where slurmd is not installed (Debian: slurmd), except
# under CI (CI set), where scripts/install-deps.sh installs it: there a
# missing slurmd fails. Also skipped where slurmd cannot start for want of a
# mounted cgroup filesystem (a chroot). The
# device files are symbolic links to /dev/null in a temporary folder (slurmd
# wants character devices, distinct by name).
set -euo pipefail
analyze=$1 catalog_tool=$2 fixtures=$3
slurmd=$(command -v slurmd || echo /usr/sbin/slurmd)
if [ ! -x "$slurmd" ]; then
  msg="no slurmd (Debian: apt-get install slurmd; scripts/install-deps.sh installs it)"
  if [ -n "${CI:-}" ]; then echo "check_export_slurm.sh: FAILED under CI: $msg" >&2; exit 1; fi
  echo "check_export_slurm.sh: skipped: $msg"
  exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$analyze" -q --cluster "$fixtures/platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json" --out "$dir/c.vpcat" >/dev/null
"$catalog_tool" export "$dir/c.vpcat" --format slurm-gres --out "$dir/exported.conf"
for i in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$dir/nvidia$i"; done
sed "s|File=/dev/nvidia|File=$dir/nvidia|" "$dir/exported.conf" >"$dir/gres.conf"
mkdir "$dir/spool" "$dir/state"
cat >"$dir/slurm.conf" <<CONF
ClusterName=vp
SlurmctldHost=localhost
GresTypes=gpu
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AuthType=auth/none
NodeName=gpu[01-04] CPUs=4 Gres=gpu:8 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES
CONF
status=0
out=$(SLURM_CONF="$dir/slurm.conf" timeout 60 "$slurmd" -G -N gpu02 2>&1) || status=$?
echo "$out"
# slurmd initialises its cgroup plugin before it prints the GRES, and exits 1
# (naming nothing on its output unless -v) where no cgroup filesystem is
# mounted, as in a chroot such as CI's pristine root: an environment this
# check cannot run in, not a wrong gres.conf.
if [ "$status" != 0 ] && ! mountpoint -q /sys/fs/cgroup 2>/dev/null; then
  echo "check_export_slurm.sh: skipped: slurmd needs a cgroup filesystem at /sys/fs/cgroup, and none is mounted here"
  exit 77
fi
failures=0
for i in 0 1 2 3 4 5 6 7; do
  links=$(sed -n "s|^NodeName=gpu\[01-04\] Name=gpu File=/dev/nvidia$i Links=\([-0-9,]*\) .*|\1|p" "$dir/exported.conf")
  if ! grep -q "Gres Name=gpu .*Index=$i .*File=$dir/nvidia$i Links=$links\$" <<<"$out"; then
    echo "FAIL: slurmd did not read GPU $i with Links=$links" >&2
    failures=$((failures + 1))
  fi
done
[ "$(grep -c 'Gres Name=gpu' <<<"$out")" = 8 ] || { echo "FAIL: slurmd did not read 8 GPUs" >&2; failures=$((failures + 1)); }
exit $((failures > 0))
