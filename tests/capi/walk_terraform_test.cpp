// Terraform's internal/dag/walk_test.go, and the walk tests of its
// dag_test.go, ported to the C API.
//
// Terraform's bare Walker runs an edge's source before its target; libdag's
// dag_connect(a, b) means "a depends on b" (b first), so each edge of the
// walk_test.go ports is written the other way round to keep Terraform's
// expected orders. AcyclicGraph.Walk reverses its Walker, which makes its
// edges mean what dag_connect's do, so those are written as they are. Terraform
// feeds a changed graph to Walker.Update; here changes go through
// dag_walk_apply, and a walk ends when its last vertex finished (there is no
// later Update to wait for), so "add a vertex after 2 ran" happens inside 2's
// callback.
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
    // Terraform's Connect(from, to) for AcyclicGraph.Walk: to runs first.
    void acyclic_connect(int from, int to) { EXPECT_EQ(dag_connect(g.get(), v[from], v[to], nullptr), DAG_OK); }
};

// Terraform's visit list: a vertex is appended at the end of its callback, so
// the list gives the order in which callbacks finished their work, unlike
// Recorder's, which gives the order they started in.
class Visits {
public:
    void add(uint64_t v) {
        std::lock_guard<std::mutex> lk(mu_);
        order_.push_back(v);
    }
    std::vector<uint64_t> get() {
        std::lock_guard<std::mutex> lk(mu_);
        return order_;
    }

private:
    std::mutex mu_;
    std::vector<uint64_t> order_;
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

// Terraform's tolerant vertex is libdag's always-run flag, except that
// Terraform still skips a tolerant vertex's dependents: dag.h's always_run
// says the vertex's "own result then decides their dependents", so 3's
// success lets 4 run.
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
    // The graph forces 1, 3, 2 until 1 removes the edge that puts 3 before 2.
    // 3 then waits for 2 to have recorded its visit, so the order Terraform
    // expects, 1, 2, 3, is forced by the callbacks alone; a removal that did
    // not take leaves 3 and 2 waiting for each other until 3's wait gives up.
    Latch two_visited;
    Visits visits;
    Recorder rec;
    rec.body = [&](dag_walker *w, uint64_t v, const char **msg) {
        if (v == t[1]) {
            auto u = update();
            dag_walk_update_disconnect(u.get(), t[2], t[3], nullptr);
            EXPECT_EQ(dag_walk_apply(w, u.get(), nullptr, nullptr), DAG_OK);
        } else if (v == t[3] && !two_visited.wait()) {
            *msg = "timeout 3 waiting for 2";
            return DAG_WALK_FAILED;
        }
        visits.add(v);
        if (v == t[2]) two_visited.set();
        return DAG_WALK_OK;
    };
    ReportPtr report;
    ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
    EXPECT_EQ(visits.get(), (std::vector<uint64_t>{t[1], t[2], t[3]}));
    auto started = rec.ran();
    ASSERT_EQ(started.size(), 3u);
    EXPECT_EQ(started[0], t[1]);
}

// Terraform accepts 1, 2, 3 and 2, 1, 3: 1 and 2 are independent and 3 waits
// for both. Each of the two is forced in turn by making the other vertex wait
// for the first one's visit, so both must be possible and each is exact.
TEST(TerraformAcyclicGraph, Walk) {
    for (int first : {1, 2}) {
        SCOPED_TRACE("vertex " + std::to_string(first) + " first");
        const int second = 3 - first;
        TfGraph t;
        t.add_all(3);
        t.acyclic_connect(3, 2);
        t.acyclic_connect(3, 1);
        Latch first_visited;
        Visits visits;
        Recorder rec;
        rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
            if (v == t[second] && !first_visited.wait()) {
                *msg = "timeout waiting for the first vertex";
                return DAG_WALK_FAILED;
            }
            visits.add(v);
            if (v == t[first]) first_visited.set();
            return DAG_WALK_OK;
        };
        ReportPtr report;
        ASSERT_EQ(run_walk(t.g.get(), rec, options(), report), DAG_OK);
        EXPECT_EQ(visits.get(), (std::vector<uint64_t>{t[first], t[second], t[3]}));
        auto started = rec.ran();
        ASSERT_EQ(started.size(), 3u);
        EXPECT_EQ(started[2], t[3]);
        EXPECT_EQ(dag_walk_report_count(report.get(), DAG_VERTEX_OK), 3u);
    }
}

// A chain 1 <- 2 <- 3 <- 4 where 2 fails: Terraform only requires an error
// and the visits [1]; the report also has to say that 2 failed with its own
// message and that 3 and 4 were skipped because of it, never started.
TEST(TerraformAcyclicGraph, WalkError) {
    TfGraph t;
    t.add_all(4);
    t.acyclic_connect(4, 3);
    t.acyclic_connect(3, 2);
    t.acyclic_connect(2, 1);
    Visits visits;
    Recorder rec;
    rec.body = [&](dag_walker *, uint64_t v, const char **msg) {
        if (v == t[2]) {
            *msg = "error";
            return DAG_WALK_FAILED;
        }
        visits.add(v);
        return DAG_WALK_OK;
    };
    dag_walk_report *r = nullptr;
    std::string err = expect_error(DAG_E_WALK_FAILED, [&](dag_error **e) {
        auto o = options();
        return dag_walk(t.g.get(), record_cb, &rec, &o, &r, e);
    });
    ReportPtr report(r);
    ASSERT_TRUE(report);
    EXPECT_NE(err.find("vertex 2 failed: error"), std::string::npos) << err;
    EXPECT_EQ(visits.get(), (std::vector<uint64_t>{t[1]}));
    EXPECT_EQ(rec.ran(), (std::vector<uint64_t>{t[1], t[2]}));
    EXPECT_EQ(status_of(r, t[1]), DAG_VERTEX_OK);
    EXPECT_EQ(status_of(r, t[2]), DAG_VERTEX_FAILED);
    EXPECT_EQ(message_of(r, t[2]), "error");
    for (int i : {3, 4}) {
        EXPECT_EQ(status_of(r, t[i]), DAG_VERTEX_UPSTREAM_FAILED) << i;
        EXPECT_EQ(message_of(r, t[i]), "") << i;
    }
    const char *first = nullptr;
    EXPECT_EQ(dag_walk_report_first_error(r, &first), t[2]);
    EXPECT_STREQ(first, "vertex 2 failed: error");
}

}  // namespace
