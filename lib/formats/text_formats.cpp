#include "formats/text_formats.hpp"

#include <cerrno>
#include <cstdio>
#include <sys/stat.h>
#include <memory>
#include <system_error>

#include "formats/dot_reader.hpp"
#include "formats/dot_writer.hpp"
#include "graph/error.hpp"
#include "formats/json_format.hpp"
#include "formats/mermaid_writer.hpp"
#include "formats/text_encoding.hpp"
#include "graph/utf8.hpp"

namespace dag {

std::string write_graph(const Graph &g, Format format) {
    switch (format) {
    case Format::text: return g.to_string();
    case Format::dot: return write_dot(g);
    case Format::mermaid: return write_mermaid(g);
    case Format::json: return write_json(g);
    case Format::automatic: break;
    }
    throw Error(Errc::invalid_argument, "DAG_FORMAT_AUTO is for reading; name the format to write");
}

void require_readable(Format format) {
    if (format == Format::text || format == Format::mermaid)
        throw Error(Errc::invalid_argument, "only DOT and JSON can be read");
}

void read_graph(std::string bytes, Format format, Graph &out) {
    require_readable(format);
    const DecodedText text = decode_text(std::move(bytes));
    if (format == Format::automatic) {
        const auto first = text.utf8.find_first_not_of(" \t\r\n");
        format = first != std::string::npos && text.utf8[first] == '{' ? Format::json : Format::dot;
    }
    if (format == Format::json)
        read_json(text.utf8, out);
    else
        read_dot(text.utf8, !text.had_bom, out);
}

std::string read_file(const std::string &path) {
    auto io_error = [&](int code) {
        return Error(Errc::io,
                     "cannot read \"" + printable_utf8(path) + "\": " + std::generic_category().message(code));
    };
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) throw io_error(errno);
    // One read into a buffer of the file's size (padded for decode_text);
    // whatever follows, from a pipe or a file still growing, in blocks.
    std::string data;
    struct stat st {};
    const std::size_t expected =
        ::fstat(::fileno(f.get()), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0;
    data.reserve(expected + text_padding);
    data.resize(expected);
    data.resize(expected ? std::fread(data.data(), 1, expected, f.get()) : 0);
    char buf[1 << 16];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f.get())) > 0;) data.append(buf, n);
    // A directory opens fine and fails on the first read (EISDIR).
    if (std::ferror(f.get())) throw io_error(errno);
    return data;
}

}  // namespace dag
