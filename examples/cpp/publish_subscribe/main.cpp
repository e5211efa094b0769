// publish_subscribe in C++17: the same velocity command as examples/c and examples/rust,
// through the header-only wrapper (RAII handles, exceptions with nerve's text).
//   cmake -S examples/cpp/publish_subscribe -B build -DCMAKE_PREFIX_PATH=<nerve's prefix>
//   cmake --build build && ./build/publish_subscribe
#include <chrono>
#include <cstdio>

#include "nerve/msgs.hpp"  // nerve's standard messages: nerve::msgs::CmdVel, Imu, Image, ...

using nerve::msgs::CmdVel;

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
