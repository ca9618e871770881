"""python3 -m libdag.dask: each vertex's command run on a local Dask cluster, on the example graph."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

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


@unittest.skipIf(WHY, WHY)
class DaskCommandTest(unittest.TestCase):
    def test_deploy_example(self):
        folder = tempfile.mkdtemp()
        report_path = os.path.join(folder, "report.json")
        # Each command leaves a file named for its vertex; one vertex fails with a message on stderr.
        command = (f'printf %s "$DAG_VERTEX" > "{folder}/$(printf %s "$DAG_VERTEX" | md5sum | cut -c1-32)"; '
                   f'if [ "$DAG_VERTEX" = "{VICTIM}" ]; then echo "no subnet today" >&2; exit 3; fi')
        done = subprocess.run([sys.executable, "-m", "libdag.dask", "--scheduler", "local:2", "--exec", command,
                               "--report", report_path, str(EXAMPLE)],
                              capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(done.returncode, 1, done.stderr)
        with open(report_path) as report_file:
            report = json.load(report_file)
        statuses = {v["name"]: v["status"] for v in report["vertices"]}
        self.assertEqual(len(statuses), 11)
        self.assertEqual({name for name, status in statuses.items() if status == "upstream_failed"}, SKIPPED)
        failed = [v for v in report["vertices"] if v["status"] == "failed"]
        self.assertEqual([v["name"] for v in failed], [VICTIM])
        self.assertEqual(failed[0]["message"], "exit status 3: no subnet today")
        self.assertEqual(report["ok"], 11 - 1 - len(SKIPPED))
        ran = set()
        for entry in os.listdir(folder):
            if entry != "report.json":
                with open(os.path.join(folder, entry)) as marker:
                    ran.add(marker.read())
        self.assertEqual(ran, {name for name, status in statuses.items() if status in ("ok", "failed")})
        self.assertIn("no subnet today", done.stderr)

    def run_bad(self, *arguments):
        done = subprocess.run([sys.executable, "-m", "libdag.dask", *arguments], capture_output=True, text=True,
                              timeout=60, check=False)
        self.assertEqual(done.returncode, 2, done.stderr)
        return done.stderr

    def test_bad_input(self):
        self.assertIn("local:N needs N", self.run_bad("--scheduler", "local:none", "--exec", "true", str(EXAMPLE)))
        self.assertIn("'0' is not a whole number of at least 1",
                      self.run_bad("--scheduler", "local:1", "--exec", "true", "--parallelism", "0", str(EXAMPLE)))
        self.assertIn("--exec", self.run_bad("--scheduler", "local:1", str(EXAMPLE)))
        missing = os.path.join(tempfile.mkdtemp(), "missing.dot")
        self.assertIn("missing.dot", self.run_bad("--scheduler", "local:1", "--exec", "true", missing))
        cyclic = os.path.join(tempfile.mkdtemp(), "cyclic.dot")
        with open(cyclic, "w") as out:
            out.write("digraph { a -> b; b -> a }\n")
        self.assertIn("the graph has a cycle", self.run_bad("--scheduler", "local:1", "--exec", "true", cyclic))


if __name__ == "__main__":
    unittest.main()
