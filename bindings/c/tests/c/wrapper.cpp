// The C++17 wrapper as a C++ node uses it: fixed structs and chunked frames through RAII
// handles, optional receives, exceptions with nerve's text, and the noexcept twins.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "nerve.hpp"
#include "nerve/node.hpp"

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            std::fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

struct Twist {
    double linear[3];
    double angular[3];
    uint64_t seq;
};
// Declared with its fields: described as Rust's #[derive(Message)] would describe it.
NERVE_MESSAGE(Twist, "test_cpp/Twist", NERVE_FIELD(Twist, linear, "f64[3]"),
              NERVE_FIELD(Twist, angular, "f64[3]"), NERVE_FIELD(Twist, seq, "u64"));

// By its layout hash alone (no description).
struct Other {
    uint32_t a;
};
NERVE_FIXED(Other, "test_cpp/Other", 0x0700000000000006ull);

struct FrameHeader {
    uint32_t width, height;
    uint64_t seq;
};
NERVE_CHUNKED_MESSAGE(FrameHeader, uint16_t, "test_cpp/Frame16", "u16",
                      NERVE_FIELD(FrameHeader, width, "u32"),
                      NERVE_FIELD(FrameHeader, height, "u32"), NERVE_FIELD(FrameHeader, seq, "u64"));
using Frame = nerve::Chunked<FrameHeader, uint16_t>;

int main() {
    using namespace std::chrono_literals;
    nerve::Topic<Twist> topic("test_cpp/cmd_vel", nerve::Options().reliable().depth(256));
    auto pub = topic.publisher();
    auto sub = topic.subscriber();
    CHECK(!sub.try_recv());
    CHECK(!sub.recv_for(1ms));
    for (uint64_t i = 0; i < 200; i++) {
        pub.send(Twist{{double(i), 0, 0}, {0, 0, -double(i)}, i});
    }
    for (uint64_t i = 0; i < 200; i++) {
        Twist t = sub.recv();
        CHECK(t.seq == i && t.linear[0] == double(i) && t.angular[2] == -double(i));
    }
    CHECK(sub.stats().received == 200);

    // Another type on the same topic: an exception with nerve's text, or a Status.
    bool threw = false;
    try {
        nerve::Topic<Other> wrong("test_cpp/cmd_vel");
    } catch (const nerve::Error &e) {
        threw = e.code() == NERVE_E_TYPE_MISMATCH && std::strstr(e.what(), "test_cpp/Twist") &&
                std::strstr(e.what(), "test_cpp/Other");
    }
    CHECK(threw);
    nerve::Status st;
    nerve::Topic<Other> wrong("test_cpp/cmd_vel", nerve::Options(), st);
    CHECK(!st && st.code == NERVE_E_TYPE_MISMATCH && st.message.find("test_cpp/Other") != std::string::npos);

    // Chunked frames, in place.
    nerve::Topic<Frame> frames("test_cpp/frames", nerve::Options().reliable().depth(4).max_message_bytes(4 << 20));
    auto fpub = frames.publisher();
    auto fsub = frames.subscriber();
    for (uint64_t i = 0; i < 10; i++) {
        auto loan = fpub.loan(640 * 480);
        loan.header() = FrameHeader{640, 480, i};
        auto px = loan.data();
        CHECK(px.size() == 640 * 480);
        for (std::size_t k = 0; k < px.size(); k++) {
            px[k] = uint16_t(k + i);
        }
        loan.send();
        auto s = fsub.recv_sample_for(1s);
        CHECK(s.has_value());
        CHECK(s->header().seq == i && s->header().width == 640);
        auto got = s->data();
        CHECK(got.size() == 640 * 480);
        for (std::size_t k = 0; k < got.size(); k++) {
            CHECK(got[k] == uint16_t(k + i));
        }
    }
    {
        auto unsent = fpub.loan(16);  // dropped unsent: the chunk goes back, nothing is published
    }
    CHECK(!fsub.try_sample());
    // Services: a lambda served on nerve's threads; its exception reaches the caller.
    {
        nerve::Server echo("test_cpp/echo", [](std::string_view req) {
            if (req == "throw") {
                throw std::runtime_error("asked to throw");
            }
            return std::string(req.rbegin(), req.rend());
        }, 2);
        nerve::Client client("test_cpp/echo");
        for (int i = 0; i < 100; i++) {
            std::string req = "call " + std::to_string(i);
            CHECK(client.call(req, 2s) == std::string(req.rbegin(), req.rend()));
        }
        bool refused = false;
        try {
            client.call("throw", 2s);
        } catch (const nerve::Error &e) {
            refused = e.code() == NERVE_E_HANDLER && std::strstr(e.what(), "asked to throw");
        }
        CHECK(refused);
    }
    bool no_server = false;
    try {
        nerve::Client("test_cpp/echo").call("x", 100ms);
    } catch (const nerve::Error &e) {
        no_server = e.code() == NERVE_E_NO_SERVER;
    }
    CHECK(no_server);
    // Callbacks on a thread of their own: every message, in order; a throwing callback is
    // counted and receiving goes on.
    {
        nerve::Topic<Twist> cb_topic("test_cpp/callbacks", nerve::Options().reliable().depth(256));
        std::mutex m;
        std::vector<uint64_t> seen;
        auto sub = cb_topic.subscribe([&](const Twist &t) {
            if (t.seq == 7) {
                throw std::runtime_error("seven");
            }
            std::lock_guard<std::mutex> g(m);
            seen.push_back(t.seq);
        });
        auto p = cb_topic.publisher();
        for (uint64_t i = 0; i < 100; i++) {
            p.send(Twist{{0, 0, 0}, {0, 0, 0}, i});
        }
        for (int tries = 0; tries < 200 && sub.handled() + sub.errors() < 100; tries++) {
            std::this_thread::sleep_for(10ms);
        }
        CHECK(sub.handled() == 99 && sub.errors() == 1 && sub.last_error() == "seven");
        std::lock_guard<std::mutex> g(m);
        CHECK(seen.size() == 99 && seen[6] == 6 && seen[7] == 8 && seen[98] == 99);
    }
    {
        nerve::Topic<Frame> cb_frames("test_cpp/cb_frames", nerve::Options().reliable().depth(4).max_message_bytes(1 << 20));
        std::atomic<uint64_t> sum{0};
        auto sub = cb_frames.subscribe([&](const nerve::Sample<FrameHeader, uint16_t> &s) {
            sum += s.header().seq + s.data()[1];
        });
        auto p = cb_frames.publisher();
        for (uint64_t i = 0; i < 3; i++) {
            auto loan = p.loan(2);
            loan.header() = FrameHeader{1, 2, i};
            loan.data()[1] = 10;
            loan.send();
            for (int tries = 0; tries < 200 && sub.handled() <= i; tries++) {
                std::this_thread::sleep_for(5ms);
            }
        }
        CHECK(sub.handled() == 3 && sum == 0 + 1 + 2 + 30);
    }
    // Parameters, served and read back through another client; the e-stop; the registry.
    {
        nerve::Parameters params("cpp_node");
        params.declare("gain", "0.5", 0.0, 1.0, "controller gain");
        params.declare("name", "left wheel");
        CHECK(params.get_f64("gain") == 0.5 && params.get_text("name") == "left wheel");
        nerve::ParamClient remote("cpp_node");
        remote.set("gain", "0.75", 2s);
        CHECK(params.get_f64("gain") == 0.75 && remote.get("gain", 2s) == "0.75");
        bool rejected = false;
        try {
            params.set("gain", "2.0");
        } catch (const nerve::Error &e) {
            rejected = e.code() == NERVE_E_PARAM_REJECTED && std::strstr(e.what(), "out of range");
        }
        CHECK(rejected);
        nerve::EStopListener estop;
        CHECK(!estop.wait_for(0ms));
        nerve::trigger_estop("test stop");
        auto why = estop.wait_for(1s);
        CHECK(why && *why == "test stop");
        nerve::Watch watch;
        bool seen = false;
        while (auto e = watch.next_for(100ms)) {
            seen = seen || (e->kind == NERVE_TOPIC_APPEARED && std::strcmp(e->topic, "test_cpp/frames") == 0);
        }
        CHECK(seen);
    }
    std::printf("wrapper: fixed, chunked, callbacks, services, parameters, e-stop, watch and errors checked\n");
    return 0;
}
