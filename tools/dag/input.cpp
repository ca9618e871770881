#include "input.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "format_option.hpp"

namespace dagcli {

void add_input(CLI::App &command, Input &input) {
    command.add_option("FILE", input.path, "Graph file: DOT (as `terraform graph` prints) or "
                                           "libdag JSON; - for standard input")
        ->required();
    add_format_option(command, "--from", input.format, {DAG_FORMAT_DOT, DAG_FORMAT_JSON},
                      "Input format; detected from the content when not given");
}

namespace {

std::string read_all(std::FILE *file, const std::string &shown) {
    std::string data;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) data.append(buffer, n);
    if (std::ferror(file)) throw Failure("cannot read " + shown + ": " + std::strerror(errno), bad_input);
    return data;
}

std::string read_stdin() { return read_all(stdin, "standard input"); }

}  // namespace

std::string shown_name(const Input &input) {
    return input.path == "-" ? "standard input" : input.path;
}

namespace {

// libdag's message says what and where in the text; which file, only when it
// could not be read at all.
Graph imported(const Input &input, dag_status status, dag_graph *g, dag_error *err) {
    const std::string where = status == DAG_E_IO ? "" : shown_name(input) + ": ";
    try {
        check(status, &err, bad_input);
    } catch (const Failure &e) {
        throw Failure(where + e.what(), e.exit_status());
    }
    return Graph(g);
}

}  // namespace

Graph load(const Input &input) {
    if (input.path == "-") return load(input, read_stdin());
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    const dag_status status = dag_import_graph_file(input.format, input.path.c_str(), &g, &err);
    return imported(input, status, g, err);
}

Graph load(const Input &input, const std::string &text) {
    dag_graph *g = nullptr;
    dag_error *err = nullptr;
    const dag_status status = dag_import_graph(input.format, text.data(), text.size(), &g, &err);
    return imported(input, status, g, err);
}

std::string read_text(const std::string &path) {
    if (path == "-") return read_stdin();
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(path.c_str(), "rb"), std::fclose);
    // Worded as a graph file that cannot be read is (by libdag).
    if (!file) throw Failure("cannot read \"" + path + "\": " + std::strerror(errno), bad_input);
    return read_all(file.get(), "\"" + path + "\"");
}

}  // namespace dagcli
