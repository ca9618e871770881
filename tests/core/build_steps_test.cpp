// The building steps on hand-written cases modelled on Terraform's own
// behaviour: references into modules and counted instances, providers shared
// across resources, root insertion, pruning, and the builder's ordering,
// timing, failures and validation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algo_test_support.hpp"
#include "build/address_index.hpp"
#include "build/builder.hpp"
#include "build/prune.hpp"
#include "build/references.hpp"
#include "build/root_step.hpp"
#include "build/shared_vertices.hpp"
#include "build_test_support.hpp"

namespace dag {
namespace {

using test::EdgeSet;
using test::error_of;
using test::Plan;

TEST(References, LongestPrefixCutAtDotsAndBrackets) {
    Plan p;
    for (const char *n : {"web", "web0", "mod", "out"}) p.add(n);
    p.of("web").provides = {"aws_instance.web"};
    p.of("web0").provides = {"aws_instance.web[0]"};
    p.of("mod").provides = {"module.net"};
    p.of("out").references = {"aws_instance.web[0].id", "aws_instance.web[1].id", "module.net.output.subnet_id"};
    std::vector<std::string> warnings;
    resolve_references(p.g, p.d, UnresolvedPolicy::error, warnings);
    EXPECT_EQ(p.edges(), (EdgeSet{{"out", "web0"}, {"out", "web"}, {"out", "mod"}}));
    EXPECT_TRUE(warnings.empty());
}

// Terraform's ReferenceMap: module.net[0].x, else module.net.x (what the
// output provides besides module.net), else module.net[0], else module.net.
TEST(References, ACountedModulesOutputFallsBackToTheOutputOfTheModuleCall) {
    Plan p;
    for (const char *n : {"call", "out_x", "out_y", "user"}) p.add(n);
    p.of("call").provides = {"module.net"};
    p.of("out_x").provides = {"module.net", "module.net.x"};
    p.of("out_y").provides = {"module.net", "module.net.y"};
    p.of("user").references = {"module.net[0].x"};
    std::vector<std::string> warnings;
    resolve_references(p.g, p.d, UnresolvedPolicy::error, warnings);
    EXPECT_EQ(p.edges(), (EdgeSet{{"user", "out_x"}}));

    Plan q;
    for (const char *n : {"call", "instance", "out_x", "user", "other"}) q.add(n);
    q.of("call").provides = {"module.net"};
    q.of("instance").provides = {"module.net[0]"};
    q.of("out_x").provides = {"module.net.x"};
    q.of("user").references = {"module.net[0].x", R"(module.net["k"].x)"};
    // No output z: the instance, else the call.
    q.of("other").references = {"module.net[0].z", "module.net[1].z"};
    resolve_references(q.g, q.d, UnresolvedPolicy::error, warnings);
    EXPECT_EQ(q.edges(), (EdgeSet{{"user", "out_x"}, {"other", "instance"}, {"other", "call"}}));
    EXPECT_TRUE(warnings.empty());
}

// Only whole keys are dropped: a key that does not end an address part
// (`a[0]b`) leaves no fallback that would join the parts around it.
TEST(References, AKeyInsideAPartIsNotDropped) {
    Plan p;
    for (const char *n : {"joined", "a", "user"}) p.add(n);
    p.of("joined").provides = {"ab", "ab.c"};
    p.of("a").provides = {"a"};
    p.of("user").references = {"a[0]b", "a[0]b.c"};
    std::vector<std::string> warnings;
    resolve_references(p.g, p.d, UnresolvedPolicy::error, warnings);
    EXPECT_EQ(p.edges(), (EdgeSet{{"user", "a"}}));
    EXPECT_TRUE(warnings.empty());
}

TEST(References, DoesNotCutInsideBracketsOrQuotes) {
    Plan p;
    p.add("p");
    p.add("short");
    p.add("user");
    p.of("p").provides = {R"(provider["registry.terraform.io/hashicorp/aws"])"};
    p.of("short").provides = {R"(provider["registry)"};
    p.of("user").references = {R"(provider["registry.terraform.io/hashicorp/aws"].alias)",
                               R"(each["a.b"].x)"};
    std::vector<std::string> warnings;
    resolve_references(p.g, p.d, UnresolvedPolicy::warn, warnings);
    EXPECT_EQ(p.edges(), (EdgeSet{{"user", "p"}}));
    EXPECT_EQ(warnings, std::vector<std::string>{R"(user: nothing provides "each["a.b"].x")"});
}

TEST(References, UnresolvedReportedAllAtOnceSortedAndGraphUnchanged) {
    Plan p;
    p.add("b_vertex");
    p.add("a_vertex");
    p.add("vpc");
    p.of("vpc").provides = {"aws_vpc.main"};
    p.of("b_vertex").references = {"var.zone", "aws_vpc.main.id"};
    p.of("a_vertex").references = {"var.region", "local.x"};
    std::vector<std::string> warnings;
    const std::string msg = error_of(Errc::not_found, [&] { resolve_references(p.g, p.d, UnresolvedPolicy::error, warnings); });
    EXPECT_EQ(msg, "3 unresolved references:\n"
                   "  a_vertex: nothing provides \"local.x\"\n"
                   "  a_vertex: nothing provides \"var.region\"\n"
                   "  b_vertex: nothing provides \"var.zone\"");
    EXPECT_EQ(p.g.edge_count(), 0u);
    resolve_references(p.g, p.d, UnresolvedPolicy::warn, warnings);
    EXPECT_EQ(warnings.size(), 3u);
    EXPECT_EQ(p.edges(), (EdgeSet{{"b_vertex", "vpc"}}));
}

TEST(References, SelfReferencesAreIgnored) {
    Plan p;
    p.add("web");
    p.of("web").provides = {"aws_instance.web"};
    p.of("web").references = {"aws_instance.web.id"};
    std::vector<std::string> warnings;
    resolve_references(p.g, p.d, UnresolvedPolicy::error, warnings);
    EXPECT_EQ(p.g.edge_count(), 0u);
    EXPECT_TRUE(warnings.empty());
}

TEST(References, EveryProviderOfTheAddressIsADependency) {
    Plan p;
    for (const char *n : {"out1", "out2", "user"}) p.add(n);
    p.of("out1").provides = {"module.net"};
    p.of("out2").provides = {"module.net"};
    p.of("user").references = {"module.net.subnet"};
    std::vector<std::string> warnings;
    resolve_references(p.g, p.d, UnresolvedPolicy::error, warnings);
    EXPECT_EQ(p.edges(), (EdgeSet{{"user", "out1"}, {"user", "out2"}}));
}

TEST(AddressIndex, ExactLookupIgnoresPrefixes) {
    Plan p;
    p.add("a");
    p.of("a").provides = {"x.y"};
    AddressIndex index(p.g, p.d);
    EXPECT_EQ(index.exact("x.y"), std::vector<VertexId>{p.id("a")});
    EXPECT_TRUE(index.exact("x.y.z").empty());
    EXPECT_EQ(index.longest_prefix("x.y.z"), std::vector<VertexId>{p.id("a")});
    EXPECT_TRUE(index.longest_prefix("x").empty());
}

const std::string aws = R"(provider["registry.terraform.io/hashicorp/aws"])";

TEST(Shared, ProviderCreatedOnceWithCloseAfterEveryUser) {
    Plan p;
    for (const char *n : {"vpc", "subnet", "other"}) p.add(n);
    p.of("vpc").needs = {aws};
    p.of("subnet").needs = {aws};
    attach_shared(p.g, p.d, SharedOptions{true});
    EXPECT_EQ(p.edges(), (EdgeSet{{"vpc", aws},
                                  {"subnet", aws},
                                  {aws + " (close)", aws},
                                  {aws + " (close)", "vpc"},
                                  {aws + " (close)", "subnet"}}));
    EXPECT_EQ(p.g.vertex_count(), 5u);
    attach_shared(p.g, p.d, SharedOptions{true});
    EXPECT_EQ(p.g.vertex_count(), 5u) << "a second run finds the provider it created";
}

TEST(Shared, DeclaredProviderIsUsedAndNotAttachedToItself) {
    Plan p;
    p.add("[root] aws");
    p.add("web");
    p.of("[root] aws").provides = {aws};
    p.of("[root] aws").needs = {aws};
    p.of("web").needs = {aws};
    attach_shared(p.g, p.d, SharedOptions{false});
    EXPECT_EQ(p.edges(), (EdgeSet{{"web", "[root] aws"}}));
    EXPECT_EQ(p.g.vertex_count(), 2u);
}

// Terraform's CloseProviderTransformer connects the close to the provider
// itself: a provider that only it needs left the close unconnected, free to
// run before the provider.
TEST(Shared, CloseComesAfterTheSharedVertexAlsoWhenNoOtherVertexNeedsIt) {
    Plan p;
    p.add("p");
    p.of("p").provides = {"k"};
    p.of("p").needs = {"k"};
    attach_shared(p.g, p.d, SharedOptions{true});
    EXPECT_EQ(p.edges(), (EdgeSet{{"p (close)", "p"}}));
}

TEST(Root, AddedOverEveryVertexNothingDependsOn) {
    Plan p;
    for (const char *n : {"a", "b", "c"}) p.add(n);
    p.g.connect(p.id("a"), p.id("c"));
    add_root(p.g, "root");
    EXPECT_EQ(p.edges(), (EdgeSet{{"a", "c"}, {"root", "a"}, {"root", "b"}}));
    const VertexId r = p.id("root");
    EXPECT_EQ(add_root(p.g, "root"), r) << "a single root is kept";
    EXPECT_EQ(p.g.vertex_count(), 4u);
}

TEST(Root, NameTakenIsAnError) {
    Plan p;
    p.add("root");
    p.add("x");
    error_of(Errc::duplicate_name, [&] { add_root(p.g, "root"); });
}

TEST(Prune, RemovesUnusedRepeatedlyAndAsksOncePerVertex) {
    Plan p;
    for (const char *n : {"out", "local", "var", "res"}) p.add(n);
    p.g.connect(p.id("out"), p.id("local"));
    p.g.connect(p.id("local"), p.id("var"));
    p.g.connect(p.id("res"), p.id("var"));
    std::vector<std::string> asked;
    const std::size_t removed = prune(p.g, [&](VertexId v) {
        asked.push_back(p.g.display_name(v));
        return p.g.display_name(v) != "res";
    });
    EXPECT_EQ(removed, 2u);
    EXPECT_EQ(p.edges(), (EdgeSet{{"res", "var"}}));
    EXPECT_EQ(asked, (std::vector<std::string>{"out", "res", "local"}));
}

// A wave of unused vertices goes at once: pruning every leaf of a hub, then
// the hub.
TEST(Prune, TheLeavesOfAHubAndThenTheHub) {
    Plan p;
    p.add("hub");
    for (int i = 0; i < 50; ++i) {
        p.add("leaf" + std::to_string(i));
        p.g.connect(p.id("leaf" + std::to_string(i)), p.id("hub"));
    }
    std::vector<std::string> asked;
    EXPECT_EQ(prune(p.g,
                    [&](VertexId v) {
                        asked.push_back(p.g.display_name(v));
                        return true;
                    }),
              51u);
    EXPECT_EQ(p.g.vertex_count(), 0u);
    EXPECT_EQ(p.g.edge_count(), 0u);
    ASSERT_EQ(asked.size(), 51u);
    EXPECT_EQ(asked.back(), "hub") << "asked once nothing depended on it";
}

TEST(Builder, RunsStepsInOrderAndObservesCounts) {
    Plan p;
    std::vector<std::string> warnings;
    BuildContext c{p.g, p.d, warnings};
    Builder b;
    b.add_step("add", [](BuildContext &ctx) { ctx.graph.add_vertex("a", nullptr); });
    b.add_step("add2", [](BuildContext &ctx) {
        VertexId x = ctx.graph.add_vertex("b", nullptr);
        ctx.graph.connect(x, ctx.graph.find("a"));
    });
    std::vector<std::string> seen;
    BuildOptions o;
    o.observer = [&](const StepReport &r) {
        seen.push_back(r.name + " " + std::to_string(r.index) + " " + std::to_string(r.vertices_before) + "/" +
                       std::to_string(r.edges_before) + " -> " + std::to_string(r.vertices_after) + "/" +
                       std::to_string(r.edges_after));
        EXPECT_GE(r.duration.count(), 0);
    };
    b.run(c, o);
    EXPECT_EQ(seen, (std::vector<std::string>{"add 0 0/0 -> 1/0", "add2 1 1/0 -> 2/1"}));
    EXPECT_TRUE(b.failed_step().empty());
}

TEST(Builder, FailingStepStopsTheBuildUnderItsName) {
    Plan p;
    std::vector<std::string> warnings;
    BuildContext c{p.g, p.d, warnings};
    Builder b;
    bool later_ran = false;
    b.add_step("first", [](BuildContext &) { throw Error(Errc::not_found, "nothing here"); });
    b.add_step("later", [&](BuildContext &) { later_ran = true; });
    EXPECT_EQ(error_of(Errc::not_found, [&] { b.run(c, {}); }), "step 'first': nothing here");
    EXPECT_FALSE(later_ran);
    EXPECT_EQ(b.failed_step(), "first");
}

TEST(Builder, ValidatesAtTheEndUnlessToldNot) {
    Plan p;
    p.add("a");
    p.add("b");
    std::vector<std::string> warnings;
    BuildContext c{p.g, p.d, warnings};
    Builder b;
    EXPECT_EQ(error_of(Errc::multiple_roots, [&] { b.run(c, {}); }), "validation: multiple roots: a, b");
    BuildOptions no_root_rule;
    no_root_rule.single_root = false;
    b.run(c, no_root_rule);
    p.g.connect(p.id("a"), p.id("b"));
    p.g.connect(p.id("b"), p.id("a"));
    BuildOptions unchecked;
    unchecked.validate = false;
    b.run(c, unchecked);
    EXPECT_EQ(error_of(Errc::cycle, [&] { b.run(c, no_root_rule); }), "validation: Cycle:\n  a\n  b");
}

TEST(Builder, StepWithoutNameIsRefused) {
    Builder b;
    error_of(Errc::invalid_argument, [&] { b.add_step("", [](BuildContext &) {}); });
}

}  // namespace
}  // namespace dag
