// Export and import of text forms: dag_format <-> dag::Format, and the
// handles. The writers and readers are in lib/ (text_formats.hpp).
#include <cstdint>
#include <memory>
#include <string>

#include "guard.hpp"
#include "formats/text_encoding.hpp"
#include "formats/text_formats.hpp"

using dag::capi::ApiError;
using dag::capi::GraphRead;
using dag::capi::guard;
using dag::capi::raw;
using dag::capi::require;

namespace {

// By reference: copying an out-of-range dag_format is already undefined.
dag::Format to_format(const dag_format &format) {
    switch (raw(format)) {
    case DAG_FORMAT_AUTO: return dag::Format::automatic;
    case DAG_FORMAT_TEXT: return dag::Format::text;
    case DAG_FORMAT_DOT: return dag::Format::dot;
    case DAG_FORMAT_MERMAID: return dag::Format::mermaid;
    case DAG_FORMAT_JSON: return dag::Format::json;
    }
    throw ApiError{DAG_E_INVALID_ARGUMENT, "format " + dag::capi::raw_text(format) +
                                               " is not a dag_format"};
}

void import_into(dag::Format format, std::string bytes, dag_graph **out) {
    auto g = std::make_unique<dag_graph>();
    dag::read_graph(std::move(bytes), format, g->graph);
    *out = g.release();
}

}  // namespace

extern "C" {

dag_status dag_export_graph(const dag_graph *g, dag_format format, char **out, dag_error **err) {
    return guard(__func__, err, [&] {
        const GraphRead reading(g, "g");
        require(out, "out");
        *out = dag::capi::make_string(dag::write_graph(g->graph, to_format(format)));
    });
}

dag_status dag_import_graph(dag_format format, const char *data, size_t size, dag_graph **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(out, "out");
        if (size > 0) require(data, "data");
        // (size_t)-1 for "NUL-terminated" is a likely mistake; no text is that long.
        if (size > static_cast<size_t>(PTRDIFF_MAX))
            throw ApiError{DAG_E_INVALID_ARGUMENT, "size " + std::to_string(size) + " is larger than any text"};
        import_into(to_format(format), dag::padded_text(std::string_view(data ? data : "", size)), out);
    });
}

dag_status dag_import_graph_file(dag_format format, const char *path, dag_graph **out, dag_error **err) {
    return guard(__func__, err, [&] {
        require(path, "path");
        require(out, "out");
        const dag::Format f = to_format(format);
        dag::require_readable(f);  // before the file is read
        import_into(f, dag::read_file(path), out);
    });
}

const char *dag_format_name(dag_format format) {
    switch (raw(format)) {
    case DAG_FORMAT_AUTO: return "auto";
    case DAG_FORMAT_TEXT: return "text";
    case DAG_FORMAT_DOT: return "dot";
    case DAG_FORMAT_MERMAID: return "mermaid";
    case DAG_FORMAT_JSON: return "json";
    }
    return "unknown";
}

}  // extern "C"
