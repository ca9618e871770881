// Terraform's internal/dag/walk_test.go, ported to the C API.
//
// Terraform's bare Walker runs an edge's source before its target; libdag's
// dag_connect(a, b) means "a depends on b" (b first), so each edge below is
// written the other way round to keep Terraform's expected orders. Terraform
// feeds a changed graph to Walker.Update; here changes go through
// dag_walk_apply, and a walk ends when its last vertex finished (there is no
// later Update to wait for), so "add a vertex after 2 ran" happens inside 2's
// callback.
#include <chrono>
#include <condition_variable>

#include "walk_test_support.hpp"

namespace {

struct TfGraph {
    GraphPtr g = new_graph();
    uint64_t v[5] = {};
    uint64_t operator[](int i) const { return v[i]; }
    void add_all(int n) {
        for (int i = 1; i <= n; ++i) v[i] = add(g.get(), std::to_string(i).c_str());
    }
    // Terraform's Connect(from, to) for the bare Walker: from runs first.
    void tf_connect(int from, int to) { EXPECT_EQ(dag_connect(g.get(), v[to], v[from], nullptr), DAG_OK); }
};

UpdatePtr update() {
    dag_walk_update *u = nullptr;
    EXPECT_EQ(dag_walk_update_new(&u, nullptr), DAG_OK);
    return UpdatePtr(u);
}

TEST(TerraformWalker, Basic) {
    TfGraph t;
    t.add_all(2);
    t.tf_connect(1, 2);
    for (int i = 0; i < 50; ++i) {
        Recorder rec;
        ReportPtr report;
        ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
        EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1], t[2]}));
    }
}

TEST(TerraformWalker, UpdateWithNothing) {
    TfGraph t;
    t.add_all(2);
    t.tf_connect(1, 2);
    for (int i = 0; i < 50; ++i) {
        Recorder rec;
        rec.body = [&](dag_walker *w, uint64_t, const char **) {
            auto u = update();
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
            return DAG_WALK_OK;
        };
        ReportPtr report;
        ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
    }
}

TEST(TerraformWalker, Error) {
    TfGraph t;
    t.add_all(4);
    t.tf_connect(1, 2);
    t.tf_connect(2, 3);
    t.tf_connect(3, 4);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v != t[2]) return DAG_WALK_OK;
        *msg = "error";
        return DAG_WALK_FAILED;
    };
    ReportPtr report;
    EXPECT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_E_WALK_FAILED);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1], t[2]}));  // 2 is recorded too: the recorder runs first
    EXPECT_EQ(status_of(report.get(), t[3]), DAG_VERTEX_UPSTREAM_FAILED);
    EXPECT_EQ(status_of(report.get(), t[4]), DAG_VERTEX_UPSTREAM_FAILED);
}

TEST(TerraformWalker, NewVertex) {
    TfGraph t;
    t.add_all(2);
    t.tf_connect(1, 2);
    Recorder rec;
    uint64_t three = 0;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == t[2]) {
            auto u = update();
            dag_walk_update_add_vertex(u.get(), "3", nullptr, 0, nullptr, nullptr);
            dag_ids *ids = nullptr;
            EXPECT_EQ(dag_walk_apply(w, u.get(), &ids, nullptr), DAG_OK);
            three = take_ids(ids).at(0);
            // The same vertex again: names are unique, so it is refused.
            expect_error(DAG_E_DUPLICATE_NAME, [&](dag_error **e) { return dag_walk_apply(w, u.get(), nullptr, e); });
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1], t[2], three}));
}

TEST(TerraformWalker, RemoveVertex) {
    TfGraph t;
    t.add_all(2);
    t.tf_connect(1, 2);
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == t[1]) {
            auto u = update();
            dag_walk_update_remove_vertex(u.get(), t[2], nullptr);
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1]}));
}

TEST(TerraformWalker, NewEdge) {
    TfGraph t;
    t.add_all(2);
    t.tf_connect(1, 2);
    Recorder rec;
    uint64_t three = 0;
    rec.body = [&](dag_walker *w, uint64_t v, const char **) {
        if (v == t[1]) {
            auto u = update();
            uint64_t p = 0;
            dag_walk_update_add_vertex(u.get(), "3", nullptr, 0, &p, nullptr);
            dag_walk_update_connect(u.get(), t[2], p, nullptr);  // Terraform: Connect(3, 2)
            dag_ids *ids = nullptr;
            EXPECT_EQ(dag_walk_apply(w, u.get(), &ids, nullptr), DAG_OK);
            three = take_ids(ids).at(0);
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1], three, t[2]}));
}

// Terraform's tolerant vertex is libdag's always-run flag. One difference, as
// the issue specifies: Terraform still skips the tolerant vertex's
// dependents; here its own (successful) result lets vertex 4 run.
TEST(TerraformWalker, TolerantVertex) {
    TfGraph t;
    t.add_all(4);  // 3 plays Terraform's tolerant "t"
    t.tf_connect(1, 2);
    t.tf_connect(2, 3);
    t.tf_connect(3, 4);
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **) { return v == t[2] ? DAG_WALK_FAILED : DAG_WALK_OK; };
    auto o = options();
    uint64_t tolerant = t[3];
    o.always_run = &tolerant;
    o.always_run_count = 1;
    ReportPtr report;
    EXPECT_EQ(run_walk(t.g.get(), rec, o, report), DAG_E_WALK_FAILED);
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1], t[2], t[3], t[4]}));
    EXPECT_EQ(status_of(report.get(), t[2]), DAG_VERTEX_FAILED);
    EXPECT_EQ(status_of(report.get(), t[3]), DAG_VERTEX_OK);
}

TEST(TerraformWalker, RemoveEdge) {
    TfGraph t;
    t.add_all(3);
    t.tf_connect(1, 2);
    t.tf_connect(1, 3);
    t.tf_connect(3, 2);
    // 1 removes the edge that forces 3 before 2; then 3 waits for a gate only
    // 2 opens. Without a working edge removal, 3 times out and fails.
    std::mutex mu;
    std::condition_variable cv;
    bool gate = false;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
        if (v == t[1]) {
            auto u = update();
            dag_walk_update_disconnect(u.get(), t[2], t[3], nullptr);
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
        } else if (v == t[2]) {
            std::lock_guard<std::mutex> lk(mu);
            gate = true;
            cv.notify_all();
        } else if (v == t[3]) {
            std::unique_lock<std::mutex> lk(mu);
            // A generous limit: only a broken edge removal should reach it.
            if (!cv.wait_for(lk, gate_limit, [&] { return gate; })) {
                *msg = "timeout 3 waiting for 2";
                return DAG_WALK_FAILED;
            }
        }
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
    auto order = rec.ran();
    ASSERT_EQ(order.size(), 3u);
    EXPECT_EQ(order[0], t[1]);
}

}  // namespace
