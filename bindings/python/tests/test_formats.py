"""Text forms: export in each format, import of DOT and JSON, round trips, errors."""

import json
import os
import tempfile
import unittest

import libdag
from support import build, names


def sample():
    """a -> b, b <-> c (a cycle), a name with quotes, an unnamed vertex 5 -> a."""
    g, ids = build([("a", "b"), ("b", "c"), ("c", "b")], vertices=[])
    ids['say "hi"'] = g.add_vertex('say "hi"')
    ids[None] = g.add_vertex()
    g.connect(ids[None], ids["a"])
    return g, ids


class ExportTest(unittest.TestCase):
    def test_text_is_str(self):
        g, _ = sample()
        self.assertEqual(g.export("text"), str(g))
        self.assertEqual(g.export("text"), '5\n  a\na\n  b\nb\n  c\nc\n  b\nsay "hi"\n')

    def test_dot_in_terraform_graph_layout_with_cycles_in_red(self):
        g, _ = sample()
        self.assertEqual(
            g.export("dot"),
            "digraph {\n"
            '\tcompound = "true"\n'
            '\tnewrank = "true"\n'
            '\tsubgraph "root" {\n'
            '\t\t"5"\n'
            '\t\t"a"\n'
            '\t\t"b"\n'
            '\t\t"c"\n'
            '\t\t"say \\"hi\\""\n'
            '\t\t"5" -> "a"\n'
            '\t\t"a" -> "b"\n'
            '\t\t"b" -> "c" [color = "red", penwidth = "2.0"]\n'
            '\t\t"c" -> "b" [color = "red", penwidth = "2.0"]\n'
            "\t}\n"
            "}\n",
        )

    def test_mermaid(self):
        g, _ = sample()
        text = g.export(libdag.Format.MERMAID)
        self.assertTrue(text.startswith("flowchart TD\n"))
        self.assertIn('    v1["a"]\n', text)
        self.assertIn('    v4["say #34;hi#34;"]\n', text)
        self.assertIn("    v5 --> v1\n", text)
        self.assertIn("    linkStyle 2,3 stroke:red,stroke-width:2px\n", text)

    def test_json_document(self):
        g, _ = sample()
        doc = json.loads(g.export("json"))
        self.assertEqual(doc["format"], "libdag")
        self.assertEqual(doc["version"], 1)
        self.assertEqual(
            doc["vertices"],
            [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"},
             {"id": 4, "name": 'say "hi"'}, {"id": 5}],
        )
        self.assertEqual(doc["edges"], [[1, 2], [2, 3], [3, 2], [5, 1]])

    def test_format_names_and_values(self):
        g, _ = build([("a", "b")])
        self.assertEqual(g.export("JSON"), g.export(libdag.Format.JSON))
        self.assertEqual(g.export(" dot "), g.export(2))
        self.assertEqual(libdag.Format.MERMAID.label, "mermaid")

    def test_export_errors(self):
        g, _ = build([("a", "b")])
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.export("auto")
        self.assertTrue(cm.exception.message.startswith("Graph.export: "))
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.export("yaml")
        self.assertIn("'yaml'", cm.exception.message)
        with self.assertRaises(libdag.InvalidArgumentError) as cm:
            g.export(77)
        self.assertIn("77", cm.exception.message)
        with self.assertRaises(libdag.InvalidArgumentError):
            g.export(1 << 40)
        with self.assertRaises(TypeError):
            g.export(None)
        with self.assertRaises(TypeError):
            g.export(True)
        bad, _ = build(vertices=["ends with a backslash\\"])
        with self.assertRaises(libdag.InvalidArgumentError):
            bad.export("dot")
        # JSON can write such a name, and reads it back.
        back = libdag.Graph.from_text(bad.export("json"))
        self.assertEqual(back.name(1), "ends with a backslash\\")

    def test_empty_graph(self):
        g = libdag.Graph()
        self.assertEqual(g.export("text"), "")
        self.assertEqual(g.export("mermaid"), "flowchart TD\n")
        self.assertEqual(len(libdag.Graph.from_text(g.export("json"))), 0)
        self.assertEqual(len(libdag.Graph.from_text(g.export("dot"))), 0)


class RoundTripTest(unittest.TestCase):
    def test_json_round_trip_is_identity(self):
        g, ids = sample()
        gap = g.add_vertex("removed later")
        g.add_vertex("ünïcødé ✓")
        g.remove_vertex(gap)
        text = g.export("json")
        back = libdag.Graph.from_text(text, "json")
        self.assertEqual(back.vertices(), g.vertices())
        self.assertEqual([back.name(v) for v in back.vertices()], [g.name(v) for v in g.vertices()])
        self.assertEqual(back.edges(), g.edges())
        self.assertEqual(back.export("json"), text)
        # The gap counts as a removed vertex: new ids continue after the largest.
        self.assertEqual(back.add_vertex("next"), max(g.vertices()) + 1)

    def test_dot_round_trip_keeps_names_and_edges(self):
        g, _ = sample()
        back = libdag.Graph.from_text(g.export("dot"), "dot")

        def named_edges(graph):
            return sorted((graph.label(a), graph.label(b)) for a, b in graph.edges())

        self.assertEqual(sorted(back.label(v) for v in back.vertices()), sorted(g.label(v) for v in g.vertices()))
        self.assertEqual(named_edges(back), named_edges(g))
        self.assertEqual(back.export("dot"), g.export("dot"))

    def test_auto_detects_json_and_dot(self):
        g, _ = build([("a", "b")])
        self.assertEqual(libdag.Graph.from_text("  \n" + g.export("json")).export("json"), g.export("json"))
        dot = libdag.Graph.from_text("/* c */ digraph { a -> b }")
        self.assertTrue(dot.has_edge(dot.find("a"), dot.find("b")))

    def test_bytes_input(self):
        g = libdag.Graph.from_text('digraph { "ä" -> "b" }'.encode("utf-8"))
        self.assertEqual(g.dependencies(g.find("ä")), [g.find("b")])
        latin1 = libdag.Graph.from_text(b'digraph { charset=latin1; "\xe9t\xe9" -> x }')
        self.assertEqual(sorted(latin1.label(v) for v in latin1.vertices()), ["x", "été"])


class ImportTest(unittest.TestCase):
    def test_terraform_graph_output(self):
        text = (
            "digraph {\n\tcompound = \"true\"\n\tnewrank = \"true\"\n\tsubgraph \"root\" {\n"
            "\t\t\"[root] aws_instance.web (expand)\" -> \"[root] aws_subnet.a (expand)\"\n"
            "\t\t\"[root] aws_subnet.a (expand)\" -> "
            "\"[root] provider[\\\"registry.terraform.io/hashicorp/aws\\\"]\"\n"
            "\t}\n}\n"
        )
        g = libdag.Graph.from_text(text)
        self.assertEqual(
            names(g, g.reverse_topological_order()),
            [
                '[root] provider["registry.terraform.io/hashicorp/aws"]',
                "[root] aws_subnet.a (expand)",
                "[root] aws_instance.web (expand)",
            ],
        )

    def test_dot_syntax(self):
        g = libdag.Graph.from_text(
            "strict digraph x { node [shape=box]; a -> b -> c; a -> {d e} [color=red]\n"
            "subgraph cluster_1 { f } a -> b }"
        )
        self.assertEqual(len(g), 6)
        edges = sorted((g.name(a), g.name(b)) for a, b in g.edges())
        self.assertEqual(edges, [("a", "b"), ("a", "d"), ("a", "e"), ("b", "c")])

    def test_json_with_defaults(self):
        g = libdag.Graph.from_text('{"vertices": [{"id": 7, "name": "x"}, {"id": 3}], "extra": true}')
        self.assertEqual(g.vertices(), [3, 7])
        self.assertEqual(g.edges(), [])
        self.assertIsNone(g.name(3))

    def test_parse_errors(self):
        cases = [
            ("digraph { a -> }", "dot", libdag.ParseError),
            ("graph { a -- b }", "dot", libdag.ParseError),  # undirected
            ("digraph { a }\0", "dot", libdag.ParseError),
            ("{", "json", libdag.ParseError),
            ('{"vertices": [{"id": 0}]}', "json", libdag.ParseError),
            ('{"vertices": [{"id": 1}], "edges": [[1, 2]]}', "json", libdag.ParseError),
            ('{"format": "other", "vertices": []}', "json", libdag.ParseError),
            ('{"vertices": [{"id": 1, "name": "a"}, {"id": 2, "name": "a"}]}', "json",
             libdag.DuplicateNameError),
            ('{"vertices": [{"id": 1, "name": ""}]}', "json", libdag.InvalidArgumentError),
            ("digraph { a }", "text", libdag.InvalidArgumentError),
            ("digraph { a }", "mermaid", libdag.InvalidArgumentError),
        ]
        for text, fmt, error in cases:
            with self.subTest(text=text, fmt=fmt):
                with self.assertRaises(error) as cm:
                    libdag.Graph.from_text(text, fmt)
                self.assertTrue(cm.exception.message.startswith("Graph.from_text: "), cm.exception.message)
        with self.assertRaises(libdag.BadUtf8Error):
            libdag.Graph.from_text(b"digraph { \"\xff\" }", "dot")
        with self.assertRaises(TypeError):
            libdag.Graph.from_text(None)
        with self.assertRaises(libdag.ParseError) as cm:
            libdag.Graph.from_text('{"vertices": [}')
        self.assertIsInstance(cm.exception, ValueError)


class FileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_from_file_json_and_dot(self):
        g, _ = sample()
        back = libdag.Graph.from_file(self.path("g.json", g.export("json").encode()))
        self.assertEqual(back.export("json"), g.export("json"))
        # AUTO looks at the content, not the name.
        dot = libdag.Graph.from_file(self.path("g.json.txt", b"digraph { x -> y }"))
        self.assertEqual(dot.edges(), [(dot.find("x"), dot.find("y"))])

    def test_path_like_and_utf16(self):
        import pathlib

        # What PowerShell's `terraform graph > file` writes: UTF-16 with a BOM.
        path = self.path("ps.dot", "digraph { \"ü\" -> b }".encode("utf-16"))
        g = libdag.Graph.from_file(pathlib.Path(path), libdag.Format.DOT)
        self.assertEqual(g.dependencies(g.find("ü")), [g.find("b")])

    def test_file_errors(self):
        missing = os.path.join(self.dir.name, "missing.dot")
        with self.assertRaises(libdag.DagIOError) as cm:
            libdag.Graph.from_file(missing)
        self.assertIn(missing, cm.exception.message)
        self.assertEqual(cm.exception.status, -16)
        with self.assertRaises(libdag.ParseError):
            libdag.Graph.from_file(self.path("bad.json", b"{]"))
        with self.assertRaises(libdag.InvalidArgumentError):
            libdag.Graph.from_file(self.path("g.dot", b"digraph {}"), "mermaid")
        with self.assertRaises(libdag.InvalidArgumentError):
            libdag.Graph.from_file("nul\0path")
        with self.assertRaises(TypeError):
            libdag.Graph.from_file(None)


if __name__ == "__main__":
    unittest.main()
