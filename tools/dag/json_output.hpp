// --json: a command's result as one JSON document on standard output, for
// scripts; the same facts as its text output.
#pragma once

#include <CLI/CLI.hpp>
#include <dag/dag.h>

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace dagcli {

// ordered_json keeps the keys in the order the README documents them.
using Json = nlohmann::ordered_json;

// Adds the --json flag to a command.
void add_json_flag(CLI::App &command, bool &json);

// A vertex as JSON output shows it: its name, a string, or, unnamed, its id,
// a number (text output prints both alike, so "1" may be either there).
Json vertex_json(const dag_graph *g, uint64_t id);

// vertex_json of each, in the order given.
Json names_json(const dag_graph *g, const std::vector<uint64_t> &ids);

// Writes the document and a newline to standard output.
void print_json(const Json &document);

}  // namespace dagcli
