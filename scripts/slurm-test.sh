#!/usr/bin/env bash
# Slurm integration test (`just slurm-test`, run by .ci/run).
#
# Starts a one-node Slurm cluster from Debian's packages (slurm-wlm, munge; as root, no
# systemd needed), then:
#  1. runs the sweep on one machine (`dupstream run`) for reference;
#  2. submits it with `dupstream slurm --shards 4 --submit` (a 4-task job array and a merge
#     job after it), waits, and checks the merged raw.csv, streams.csv, tables, charts and
#     run.toml against the single-machine run byte for byte;
#  3. submits it again, kills one array task mid-run (scancel) and requeues another
#     (scontrol requeue) once each has finished some cells, waits (the merge job cancels
#     itself), then reruns submit.sh, which resubmits only the killed shard; checks that it
#     resumed its finished cells, that the other shards' parts were not touched, that the
#     requeued task resumed too, and that the merge again equals the single run.
# The daemons it starts are stopped by PID on exit, also on failure. Where Slurm cannot be
# installed or started it prints a SKIPPED line and exits 0.
#
# The sweep is Bera et al.'s journal Table 7 at scale 1/64 (20 cells; about 15 s on two cores).
# Environment: SLURM_TEST_EXPERIMENT (default experiments/bera-journal/table7.toml),
# SLURM_TEST_SCALE (default 64), SLURM_TEST_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
t_start=$(date +%s)
experiment=${SLURM_TEST_EXPERIMENT:-experiments/bera-journal/table7.toml}
scale=${SLURM_TEST_SCALE:-64}
shards=4

say() { echo "slurm-test: $*"; }
skip() {
    echo "SKIPPED: slurm-test: $*"
    exit 0
}
fail() {
    echo "slurm-test: FAILED: $*" >&2
    exit 1
}

[ "$(uname -s)" = Linux ] || skip "needs Linux"
[ "$(id -u)" = 0 ] || skip "needs root to start munged, slurmctld and slurmd"

need_install=0
for tool in munged slurmctld slurmd sbatch squeue scontrol scancel; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || need_install=1
done
if [ "$need_install" = 1 ]; then
    command -v apt-get >/dev/null 2>&1 || skip "Slurm is not installed and there is no apt-get"
    say "installing slurm-wlm and munge with apt-get"
    log=$(mktemp)
    if ! { timeout 300 apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
            slurm-wlm munge; } >"$log" 2>&1; then
        tail -5 "$log"
        skip "apt-get install slurm-wlm munge failed"
    fi
    rm -f "$log"
fi
export PATH="$PATH:/usr/sbin:/sbin"

say "building dupstream (release)"
cargo build --release --quiet -p dupstream-runner
bin="$PWD/target/release/dupstream"

work=$(mktemp -d "${TMPDIR:-/tmp}/dupstream-slurm-test.XXXXXX")
daemons=() # PIDs of the daemons this script started, in start order
cleanup() {
    status=$?
    if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
        timeout 10 scancel --quiet --user=root >/dev/null 2>&1 || true
    fi
    for ((k = ${#daemons[@]} - 1; k >= 0; k--)); do
        pid=${daemons[k]}
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -9 "$pid" 2>/dev/null || true
    done
    [ ${#daemons[@]} -eq 0 ] || say "stopped daemons ${daemons[*]}"
    if [ "$status" = 0 ] && [ "${SLURM_TEST_KEEP:-0}" != 1 ]; then
        rm -rf "$work"
    else
        say "work directory kept: $work"
    fi
}
trap cleanup EXIT

# munge: reuse a running munged, else start one as the munge user.
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    id munge >/dev/null 2>&1 || skip "no munge user (broken munge install)"
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
    if [ ! -s /etc/munge/munge.key ]; then
        install -d -o munge -g munge -m 0700 /etc/munge
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
        chown munge:munge /etc/munge/munge.key
        chmod 0400 /etc/munge/munge.key
    fi
    setpriv --reuid=munge --regid=munge --init-groups "$(command -v munged)" --foreground \
        >"$work/munged.log" 2>&1 &
    daemons+=($!)
    for _ in $(seq 50); do
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break
        sleep 0.2
    done
    munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 ||
        skip "munged does not start: $(tail -2 "$work/munged.log")"
fi

# Two free TCP ports for slurmctld and slurmd.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ports=()
for p in $(seq 16817 16917); do
    port_free "$p" && ports+=("$p")
    [ ${#ports[@]} -ge 2 ] && break
done
[ ${#ports[@]} -ge 2 ] || skip "no free ports for slurmctld/slurmd"

node=$(hostname -s)
mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
mkdir -p "$work/state" "$work/spool" "$work/log"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=dupstreamtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MinJobAge=3600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
"$(command -v slurmctld)" -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
daemons+=($!)
sleep 1
"$(command -v slurmd)" -D -f "$SLURM_CONF" -N "$node" >"$work/log/slurmd.out" 2>&1 &
daemons+=($!)
for _ in $(seq 60); do
    [ "$(sinfo -h -N -o %T 2>/dev/null | head -1)" = idle ] && break
    sleep 0.5
done
if [ "$(sinfo -h -N -o %T 2>/dev/null | head -1)" != idle ]; then
    tail -3 "$work/log/slurmctld.log" "$work/log/slurmd.log" 2>/dev/null || true
    skip "the one-node cluster did not come up (node state: $(sinfo -h -N -o %T 2>&1 | head -1))"
fi
say "one-node cluster up: node $node, $(nproc) CPUs, ${mem_mb} MB, ports ${ports[*]}; daemons ${daemons[*]}"

# Waits until the queue is empty (all our jobs ended).
wait_queue() {
    local limit=$1 t0
    t0=$(date +%s)
    while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
        (($(date +%s) - t0 < limit)) || fail "jobs still queued after ${limit} s: $(squeue -h -o '%i %T %r' | tr '\n' ';')"
        sleep 1
    done
}
job_state() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
last_merge() { tail -1 "$1/slurm/jobs.log" | grep -o 'merge=[0-9]*' | cut -d= -f2; }
last_array() { tail -1 "$1/slurm/jobs.log" | grep -o 'arrays=[0-9]*' | cut -d= -f2; }
same_results() {
    local a=$1 b=$2 f n=0
    for f in raw.csv streams.csv gaps.csv table.csv table.md run.toml; do
        cmp -s "$a/$f" "$b/$f" || fail "$f differs between $a and $b"
        n=$((n + 1))
    done
    for f in "$a"/*.svg "$a"/*.png; do
        [ -e "$f" ] || continue
        # The Pareto chart plots measured ns/element, which no two runs share: it must exist in
        # both, and is not compared byte for byte (as in tests/shard.rs).
        case "$(basename "$f")" in pareto*) [ -e "$b/$(basename "$f")" ] || fail "$(basename "$f") missing in $b"; continue;; esac
        cmp -s "$f" "$b/$(basename "$f")" || fail "$(basename "$f") differs between $a and $b"
        n=$((n + 1))
    done
    say "merged results equal the single-machine run byte for byte ($n files, raw.csv $(wc -l <"$a/raw.csv") lines)"
}
done_cells() { find "$1/cells" -name 'cell-*.csv' 2>/dev/null | wc -l; }

# 1. The single-machine reference.
t0=$(date +%s)
"$bin" run "$experiment" --scale "$scale" --quiet --out "$work/single" >/dev/null 2>"$work/single.log" ||
    fail "single-machine run failed: $(tail -3 "$work/single.log")"
say "single-machine run: $(($(date +%s) - t0)) s"

# 2. Job array + merge.
t0=$(date +%s)
out="$work/array"
"$bin" slurm "$experiment" --scale "$scale" --shards "$shards" --out "$out" --time 0:30:00 --submit \
    >"$work/submit1.log" 2>&1 || fail "dupstream slurm --submit failed: $(cat "$work/submit1.log")"
grep -E '^(shards |merge:)' "$work/submit1.log" | sed 's/^/slurm-test:   /'
wait_queue 900
merge=$(last_merge "$out")
[ "$(job_state "$merge")" = COMPLETED ] || fail "merge job $merge: $(job_state "$merge"); $(tail -3 "$out"/slurm/logs/merge-*.log)"
same_results "$work/single" "$out"
t_array=$(($(date +%s) - t0))
say "array of $shards + merge: $t_array s"

# 3. Kill one task mid-run, requeue another, resubmit only the killed shard.
t0=$(date +%s)
out="$work/killed"
"$bin" slurm "$experiment" --scale "$scale" --shards "$shards" --out "$out" --time 0:30:00 --submit \
    >"$work/submit2.log" 2>&1 || fail "dupstream slurm --submit failed: $(cat "$work/submit2.log")"
array=$(last_array "$out")
merge=$(last_merge "$out")
part() { echo "$out/shards/shard-$1-of-$shards"; }
# A task that is running, has finished at least one cell, and is not done.
midrun() {
    local i
    for ((i = 0; i < shards; i++)); do
        [ "$i" = "${1:-x}" ] && continue
        [ "$(squeue -h -j "${array}_$i" -o %T 2>/dev/null)" = RUNNING ] || continue
        [ ! -e "$(part "$i")/shard.json" ] || continue
        [ "$(done_cells "$(part "$i")")" -ge 1 ] || continue
        echo "$i"
        return 0
    done
    return 1
}
victim=""
for _ in $(seq 1200); do
    victim=$(midrun) && break
    sleep 0.1
done
[ -n "$victim" ] || fail "no task was caught mid-run (the shards finish too fast for this test)"
before=$(done_cells "$(part "$victim")")
scancel "${array}_$victim"
say "killed task ${array}_$victim mid-run (scancel) with $before finished cell(s) in its part"
requeued=""
for _ in $(seq 1200); do
    requeued=$(midrun "$victim") && break
    sleep 0.1
done
if [ -n "$requeued" ]; then
    rq_before=$(done_cells "$(part "$requeued")")
    scontrol requeue "${array}_$requeued"
    sleep 1
    # Requeued jobs wait 2 minutes before they may start again; let this one start now.
    scontrol update JobId="${array}_$requeued" StartTime=now >/dev/null 2>&1 || true
    say "requeued task ${array}_$requeued mid-run with $rq_before finished cell(s)"
else
    say "no second task caught mid-run: the requeue check is skipped this time"
fi
wait_queue 900
[ ! -e "$out/raw.csv" ] || fail "merged although shard $victim was killed"
[ ! -e "$(part "$victim")/shard.json" ] || fail "the killed shard $victim finished anyway"
mstate=$(job_state "$merge")
[ "$mstate" = CANCELLED ] || fail "the merge job $merge should cancel itself after the kill, but is $mstate"
say "merge job $merge: $mstate ($(scontrol -o show job "$merge" | grep -o 'Reason=[A-Za-z]*'))"
if [ -n "$requeued" ]; then
    rq=$(part "$requeued")
    [ -e "$rq/shard.json" ] || fail "requeued shard $requeued did not finish"
    grep -q 'restart 1' "$out/slurm/logs/shard-$requeued.log" || fail "requeued task did not restart"
    rq_line=$(grep -Eo '[0-9]+ cells run, [0-9]+ resumed' "$out/slurm/logs/shard-$requeued.log" | tail -1)
    rq_resumed=${rq_line##*, }
    rq_resumed=${rq_resumed% resumed}
    [ -n "$rq_line" ] && [ "$rq_resumed" -ge "$rq_before" ] ||
        fail "requeued shard did not resume its $rq_before cell(s): $(tail -2 "$out/slurm/logs/shard-$requeued.log")"
    say "requeued shard $requeued restarted and resumed: $rq_line"
fi
# Fingerprint the finished shards, then resubmit whatever did not finish.
(cd "$out/shards" && find . -path "./shard-$victim-of-*" -prune -o -type f -print0 | sort -z |
    xargs -0 stat -c '%n %i %Y %s' | sort >"$work/others.before")
"$out/slurm/submit.sh" >"$work/resubmit.log" 2>&1 || fail "submit.sh failed: $(cat "$work/resubmit.log")"
sed 's/^/slurm-test:   /' "$work/resubmit.log"
grep -q "^shards $victim: job array" "$work/resubmit.log" ||
    fail "submit.sh did not resubmit exactly shard $victim"
[ "$(grep -c 'finished, not resubmitted' "$work/resubmit.log")" = $((shards - 1)) ] ||
    fail "submit.sh resubmitted finished shards"
wait_queue 900
merge=$(last_merge "$out")
[ "$(job_state "$merge")" = COMPLETED ] || fail "merge job $merge after resubmission: $(job_state "$merge")"
(cd "$out/shards" && find . -path "./shard-$victim-of-*" -prune -o -type f -print0 | sort -z |
    xargs -0 stat -c '%n %i %Y %s' | sort >"$work/others.after")
cmp -s "$work/others.before" "$work/others.after" || fail "the other shards' parts changed on resubmission"
log="$out/slurm/logs/shard-$victim.log"
resumed=$(grep -Eo '[0-9]+ cells run, [0-9]+ resumed' "$log" | tail -1)
[ -n "$resumed" ] || fail "the resubmitted shard $victim did not finish: $(tail -3 "$log")"
n_resumed=${resumed##*, }
n_resumed=${n_resumed% resumed}
[ "$n_resumed" -ge "$before" ] || fail "shard $victim resumed $n_resumed cells, expected at least $before"
say "resubmitted shard $victim only: $resumed; the other $((shards - 1)) shards' files are unchanged ($(wc -l <"$work/others.after") files)"
same_results "$work/single" "$out"
t_kill=$(($(date +%s) - t0))
say "kill/requeue/resubmit: $t_kill s"

say "passed in $(($(date +%s) - t_start)) s (array + merge $t_array s, kill/resubmit $t_kill s)"
