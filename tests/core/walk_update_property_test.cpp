// Updates of a running walk against a brute-force model: every batch is made
// on a copy of the graph too, and the walk must refuse it exactly when the
// copy has a cycle, and otherwise end up with the copy's edges.
#include "walk/walker.hpp"

#include "graph/error.hpp"
#include "algorithms/validate.hpp"
#include "walk/walk_update.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

namespace dag {
namespace {

#ifdef DAG_TEST_SANITIZED
constexpr unsigned seeds = 10;
#else
constexpr unsigned seeds = 50;
#endif

// Every other vertex waits for the gate, which runs until opened.
struct Gate {
    VertexId id = no_vertex;
    std::atomic<bool> open{false};
    std::atomic<bool> entered{false};
};

Outcome wait_for_gate(void *context, Walk &, VertexId v, const char **) {
    auto *gate = static_cast<Gate *>(context);
    if (v != gate->id) return Outcome::ok;
    gate->entered = true;
    while (!gate->open.load()) std::this_thread::yield();
    return Outcome::ok;
}

template <class T>
const T &pick(const std::vector<T> &v, std::mt19937 &rng) {
    return v[rng() % v.size()];
}

// Makes `u` on `g` as Walk::apply does: vertices, connects, disconnects,
// removals; provisional ids become the ids the graph gives.
void make_on(Graph &g, const WalkUpdate &u) {
    std::vector<VertexId> ids;
    for (const auto &nv : u.vertices)
        ids.push_back(g.add_vertex(nv.name ? std::optional<std::string_view>(*nv.name) : std::nullopt, nv.user));
    auto real = [&](VertexId id) { return u.is_provisional(id) ? ids[u.provisional_index(id)] : id; };
    for (auto [a, b] : u.connects) g.connect(real(a), real(b));
    for (auto [a, b] : u.disconnects) g.disconnect(real(a), real(b));
    for (VertexId id : u.removals) g.remove_vertex(id);
}

// In a reverse walk dependencies wait for their dependents, so the gate is
// the vertex everything depends on instead of the one depending on all.
void check_against_model(bool reverse) {
    std::size_t cycles = 0, states = 0, applied = 0;
    for (unsigned seed = 1; seed <= seeds; ++seed) {
        std::mt19937 rng(seed);
        Graph g;
        Gate gate;
        gate.id = g.add_vertex(std::string_view("gate"), nullptr);
        // The edge that makes `v` wait for the gate, and its reverse.
        auto waits_for_gate = [&](VertexId v) {
            return reverse ? std::make_pair(gate.id, v) : std::make_pair(v, gate.id);
        };
        auto gate_waits_for = [&](VertexId v) {
            return reverse ? std::make_pair(v, gate.id) : std::make_pair(gate.id, v);
        };
        const int n = 8 + static_cast<int>(rng() % 32);
        std::vector<VertexId> ids;
        for (int i = 0; i < n; ++i) {
            ids.push_back(g.add_vertex(std::nullopt, nullptr));
            g.connect(waits_for_gate(ids.back()).first, waits_for_gate(ids.back()).second);
            for (int j = 0; j < i; ++j)
                if (rng() % 8 == 0) g.connect(ids[i], ids[j]);
        }
        WalkOptions o;
        o.threads = 2;
        o.timestamps = false;
        o.reverse = reverse;
        auto w = Walk::start(g, Visitor{wait_for_gate, &gate}, o, nullptr);
        // A failed assertion returns early: the gate must open before the
        // walk's destructor waits for it.
        struct OpenOnExit {
            std::atomic<bool> &open;
            ~OpenOnExit() { open = true; }
        } open_on_exit{gate.open};
        // The gate has started: from now on an edge making it wait is refused.
        while (!gate.entered.load()) std::this_thread::yield();
        std::size_t removed = 0;
        for (int round = 0; round < 60; ++round) {
            // Vertices that wait on the gate and that the batch may touch.
            std::vector<VertexId> live;
            for (VertexId v : g.vertices())
                if (v != gate.id) live.push_back(v);
            std::vector<std::pair<VertexId, VertexId>> inner;
            for (auto e : g.edges())
                if (e.first != gate.id && e.second != gate.id) inner.push_back(e);
            WalkUpdate u;
            std::vector<VertexId> touched;
            for (unsigned k = rng() % 3; k-- > 0;) {
                VertexId x = u.add_vertex(std::nullopt, nullptr, false);
                u.connects.push_back(waits_for_gate(x));
                if (rng() % 2) touched.push_back(u.connects.emplace_back(x, pick(live, rng)).second);
                if (rng() % 2) touched.push_back(u.connects.emplace_back(pick(live, rng), x).first);
            }
            for (unsigned k = 1 + rng() % 3; k-- > 0;) {
                VertexId a = pick(live, rng), b = pick(live, rng);
                touched.insert(touched.end(), {a, b});
                u.connects.emplace_back(a, b);
            }
            for (unsigned k = rng() % 3; k-- > 0 && !inner.empty();) {
                auto e = pick(inner, rng);
                touched.insert(touched.end(), {e.first, e.second});
                u.disconnects.push_back(e);
            }
            if (rng() % 10 == 0) {
                VertexId r = pick(live, rng);
                if (std::find(touched.begin(), touched.end(), r) == touched.end()) u.removals.push_back(r);
            }
            // The gate has started: making it wait is refused, after the
            // cycle check has moved the order for the rest of the batch.
            const bool poisoned = rng() % 7 == 0;
            if (poisoned) u.connects.push_back(gate_waits_for(u.add_vertex(std::nullopt, nullptr, false)));

            Graph model(g);
            make_on(model, u);
            const bool cycle = !cycle_report(model).empty();
            const auto before = g.edges();
            const std::size_t count = g.vertex_count();
            try {
                w->apply(u);
                ASSERT_FALSE(cycle) << "reverse " << reverse << " seed " << seed << " round " << round;
                ASSERT_FALSE(poisoned) << "seed " << seed << " round " << round;
                ASSERT_EQ(g.edges(), model.edges()) << "seed " << seed << " round " << round;
                ASSERT_EQ(g.vertex_count(), model.vertex_count());
                removed += u.removals.size();
                ++applied;
            } catch (const Error &e) {
                if (cycle) {
                    ASSERT_EQ(e.code(), Errc::cycle) << e.what();
                    ++cycles;
                } else {
                    ASSERT_TRUE(poisoned) << e.what();
                    ASSERT_EQ(e.code(), Errc::state) << e.what();
                    ++states;
                }
                ASSERT_EQ(g.edges(), before);
                ASSERT_EQ(g.vertex_count(), count);
            }
        }
        gate.open = true;
        // A vertex the updates lost would hang wait() for ever: give the
        // walk a minute, then fail with what is missing.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        while (!w->finished() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (!w->finished()) {
            ADD_FAILURE() << "seed " << seed << ": the walk never finished; a vertex was lost";
            std::abort();
        }
        w->wait();
        const WalkReport r = w->report();
        EXPECT_EQ(r.total(VertexStatus::ok), g.vertex_count()) << "seed " << seed;
        EXPECT_EQ(r.total(VertexStatus::not_run), removed) << "seed " << seed;
    }
    // The model saw every outcome.
    EXPECT_GT(cycles, 0u);
    EXPECT_GT(states, 0u);
    EXPECT_GT(applied, 0u);
}

TEST(WalkUpdateModel, RefusedExactlyWhenACycleWouldCloseAndOtherwiseMadeAsIs) {
    check_against_model(false);
}

TEST(WalkUpdateModel, SameInAReverseWalk) {
    check_against_model(true);
}

}  // namespace
}  // namespace dag
