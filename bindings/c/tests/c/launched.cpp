// A C++ node for bindings/python/tests/test_launch.py: publishes nerve's CmdVel on
// `cmd_vel` (its namespace and remap come from `nerve launch`, through the C library's name
// resolution) at 50 Hz until SIGINT or SIGTERM.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "nerve/msgs.hpp"

namespace {
std::atomic<bool> stop{false};
extern "C" void on_signal(int) { stop = true; }
}  // namespace

int main() {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    try {
        nerve::Topic<nerve::msgs::CmdVel> topic("cmd_vel");
        auto pub = topic.publisher();
        std::printf("cpp node running\n");
        std::fflush(stdout);
        for (uint64_t i = 0; !stop; i++) {
            pub.send(nerve::msgs::CmdVel{i, 0.75f, -0.5f});
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    } catch (const nerve::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    std::printf("cpp node stopped\n");
    return 0;
}
