// The FFI-overhead ping-pong in C++17 (nerve.hpp): the same protocol and checks as
// benches/c/pingpong.c, through the header-only wrapper (RAII, std::optional receives).
//   pingpong ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>
//   pingpong loop <prefix> CmdVel|Imu <batches> <per_batch> <core>   (send+recv in one thread)
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nerve/msgs.hpp"

struct Ping16 {
    uint64_t seq;
    uint64_t check;
};
NERVE_MESSAGE(Ping16, "bench/Ping16", NERVE_FIELD(Ping16, seq, "u64"), NERVE_FIELD(Ping16, check, "u64"));

struct BlobHeader {
    uint64_t seq;
    uint64_t len;
};
NERVE_CHUNKED_MESSAGE(BlobHeader, uint8_t, "bench/Blob", "u8", NERVE_FIELD(BlobHeader, seq, "u64"),
                      NERVE_FIELD(BlobHeader, len, "u64"));
using Blob = nerve::Chunked<BlobHeader, uint8_t>;

namespace {

constexpr uint64_t STOP = UINT64_MAX;
constexpr uint64_t CHECK_WORD = 0x5555555555555555ull;
constexpr auto TIMEOUT = std::chrono::seconds(5);

[[noreturn]] void die(const char *what) {
    std::fprintf(stderr, "pingpong.cpp: %s\n", what);
    std::exit(1);
}

uint64_t now_ns() {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

/// The two endpoints of one side, for message type T.
template <class T>
struct Ends {
    Ends(const std::string &prefix, const char *out, const char *in, std::size_t bytes)
        : tout(prefix + "/" + out, options(bytes)), tin(prefix + "/" + in, options(bytes)),
          sub(tin.subscriber()), pub(tout.publisher()) {}
    static nerve::Options options(std::size_t bytes) {
        nerve::Options o;
        o.depth(4);
        if (bytes != 16) {
            o.max_message_bytes(bytes + 4096);
        }
        return o;
    }
    nerve::Topic<T> tout, tin;
    nerve::Subscriber<T> sub;
    nerve::Publisher<T> pub;
};

void send(Ends<Ping16> &e, uint64_t seq, std::size_t) { e.pub.send(Ping16{seq, seq ^ CHECK_WORD}); }

void send(Ends<Blob> &e, uint64_t seq, std::size_t bytes) {
    auto loan = e.pub.loan(bytes);
    loan.header() = BlobHeader{seq, bytes};
    auto d = loan.data();
    for (std::size_t k = 0; k < 64; k++) {
        d[k] = uint8_t(seq + k);
        d[bytes - 64 + k] = uint8_t(seq + k + 1);
    }
    loan.send();
}

uint64_t recv(Ends<Ping16> &e, bool blocking, std::size_t) {
    uint64_t deadline = now_ns() + 5000000000ull;
    for (uint64_t spins = 0;; spins++) {
        auto m = blocking ? e.sub.recv_for(TIMEOUT) : e.sub.try_recv();
        if (m) {
            if (m->check != (m->seq ^ CHECK_WORD)) {
                die("a corrupt Ping16");
            }
            return m->seq;
        }
        if (blocking || (spins % 4096 == 0 && now_ns() > deadline)) {
            die("nothing for 5 s");
        }
    }
}

uint64_t recv(Ends<Blob> &e, bool blocking, std::size_t bytes) {
    uint64_t deadline = now_ns() + 5000000000ull;
    for (uint64_t spins = 0;; spins++) {
        auto s = blocking ? e.sub.recv_sample_for(TIMEOUT) : e.sub.try_sample();
        if (s) {
            uint64_t seq = s->header().seq;
            auto d = s->data();
            if (s->header().len != bytes || d.size() != bytes) {
                die("a Blob of the wrong length");
            }
            if (seq != STOP) {
                for (std::size_t k = 0; k < 64; k++) {
                    if (d[k] != uint8_t(seq + k) || d[bytes - 64 + k] != uint8_t(seq + k + 1)) {
                        die("a corrupt Blob");
                    }
                }
            }
            return seq;
        }
        if (blocking || (spins % 4096 == 0 && now_ns() > deadline)) {
            die("nothing for 5 s");
        }
    }
}

template <class T>
int run(bool ping, const std::string &prefix, std::size_t bytes, bool blocking, std::size_t samples,
        std::size_t warmup) {
    if (!ping) {
        Ends<T> e(prefix, "pong", "ping", bytes);
        std::printf("ready\n");
        std::fflush(stdout);
        for (;;) {
            uint64_t seq = recv(e, blocking, bytes);
            if (seq == STOP) {
                return 0;
            }
            send(e, seq, bytes);
        }
    }
    Ends<T> e(prefix, "ping", "pong", bytes);
    std::vector<uint64_t> out(samples);
    for (std::size_t i = 0; i < warmup + samples; i++) {
        uint64_t t0 = now_ns();
        send(e, i, bytes);
        if (recv(e, blocking, bytes) != i) {
            die("an echo out of order");
        }
        uint64_t t1 = now_ns();
        if (i >= warmup) {
            out[i - warmup] = (t1 - t0) / 2;
        }
    }
    send(e, STOP, bytes);
    std::string line = "samples";
    for (uint64_t v : out) {
        line += ' ';
        line += std::to_string(v);
    }
    std::puts(line.c_str());
    return 0;
}

/// The seed's send+recv in one thread: `per` of T per batch, each batch's mean ns.
template <class T, class Seq>
int loop(const std::string &prefix, std::size_t batches, std::size_t per, Seq seq) {
    nerve::Topic<T> topic(prefix + "/loop", nerve::Options().depth(16));
    auto pub = topic.publisher();
    auto sub = topic.subscriber();
    T m{};
    uint64_t i = 0;
    std::string line = "samples";
    for (std::size_t b = 0; b < batches; b++) {
        uint64_t t0 = now_ns();
        for (std::size_t k = 0; k < per; k++, i++) {
            seq(m) = i;
            pub.send(m);
            auto r = sub.try_recv();
            if (!r || seq(*r) != i) {
                die("send+recv lost a message");
            }
        }
        char v[32];
        std::snprintf(v, sizeof v, " %.2f", double(now_ns() - t0) / double(per));
        line += v;
    }
    std::puts(line.c_str());
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc == 7 && std::strcmp(argv[1], "loop") == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(std::atoi(argv[6]), &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) {
            std::perror("sched_setaffinity");
            return 1;
        }
        std::size_t batches = std::strtoull(argv[4], nullptr, 10), per = std::strtoull(argv[5], nullptr, 10);
        std::string message = argv[3];
        try {
            if (message == "CmdVel") {
                return loop<nerve::msgs::CmdVel>(argv[2], batches, per, [](auto &m) -> uint64_t & { return m.stamp_ns; });
            }
            if (message == "Imu") {
                return loop<nerve::msgs::Imu>(argv[2], batches, per, [](auto &m) -> uint64_t & { return m.header.seq; });
            }
        } catch (const nerve::Error &e) {
            std::fprintf(stderr, "pingpong.cpp: %s\n", e.what());
            return 1;
        }
        std::fprintf(stderr, "pingpong.cpp: %s: C++ has CmdVel and Imu here (no dynamic messages)\n", argv[3]);
        return 3;
    }
    if (argc != 8) {
        std::fprintf(stderr, "usage: pingpong ping|echo <prefix> <bytes> poll|blocking <samples> <warmup> <core>\n");
        return 2;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(std::atoi(argv[7]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        std::perror("sched_setaffinity");
        return 1;
    }
    bool ping = std::strcmp(argv[1], "ping") == 0;
    std::size_t bytes = std::strtoull(argv[3], nullptr, 10);
    bool blocking = std::strcmp(argv[4], "blocking") == 0;
    std::size_t samples = std::strtoull(argv[5], nullptr, 10), warmup = std::strtoull(argv[6], nullptr, 10);
    if (bytes != 16 && bytes < 128) {
        die("bytes is 16 or at least 128");
    }
    try {
        return bytes == 16 ? run<Ping16>(ping, argv[2], bytes, blocking, samples, warmup)
                           : run<Blob>(ping, argv[2], bytes, blocking, samples, warmup);
    } catch (const nerve::Error &e) {
        std::fprintf(stderr, "pingpong.cpp: %s\n", e.what());
        return 1;
    }
}
