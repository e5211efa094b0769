// The C++17 wrapper as a C++ node uses it: fixed structs and chunked frames through RAII
// handles, optional receives, exceptions with nerve's text, and the noexcept twins.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "nerve.hpp"

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
    std::printf("wrapper: fixed, chunked, services and errors checked\n");
    return 0;
}
