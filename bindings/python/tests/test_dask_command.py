"""libdag.dask_command, what python3 -m libdag.dask runs on a worker, run here in a thread (no cluster needed).

Its stop event is a threading.Event: run_command uses only is_set() and
wait(timeout), which distributed.Event has too.
"""

import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock

from libdag import dask_command
from support import alive

# Every wait is bounded so that a broken runner fails instead of hanging.
BOUND_S = 60


class CountedStop(threading.Event):
    """A stop event that notes the timeout of each wait()."""

    def __init__(self):
        super().__init__()
        self.timeouts = []

    def wait(self, timeout=None):
        self.timeouts.append(timeout)
        return super().wait(timeout)


class CommandRunnerTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.pid_file = os.path.join(self.folder, "pid")
        self.addCleanup(self.kill_background)

    def kill_background(self):
        if os.path.exists(self.pid_file):
            try:
                os.kill(self.background(), signal.SIGKILL)
            except ProcessLookupError:
                pass

    def background(self):
        with open(self.pid_file) as pid:
            return int(pid.read())

    def start(self, command, stop, keep=True, retries=0, grace=1.0, kill=None):
        """Runs `command` on a thread; returns (thread, outcome), outcome filled with "value" or "error" at its end."""
        outcome = {}
        kill = kill or threading.Event()

        def run():
            try:
                outcome["value"] = dask_command.run_command(("a", command, keep, False, stop, grace, retries, kill, 7))
            except dask_command.CommandFailed as failed:
                outcome["error"] = failed

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread, outcome

    def run_and_stop(self, command):
        """Runs `command`, stops it once it has written its pid file, and returns its outcome."""
        stop = threading.Event()
        thread, outcome = self.start(command, stop)
        self.wait_for_pid_file(thread)
        stop.set()
        thread.join(BOUND_S)
        self.assertFalse(thread.is_alive(), "the stopped command never ended")
        return outcome

    def wait_for_pid_file(self, thread):
        deadline = time.monotonic() + BOUND_S
        while not os.path.exists(self.pid_file):
            self.assertTrue(thread.is_alive(), "the command ended before it wrote its background process's pid")
            self.assertLess(time.monotonic(), deadline, "the command never wrote its background process's pid")
            time.sleep(0.01)
        while not os.path.getsize(self.pid_file):  # written by the shell's echo: an instant empty
            time.sleep(0.01)

    def test_a_command_dies_with_the_worker_running_it(self):
        # A worker killed mid-task runs no code of its own; Dask runs the task again elsewhere, so
        # the command must not go on beside that run. The "worker" here is a Python process. Without
        # pkill on PATH the guard kills the command's process group (dash's kill took no "--").
        bare = os.path.join(self.folder, "bin")
        os.mkdir(bare)
        for tool in ("sleep", "mv"):
            os.symlink(shutil.which(tool), os.path.join(bare, tool))
        for path in (os.environ["PATH"], bare):
            with self.subTest(pkill=path != bare):
                pids_file = os.path.join(self.folder, "pids")
                command = (f'sleep {3 * BOUND_S} & echo $$ $! > "{pids_file}.tmp"; '
                           f'mv "{pids_file}.tmp" "{pids_file}"; wait')
                worker = subprocess.Popen([sys.executable, "-c",
                                           "import sys, threading\n"
                                           "from libdag import dask_command\n"
                                           "dask_command.run_command(('a', sys.argv[1], True, False, threading.Event(),"
                                           " 1.0, 0, threading.Event(), 7))\n", command], env=dict(os.environ, PATH=path))
                self.addCleanup(worker.wait)
                deadline = time.monotonic() + BOUND_S
                while not os.path.exists(pids_file) or not os.path.getsize(pids_file):
                    self.assertIsNone(worker.poll(), "the worker ended before its command wrote its pids")
                    self.assertLess(time.monotonic(), deadline, "the command never wrote its pids")
                    time.sleep(0.01)
                with open(pids_file) as pids:
                    shell, background = (int(pid) for pid in pids.read().split())
                os.remove(pids_file)
                self.addCleanup(lambda: [os.kill(pid, signal.SIGKILL) for pid in (shell, background) if alive(pid)])
                worker.kill()
                worker.wait()
                deadline = time.monotonic() + BOUND_S
                while (alive(shell) or alive(background)) and time.monotonic() < deadline:
                    time.sleep(0.01)
                self.assertFalse(alive(shell), "the command outlived its worker")
                self.assertFalse(alive(background), "what the command started outlived its worker")

    def test_a_command_whose_guard_cannot_start_does_not_run(self):
        # At the process limit the guard's fork fails: the command, unwatched, is killed and reaped.
        ran = os.path.join(self.folder, "ran")
        stop = threading.Event()
        with unittest.mock.patch.object(dask_command._WorkerDeathGuard, "__init__",
                                        side_effect=BlockingIOError(11, "Resource temporarily unavailable")):
            with self.assertRaises(BlockingIOError):
                dask_command.run_command(("a", f'sleep 1; echo ran > "{ran}"', True, False, stop, 1.0, 0,
                                          threading.Event(), 7))
        time.sleep(1.5)
        self.assertFalse(os.path.exists(ran), "the unwatched command ran on")

    def test_the_commands_exit_ends_it_though_a_background_process_holds_its_pipes(self):
        # The background sleep inherits standard output and error and outlives the bound; the
        # command's exit, not the pipes' end of file, must end the run, with what it wrote by then.
        command = (f'sleep {3 * BOUND_S} & echo $! > "{self.pid_file}.tmp"; '
                   f'mv "{self.pid_file}.tmp" "{self.pid_file}"; echo hi; echo there >&2')
        for keep in (True, False):
            with self.subTest(keep=keep):
                thread, outcome = self.start(command, threading.Event(), keep)
                thread.join(BOUND_S)
                self.assertFalse(thread.is_alive(), "run_command waited for the background process")
                self.assertEqual(outcome, {"value": {"out": "hi\n", "err": "there\n", "id": 7} if keep else {"id": 7}})
                # Stopped before the run ended, as dag walk stops it (reaped by init, maybe late).
                self.assertFalse(alive(self.background()))
                os.remove(self.pid_file)

    def test_what_the_command_left_running_is_killed_after_the_grace(self):
        # It ignores SIGTERM: SIGKILL after the grace (1 s here), before the run returns. The
        # command exits only once its background process ignores SIGTERM (it writes its pid after
        # the trap): exiting before would let the stop's SIGTERM end it at once.
        command = (f'(trap "" TERM; exec sh -c \'echo $$ > "{self.pid_file}"; exec sleep {3 * BOUND_S}\') '
                   f'</dev/null >/dev/null 2>&1 & '
                   f'while [ ! -s "{self.pid_file}" ]; do sleep 0.01; done; exit 0')
        started = time.monotonic()
        thread, outcome = self.start(command, threading.Event())
        thread.join(BOUND_S)
        self.assertFalse(thread.is_alive(), "run_command never returned")
        self.assertEqual(outcome, {"value": {"id": 7}})
        self.assertGreaterEqual(time.monotonic() - started, 1.0, "killed before the grace had passed")
        self.assertFalse(alive(self.background()))

    def test_the_kill_event_cuts_the_grace_short(self):
        # As a second Ctrl-C does for dag walk: SIGKILL at once, not after the grace (a minute here),
        # whether the command itself ignores SIGTERM or only what it left behind does.
        ignoring = f'trap "" TERM; echo $$ > "{self.pid_file}.tmp"; mv "{self.pid_file}.tmp" "{self.pid_file}"; ' \
                   f'while :; do sleep 0.05; done'
        left = (f'(trap "" TERM; exec sh -c \'echo $$ > "{self.pid_file}"; exec sleep {3 * BOUND_S}\') '
                f'</dev/null >/dev/null 2>&1 & '
                f'while [ ! -s "{self.pid_file}" ]; do sleep 0.01; done; exit 0')
        for command, stopped in ((ignoring, True), (left, False)):
            with self.subTest(stopped=stopped):
                stop, kill = threading.Event(), threading.Event()
                thread, outcome = self.start(command, stop, grace=BOUND_S, kill=kill)
                self.wait_for_pid_file(thread)
                background = self.background()
                if stopped:
                    stop.set()
                time.sleep(0.3)
                self.assertTrue(thread.is_alive(), "the SIGTERM it ignores ended it")
                kill.set()
                thread.join(BOUND_S / 2)
                self.assertFalse(thread.is_alive(), "the kill did not cut the grace short")
                self.assertFalse(alive(background))
                if stopped:
                    self.assertEqual(str(outcome["error"]), "stopped by dag: killed by signal 9")
                os.remove(self.pid_file)

    def test_a_failed_commands_output_up_to_its_exit_comes_back(self):
        command = f'sleep {3 * BOUND_S} & echo $! > "{self.pid_file}"; echo partial; echo broke >&2; exit 4'
        thread, outcome = self.start(command, threading.Event())
        thread.join(BOUND_S)
        self.assertFalse(thread.is_alive(), "run_command waited for the background process")
        failed = outcome["error"]
        self.assertEqual(str(failed), "exit status 4: broke")
        self.assertEqual(failed.outcome, {"out": "partial\n", "err": "broke\n", "id": 7})

    def test_a_stopped_command_that_exits_0_was_stopped_all_the_same(self):
        # It traps the SIGTERM and exits 0: cancelled, as dag walk counts it, not ok.
        outcome = self.run_and_stop(f'trap "exit 0" TERM; echo $$ > "{self.pid_file}.tmp"; '
                                    f'mv "{self.pid_file}.tmp" "{self.pid_file}"; while :; do sleep 0.05; done')
        failed = outcome["error"]
        self.assertTrue(str(failed).startswith("stopped by dag: exit status 0"), str(failed))  # then stderr's tail
        self.assertTrue(failed.cancelled)
        os.remove(self.pid_file)

    def test_stopping_kills_what_the_command_left_in_its_group(self):
        # The background process ignores SIGTERM and the command dies of it: as dag walk does,
        # the group gets SIGKILL once the command has exited, and nothing it started is left.
        outcome = self.run_and_stop(f'(trap "" TERM; exec sleep {3 * BOUND_S}) & echo $! > "{self.pid_file}.tmp"; '
                                    f'mv "{self.pid_file}.tmp" "{self.pid_file}"; wait')
        self.assertEqual(str(outcome["error"]), "stopped by dag: killed by signal 15")
        deadline = time.monotonic() + BOUND_S
        while alive(self.background()):
            self.assertLess(time.monotonic(), deadline, "the background process outlived the stop")
            time.sleep(0.01)

    def test_what_the_command_moved_to_another_process_group_is_stopped_too(self):
        # timeout(1) and job control move a child to a process group of its own; it stays in the
        # command's session, which dag walk stops whole: at the command's exit and on a stop.
        moved = (f'{sys.executable} -c "import os, time; os.setpgid(0, 0); '
                 f'open(\'{self.pid_file}.tmp\', \'w\').write(str(os.getpid())); '
                 f'os.rename(\'{self.pid_file}.tmp\', \'{self.pid_file}\'); time.sleep({3 * BOUND_S})" '
                 f'</dev/null >/dev/null 2>&1 &')
        for wait, stop in ((f' while [ ! -e "{self.pid_file}" ]; do sleep 0.01; done', None),
                           (' wait', threading.Event())):
            with self.subTest(stopped=stop is not None):
                thread, outcome = self.start(moved + wait, stop or threading.Event())
                self.wait_for_pid_file(thread)
                background = self.background()
                self.assertNotEqual(os.getpgid(background), os.getsid(background))
                if stop:
                    stop.set()
                thread.join(BOUND_S)
                self.assertFalse(thread.is_alive(), "run_command never returned")
                self.assertFalse(alive(background), outcome)
                os.remove(self.pid_file)

    def test_output_that_is_not_utf8_comes_back_byte_for_byte(self):
        thread, outcome = self.start('printf "caf\\351 \\377\\n"; printf "\\200" >&2', threading.Event())
        thread.join(BOUND_S)
        value = outcome["value"]
        self.assertEqual(value["out"].encode("utf-8", "surrogateescape"), b"caf\xe9 \xff\n")
        self.assertEqual(value["err"].encode("utf-8", "surrogateescape"), b"\x80")

    def test_a_command_the_stop_kept_from_starting_says_it_never_started(self):
        stop = threading.Event()
        stop.set()
        thread, outcome = self.start(f'echo ran > "{self.pid_file}"', stop)
        thread.join(BOUND_S)
        failed = pickle.loads(pickle.dumps(outcome["error"]))  # as it comes back from a worker
        self.assertEqual((str(failed), failed.cancelled, failed.started),
                         ("not started: the walk was stopped", True, False))
        self.assertFalse(os.path.exists(self.pid_file))

    def test_a_failed_command_runs_again_and_each_runs_output_and_message_come_back(self):
        counter = os.path.join(self.folder, "runs")
        flaky = f'echo run >> "{counter}"; echo "out $(wc -l < "{counter}")"; [ $(wc -l < "{counter}") -ge 3 ] || ' \
                f'{{ echo oops >&2; exit 3; }}'
        thread, outcome = self.start(flaky, threading.Event(), retries=5)
        thread.join(BOUND_S)
        self.assertEqual(outcome["value"], {"out": "out 3\n", "err": "", "id": 7, "earlier": [("out 1\n", "oops\n"),
                                                                                  ("out 2\n", "oops\n")],
                                            "attempt_messages": ["exit status 3: oops", "exit status 3: oops", ""]})
        os.remove(counter)
        thread, outcome = self.start(flaky, threading.Event(), retries=1)
        thread.join(BOUND_S)
        failed = pickle.loads(pickle.dumps(outcome["error"]))
        self.assertEqual(str(failed), "exit status 3: oops")
        self.assertEqual(failed.outcome["attempt_messages"], ["exit status 3: oops"] * 2)
        self.assertEqual(failed.outcome["earlier"], [("out 1\n", "oops\n")])
        with open(counter) as runs:
            self.assertEqual(len(runs.readlines()), 2)

    def test_the_watchers_polls_start_short_and_double(self):
        # The run ends only once the watcher's poll under way has: a poll of a second from the
        # start added up to a second to every short command.
        stop = CountedStop()
        end = os.path.join(self.folder, "end")
        command = f'i=0; while [ $i -lt 3000 ] && [ ! -e "{end}" ]; do sleep 0.01; i=$((i+1)); done'
        thread, outcome = self.start(command, stop)
        deadline = time.monotonic() + BOUND_S
        while len(stop.timeouts) < 9:  # the ninth poll is the first of a whole second
            self.assertTrue(thread.is_alive(), "the command ended early")
            self.assertLess(time.monotonic(), deadline, "the watcher never polled nine times")
            time.sleep(0.01)
        open(end, "w").close()  # ends the command
        thread.join(BOUND_S)
        self.assertEqual(outcome, {"value": {"id": 7}})
        self.assertEqual(stop.timeouts[:9], [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.0, 1.0])

    def test_not_started_once_stopped(self):
        stop = threading.Event()
        stop.set()
        with self.assertRaisesRegex(dask_command.CommandFailed, "not started: the walk was stopped"):
            dask_command.run_command(("a", f'echo > "{self.pid_file}"', True, False, stop, 1.0, 0, threading.Event(), 7))
        self.assertFalse(os.path.exists(self.pid_file))


if __name__ == "__main__":
    unittest.main()
