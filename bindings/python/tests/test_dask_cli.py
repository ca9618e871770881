"""python3 -m libdag.dask: each vertex's command run on a local Dask cluster, on the example graph."""

import fcntl
import json
import os
import pathlib
import re
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

import libdag
from support import alive

try:
    import distributed  # noqa: F401 - only whether it imports
    WHY = ""
except ImportError as missing:
    WHY = f"distributed cannot be imported ({missing}); install python3-distributed"

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "graphs" / "deploy.dot"
VICTIM = "[root] aws_subnet.public (expand)"
SKIPPED = {"[root] aws_db_instance.main (expand)", "[root] aws_instance.web (expand)",
           "[root] output.web_ip (expand)", "[root] provider[\"registry.terraform.io/hashicorp/aws\"] (close)",
           "[root] root"}


# Every wait on the program is bounded so that a broken one fails instead of hanging.
BOUND_S = 120

# A worker preload (distributed.worker.preload) that notes the worker's pid and holds its start until released.
HOLD_START = """
import os, time

def dask_setup(worker):
    open(os.path.join({folder!r}, f"{{os.getpid()}}.worker"), "w").close()
    deadline = time.monotonic() + {bound}
    while not os.path.exists({release!r}) and time.monotonic() < deadline:
        time.sleep(0.02)
"""


def session_members(session):
    """The live processes of session `session` (the program's, run with start_new_session)."""
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == session and alive(int(entry)):
                    members.append(int(entry))
            except ProcessLookupError:
                pass
    return members


def command_lines(pids):
    """{pid: its command line}, for a message."""
    lines = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                lines[pid] = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except FileNotFoundError:
            pass
    return lines


def end_session(process):
    """Kills what is left of `process`'s session (a test that failed) and reaps it."""
    if process.poll() is None or session_members(process.pid):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.communicate()


def run_cli(arguments):
    """python3 -m libdag.dask ARGUMENTS, in a session of its own that is killed if it outlives BOUND_S."""
    process = subprocess.Popen([sys.executable, "-m", "libdag.dask", *arguments], start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=BOUND_S)
    finally:
        end_session(process)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def kill_pid_in(path):
    if os.path.exists(path):
        with open(path) as pid:
            try:
                os.kill(int(pid.read()), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass


def _text_of(file):
    file.seek(0)
    return file.read()


def _unread(fd):
    """How many bytes wait in the pipe `fd` reads."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


class WithoutDaskTest(unittest.TestCase):
    def test_a_python_without_distributed_is_told_how_to_get_it(self):
        # Runs with or without Dask installed: the program is made to find no distributed.
        script = ("import runpy, sys\n"
                  "sys.modules['distributed'] = None\n"
                  "sys.argv = ['libdag.dask', '--scheduler', 'local:1', '--exec', 'true', sys.argv[1]]\n"
                  "runpy.run_module('libdag.dask', run_name='__main__', alter_sys=True)\n")
        done = subprocess.run([sys.executable, "-c", script, str(EXAMPLE)], capture_output=True, text=True,
                              timeout=BOUND_S)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stdout, "")
        self.assertIn(f"Dask's distributed is not installed for {sys.executable} (on Debian: apt install "
                      "python3-distributed, then run /usr/bin/python3 -m libdag.dask)", done.stderr)
        self.assertTrue(done.stderr.startswith("python3 -m libdag.dask: "), done.stderr)


@unittest.skipIf(WHY, WHY)
class DaskCommandTest(unittest.TestCase):
    def test_deploy_example(self):
        folder = tempfile.mkdtemp()
        report_path = os.path.join(folder, "report.json")
        trace_path = os.path.join(folder, "trace.json")
        # Each command leaves a file named for its vertex and writes a line to each stream; one vertex fails.
        command = (f'printf %s "$DAG_VERTEX" > "{folder}/$(printf %s "$DAG_VERTEX" | md5sum | cut -c1-32)"; '
                   f'echo "out of $DAG_VERTEX"; echo "err of $DAG_VERTEX" >&2; '
                   f'if [ "$DAG_VERTEX" = "{VICTIM}" ]; then echo "no subnet today" >&2; exit 3; fi')
        done = subprocess.run([sys.executable, "-m", "libdag.dask", "--scheduler", "local:2", "--exec", command,
                               "--progress=always", "--report", report_path, "--trace", trace_path, str(EXAMPLE)],
                              capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(done.returncode, 1, done.stderr)
        with open(report_path) as report_file:
            report = json.load(report_file)
        statuses = {v["name"]: v["status"] for v in report["vertices"]}
        self.assertEqual(len(statuses), 11)
        self.assertEqual({name for name, status in statuses.items() if status == "upstream_failed"}, SKIPPED)
        failed = [v for v in report["vertices"] if v["status"] == "failed"]
        self.assertEqual([v["name"] for v in failed], [VICTIM])
        self.assertEqual(failed[0]["message"], f"exit status 3: err of {VICTIM}\nno subnet today")
        self.assertEqual(failed[0]["attempts"], 1)
        self.assertNotIn("attempt_messages", failed[0])
        self.assertEqual({v["name"]: v["attempts"] for v in report["vertices"] if v["status"] == "upstream_failed"},
                         dict.fromkeys(SKIPPED, 0))
        self.assertEqual(report["ok"], 11 - 1 - len(SKIPPED))
        ran = set()
        for entry in os.listdir(folder):
            if entry not in ("report.json", "trace.json"):
                with open(os.path.join(folder, entry)) as marker:
                    ran.add(marker.read())
        self.assertEqual(ran, {name for name, status in statuses.items() if status in ("ok", "failed")})
        # Grouped output: each command's lines after its name, the failed one's too.
        self.assertEqual(sorted(done.stdout.splitlines()), sorted(f"{name}: out of {name}" for name in ran))
        for name in ran:
            self.assertIn(f"{name}: err of {name}\n", done.stderr)
        self.assertIn(f"{VICTIM}: no subnet today\n", done.stderr)
        # Progress, not on a terminal: a line per vertex as it finishes, counting up to 11.
        progress = [line for line in done.stderr.splitlines() if re.match(r"\[\d+/11\] ", line)]
        self.assertEqual([line.split("]")[0] for line in progress], [f"[{i}/11" for i in range(1, 12)])
        self.assertEqual({line.split("] ", 1)[1] for line in progress},
                         {name if status == "ok" else f"{name} ({status.replace('_', ' ')})"
                          for name, status in statuses.items()})
        # The summary of dag walk.
        self.assertIn("5 ok, 1 failed, 5 upstream failed, 0 not run\n", done.stderr)
        self.assertIn(f"failed: {VICTIM}: exit status 3: err of {VICTIM}\nno subnet today\n", done.stderr)
        self.assert_trace(trace_path, statuses)

    def assert_trace(self, path, statuses):
        with open(path) as trace_file:
            trace = json.load(trace_file)
        self.assertEqual(trace["displayTimeUnit"], "ms")
        spans = {e["name"]: e for e in trace["traceEvents"] if e["ph"] == "X"}
        self.assertEqual(set(spans), {name for name, status in statuses.items() if status in ("ok", "failed")})
        for name, span in spans.items():
            self.assertEqual(span["args"]["status"], statuses[name])
            self.assertGreaterEqual(span["ts"], 0)
            self.assertGreaterEqual(span["dur"], 0)
        tracks = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
        self.assertEqual(set(tracks), {span["tid"] for span in spans.values()})
        self.assertTrue(all(name.startswith("worker tcp://127.0.0.1:") for name in tracks.values()), tracks)
        # On one machine the workers' clocks are this one's: each span begins after its dependencies' end.
        with libdag.Graph.from_file(str(EXAMPLE)) as graph:
            for source, target in graph.edges():
                before, after = spans.get(graph.label(target)), spans.get(graph.label(source))
                if before is not None and after is not None:
                    self.assertGreaterEqual(after["ts"], before["ts"] + before["dur"] - 1, graph.label(source))

    def test_output_none_and_sigterm_stops_the_commands(self):
        # SIGQUIT (Ctrl-\\) ended the program and left the commands running.
        for number, status in ((signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGQUIT, 131)):
            with self.subTest(signal=number.name):
                self.check_a_signal_stops_the_commands(number, status)

    def start_on_the_example(self, folder, command, *arguments):
        """The program walking the example on local:2, once `command` has left FOLDER/pid."""
        walk = subprocess.Popen([sys.executable, "-m", "libdag.dask", "--scheduler", "local:2", "--exec", command,
                                 "--output", "none", "--progress=never", *arguments, str(EXAMPLE)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not os.path.exists(os.path.join(folder, "pid")) and walk.poll() is None:
            if time.monotonic() > deadline:
                walk.kill()
                walk.communicate()
                self.fail("the first command never started")
            time.sleep(0.05)
        return walk

    def test_a_second_sigint_kills_the_commands_without_waiting_out_the_grace(self):
        folder = tempfile.mkdtemp()
        # var.region's command ignores SIGTERM; the grace is longer than the test may take.
        command = (f'trap "" TERM; echo $$ > "{folder}/pid.tmp"; mv "{folder}/pid.tmp" "{folder}/pid"; '
                   f'while :; do sleep 0.05; done')
        walk = self.start_on_the_example(folder, command, "--grace", "600")
        try:
            with open(os.path.join(folder, "pid")) as pid:
                shell = int(pid.read())
            walk.send_signal(signal.SIGINT)
            time.sleep(2)  # the SIGTERM has reached the command, which ignores it
            self.assertIsNone(walk.poll())
            self.assertTrue(alive(shell))
            walk.send_signal(signal.SIGINT)
            out, err = walk.communicate(timeout=60)
        finally:
            if walk.poll() is None:
                walk.kill()
                walk.communicate()
        self.assertEqual(walk.returncode, 130, err)
        self.assertIn("interrupted by SIGINT\n", err)
        self.assertFalse(alive(shell))

    def check_a_signal_stops_the_commands(self, number, status):
        folder = tempfile.mkdtemp()
        release = os.path.join(folder, "release")
        self.addCleanup(lambda: open(release, "w").close())  # ends the command should stopping it fail
        report_path = os.path.join(folder, "report.json")
        # var.region, the only vertex without dependencies, runs until released, or stopped; the
        # command's shell leaves its pid, and what it started (sleep) inherits its session.
        command = (f'echo "said $DAG_VERTEX"; echo $$ > "{folder}/pid.tmp"; mv "{folder}/pid.tmp" "{folder}/pid"; '
                   f'while [ ! -e "{release}" ]; do sleep 0.05; done')
        walk = self.start_on_the_example(folder, command, "--grace", "2", "--report", report_path)
        try:
            walk.send_signal(number)
            out, err = walk.communicate(timeout=120)
        finally:
            if walk.poll() is None:
                walk.kill()
                walk.communicate()
        self.assertEqual(walk.returncode, status, err)
        self.assertEqual(out, "")
        self.assertNotIn("[1/11]", err)
        self.assertIn(f"interrupted by {number.name}\n", err)
        # The command was stopped before the walk ended: its shell is gone.
        with open(os.path.join(folder, "pid")) as pid:
            with self.assertRaises(ProcessLookupError):
                os.kill(int(pid.read()), 0)
        self.assertFalse(os.path.exists(release))
        with open(report_path) as report_file:
            report = json.load(report_file)
        self.assertEqual(report["ok"], 0)
        first, = [v for v in report["vertices"] if v["name"] == "[root] var.region"]
        # Stopped by the cancel, as dag walk reports it; so is what waits for it.
        self.assertEqual(first["status"], "cancelled")
        self.assertTrue(first["message"] == "stopped by dag: killed by signal 15"
                        or first["message"].endswith(" was cancelled on the cluster"), first["message"])
        if first["message"].startswith("stopped by dag"):
            self.assertRegex(err, r"(?m)^stopped: \[root\] var\.region$")
        self.assertEqual(report["upstream_failed"], 0)
        self.assertEqual(report["cancelled"] + report["not_run"], 11)

    def test_unnamed_vertices_from_standard_input_retries_bytes_and_the_report_on_standard_output(self):
        # As dag walk: FILE - is standard input, an unnamed vertex runs as its id, a retried
        # command's every run is printed and counted, bytes that are not UTF-8 come out as written,
        # and --report - follows the commands' output.
        folder = tempfile.mkdtemp()
        graph = b'{"vertices": [{"id": 1}, {"id": 2, "name": "b"}], "edges": [[1, 2]]}'
        command = (f'echo run >> "{folder}/$DAG_VERTEX"; printf "$DAG_VERTEX caf\\351\\n"; '
                   f'[ $(wc -l < "{folder}/$DAG_VERTEX") -ge 2 ] || {{ echo oops >&2; exit 3; }}')
        status, out, err = self.run_on_standard_input(graph, "--exec", command, "--retries", "1", "--progress=never",
                                                      "--report", "-")
        self.assertEqual(status, 0, err)
        lines, report = out.split(b"\n{", 1)
        self.assertEqual(lines.split(b"\n"), [b"b: b caf\xe9", b"b: b caf\xe9", b"1: 1 caf\xe9", b"1: 1 caf\xe9"])
        self.assertEqual(err.decode(), "b: oops\n1: oops\n2 ok, 0 failed, 0 upstream failed, 0 not run\n")
        vertices = {v["name"]: v for v in json.loads(b"{" + report)["vertices"]}
        for name in (1, "b"):
            self.assertEqual((vertices[name]["status"], vertices[name]["attempts"], vertices[name]["attempt_messages"]),
                             ("ok", 2, ["exit status 3: oops", ""]))

    @staticmethod
    def run_on_standard_input(graph, *arguments):
        """(exit status, output, error) of the program on a local:1 cluster, the graph given on standard input."""
        process = subprocess.Popen([sys.executable, "-m", "libdag.dask", "--scheduler", "local:1", *arguments, "-"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        try:
            out, err = process.communicate(graph, timeout=BOUND_S)
        finally:
            end_session(process)
        return process.returncode, out, err

    def test_a_name_that_is_an_unnamed_vertexs_label_keeps_both_spans(self):
        # Vertex 1 is named "2", as vertex 2, unnamed, is labelled: keyed by label, one span was lost.
        folder = tempfile.mkdtemp()
        trace_path = os.path.join(folder, "trace.json")
        graph = b'{"vertices": [{"id": 1, "name": "2"}, {"id": 2}], "edges": [[1, 2]]}'
        report_path = os.path.join(folder, "report.json")
        status, _, err = self.run_on_standard_input(graph, "--exec", "true", "--progress=never", "--trace", trace_path,
                                                    "--report", report_path)
        self.assertEqual(status, 0, err)
        with open(trace_path) as trace_file:
            events = json.load(trace_file)["traceEvents"]
        self.assertEqual(len([e for e in events if e.get("ph") == "X"]), 2, events)
        # As dag walk's report: the unnamed vertex by its id, a number; the name a string.
        with open(report_path) as report_file:
            self.assertCountEqual([v["name"] for v in json.load(report_file)["vertices"]], [2, "2"])

    def test_a_reader_of_standard_output_gone_stops_the_walk_as_sigpipe(self):
        folder = tempfile.mkdtemp()
        graph, report_path = os.path.join(folder, "chain.dot"), os.path.join(folder, "report.json")
        with open(graph, "w") as out:
            out.write("digraph { a -> b -> c -> d }\n")
        walk = subprocess.Popen([sys.executable, "-m", "libdag.dask", "--scheduler", "local:1", "--exec",
                                 'echo "hi $DAG_VERTEX"; sleep 0.5', "--progress=never", "--report", report_path,
                                 graph], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            self.assertEqual(walk.stdout.readline(), b"d: hi d\n")
            walk.stdout.close()  # before c's line comes: its write fails
            err = walk.stderr.read().decode()
            walk.wait(timeout=BOUND_S)
        finally:
            end_session(walk)
        self.assertEqual(walk.returncode, 141, err)
        self.assertTrue(err.endswith("interrupted by SIGPIPE\n"), err)
        with open(report_path) as report_file:
            statuses = {v["name"]: v["status"] for v in json.load(report_file)["vertices"]}
        # c's command succeeded: only its output was lost.
        self.assertEqual((statuses["d"], statuses["c"]), ("ok", "ok"))
        self.assertIn(statuses["b"], ("cancelled", "not_run"))
        self.assertIn(statuses["a"], ("cancelled", "not_run"))

    def test_a_failed_commands_output_is_printed_as_its_vertex_finishes(self):
        # As dag walk prints it: the lines of the failed command come right before its progress
        # line, not after the walk (where a later vertex's progress line would come first).
        graph = os.path.join(tempfile.mkdtemp(), "graph.dot")
        with open(graph, "w") as out:
            out.write("digraph { a; b; c -> b }\n")
        command = 'if [ "$DAG_VERTEX" = a ]; then echo partial; echo broke >&2; exit 3; fi; echo "$DAG_VERTEX done"'
        done = run_cli(["--scheduler", "local:2", "--exec", command, "--progress=always", graph])
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(sorted(done.stdout.splitlines()), ["a: partial", "b: b done", "c: c done"])
        lines = done.stderr.splitlines()
        failed_line = next(i for i, line in enumerate(lines) if re.fullmatch(r"\[\d/3\] a \(failed\)", line))
        self.assertEqual(lines[failed_line - 1], "a: broke", done.stderr)
        # Besides the progress lines, a's output and the summary: no Dask warning about the failed task.
        self.assertEqual([line for line in lines if not re.fullmatch(r"\[\d/3\] .*", line)],
                         ["a: broke", "2 ok, 1 failed, 0 upstream failed, 0 not run",
                          "failed: a: exit status 3: broke"])

    def test_asyncios_reports_of_a_cluster_going_down_stay_off_standard_error(self):
        # Taking a cluster down now and then leaves asyncio a connection's timeout that nobody
        # awaits ("Future exception was never retrieved"), which came out between a walk's lines
        # and its summary: the program raises asyncio's threshold in itself and its workers.
        script = ("import logging\n"
                  "from libdag import dask_cli\n"
                  "client, cluster = dask_cli._cluster('local:1')\n"
                  "try:\n"
                  "    levels = client.run(lambda: __import__('logging').getLogger('asyncio').level)\n"
                  "    print(logging.getLogger('asyncio').level, *levels.values())\n"
                  "finally:\n"
                  "    dask_cli._close(client, cluster)\n")
        env = {key: value for key, value in os.environ.items() if key != "DASK_LOGGING__ASYNCIO"}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              timeout=BOUND_S)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["50", "50"], done.stderr)

    def test_a_background_process_holding_the_pipes_does_not_stall_the_walk(self):
        folder = tempfile.mkdtemp()
        graph, pid_file = os.path.join(folder, "graph.dot"), os.path.join(folder, "pid")
        with open(graph, "w") as out:
            out.write("digraph { a }\n")
        self.addCleanup(kill_pid_in, pid_file)
        command = f'sleep {3 * BOUND_S} & echo $! > "{pid_file}"; echo started'
        done = run_cli(["--scheduler", "local:1", "--exec", command, "--progress=never", graph])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout, "a: started\n")
        self.assertEqual(done.stderr, "1 ok, 0 failed, 0 upstream failed, 0 not run\n")
        # The walk ended on the command's exit, not on the pipes' end (the sleep outlives the
        # bound), and, as dag walk does, what the command left in its group was stopped first.
        with open(pid_file) as pid:
            self.assertFalse(alive(int(pid.read())))

    def test_critical_path_by_default_as_dag_walk(self):
        folder = tempfile.mkdtemp()
        graph = os.path.join(folder, "graph.dot")
        with open(graph, "w") as out:
            out.write("digraph { z3 -> z2 -> z1; a }\n")
        for extra, expected in (([], "z1 z2 a z3"), (["--priority", "name"], "a z1 z2 z3")):
            with self.subTest(priority=extra):
                done = run_cli(["--scheduler", "local:1", "--exec", 'echo "$DAG_VERTEX"', "--parallelism", "1",
                                "--progress=never", *extra, graph])
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(" ".join(line.split(": ")[1] for line in done.stdout.splitlines()), expected)

    def test_a_signal_while_the_local_cluster_starts(self):
        # A worker preload holds each worker's start until told, so that the signal comes while
        # the LocalCluster is starting; SIGINT goes to the whole process group, as a terminal's
        # Ctrl-C does, SIGTERM to the program alone.
        for number, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            with self.subTest(signal=number.name):
                folder = tempfile.mkdtemp()
                release = os.path.join(folder, "release")
                self.addCleanup(lambda release=release: open(release, "w").close())
                preload = os.path.join(folder, "hold_start.py")
                with open(preload, "w") as out:
                    out.write(HOLD_START.format(folder=folder, release=release, bound=BOUND_S))
                env = dict(os.environ, DASK_DISTRIBUTED__WORKER__PRELOAD=repr([preload]),
                           DASK_LOGGING__DISTRIBUTED="warning")  # not the preload's own notes
                walk = subprocess.Popen([sys.executable, "-m", "libdag.dask", "--scheduler", "local:2", "--exec",
                                         f'echo > "{folder}/ran"', str(EXAMPLE)], env=env, start_new_session=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                try:
                    deadline = time.monotonic() + BOUND_S
                    while len([f for f in os.listdir(folder) if f.endswith(".worker")]) < 2:
                        self.assertIsNone(walk.poll(), "the program ended before its workers started")
                        self.assertLess(time.monotonic(), deadline, "the workers never started")
                        time.sleep(0.02)
                    workers = [int(f.split(".")[0]) for f in os.listdir(folder) if f.endswith(".worker")]
                    if number == signal.SIGINT:
                        os.killpg(walk.pid, number)
                    else:
                        walk.send_signal(number)
                    open(release, "w").close()
                    out, err = walk.communicate(timeout=BOUND_S)
                finally:
                    end_session(walk)
                self.assertEqual(walk.returncode, status, err)
                self.assertEqual(out, "")
                self.assertEqual(err, f"python3 -m libdag.dask: interrupted by {number.name} before the walk began\n")
                self.assertFalse(os.path.exists(os.path.join(folder, "ran")))
                # Closed before the program ended; multiprocessing's resource tracker ends on its own
                # once the program has (at the end of file on its pipe).
                self.assertEqual([pid for pid in workers if alive(pid)], [])
                deadline = time.monotonic() + BOUND_S
                while session_members(walk.pid):
                    left = command_lines(session_members(walk.pid))
                    self.assertLess(time.monotonic(), deadline, f"left behind: {left}")
                    time.sleep(0.02)

    def run_bad(self, *arguments):
        done = subprocess.run([sys.executable, "-m", "libdag.dask", *arguments], capture_output=True, text=True,
                              timeout=60, check=False)
        self.assertEqual(done.returncode, 2, done.stderr)
        return done.stderr

    def test_a_cyclic_graph_is_refused_as_dag_walk_refuses_it(self):
        # It exited 2 and wrote no file; dag walk exits 1 and writes both, nothing run.
        where = tempfile.mkdtemp()
        cyclic = os.path.join(where, "cyclic.dot")
        with open(cyclic, "w") as out:
            out.write("digraph { a -> b; b -> a; c }\n")
        report, trace = os.path.join(where, "report.json"), os.path.join(where, "trace.json")
        ran = os.path.join(where, "ran")
        done = subprocess.run([sys.executable, "-m", "libdag.dask", "--scheduler", "local:1", "--exec",
                               f'echo > "{ran}"', "--report", report, "--trace", trace, cyclic],
                              capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(done.stderr, "python3 -m libdag.dask: Cycle:\n  a\n  b\n")
        self.assertFalse(os.path.exists(ran))
        with open(report) as written:
            document = json.load(written)
        self.assertEqual([(v["name"], v["status"], v["attempts"]) for v in document["vertices"]],
                         [("a", "not_run", 0), ("b", "not_run", 0), ("c", "not_run", 0)])
        self.assertEqual(document["not_run"], 3)
        with open(trace) as written:
            self.assertEqual([e for e in json.load(written)["traceEvents"] if e["ph"] == "X"], [])

    def test_a_word_after_a_bare_progress_is_the_graph_as_for_dag_walk(self):
        # It was taken as --progress's value and refused ("invalid choice"), where dag walk reads the
        # graph. A cyclic graph: refused as it is read, without a cluster, once it is the graph.
        where = tempfile.mkdtemp()
        cyclic = os.path.join(where, "cyclic.dot")
        with open(cyclic, "w") as out:
            out.write("digraph { a -> b; b -> a }\n")
        for arguments in (["--progress", cyclic], ["--prog", cyclic], ["--progress", "-"],
                          ["--progress", "always", cyclic], ["--progress=never", cyclic]):
            with self.subTest(arguments=arguments), open(cyclic) as graph:
                done = subprocess.run([sys.executable, "-m", "libdag.dask", "--scheduler", "local:1", "--exec", "true",
                                       *arguments], stdin=graph, capture_output=True, text=True, timeout=60,
                                      check=False)
                self.assertEqual(done.returncode, 1, done.stderr)
                self.assertEqual(done.stderr, "python3 -m libdag.dask: Cycle:\n  a\n  b\n")
        self.assertIn("unrecognized arguments: " + cyclic,
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--progress", "sometimes", cyclic))

    def test_a_result_file_naming_a_descriptor_is_written_through_it(self):
        # As dag walk: /dev/stdout was renamed over the file standard output was redirected to (what
        # `>>` had kept there lost), and a pipe's /proc link ("pipe:[123]") failed after the walk.
        # A cyclic graph: its result files are written without a cluster.
        where = tempfile.mkdtemp()
        cyclic = os.path.join(where, "cyclic.dot")
        with open(cyclic, "w") as out:
            out.write("digraph { a -> b; b -> a }\n")
        # Run from `where`: the package's path made absolute, as the test's own may be relative.
        path = os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
        program = f'PYTHONPATH="{path}" "{sys.executable}" -m libdag.dask --scheduler local:1 --exec true'

        def sh(script):
            return subprocess.run(["sh", "-c", f'cd "{where}" && {script}'], capture_output=True, text=True,
                                  timeout=60, check=False)

        done = sh(f"printf 'log\\n' > out; {program} --report /dev/stdout {cyclic} >> out")
        self.assertEqual(done.returncode, 1, done.stderr)
        with open(os.path.join(where, "out")) as written:
            text = written.read()
        self.assertTrue(text.startswith("log\n{"), text)
        self.assertEqual(json.loads(text[4:])["not_run"], 2)
        done = sh(f"{program} --report /dev/stdout {cyclic} | cat")
        self.assertEqual(json.loads(done.stdout)["not_run"], 2, done.stderr)
        done = sh(f"{program} --report /dev/fd/5 {cyclic} 5<{cyclic}")
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr, 'python3 -m libdag.dask: cannot write "/dev/fd/5": Bad file descriptor\n')
        done = sh(f"{program} --report - --trace /dev/stdout {cyclic}")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--report and --trace name the same file (/dev/stdout)", done.stderr)
        done = sh(f"{program} --report /dev/stdout --trace same.json {cyclic} > same.json")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--report and --trace name the same file (same.json)", done.stderr)

    def test_a_signal_ends_a_wait_for_a_fifos_reader(self):
        # As dag walk: the open of a FIFO nobody reads, and the write to one whose reader reads
        # nothing, were restarted after each signal this program catches: only SIGKILL ended it.
        # A cyclic graph: its result files are written without a cluster.
        where = tempfile.mkdtemp()
        cyclic = os.path.join(where, "cyclic.dot")
        with open(cyclic, "w") as out:
            out.write("digraph { a -> b; b -> a; " + " ".join(f"v{n};" for n in range(3000)) + " }\n")
        fifo = os.path.join(where, "report.fifo")
        os.mkfifo(fifo)
        for reader_there, waited_for in ((False, "a reader"), (True, "its reader to read")):
            reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK) if reader_there else None
            with open(os.path.join(where, "err"), "w+") as err:
                process = subprocess.Popen([sys.executable, "-m", "libdag.dask", "--scheduler", "local:1", "--exec",
                                            "true", "--report", fifo, cyclic], start_new_session=True,
                                           stdout=subprocess.DEVNULL, stderr=err)
                try:
                    deadline = time.monotonic() + BOUND_S
                    while not (_text_of(err).startswith("python3 -m libdag.dask: Cycle:")
                               and (reader is None or _unread(reader) >= 65536)):
                        self.assertLess(time.monotonic(), deadline, _text_of(err))
                        time.sleep(0.02)
                    process.send_signal(signal.SIGINT)
                    self.assertEqual(process.wait(timeout=10), 130, _text_of(err))
                finally:
                    end_session(process)
                    if reader is not None:
                        os.close(reader)
                self.assertIn(f'cannot write "{fifo}": interrupted while it waited for {waited_for}\n',
                              _text_of(err))

    def test_bad_input(self):
        self.assertIn("local:N needs N", self.run_bad("--scheduler", "local:none", "--exec", "true", str(EXAMPLE)))
        # Refused at once (it failed with MemoryError inside LocalCluster, then hung).
        for count in ("0", "1025", "99999999999999", "\u00b2"):
            self.assertIn(f"--scheduler local:{count}: local:N needs N, a number of workers from 1 to 1024",
                          self.run_bad("--scheduler", f"local:{count}", "--exec", "true", str(EXAMPLE)))
        self.assertIn("'0' is not a whole number from 1 to 1024",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--parallelism", "0", str(EXAMPLE)))
        self.assertIn("--exec", self.run_bad("--scheduler", "local:1", str(EXAMPLE)))
        self.assertIn("invalid choice: 'stream'",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--output", "stream", str(EXAMPLE)))
        self.assertIn("'-1' is not a number of seconds",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--grace=-1", str(EXAMPLE)))
        self.assertIn("invalid choice: 'fastest'",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--priority", "fastest", str(EXAMPLE)))
        self.assertIn("invalid choice: 'sometimes'",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--progress=sometimes", str(EXAMPLE)))
        missing = os.path.join(tempfile.mkdtemp(), "missing.dot")
        self.assertIn("missing.dot", self.run_bad("--scheduler", "local:1", "--exec", "true", missing))
        # As dag walk's: refused before anything runs.
        self.assertIn("the command is empty", self.run_bad("--scheduler", "local:1", "--exec", " ", str(EXAMPLE)))
        self.assertIn("'1025' is not a whole number from 1 to 1024",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--parallelism", "1025", str(EXAMPLE)))
        self.assertIn("'1001' is not a whole number from 0 to 1000",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--retries", "1001", str(EXAMPLE)))
        self.assertIn("--report - and --trace - would both write to standard output",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--report", "-", "--trace", "-",
                                    str(EXAMPLE)))
        ran = os.path.join(tempfile.mkdtemp(), "ran")
        self.assertEqual(self.run_bad("--scheduler", "local:1", "--exec", f'echo > "{ran}"', "--report",
                                      "/nonexistent/report.json", str(EXAMPLE)),
                         'python3 -m libdag.dask: cannot write "/nonexistent/report.json": No such file or directory\n')
        self.assertFalse(os.path.exists(ran))


if __name__ == "__main__":
    unittest.main()
