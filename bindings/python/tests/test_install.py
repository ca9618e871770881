"""pip install of the package into a fresh virtual environment, offline, and where it finds libdag."""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import libdag

SOURCE = pathlib.Path(__file__).resolve().parents[1]
LIBRARY = pathlib.Path(libdag.library_path).resolve()

# Run by the venv's interpreter, from outside the source tree.
PROBE = (
    "import libdag, pathlib; "
    "g = libdag.Graph.from_dict({'app': ['db'], 'db': []}); "
    "assert g.walk(lambda v: None).ok; "
    "print(pathlib.Path(libdag.__file__).parent); print(libdag.library_path)"
)


def environment(**changes):
    """os.environ without what would lead Python or the loader to the source tree or the library, plus `changes`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LIBDAG_PATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PIP_INDEX_URL")}
    env.update(changes)
    return env


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="libdag-venv-")
        venv = pathlib.Path(cls.tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=environment())
        cls.python = str(venv / "bin" / "python")
        # --no-index: no package index is reached; the build needs none.
        cls.install = subprocess.run(
            [cls.python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", str(SOURCE)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment(), cwd=cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def probe(self, **env):
        return subprocess.run([self.python, "-c", PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=environment(**env), cwd=self.tmp)

    def test_installed_package_imports_from_outside_the_tree(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        result = self.probe(LIBDAG_PATH=str(LIBRARY))
        self.assertEqual(result.returncode, 0, result.stderr)
        package, library = result.stdout.splitlines()
        self.assertTrue(package.startswith(self.tmp), package)
        self.assertTrue((pathlib.Path(package) / "py.typed").is_file())
        self.assertEqual(library, str(LIBRARY))

    def test_found_through_the_loader_search_path(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        result = self.probe(LD_LIBRARY_PATH=str(LIBRARY.parent))
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_found_through_pkg_config(self):
        if shutil.which("pkg-config") is None:
            self.fail("pkg-config is not installed (scripts/install-deps-debian.sh installs it)")
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        pc = pathlib.Path(self.tmp) / "pkgconfig"
        pc.mkdir(exist_ok=True)
        (pc / "libdag.pc").write_text(
            f"libdir={LIBRARY.parent}\nName: libdag\nDescription: test\nVersion: 1.2.0\nLibs: -L${{libdir}} -ldag\n")
        result = self.probe(PKG_CONFIG_PATH=str(pc))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines()[1], str(LIBRARY.parent / "libdag.so.1"))

    def test_not_found_says_how_to_point_at_it(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        result = self.probe()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("set LIBDAG_PATH", result.stderr)


if __name__ == "__main__":
    unittest.main()
