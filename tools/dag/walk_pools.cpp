#include "walk_pools.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "libdag.hpp"

namespace dagcli {

namespace {

// "left=right" split at the last '=', both sides non-empty.
std::pair<std::string, std::string> split(const std::string &given, const char *form) {
    const auto eq = given.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == given.size())
        throw Failure("'" + given + "': expected " + form, bad_input);
    return {given.substr(0, eq), given.substr(eq + 1)};
}

size_t capacity(const std::string &given, const std::string &digits) {
    const bool numeric =
        !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!numeric) throw Failure("'" + given + "': the capacity is not a whole number", bad_input);
    // More than any walk can have in flight means no limit; past 18 digits
    // it would not fit, and cannot be what was meant.
    if (digits.find_first_not_of('0') != std::string::npos && digits.size() - digits.find_first_not_of('0') > 18)
        throw Failure("'" + given + "': the capacity is too large (at most 18 digits)", bad_input);
    return static_cast<size_t>(std::stoull(digits));
}

// The checks of one value's form, shared by the parser's validators and
// WalkPools: "'aws=x': the capacity is not a whole number".
std::pair<std::string, size_t> check_pool(const std::string &given) {
    auto [name, count] = split(given, "NAME=N");
    // --pool-match splits at its last '=' (a pattern may hold one): a
    // pool named with one could be declared and never matched.
    if (name.find('=') != std::string::npos) throw Failure("'" + given + "': a pool name cannot hold '='", bad_input);
    return {name, capacity(given, count)};
}

std::pair<std::string, std::string> check_pool_match(const std::string &given) {
    return split(given, "GLOB=NAME");
}

// A validator that gives `check`'s refusal as CLI11's message.
template <class Check>
CLI::Validator form_check(Check check) {
    return CLI::Validator(
        [check](std::string &given) -> std::string {
            try {
                check(given);
            } catch (const Failure &failure) {
                return failure.what();
            }
            return {};
        },
        "");
}

}  // namespace

void add_pool_options(CLI::App &command, PoolOptions &options) {
    // The form of each value is checked as the command line is parsed, so a
    // malformed one is a usage error ("dag walk: --pool: ...", with the help
    // to read), told before the graph is read, as other options' values are.
    command.add_option("--pool", options.pools,
                       "Declare a named limit: at most N vertices that need pool NAME run at once "
                       "(repeatable)")
        ->type_name("NAME=N")
        ->check(form_check(check_pool))
        // One value a time: it took every word after it, the graph file too.
        ->allow_extra_args(false);
    command.add_option("--pool-match", options.matches,
                       "Vertices whose names match the shell pattern GLOB (fnmatch) need a slot in "
                       "pool NAME; a vertex matching several patterns needs all their pools, and "
                       "those its `pools` attribute in the graph file names too (DOT: "
                       "pools=\"aws,rds\"; JSON: \"pools\": [\"aws\", \"rds\"]) (repeatable)")
        ->type_name("GLOB=NAME")
        ->check(form_check(check_pool_match))
        ->allow_extra_args(false);
    // What the values say together is the command line's too: a pool
    // declared twice, a match naming no declared pool are usage errors,
    // told as the malformed values are, before the graph is read.
    command.parse_complete_callback([&options] {
        std::vector<std::string> names;
        for (const std::string &given : options.pools) {
            std::string name = check_pool(given).first;
            if (std::find(names.begin(), names.end(), name) != names.end())
                throw CLI::ValidationError("--pool", "'" + given + "': pool '" + name + "' is declared twice");
            names.push_back(std::move(name));
        }
        for (const std::string &given : options.matches) {
            const std::string pool = check_pool_match(given).second;
            if (std::find(names.begin(), names.end(), pool) == names.end())
                throw CLI::ValidationError("--pool-match", "'" + given + "': no --pool declares '" + pool + "'");
        }
    });
}

// The options were checked, each value and all together, as the command
// line was parsed (add_pool_options).
WalkPools::WalkPools(const dag_graph *g, const PoolOptions &options, const FilePools &file) {
    for (const std::string &given : options.pools) {
        auto [name, count] = check_pool(given);
        capacities_.push_back(count);
        names_.push_back(std::move(name));
    }
    std::vector<std::pair<std::string, std::string>> matches;
    for (const std::string &given : options.matches) matches.push_back(check_pool_match(given));
    // A pattern that matches nothing limits nothing: say so, since a
    // typo or Terraform's "[root] " prefix would otherwise go unnoticed.
    std::vector<bool> matched(matches.size());
    if (!matches.empty() || !file.by_name.empty() || !file.by_id.empty()) {
        dag_ids *raw = nullptr;
        dag_error *err = nullptr;
        check(dag_vertices(g, &raw, &err), &err);
        for (uint64_t id : take(raw)) {
            const char *own_name = nullptr;
            check(dag_vertex_name(g, id, &own_name, &err), &err);
            const std::string name = own_name ? own_name : std::to_string(id);
            std::set<std::string> needs;
            if (const std::vector<std::string> *attribute = file.of(id, own_name))
                needs.insert(attribute->begin(), attribute->end());
            for (const std::string &pool : needs)
                if (std::find(names_.begin(), names_.end(), pool) == names_.end())
                    throw Failure(file.shown + ": vertex '" + name + "': its pools attribute names '" + pool +
                                      "', which no --pool declares",
                                  bad_input);
            for (std::size_t m = 0; m < matches.size(); ++m)
                if (fnmatch(matches[m].first.c_str(), name.c_str(), 0) == 0) {
                    needs.insert(matches[m].second);
                    matched[m] = true;
                }
            for (const std::string &pool : needs) {
                const auto p = std::find(names_.begin(), names_.end(), pool) - names_.begin();
                if (capacities_[p] == 0)
                    throw Failure("vertex '" + name + "' needs pool '" + pool + "', whose capacity is 0",
                                  bad_input);
                need_vertices_.push_back(id);
                need_names_.push_back(pool);
            }
        }
    }
    for (std::size_t m = 0; m < matches.size(); ++m)
        if (!matched[m])
            std::fprintf(stderr, "dag: warning: --pool-match '%s=%s' matches no vertex\n", matches[m].first.c_str(),
                         matches[m].second.c_str());
    for (const std::string &n : names_) name_ptrs_.push_back(n.c_str());
    for (const std::string &n : need_names_) need_ptrs_.push_back(n.c_str());
}

void WalkPools::keep_only(const dag_graph *walked) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < need_vertices_.size(); ++i) {
        if (!dag_has_vertex(walked, need_vertices_[i])) continue;
        if (kept != i) {
            need_vertices_[kept] = need_vertices_[i];
            need_names_[kept] = std::move(need_names_[i]);
        }
        ++kept;
    }
    need_vertices_.resize(kept);
    need_names_.resize(kept);
    need_ptrs_.clear();
    for (const std::string &n : need_names_) need_ptrs_.push_back(n.c_str());
}

void WalkPools::apply(dag_walk_options &o) const {
    o.pool_names = name_ptrs_.data();
    o.pool_capacities = capacities_.data();
    o.pool_count = names_.size();
    o.pool_need_vertices = need_vertices_.data();
    o.pool_need_names = need_ptrs_.data();
    o.pool_need_count = need_vertices_.size();
}

}  // namespace dagcli
