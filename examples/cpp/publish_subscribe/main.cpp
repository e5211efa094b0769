// publish_subscribe in C++17: the same velocity command as examples/c and examples/rust,
// through the header-only wrapper (RAII handles, exceptions with nerve's text).
//   cmake -S examples/cpp/publish_subscribe -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
//   cmake --build build && ./build/publish_subscribe
#include <chrono>
#include <cstdio>

#include "nerve.hpp"

// Laid out as nerve's CmdVel; its layout hash is the standard type's (nerve_standard_type).
struct CmdVel {
    uint64_t stamp_ns;
    float linear;   // m/s
    float angular;  // rad/s
};

template <>
struct nerve::TypeOf<CmdVel> {
    using header_type = CmdVel;
    using elem_type = uint8_t;
    static nerve_type type() {
        nerve_type t{};
        detail::check(nerve_standard_type("CmdVel", &t));
        return t;
    }
};

int main() {
    using namespace std::chrono_literals;
    try {
        nerve::Topic<CmdVel> topic("robot/cmd_vel", nerve::Options().reliable());
        auto pub = topic.publisher();
        auto sub = topic.subscriber();
        for (uint64_t i = 0; i < 10; i++) {
            pub.send(CmdVel{i, 0.1f * float(i), 0.0f});
            if (auto got = sub.recv_for(1s)) {
                std::printf("cmd_vel %llu: linear %.1f m/s\n", (unsigned long long)got->stamp_ns,
                            got->linear);
            }
        }
    } catch (const nerve::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
