// JSON import's two readers on the same text, against each other. The fast
// path (simdjson's On-Demand API) may take a document only when the checking
// reader (nlohmann-json) takes it and builds the same graph; a document it
// declines must leave its graph empty; a graph error it throws (a repeated
// or empty name) must carry the checking reader's message. Unlike the other
// harnesses this one reads libdag's internals (dag_core): through the C API
// the checking reader's answer hides whatever the fast path got wrong.
#include <cstdint>
#include <string>

#include "formats/json_fast_reader.hpp"
#include "formats/json_format.hpp"
#include "formats/text_encoding.hpp"
#include "fuzz_check.hpp"
#include "graph/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // As dag_import_graph_file hands text to the readers: decoded to UTF-8,
    // with simdjson's padding; text it refuses (a NUL) reaches neither.
    dag::DecodedText text;
    try {
        text = dag::decode_text(std::string(reinterpret_cast<const char *>(data), size));
    } catch (const dag::Error &) {
        return 0;
    }
    dag::Graph fast;
    bool took = false, threw = false;
    std::string fast_error;
    try {
        took = dag::read_json_fast(text.utf8, fast);
    } catch (const dag::Error &e) {
        threw = true;
        fast_error = e.what();
    }
    dag::Graph checked;
    bool checked_took = false;
    std::string checked_error;
    try {
        dag::read_json_checked(text.utf8, checked);
        checked_took = true;
    } catch (const dag::Error &e) {
        checked_error = e.what();
    }
    if (took) {
        fuzz::require(checked_took, "the fast path took a document the checking reader refuses", checked_error);
        fuzz::require(dag::write_json(fast) == dag::write_json(checked), "the readers built different graphs");
    } else if (threw) {
        fuzz::require(!checked_took && fast_error == checked_error, "the fast path's error differs",
                      fast_error + " | " + checked_error);
    } else {
        fuzz::require(fast.index_bound() == 0, "the fast path declined but changed its graph");
    }
    return 0;
}
