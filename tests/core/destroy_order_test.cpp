// The destroy order step on hand-written plans (a chain, a diamond, the
// header's four-vertex example) and on random action sets: the apply graph
// stays acyclic, and along paths through vertices destroyed or left alone
// every destroy runs after the destroys of its dependents, a late destroy
// after its dependents' moves, and a change after an early destroy of its
// dependents.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "algo_test_support.hpp"
#include "algorithms/validate.hpp"
#include "build/destroy_order.hpp"
#include "build_test_support.hpp"

namespace dag {
namespace {

using test::EdgeSet;
using test::error_of;
using test::Plan;

Plan chain(Action a, Action b, Action c) {
    Plan p;
    p.add("a");
    p.add("b");
    p.add("c");
    p.g.connect(p.id("a"), p.id("b"));
    p.g.connect(p.id("b"), p.id("c"));
    p.of("a").action = a;
    p.of("b").action = b;
    p.of("c").action = c;
    return p;
}

// The apply graph of chain(a, b, c).
EdgeSet ordered_chain(Action a, Action b, Action c) {
    Plan p = chain(a, b, c);
    order_destroys(p.g, p.d);
    return p.edges();
}

TEST(DestroyOrder, ChainReplacedDestroysDependentsFirstThenCreates) {
    EXPECT_EQ(ordered_chain(Action::replace, Action::replace, Action::replace),
              (EdgeSet{{"a", "b"},
                       {"b", "c"},
                       {"a", "b (destroy)"},
                       {"b", "c (destroy)"},
                       {"b", "a (destroy)"},
                       {"c", "b (destroy)"},
                       {"b (destroy)", "a (destroy)"},
                       {"c (destroy)", "b (destroy)"},
                       {"a", "a (destroy)"},
                       {"b", "b (destroy)"},
                       {"c", "c (destroy)"}}));
}

TEST(DestroyOrder, ChainDeletedBecomesReversedDestroys) {
    Plan p = chain(Action::remove, Action::remove, Action::remove);
    const VertexId a = p.id("a");
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), (EdgeSet{{"b (destroy)", "a (destroy)"}, {"c (destroy)", "b (destroy)"}}));
    EXPECT_EQ(p.g.find("a (destroy)"), a) << "a deleted vertex keeps its id";
}

// Through a vertex left alone (a local between two resources), as
// Terraform follows a resource's dependencies.
TEST(DestroyOrder, DestroysAreOrderedThroughVerticesLeftAlone) {
    EXPECT_EQ(ordered_chain(Action::remove, Action::none, Action::remove),
              (EdgeSet{{"b", "c (destroy)"}, {"c (destroy)", "a (destroy)"}}));
}

// Through a vertex with an action, the rules chain and go no further: a is
// destroyed before b, whose update waits for it, and c's destroy before
// b's update, so c's destroy does not wait for a's (Terraform's would).
TEST(DestroyOrder, RulesStopAtAVertexWithAnAction) {
    EXPECT_EQ(ordered_chain(Action::remove, Action::update, Action::replace),
              (EdgeSet{{"b", "c"}, {"b", "a (destroy)"}, {"b", "c (destroy)"}, {"c", "c (destroy)"}}));
}

// What a replaced vertex depends on through a local is updated once its old
// instance is gone: a (replace) -> m -> b (update).
TEST(DestroyOrder, AnUpdateWaitsForAnEarlyDestroyThroughVerticesLeftAlone) {
    EXPECT_EQ(ordered_chain(Action::replace, Action::none, Action::update),
              (EdgeSet{{"a", "b"}, {"b", "c"}, {"c", "a (destroy)"}, {"a", "a (destroy)"}}));
}

// With no action the step has nothing to do: a cycle is the validation's to
// report (the build blamed it on "destroy order" although no vertex had an
// action).
TEST(DestroyOrder, WithNoActionACycleIsLeftToTheValidation) {
    Plan p = chain(Action::none, Action::none, Action::none);
    p.g.connect(p.id("c"), p.id("a"));
    const EdgeSet before = p.edges();
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), before);
}

// Terraform's ForcedCBDTransformer looks at all of a vertex's descendants:
// a's old instance reaches c's through b, so c's destroy is late; it waits
// for b and, through b, for a to move to the new c, and comes after a's.
TEST(DestroyOrder, CreateBeforeDestroyPassesOnThroughVerticesLeftAlone) {
    EXPECT_EQ(ordered_chain(Action::create_before_destroy, Action::none, Action::replace),
              (EdgeSet{{"a", "b"}, {"b", "c"}, {"c (destroy)", "b"}, {"c (destroy)", "a"},
                       {"c (destroy)", "a (destroy)"}, {"a (destroy)", "a"}, {"c (destroy)", "c"}}));
}

TEST(DestroyOrder, ARebuildAppliesOnlyActionsSetSince) {
    Plan p = chain(Action::remove, Action::none, Action::replace);
    order_destroys(p.g, p.d);
    const EdgeSet first = p.edges();
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), first) << "the actions applied are spent";
    EXPECT_TRUE(p.g.has_name("a (destroy)"));
    EXPECT_FALSE(p.g.has_name("a (destroy) (destroy)"));
    p.of("b").action = Action::update;
    p.d.of(p.g.find("c (destroy)")).action = Action::remove;
    order_destroys(p.g, p.d);
    EXPECT_TRUE(p.g.has_name("c (destroy) (destroy)")) << "an action set since is applied";
    EXPECT_EQ(p.g.vertex_count(), 4u);
}

TEST(DestroyOrder, DiamondCreateBeforeDestroyKeepsTheOldUntilDependentsMoved) {
    Plan p;
    for (const char *n : {"a", "b", "c", "d"}) p.add(n);
    p.g.connect(p.id("a"), p.id("b"));
    p.g.connect(p.id("a"), p.id("c"));
    p.g.connect(p.id("b"), p.id("d"));
    p.g.connect(p.id("c"), p.id("d"));
    p.of("b").action = Action::update;
    p.of("c").action = Action::update;
    p.of("d").action = Action::create_before_destroy;
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), (EdgeSet{{"a", "b"},
                                  {"a", "c"},
                                  {"b", "d"},
                                  {"c", "d"},
                                  {"d (destroy)", "b"},
                                  {"d (destroy)", "c"},
                                  {"d (destroy)", "d"}}));
}

TEST(DestroyOrder, DiamondReplacedDestroysFirst) {
    Plan p;
    for (const char *n : {"a", "b", "c", "d"}) p.add(n);
    p.g.connect(p.id("a"), p.id("b"));
    p.g.connect(p.id("a"), p.id("c"));
    p.g.connect(p.id("b"), p.id("d"));
    p.g.connect(p.id("c"), p.id("d"));
    p.of("d").action = Action::replace;
    p.of("b").action = Action::update;
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), (EdgeSet{{"a", "b"},
                                  {"a", "c"},
                                  {"b", "d"},
                                  {"c", "d"},
                                  {"b", "d (destroy)"},
                                  {"c", "d (destroy)"},
                                  {"d", "d (destroy)"}}));
}

// The example written in dag.h under dag_builder_add_destroy_order().
TEST(DestroyOrder, HeaderFourVertexExample) {
    Plan p;
    for (const char *n : {"lb", "web", "subnet", "vpc"}) p.add(n);
    p.g.connect(p.id("lb"), p.id("web"));
    p.g.connect(p.id("web"), p.id("subnet"));
    p.g.connect(p.id("subnet"), p.id("vpc"));
    p.of("lb").action = Action::update;
    p.of("web").action = Action::create_before_destroy;
    p.of("subnet").action = Action::replace;
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), (EdgeSet{{"lb", "web"},
                                  {"web", "subnet"},
                                  {"subnet", "vpc"},
                                  {"subnet (destroy)", "web (destroy)"},
                                  {"web (destroy)", "lb"},
                                  {"subnet (destroy)", "web"},
                                  {"web (destroy)", "web"},
                                  {"subnet (destroy)", "subnet"}}));
}

// The same with web replaced destroy-then-create: both destroys are early.
TEST(DestroyOrder, HeaderFourVertexExampleWithoutCreateBeforeDestroy) {
    Plan p;
    for (const char *n : {"lb", "web", "subnet", "vpc"}) p.add(n);
    p.g.connect(p.id("lb"), p.id("web"));
    p.g.connect(p.id("web"), p.id("subnet"));
    p.g.connect(p.id("subnet"), p.id("vpc"));
    p.of("lb").action = Action::update;
    p.of("web").action = Action::replace;
    p.of("subnet").action = Action::replace;
    order_destroys(p.g, p.d);
    EXPECT_EQ(p.edges(), (EdgeSet{{"lb", "web"},
                                  {"web", "subnet"},
                                  {"subnet", "vpc"},
                                  {"subnet (destroy)", "web (destroy)"},
                                  {"lb", "web (destroy)"},
                                  {"web", "subnet (destroy)"},
                                  {"subnet", "web (destroy)"},
                                  {"web", "web (destroy)"},
                                  {"subnet", "subnet (destroy)"}}));
}

TEST(DestroyOrder, CyclicInputRefusedInTerraformsWordsAndUnchanged) {
    Plan p = chain(Action::replace, Action::none, Action::none);
    p.g.connect(p.id("c"), p.id("a"));
    EXPECT_EQ(error_of(Errc::cycle, [&] { order_destroys(p.g, p.d); }), "Cycle:\n  a\n  b\n  c");
    EXPECT_EQ(p.g.vertex_count(), 3u);
}

TEST(DestroyOrder, TakenDestroyNameRefusedBeforeAnyChange) {
    Plan p = chain(Action::remove, Action::none, Action::replace);
    p.add("c (destroy)");
    error_of(Errc::duplicate_name, [&] { order_destroys(p.g, p.d); });
    EXPECT_TRUE(p.g.has_name("a"));
    EXPECT_EQ(p.g.edge_count(), 2u);
}

bool reaches(const Graph &g, VertexId from, VertexId to) {
    std::set<VertexId> seen{from};
    std::deque<VertexId> queue{from};
    while (!queue.empty()) {
        VertexId v = queue.front();
        queue.pop_front();
        if (v == to) return true;
        for (VertexId d : g.dependencies(v))
            if (seen.insert(d).second) queue.push_back(d);
    }
    return false;
}

bool destroyed(Action a) { return a == Action::remove || a == Action::replace || a == Action::create_before_destroy; }
bool changed(Action a) { return a != Action::none && a != Action::remove; }

// Whether ids[i] reaches ids[j] in `g` through vertices `inner` takes only.
template <class Inner>
bool path_through(const Graph &g, const std::vector<Action> &actions, const std::vector<VertexId> &ids, int i, int j,
                  const Inner &inner) {
    std::map<VertexId, int> index;
    for (int k = 0; k < static_cast<int>(ids.size()); ++k) index[ids[k]] = k;
    std::set<VertexId> seen{ids[i]};
    std::deque<VertexId> queue{ids[i]};
    while (!queue.empty()) {
        const VertexId v = queue.front();
        queue.pop_front();
        if (v == ids[j]) return true;
        for (VertexId d : g.dependencies(v))
            if ((d == ids[j] || inner(actions[index.at(d)])) && seen.insert(d).second) queue.push_back(d);
    }
    return false;
}

TEST(DestroyOrderProperty, RandomActionSetsStayAcyclicAndDestroyDependentsFirst) {
    std::mt19937 rng(18);
    for (int round = 0; round < 500; ++round) {
        Plan p;
        const int n = std::uniform_int_distribution<int>(1, 14)(rng);
        std::vector<VertexId> ids;
        std::vector<Action> actions;
        for (int i = 0; i < n; ++i) {
            ids.push_back(p.add("v" + std::to_string(i)));
            actions.push_back(static_cast<Action>(rng() % 6));
            p.d.of(ids.back()).action = actions.back();
        }
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j)
                if (rng() % 4 == 0) p.g.connect(ids[i], ids[j]);
        const Graph input(p.g);
        order_destroys(p.g, p.d);
        ASSERT_EQ(cycle_report(p.g), "") << "round " << round;
        // Late exactly when a create-before-destroy vertex depends on it,
        // by any path (or it is one).
        const auto late = [&](int i) {
            bool found = false;
            for (int k = 0; k < n; ++k)
                found = found || (actions[k] == Action::create_before_destroy && reaches(input, ids[k], ids[i]));
            return destroyed(actions[i]) && found;
        };
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (i == j || !reaches(input, ids[i], ids[j])) continue;
                const std::string a = "v" + std::to_string(i), b = "v" + std::to_string(j);
                // Destroys through vertices destroyed or left alone; the
                // other rules through vertices left alone (through one with
                // an action they chain, which orders less than Terraform).
                const bool ordered = path_through(input, actions, ids, i, j,
                                                  [](Action inner) { return inner == Action::none || destroyed(inner); });
                const bool through_alone =
                    path_through(input, actions, ids, i, j, [](Action inner) { return inner == Action::none; });
                if (ordered && destroyed(actions[i]) && destroyed(actions[j])) {
                    EXPECT_TRUE(reaches(p.g, p.g.find(destroy_name(b)), p.g.find(destroy_name(a))))
                        << "round " << round << ": " << b << "'s destroy after " << a << "'s";
                }
                const bool late_j = late(j);
                if (through_alone && destroyed(actions[j]) && changed(actions[i]) && late_j) {
                    EXPECT_TRUE(reaches(p.g, p.g.find(destroy_name(b)), ids[i]))
                        << "round " << round << ": " << b << "'s old instance outlives " << a << "'s move";
                }
                const bool late_i = late(i);
                if (through_alone && destroyed(actions[i]) && !late_i && changed(actions[j])) {
                    EXPECT_TRUE(reaches(p.g, ids[j], p.g.find(destroy_name(a))))
                        << "round " << round << ": " << b << " changes after " << a << "'s early destroy";
                }
                if (actions[i] != Action::remove && actions[j] != Action::remove &&
                    input.has_edge(ids[i], ids[j])) {
                    EXPECT_TRUE(p.g.has_edge(ids[i], ids[j])) << "round " << round;
                }
            }
            if (actions[i] == Action::replace || actions[i] == Action::create_before_destroy) {
                const VertexId c = ids[i], d = p.g.find(destroy_name("v" + std::to_string(i)));
                EXPECT_TRUE(p.g.has_edge(c, d) != p.g.has_edge(d, c)) << "round " << round;
                EXPECT_EQ(p.g.has_edge(d, c), late(i)) << "round " << round << ": v" << i;
            }
        }
    }
}

}  // namespace
}  // namespace dag
