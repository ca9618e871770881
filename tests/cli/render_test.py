#!/usr/bin/env python3
"""`dag render`: the picture Graphviz draws, parsed and checked. The SVG is
read as XML; a vertex is a <g class="node"> whose <text> is its name, an edge
a <g class="edge"> whose <title> joins the two vertices' Graphviz names.
Usage: render_test.py DAG_PROGRAM SOURCE_DIR"""
import colorsys
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

DAG = sys.argv[1] if len(sys.argv) > 1 else "dag"
SOURCE = sys.argv[2] if len(sys.argv) > 2 else "."
DEPLOY = os.path.join(SOURCE, "examples/graphs/deploy.dot")
SVG = "{http://www.w3.org/2000/svg}"
# Sanitized builds draw ten times slower; nothing here should come near it.
LIMIT = 300


def dag(*args, stdin=None):
    return subprocess.run([DAG, *args], input=stdin, capture_output=True, timeout=LIMIT)


def names_of(path):
    """Every vertex name, one a line from `dag order` (all vertices)."""
    result = dag("order", path)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.decode().splitlines())


def hue(colour):
    """(hue in degrees, saturation) of a #rrggbb colour."""
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    return h * 360, s


class Picture:
    """A rendered SVG: vertices by name with their fill and stroke, edges as
    (dependent, dependency) names with their stroke."""

    def __init__(self, svg):
        root = ET.fromstring(svg)
        assert root.tag == SVG + "svg", root.tag
        self.texts = [t.text or "" for t in root.iter(SVG + "text")]
        self.vertices, by_id, self.node_count = {}, {}, 0
        for g in root.iter(SVG + "g"):
            if g.get("class") != "node":
                continue
            self.node_count += 1
            name = g.find(SVG + "text").text
            shape = g.find(SVG + "path")
            if shape is None:
                shape = g.find(SVG + "polygon")
            self.vertices[name] = {"fill": shape.get("fill"), "stroke": shape.get("stroke")}
            by_id[g.find(SVG + "title").text] = name
        self.edges, self.edge_count = {}, 0
        for g in root.iter(SVG + "g"):
            if g.get("class") != "edge":
                continue
            tail, head = g.find(SVG + "title").text.split("->")
            self.edges[(by_id[tail], by_id[head])] = g.find(SVG + "path").get("stroke")
            self.edge_count += 1


class Render(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def graph(self, text, name="graph.dot"):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def render(self, *args):
        out = self.path("out.svg")
        result = dag("render", *args, "-o", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(out, "rb") as f:
            return Picture(f.read())

    def test_svg_has_every_vertex_name_and_edge(self):
        for graph in [DEPLOY,
                      os.path.join(SOURCE, "tests/resources/dot-corpus/tf-09-azure-instance-and-expand.dot")]:
            with self.subTest(graph=graph):
                picture = self.render(graph)
                names = names_of(graph)
                self.assertEqual(set(picture.vertices), names)
                for name in names:
                    self.assertIn(name, picture.texts)
                result = dag("convert", graph, "--to", "json")
                edges = json.loads(result.stdout)["edges"]
                self.assertEqual(picture.edge_count, len(edges))

    def test_names_are_drawn_as_they_are(self):
        # A backslash would start a Graphviz escape (\N, \n); a name that is
        # an unnamed vertex's id stays a vertex of its own.
        graph = self.graph(json.dumps({"format": "libdag", "version": 1, "next_id": 4,
                                       "vertices": [{"id": 1, "name": "C:\\new\\N"},
                                                    {"id": 2, "name": "3"}, {"id": 3}],
                                       "edges": [[1, 2], [2, 3]]}), "graph.json")
        picture = self.render(graph)
        self.assertEqual(picture.node_count, 3)
        self.assertEqual(sorted(picture.texts), ["3", "3", "C:\\new\\N"])
        self.assertEqual(len(picture.edges), 2)
        # Graphviz reads entities in a label: "x&lt;y" was drawn as "x<y".
        names = ["x&lt;y", "&#65;BC", "&amp;", "a & b"]
        graph = self.graph(json.dumps({"vertices": [{"id": i + 1, "name": n} for i, n in enumerate(names)]}),
                           "entities.json")
        self.assertEqual(sorted(self.render(graph).texts), sorted(names))

    def test_png_and_pdf_by_extension_or_format(self):
        for out, extra, magic in [("g.png", [], b"\x89PNG\r\n\x1a\n"), ("g.pdf", [], b"%PDF-"),
                                  ("g.PNG", [], b"\x89PNG\r\n\x1a\n"),
                                  ("picture", ["--format", "pdf"], b"%PDF-"),
                                  ("picture.img", ["--format", "png"], b"\x89PNG\r\n\x1a\n"),
                                  ("g.png", ["--format", "png"], b"\x89PNG\r\n\x1a\n"),
                                  # Any case, as the extension is taken.
                                  ("picture", ["--format", "PDF"], b"%PDF-"),
                                  ("G.SVG", ["--format", "Svg"], b"<?xml")]:
            with self.subTest(out=out, extra=extra):
                result = dag("render", DEPLOY, "-o", self.path(out), *extra)
                self.assertEqual(result.returncode, 0, result.stderr)
                with open(self.path(out), "rb") as f:
                    self.assertTrue(f.read().startswith(magic))
        result = dag("render", DEPLOY, "-o", "-", "--format", "svg")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(set(Picture(result.stdout).vertices), names_of(DEPLOY))

    def test_a_format_that_contradicts_the_extension_exits_2(self):
        # a.svg holding PNG: no viewer opens it as what its name says.
        for out, format in [("a.svg", "png"), ("a.PNG", "svg"), ("a.pdf", "SVG")]:
            with self.subTest(out=out, format=format):
                result = dag("render", DEPLOY, "-o", self.path(out), "--format", format)
                self.assertEqual(result.returncode, 2, result.stderr)
                extension = out.rsplit(".", 1)[1].lower()
                self.assertEqual(result.stderr,
                                 f'dag: --format {format.lower()} contradicts "{self.path(out)}", a .{extension} '
                                 f'name: rename the file, or leave --format out\n'.encode())
                self.assertFalse(os.path.exists(self.path(out)))

    def test_control_characters_are_drawn_visibly(self):
        # Graphviz copied them into the SVG, which no XML parser then reads.
        names = ["a\x01b", "c\x1b[31md", "x\ufffey\uffffz", "tab\there", "\x7f\x85"]
        graph = self.graph(json.dumps({"vertices": [{"id": i + 1, "name": n} for i, n in enumerate(names)]}),
                           "control.json")
        shown = ["a\\x01b", "c\\x1b[31md", "x\\xef\\xbf\\xbey\\xef\\xbf\\xbfz", "tab\there", "\x7f\x85"]
        self.assertEqual(sorted(self.render(graph).texts), sorted(shown))
        with open(self.path("control.dot"), "wb") as f:
            f.write(b'digraph { "a\x01b" -> "c\x1b[31md" }')
        picture = self.render(self.path("control.dot"))
        self.assertEqual(set(picture.edges), {("a\\x01b", "c\\x1b[31md")})

    def test_graphviz_warnings_are_told_as_dags(self):
        # Too tall for a bitmap: the pango plugin says so on standard error
        # itself, named by a command name nobody set: "(null): graph is ...".
        graph = self.graph("digraph { " + " ".join(f"v{i} -> v{i + 1};" for i in range(400)) + " }")
        result = dag("render", graph, "-o", self.path("tall.png"))
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stderr.decode().splitlines()
        self.assertTrue(lines, "no warning: the picture fits a bitmap")
        for line in lines:
            self.assertTrue(line.startswith("dag: graphviz: "), line)
        self.assertIn("graph is too large for cairo-renderer bitmaps", result.stderr.decode())
        with open(self.path("tall.png"), "rb") as f:
            self.assertTrue(f.read().startswith(b"\x89PNG\r\n\x1a\n"))

    def test_the_picture_never_replaces_its_graph_or_report(self):
        graph = self.graph("digraph { a -> b }")
        with open(graph, "rb") as f:
            graph_text = f.read()
        report = self.path("run.json")
        report_text = b'{"vertices": [{"name": "a", "status": "ok"}]}'
        with open(report, "wb") as f:
            f.write(report_text)
        os.symlink(report, self.path("link.json"))
        # The last two read `-`: the file standard input was redirected from.
        cases = [(["render", graph, "-o", graph, "--format", "svg"], "FILE", graph, None),
                 (["render", graph, "--report", report, "-o", report, "--format", "svg"], "--report", report, None),
                 (["render", graph, "--report", report, "-o", self.path("link.json"), "--format", "svg"], "--report",
                  self.path("link.json"), None),
                 (["render", self.path("./graph.dot"), "-o", graph, "--format", "svg"], "FILE", graph, None),
                 (["render", "-", "-o", graph, "--format", "svg"], "FILE", graph, graph),
                 (["render", graph, "--report", "-", "-o", report, "--format", "svg"], "--report", report, report)]
        for args, option, shown, source in cases:
            with self.subTest(args=args), open(source or os.devnull, "rb") as stdin:
                result = subprocess.run([DAG, *args], stdin=stdin, capture_output=True, timeout=LIMIT)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr, f'dag: -o and {option} cannot both be "{shown}"\n'.encode())
                with open(graph, "rb") as f:
                    self.assertEqual(f.read(), graph_text)
                with open(report, "rb") as f:
                    self.assertEqual(f.read(), report_text)
        # Standard input and output are no file of the graph's.
        result = dag("render", "-", "-o", "-", "--format", "svg", stdin=graph_text)
        self.assertEqual(result.returncode, 0, result.stderr)
        # Standard output open on the graph: read-only it writes nothing over
        # it (told as -o "-" overwriting the graph), for reading and writing
        # it is told by the graph's name ("-" was -o's, not FILE's).
        for redirect, message in [("1<", b"dag: cannot write standard output: Bad file descriptor\n"),
                                  ("1<>", f'dag: -o and FILE cannot both be "{graph}"\n'.encode())]:
            with self.subTest(redirect=redirect):
                result = subprocess.run(["/bin/sh", "-c", f'"$0" render "$1" -o - --format svg {redirect}"$1"',
                                         DAG, graph], stderr=subprocess.PIPE, timeout=LIMIT)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr, message)
                with open(graph, "rb") as f:
                    self.assertEqual(f.read(), graph_text)

    def test_a_file_named_as_long_as_the_file_system_allows(self):
        # 255 bytes, NAME_MAX: the temporary name beside it had no room for
        # its suffix, and a picture `>` would write was refused.
        out = self.path("p" * 251 + ".svg")
        for run in ("new", "replaced"):
            with self.subTest(run=run):
                result = dag("render", DEPLOY, "-o", out)
                self.assertEqual(result.returncode, 0, result.stderr)
                with open(out, "rb") as f:
                    self.assertEqual(set(Picture(f.read()).vertices), names_of(DEPLOY))
        self.assertEqual([n for n in os.listdir(os.path.dirname(out)) if not n.startswith("p")], [])

    def test_cycles_and_self_references_are_red(self):
        graph = self.graph("digraph { a -> b; b -> c; c -> b; a -> d; d -> d; a -> e; e -> f; f -> e }")
        picture = self.render(graph)
        red = {"b", "c", "d", "e", "f"}
        red_edges = {("b", "c"), ("c", "b"), ("d", "d"), ("e", "f"), ("f", "e")}
        for name, look in picture.vertices.items():
            self.assertEqual(hue(look["stroke"])[0] < 10 and hue(look["stroke"])[1] > 0.8,
                             name in red, name)
        for edge, stroke in picture.edges.items():
            self.assertEqual(hue(stroke)[0] < 10 and hue(stroke)[1] > 0.8, edge in red_edges, edge)
        self.assertEqual(set(picture.edges), red_edges | {("a", "b"), ("a", "d"), ("a", "e")})

    def test_reduce_drops_the_edges_longer_paths_imply(self):
        graph = self.graph("digraph { a -> b; b -> c; a -> c; c -> d; a -> d }")
        self.assertEqual(len(self.render(graph).edges), 5)
        self.assertEqual(set(self.render(graph, "--reduce").edges), {("a", "b"), ("b", "c"), ("c", "d")})
        cyclic = self.graph("digraph { a -> b; b -> a }")
        result = dag("render", cyclic, "--reduce", "-o", self.path("c.svg"))
        self.assertEqual(result.returncode, 1)
        self.assertIn(b"dag: ", result.stderr)
        self.assertFalse(os.path.exists(self.path("c.svg")))

    def test_report_colours_each_vertex_by_its_status(self):
        # db fails, so app never runs (upstream failed); net and cache run.
        graph = self.graph("digraph { app -> db; app -> cache; db -> net; cache -> net; lone }")
        report = self.path("run.json")
        walk = dag("walk", graph, "--exec", 'test "$DAG_VERTEX" != db', "--report", report)
        self.assertEqual(walk.returncode, 1, walk.stderr)
        with open(report, encoding="utf-8") as f:
            statuses = {v["name"]: v["status"] for v in json.load(f)["vertices"]}
        self.assertEqual(statuses, {"app": "upstream_failed", "db": "failed", "cache": "ok",
                                    "net": "ok", "lone": "ok"})
        fills = {name: look["fill"] for name, look in self.render(graph, "--report", report).vertices.items()}
        for name in ("cache", "net", "lone"):
            self.assertTrue(80 < hue(fills[name])[0] < 160, (name, fills[name]))  # green
        self.assertTrue(hue(fills["db"])[0] < 15 or hue(fills["db"])[0] > 345, fills["db"])  # red
        self.assertTrue(25 < hue(fills["app"])[0] < 50, fills["app"])  # orange

        # A cancelled walk's vertices, and one the report leaves out (a --target walk).
        with open(report, "w", encoding="utf-8") as f:
            json.dump({"vertices": [{"name": "app", "status": "not_run"},
                                    {"name": "db", "status": "cancelled"},
                                    {"name": "net", "status": "ok"}]}, f)
        picture = self.render(graph, "--report", report)
        for name in ("app", "db"):
            self.assertLess(hue(picture.vertices[name]["fill"])[1], 0.1, name)  # grey
        self.assertEqual(picture.vertices["lone"]["fill"], picture.vertices["cache"]["fill"])
        self.assertNotEqual(picture.vertices["lone"]["fill"], picture.vertices["net"]["fill"])
        self.assertTrue(any("not run" in t for t in picture.texts), picture.texts)

    def test_a_report_names_an_unnamed_vertex_by_its_id_a_number(self):
        # Vertex 1 is named "2", vertex 2 is unnamed: only JSON's types tell them apart.
        graph = self.graph('{"vertices": [{"id": 1, "name": "2"}, {"id": 2}], "edges": [[1, 2]]}', "graph.json")
        report = self.path("run.json")
        walk = dag("walk", graph, "--exec", 'test "$DAG_VERTEX" != 2', "--report", report)
        self.assertEqual(walk.returncode, 1, walk.stderr)
        with open(report, encoding="utf-8") as f:
            vertices = json.load(f)["vertices"]
        self.assertCountEqual([(v["name"], v["status"]) for v in vertices], [(2, "failed"), ("2", "upstream_failed")])
        result = dag("render", graph, "--report", report, "-o", self.path("out.svg"))
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.path("out.svg"), "rb") as f:
            svg = f.read().decode()
        self.assertIn("failed: 1", svg)
        self.assertIn("upstream failed: 1", svg)
        # An id that is no vertex's, or a named vertex's, is another graph's report.
        for vertices, why in (([{"name": 9, "status": "ok"}], "no vertex has id 9"),
                              ([{"name": 1, "status": "ok"}], 'vertex 1 is named "2", not unnamed'),
                              ([{"name": 2, "status": "ok"}, {"name": 2, "status": "failed"}], "2 is in it twice")):
            with self.subTest(vertices=vertices):
                with open(report, "w", encoding="utf-8") as f:
                    json.dump({"vertices": vertices}, f)
                result = dag("render", graph, "--report", report, "-o", self.path("out.svg"))
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(why.encode(), result.stderr)

    def test_bad_report_exits_2(self):
        graph = self.graph("digraph { a -> b }")
        for content in ['{"vertices": [{"name": "zz", "status": "ok"}]}',
                        '{"vertices": [{"name": "a", "status": "great"}]}',
                        '{"vertices": [{"name": "a"}]}', '[1, 2]', '{"vertices": ',
                        '{"vertices": [{"name": -1, "status": "ok"}]}',
                        '{"vertices": [{"name": 1.5, "status": "ok"}]}',
                        ]:
            with self.subTest(content=content):
                with open(self.path("r.json"), "w", encoding="utf-8") as f:
                    f.write(content)
                result = dag("render", graph, "--report", self.path("r.json"), "-o", self.path("o.svg"))
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertTrue(result.stderr.startswith(b"dag: "), result.stderr)
                self.assertIn(self.path("r.json").encode(), result.stderr)
        result = dag("render", graph, "--report", self.path("none.json"), "-o", self.path("o.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertFalse(os.path.exists(self.path("o.svg")))
        # A directory was "not JSON", which sent the user looking at its content.
        os.mkdir(self.path("reports"))
        result = dag("render", graph, "--report", self.path("reports"), "-o", self.path("o.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(b"Is a directory", result.stderr)
        self.assertIn(f'cannot read "{self.path("reports")}"'.encode(), result.stderr)
        # A byte no UTF-8 has, which the parser's message quoted as it was: shown as \xNN, as libdag shows one.
        with open(self.path("r.json"), "wb") as f:
            f.write(b'{"vertices": \xff}')
        result = dag("render", graph, "--report", self.path("r.json"), "-o", self.path("o.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertTrue(result.stderr.endswith(b"last read: '\"vertices\": \\xff'\n"), result.stderr)
        # A NUL in a name: the name was cut there, and coloured vertex "a".
        with open(self.path("r.json"), "w", encoding="utf-8") as f:
            f.write('{"vertices": [{"name": "a\\u0000zzz", "status": "failed"}]}')
        result = dag("render", graph, "--report", self.path("r.json"), "-o", self.path("o.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr, f'dag: {self.path("r.json")}: a report of another graph: no vertex is named '
                                        f'"a\\u0000zzz"\n'.encode())
        self.assertFalse(os.path.exists(self.path("o.svg")))
        # One vertex twice, with two statuses: one was taken silently.
        with open(self.path("r.json"), "w", encoding="utf-8") as f:
            f.write('{"vertices": [{"name": "a", "status": "ok"}, {"name": "a", "status": "failed"}]}')
        result = dag("render", graph, "--report", self.path("r.json"), "-o", self.path("o.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(b'"a" is in it twice', result.stderr)
        # Where the syntax error is, as for a graph file; standard input by name.
        result = dag("render", graph, "--report", "-", "-o", self.path("o.svg"), stdin=b'{\n"vertices": [\n}')
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr, b"dag: standard input: line 3: not JSON: parse error at line 3, column 1: "
                                        b"syntax error while parsing value - unexpected '}'; expected '[', '{', or "
                                        b"a literal\n")
        # A key twice: one status was taken silently.
        result = dag("render", graph, "--report", "-", "-o", self.path("o.svg"),
                     stdin=b'{"vertices": [{"name": "a", "status": "ok", "status": "failed"}]}')
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr, b'dag: standard input: line 1: "status" is given twice in one object\n')
        # Both from standard input, by any name of it: the second read an
        # empty stream.
        with open(graph, "rb") as f:
            graph_text = f.read()
        for first, second in [("-", "-"), ("-", "/dev/stdin"), ("/dev/stdin", "-"), ("/dev/fd/0", "/dev/stdin")]:
            with self.subTest(first=first, second=second):
                result = dag("render", first, "--report", second, "-o", self.path("o.svg"), stdin=graph_text)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr, b"dag: FILE and --report cannot both be standard input\n")

    def test_usage_and_file_errors_exit_2(self):
        cases = [
            (["render", DEPLOY, "-o", self.path("g.gif")], b"--format"),
            (["render", DEPLOY, "-o", self.path("svg")], b"--format"),
            (["render", DEPLOY, "-o", "-"], b"--format"),
            (["render", DEPLOY, "-o", self.path("g.svg"), "--format", "gif"], b"--format"),
            (["render", DEPLOY], b"--output"),
            (["render", DEPLOY, "-o", self.path("no/such/dir/g.svg")], b"cannot write"),
            (["render", self.path("missing.dot"), "-o", self.path("g.svg")], b"missing.dot"),
            (["render", self.graph("digraph { a -> }"), "-o", self.path("g.svg")], b"graph.dot"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                result = dag(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)
        self.assertFalse(os.path.exists(self.path("g.gif")))
        self.assertFalse(os.path.exists(self.path("g.svg")))
        # An empty --report (a shell variable left unset) is not "no report".
        result = dag("render", DEPLOY, "--report", "", "-o", self.path("g.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(b"--report: an empty path names no file", result.stderr)
        # Told before the graph is read and laid out (minutes for a large one), as a walk's files are.
        result = dag("render", self.graph("digraph { a -> }"), "-o", self.path("no/such/dir/g.svg"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr,
                         f'dag: cannot write "{self.path("no/such/dir/g.svg")}": No such file or directory\n'.encode())

    def test_help_says_what_arrows_mean_with_an_example(self):
        result = dag("render", "--help")
        self.assertEqual(result.returncode, 0)
        self.assertIn(b"Example", result.stdout)
        self.assertIn(b"dag render", result.stdout)
        self.assertIn(b"arrow", result.stdout)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
