"""A one-node Slurm cluster for tests: Debian's packages (``apt-get install slurm-wlm munge``), this machine as
controller and compute node, everything (configuration, state, spool, logs, munge key) in a test's directory.

    with running_slurm(tmp_path) as env:       # env: os.environ plus SLURM_CONF, for sbatch/squeue/scontrol
        subprocess.run(["sbatch", ...], env=env)
        states = wait_for_jobs(env, ["1", "2"])   # {"1_1": "COMPLETED", ...}

The settings need no cgroups and no accounting database, so they work in a container or a sandbox:
processes tracked through /proc (proctrack/linuxproc), no task binding (task/none), no accounting
(jobacct_gather/none, accounting_storage/none). The daemons run in the foreground as children of the test
(munged -F, slurmctld -D, slurmd -D) on free ports, and are stopped when the block ends. Slurm needs root
(slurmd starts the jobs as their user): without root or the packages, ``slurm_marks`` skips with the reason.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

__all__ = ["job_states", "missing", "running_slurm", "slurm_marks", "wait_for_jobs"]

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo")

#: States a job does not leave (``scontrol show job``'s JobState).
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}


def missing() -> str | None:
    """Why a Slurm cluster cannot run here, or None when it can."""
    absent = [name for name in DAEMONS if shutil.which(name) is None]
    if absent:
        return f"Slurm is not installed ({', '.join(absent)} missing: apt-get install slurm-wlm munge)"
    if os.geteuid() != 0:
        return "a Slurm node needs root (slurmd starts the jobs as their user)"
    return None


#: ``pytestmark`` of a Slurm module: marked, and skipped with the reason when no cluster can run here.
slurm_marks = [pytest.mark.jobs, pytest.mark.skipif(missing() is not None, reason=missing() or "")]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _config(work: Path, munge_socket: Path, host: str) -> str:
    ports = _free_port(), _free_port()
    return f"""\
ClusterName=formatkit-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={munge_socket}
CredType=cred/munge
StateSaveLocation={work / "state"}
SlurmdSpoolDir={work / "spool"}
SlurmctldPidFile={work / "slurmctld.pid"}
SlurmdPidFile={work / "slurmd.pid"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=3600
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count() or 1} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


def _run(env: dict[str, str], *args: str) -> str:
    return subprocess.run(args, env=env, capture_output=True, text=True, check=False).stdout


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-2000:] if path.exists() else f"({path.name}: none)"


@contextlib.contextmanager
def running_slurm(work: Path, *, steps: int = 120) -> Iterator[dict[str, str]]:
    """munged, slurmctld and slurmd serving one node, configured in ``work``: yields the environment for
    Slurm's commands (SLURM_CONF set). Fails the test with the daemons' logs when the node does not come up
    within ``steps`` polls."""
    work.mkdir(parents=True, exist_ok=True)
    for name in ("state", "spool", "munge"):
        (work / name).mkdir(exist_ok=True)
    (work / "munge").chmod(0o700)
    key = work / "munge" / "munge.key"
    key.write_bytes(secrets.token_bytes(1024))
    key.chmod(0o600)
    # munged wants its socket's directory, and every one above it, open to all (a test's tmp_path is not)
    socket_dir = Path(tempfile.mkdtemp(prefix="formatkit-munge-"))
    socket_dir.chmod(0o755)
    munge_socket = socket_dir / "munge.sock"
    host = socket.gethostname().split(".")[0]
    conf = work / "slurm.conf"
    conf.write_text(_config(work, munge_socket, host))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    daemons: list[subprocess.Popen[bytes]] = []
    munge = work / "munge"

    def start(*args: str, log: str) -> None:
        with (work / log).open("ab") as out:
            daemons.append(subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT))

    try:
        start(
            "munged", "-F", f"--key-file={key}", f"--socket={munge_socket}", f"--pid-file={munge / 'munged.pid'}",
            f"--log-file={munge / 'munged.log'}", f"--seed-file={munge / 'munged.seed'}", log="munged.out",
        )  # fmt: skip
        for _ in range(steps):
            if munge_socket.exists():
                break
            time.sleep(0.25)
        start("slurmctld", "-D", "-i", "-L", str(work / "slurmctld.log"), log="slurmctld.out")
        start("slurmd", "-D", "-L", str(work / "slurmd.log"), log="slurmd.out")
        for _ in range(steps):
            if _run(env, "sinfo", "-h", "-o", "%T").strip() == "idle":
                break
            if any(d.poll() is not None for d in daemons):
                break
            time.sleep(0.5)
        else:
            pytest.fail("the Slurm node did not come up:\n" + _logs(work))
        if any(d.poll() is not None for d in daemons):
            pytest.fail("a Slurm daemon exited:\n" + _logs(work))
        yield env
    finally:
        for daemon in reversed(daemons):
            daemon.terminate()
        for daemon in reversed(daemons):
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        shutil.rmtree(socket_dir, ignore_errors=True)


def _logs(work: Path) -> str:
    names = ("munged.out", "munge/munged.log", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log")
    return "\n".join(f"--- {name}\n{_tail(work / name)}" for name in names)


def job_states(env: dict[str, str], job_ids: Sequence[str]) -> dict[str, str]:
    """Each job's state, an array's tasks one by one ("7_1", "7_2", ...), from ``scontrol show job``."""
    states: dict[str, str] = {}
    for job_id in job_ids:
        for line in _run(env, "scontrol", "-o", "show", "job", job_id).splitlines():
            fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
            if "JobState" not in fields:
                continue
            task = fields.get("ArrayTaskId")
            name = f"{fields['ArrayJobId']}_{task}" if task and task != "N/A" else fields["JobId"]
            states[name] = fields["JobState"]
    return states


def wait_for_jobs(env: dict[str, str], job_ids: Sequence[str], *, steps: int = 1200) -> dict[str, str]:
    """Poll until every job (every task of an array) is in a final state, at most ``steps`` polls of half a
    second; return the states (the last seen ones when the polls ran out)."""
    states: dict[str, str] = {}
    for _ in range(steps):
        states = job_states(env, job_ids)
        if states and all(state in FINAL for state in states.values()):
            return states
        time.sleep(0.5)
    return states
