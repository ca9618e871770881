// The `pools` attribute of a graph file's vertices: which named limits each
// needs, beside those `--pool-match` gives by name.
#pragma once

#include <dag/dag.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dagcli {

struct FilePools {
    std::map<std::string, std::vector<std::string>> by_name;
    // JSON's unnamed vertices, by id (which dag_select keeps).
    std::map<uint64_t, std::vector<std::string>> by_id;
    // The file, as messages name it.
    std::string shown;

    // The pools the file gives vertex `id` of the graph read from it, whose
    // name is `name` (null for an unnamed vertex); null for none.
    const std::vector<std::string> *of(uint64_t id, const char *name) const;
};

// DOT: `aws_db [pools="aws,rds"]`; JSON: `{"id": 3, "name": "aws_db",
// "pools": ["aws", "rds"]}`. `text` is the file libdag imported as `format`
// (AUTO: JSON when it starts with '{'); `shown` names it in messages. A
// malformed attribute (an empty name, a JSON value that is not an array of
// strings) throws Failure with exit status 2.
FilePools file_pools(const std::string &text, dag_format format, const std::string &shown);

}  // namespace dagcli
